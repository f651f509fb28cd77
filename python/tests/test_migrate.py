"""Legacy snapshot rows migrated through the Python API on a real sqlite3 file, audited, then
undone byte for byte; and the SessionRunConfig value the session store reads and writes."""

import json
import sqlite3

import pytest

import tool_intent

# An old row stored the whole default list of the embedded registry's first version
# (tests/migrate.rs calls it V1); a hand-pick stored a real choice.
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
