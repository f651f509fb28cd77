"""Legacy snapshot rows migrated through the Python API on a real sqlite3 file, audited, then
undone byte for byte; and the SessionRunConfig value the session store reads and writes."""

import inspect
import json
import sqlite3

import pytest

import tool_intent

# An old row stored the whole default list of the embedded registry's first version
# (bindings/cli/tests/migrate.rs calls it V1); a hand-pick stored a real choice.
V1 = ["read_file", "write_file", "edit_file", "shell", "grep", "glob", "tool_search",
      "playwright_browser", "enter_plan_mode", "exit_plan_mode"]


def make_db(path):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE sessions (tools_enabled INTEGER, tools_override TEXT)")
    rows = [
        (None, json.dumps(list(reversed(V1)))),          # a snapshot of the defaults
        (1, json.dumps(V1 + ["web_search"])),            # defaults + web search
        (None, json.dumps(["grep", "read_file"])),       # a real hand-pick
        (None, None),                                    # follows the defaults already
    ]
    db.executemany("INSERT INTO sessions VALUES (?, ?)", rows)
    db.commit()
    before = db.execute("SELECT rowid, tools_enabled, tools_override FROM sessions").fetchall()
    db.close()
    return before


def test_migrate_audit_and_undo_round_trip(tmp_path):
    path = tmp_path / "sessions.db"
    before = make_db(path)
    found = tool_intent.audit(str(path))
    assert [r["rowid"] for r in found] == [1, 2]
    dry = tool_intent.migrate(str(path), dry_run=True)
    assert dry["dry_run"] is True and sum(dry["snapshots_rewritten"].values()) == 2
    report = tool_intent.migrate(str(path), table="sessions")
    assert sum(report["snapshots_rewritten"].values()) == 2
    assert report["hand_picks_kept"] == 1
    assert report["snapshots_rewritten"] == {"default_tools@2025-03": 1, "default_tools@2025-03+web_search": 1}
    db = sqlite3.connect(path)
    rows = db.execute("SELECT tools_override FROM sessions ORDER BY rowid").fetchall()
    db.close()
    # Snapshots became intents; the hand-pick and the NULL row are byte-identical.
    assert [r[0] for r in rows] == [
        '{"enabled":true}',
        '{"enabled":true,"web_search":true}',
        '["grep", "read_file"]',
        None,
    ]
    assert tool_intent.audit(str(path)) == []
    restored = tool_intent.undo(str(path))
    assert restored["rows_restored"] == 2
    db = sqlite3.connect(path)
    after = db.execute("SELECT rowid, tools_enabled, tools_override FROM sessions").fetchall()
    db.close()
    assert after == before


def test_the_defaults_help_shows_are_the_ones_a_run_takes(tmp_path):
    # The binding holds no default of its own: an option left out, or None, is the core's
    # (MigrateOptions::default, AuditOptions::default); help() and the stubs show those.
    path = tmp_path / "sessions.db"
    make_db(path)
    for call in (tool_intent.migrate, tool_intent.undo, tool_intent.audit):
        assert inspect.signature(call).parameters["table"].default == "sessions", call.__name__
    for call in (tool_intent.migrate, tool_intent.undo):
        assert inspect.signature(call).parameters["dry_run"].default is False, call.__name__
    left_out = tool_intent.migrate(str(path))
    assert (left_out["table"], left_out["dry_run"]) == ("sessions", False)
    assert sum(left_out["snapshots_rewritten"].values()) == 2
    assert tool_intent.audit(str(path), table=None) == []
    undone = tool_intent.undo(str(path), table=None, dry_run=None)
    assert (undone["table"], undone["dry_run"], undone["rows_restored"]) == ("sessions", False, 2)


def test_undo_leaves_rows_written_after_the_migration(tmp_path):
    path = tmp_path / "sessions.db"
    make_db(path)
    tool_intent.migrate(str(path))
    db = sqlite3.connect(path)
    db.execute("""UPDATE sessions SET tools_override = '["shell"]' WHERE rowid = 1""")
    db.commit()
    db.close()
    dry = tool_intent.undo(str(path), dry_run=True)
    report = tool_intent.undo(str(path), batch_size=1)
    assert dry["rows_restored"] == report["rows_restored"] == 1
    assert report["rows_not_restored"] == [{"rowid": 1, "reason": "changed", "columns": ["tools_override"]}]
    db = sqlite3.connect(path)
    rows = db.execute("SELECT tools_override FROM sessions ORDER BY rowid").fetchall()
    db.close()
    assert rows[0][0] == '["shell"]', "the application's later write survives the undo"
    assert rows[1][0] != '{"enabled":true,"web_search":true}', "the untouched row is restored"


def test_migrate_errors_are_tool_intent_errors(tmp_path):
    with pytest.raises(tool_intent.ToolIntentError) as e:
        tool_intent.migrate(str(tmp_path / "none.db"), table="no table; drop")
    assert e.value.code in ("invalid_argument", "database")


def test_session_run_config_round_trips_through_a_row():
    intent = tool_intent.build_intent(web_search=True, disabled=["memory"])
    config = tool_intent.SessionRunConfig.from_override(intent)
    row = config.to_row()
    assert set(row) == {"tools_enabled", "tools_override", "web_search", "toolset"}
    assert isinstance(row["tools_override"], str)  # JSON text, ready for the TEXT column
    again = tool_intent.SessionRunConfig.from_row(row)
    assert again == config
    assert again.web_search is True
    assert again.to_override() == intent
    # An old row without the newer columns reads back as None: follow the defaults.
    old = tool_intent.SessionRunConfig.from_row({"tools_enabled": None, "tools_override": None})
    assert old.web_search is None and old.tools_override is None
    assert "SessionRunConfig(" in repr(old)


@pytest.mark.parametrize("bad", [float("nan"), {"x": object()}, "\x00" * 3, [1, 2]])
def test_hostile_input_raises_never_crashes(bad):
    with pytest.raises((tool_intent.ToolIntentError, TypeError)):
        tool_intent.SessionRunConfig.from_row(bad)


def psql(where, sql):
    import subprocess

    base, port = where
    out = subprocess.run(["psql", "-h", str(base), "-p", port, "-U", "postgres", "-d", "postgres",
                          "-At", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True, capture_output=True, text=True)
    return out.stdout


def test_migrate_audit_and_undo_on_postgres_give_the_sqlite_results(tmp_path, postgres_url):
    url, where = postgres_url
    path = tmp_path / "sessions.db"
    make_db(path)
    psql(where, "DROP TABLE IF EXISTS sessions, sessions__tool_intent_backup; CREATE TABLE sessions (id serial PRIMARY KEY, tools_enabled integer, tools_override text)")
    db = sqlite3.connect(path)
    for enabled, value in db.execute("SELECT tools_enabled, tools_override FROM sessions ORDER BY rowid"):
        literal = "NULL" if value is None else "'" + value.replace("'", "''") + "'"
        psql(where, f"INSERT INTO sessions (tools_enabled, tools_override) VALUES ({'NULL' if enabled is None else enabled}, {literal})")
    db.close()
    before = psql(where, "SELECT id, tools_enabled, tools_override FROM sessions ORDER BY id")
    assert [r["rowid"] for r in tool_intent.audit(url)] == [r["rowid"] for r in tool_intent.audit(str(path))]
    on_pg = tool_intent.migrate(url, batch_size=2)
    on_sqlite = tool_intent.migrate(str(path))
    for key in ("rows_read", "snapshots_rewritten", "hand_picks_kept", "null_rows", "columns_added"):
        assert on_pg[key] == on_sqlite[key], key
    assert on_pg["batches"] == 1 and on_pg["rows_changed_concurrently"] == []
    assert psql(where, "SELECT tools_override FROM sessions ORDER BY id LIMIT 1").strip() == '{"enabled":true}'
    assert tool_intent.undo(url)["rows_restored"] == 2
    assert psql(where, "SELECT id, tools_enabled, tools_override FROM sessions ORDER BY id") == before


def make_big_db(path, rows):
    """`rows` rows, every other one a snapshot of the defaults."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE sessions (id INTEGER PRIMARY KEY, tools_enabled INTEGER, tools_override TEXT)")
    db.executemany("INSERT INTO sessions (tools_enabled, tools_override) VALUES (?, ?)",
                   [(None, json.dumps(V1 if k % 2 == 0 else ["grep"])) for k in range(rows)])
    db.commit()
    before = db.execute("SELECT * FROM sessions ORDER BY id").fetchall()
    db.close()
    return before


def dump(path):
    db = sqlite3.connect(path)
    rows = db.execute("SELECT id, tools_enabled, tools_override FROM sessions ORDER BY id").fetchall()
    db.close()
    return rows


def test_migrate_reports_progress_and_an_exception_from_it_stops_the_run(tmp_path):
    path = str(tmp_path / "sessions.db")
    before = make_big_db(path, 1_000)
    seen = []
    report = tool_intent.migrate(path, dry_run=True, progress=lambda done, total: seen.append((done, total)))
    assert report["rows_read"] == 1_000
    assert len(seen) == 100 and seen[-1] == (1_000, 1_000), seen[-3:]
    assert all(a[0] < b[0] for a, b in zip(seen, seen[1:])), "done only grows"

    class Stop(Exception):
        pass

    def stop_at_half(done, total):
        if done >= total // 2:
            raise Stop(done)

    # One transaction (SQLite's default): the exception as it was raised, and nothing changed.
    with pytest.raises(Stop) as raised:
        tool_intent.migrate(path, progress=stop_at_half)
    assert raised.value.args == (500,)
    assert dump(path) == before
    # Batches of 100: the batches committed before row 500 stay; the next run does the rest.
    with pytest.raises(Stop):
        tool_intent.migrate(path, batch_size=100, progress=stop_at_half)
    rewritten = [row for row, old in zip(dump(path), before) if row != old]
    assert {row[0] for row in rewritten} == set(range(1, 401, 2)), "batches 1..4 committed"
    rest = tool_intent.migrate(path)
    assert sum(rest["snapshots_rewritten"].values()) == 300
    assert tool_intent.audit(path) == []

    # An undo counts the backed-up rows and stops the same way.
    migrated = dump(path)
    seen.clear()
    with pytest.raises(Stop):
        tool_intent.undo(path, batch_size=100, progress=lambda done, total: (seen.append(total), stop_at_half(done, total)))
    assert set(seen) == {500}, "the 500 snapshot rows were backed up"
    restored = [row for row, old in zip(dump(path), migrated) if row != old]
    assert len(restored) == 200, "batches 1 and 2 of the backup restored"
    tool_intent.undo(path)
    assert dump(path) == before


def test_ctrl_c_stops_a_migration_without_a_progress_function(tmp_path):
    # SIGINT lands while the run holds no GIL; the run checks for it every 1% of the rows.
    import os
    import signal
    import threading
    import time

    path = str(tmp_path / "sessions.db")
    before = make_big_db(path, 100_000)
    started = time.monotonic()
    tool_intent.migrate(path, dry_run=True)
    took = time.monotonic() - started
    timer = threading.Timer(took / 4, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            tool_intent.migrate(path)
    finally:
        timer.cancel()
    assert dump(path) == before
