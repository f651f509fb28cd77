"""SharedRegistry: registry versions in a store the server processes share (a SQLite file, or
PostgreSQL). A turn keeps its bytes whichever process serves it; a session only moves forward;
an unknown stamp is an error naming it."""

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import tool_intent

ROOT = Path(__file__).resolve().parents[2]
GITHUB = (ROOT / "tests/data/mcp/github.json").read_text()
MEMORY = (ROOT / "tests/data/mcp/memory.json").read_text()


def sent(shared, state):
    """What a request of the turn sends about tools: the array and the catalog text."""
    plan = shared.turn(state=state).plan()
    return plan.payload + "\n" + plan.catalog_text


def test_a_turn_keeps_its_bytes_on_another_process(tmp_path):
    store = str(tmp_path / "versions.sqlite")
    a = tool_intent.SharedRegistry(store, tool_intent.Registry.embedded())
    state = a.begin_turn()
    first = sent(a, state)
    row = a.change(lambda newest: newest.set_mcp_server("github", GITHUB)["registry"])
    assert row["sequence"] == 2
    # Another process, started after the change: the turn's next request sends the same bytes.
    script = (
        "import json, sys, tool_intent\n"
        "shared = tool_intent.SharedRegistry(sys.argv[1], tool_intent.Registry.embedded())\n"
        "plan = shared.turn(state=json.loads(sys.argv[2])).plan()\n"
        "print(json.dumps({'sent': plan.payload + '\\n' + plan.catalog_text, 'sequence': shared.sequence}))\n"
    )
    out = subprocess.run([sys.executable, "-c", script, store, json.dumps(state)],
                         check=True, capture_output=True, text=True)
    other = json.loads(out.stdout)
    assert other["sequence"] == 2
    assert other["sent"] == first
    # The next turn moves forward, on either process.
    b = tool_intent.SharedRegistry(store, tool_intent.Registry.embedded())
    assert b.begin_turn(state)["registry"] == a.current.fingerprint()
    assert sent(b, b.begin_turn(state)) != first


def test_concurrent_changes_are_kept_in_one_order_and_followed(tmp_path):
    store = str(tmp_path / "versions.sqlite")
    a = tool_intent.SharedRegistry(store, tool_intent.Registry.embedded())
    b = tool_intent.SharedRegistry(store, tool_intent.Registry.embedded())
    a.change(lambda r: r.set_mcp_server("github", GITHUB)["registry"])
    # b has not followed: its change is made again on top of a's.
    row = b.change(lambda r: r.set_mcp_server("memory", MEMORY)["registry"])
    assert row["sequence"] == 3
    names = [t["name"] for t in b.current.tool_infos()]
    assert any(n.startswith("mcp__github__") for n in names)
    assert any(n.startswith("mcp__memory__") for n in names)
    assert a.follow()["sequence"] == 3
    assert a.follow() is None
    assert [v["sequence"] for v in a.versions()] == [1, 2, 3]


def test_a_failing_change_raises_its_own_error(tmp_path):
    shared = tool_intent.SharedRegistry(str(tmp_path / "v.sqlite"), tool_intent.Registry.embedded())

    def broken(newest):
        raise KeyError("no such server")

    with pytest.raises(KeyError):
        shared.change(broken)
    # What the function returns is checked as an argument is: an error naming `change`.
    with pytest.raises(tool_intent.ToolIntentError) as e:
        shared.change(lambda newest: "not a registry")
    assert (e.value.code, e.value.argument) == ("invalid_argument", "change")
    assert shared.sequence == 1


def test_a_change_function_calling_its_own_shared_registry_is_refused_not_a_hang(tmp_path):
    """The change function runs under the SharedRegistry's lock: a call on that registry from
    inside it would wait for itself for ever. It raises instead (the change is not made), and
    another SharedRegistry may still be used from inside."""
    shared = tool_intent.SharedRegistry(str(tmp_path / "v.sqlite"), tool_intent.Registry.embedded())
    other = tool_intent.SharedRegistry(str(tmp_path / "w.sqlite"), tool_intent.Registry.embedded())
    calls = {
        "sequence": lambda: shared.sequence,
        "current": lambda: shared.current,
        "begin_turn": lambda: shared.begin_turn(),
        "change": lambda: shared.change(lambda r: r),
    }
    for name, call in calls.items():
        outcome = []

        def change(newest):
            call()
            return newest.set_mcp_server("github", GITHUB)["registry"]

        def run():
            try:
                shared.change(change)
                outcome.append("changed")
            except tool_intent.ToolIntentError as e:
                outcome.append((e.code, e.argument))

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(timeout=20)
        assert not worker.is_alive(), f"{name} from inside the change function hangs"
        assert outcome == [("invalid_argument", "change")], name
        assert shared.sequence == 1
    # Another registry is no trouble, and after the refusals this one changes as before.
    row = shared.change(lambda newest: (other.sequence, newest.set_mcp_server("memory", MEMORY)["registry"])[1])
    assert row["sequence"] == 2


def test_a_change_waiting_for_the_store_lets_the_other_threads_run(tmp_path):
    """A change waits for the store with the GIL released, as every other call does: here
    SQLite waits for another process's write. (It held the GIL for the whole change, so every
    thread of the process stopped for as long as the store took, up to SQLite's 10 s.) The
    writer is another process: in this one, Python's sqlite3 is another copy of SQLite, whose
    locks tool-intent's own SQLite does not see (docs/fleet.md)."""
    path = tmp_path / "v.sqlite"
    shared = tool_intent.SharedRegistry(str(path), tool_intent.Registry.embedded())
    writer = subprocess.Popen(
        [sys.executable, "-c",
         "import sqlite3, sys\n"
         "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
         "db.execute('BEGIN IMMEDIATE')\n"
         "print('writing', flush=True)\n"
         "sys.stdin.readline()\n"
         "db.execute('ROLLBACK')\n",
         str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert writer.stdout.readline() == "writing\n"
    rows = []
    worker = threading.Thread(
        target=lambda: rows.append(shared.change(lambda r: r.set_mcp_server("github", GITHUB)["registry"])))
    worker.start()
    started = time.monotonic()
    time.sleep(0.3)  # the change is waiting for the write lock by now
    slept = time.monotonic() - started
    writer.communicate("done\n", timeout=30)
    worker.join(timeout=30)
    assert slept < 3, f"a 0.3 s sleep took {slept:.1f} s: the change held the GIL while it waited"
    assert [row["sequence"] for row in rows] == [2]


def test_unknown_stamps_and_bad_arguments_are_errors_by_name(tmp_path):
    shared = tool_intent.SharedRegistry(str(tmp_path / "v.sqlite"), tool_intent.Registry.embedded())
    state = shared.begin_turn()
    state["registry"] = "sha256:" + "0" * 64
    with pytest.raises(tool_intent.ToolIntentError) as e:
        shared.turn(state=state)
    assert e.value.code == "unknown_version" and "0" * 64 in str(e.value)
    with pytest.raises(tool_intent.ToolIntentError) as e:
        tool_intent.SharedRegistry(3, tool_intent.Registry.embedded())
    assert e.value.argument == "store"
    with pytest.raises(tool_intent.ToolIntentError) as e:
        shared.gc(keep_hours=-1)
    assert e.value.argument == "keep_hours"
    with pytest.raises(tool_intent.ToolIntentError) as e:
        shared.turn(state=None, nope=1)
    assert e.value.argument == "options"
    with pytest.raises(tool_intent.ToolIntentError) as e:
        tool_intent.SharedRegistry(str(tmp_path / "missing-dir" / "v.sqlite"), tool_intent.Registry.embedded())
    assert e.value.code == "store_unavailable"


def test_a_spec_meant_for_another_database_is_refused_not_made_a_file(tmp_path, monkeypatch):
    # Read as a path, a libpq key=value string would be a new SQLite file in the working
    # directory, shared by no other machine.
    monkeypatch.chdir(tmp_path)
    for spec in ["host=db.internal dbname=tools", "mysql://db/tools", "sqlite:///tools.db", ""]:
        with pytest.raises(tool_intent.ToolIntentError) as e:
            tool_intent.SharedRegistry(spec, tool_intent.Registry.embedded())
        assert (e.value.code, e.value.argument) == ("invalid_argument", "store"), spec
        with pytest.raises(tool_intent.ToolIntentError) as e:
            tool_intent.audit(spec)
        assert (e.value.code, e.value.argument) == ("invalid_argument", "db"), spec
    assert list(tmp_path.iterdir()) == []


def test_gc_and_a_removed_version(tmp_path):
    shared = tool_intent.SharedRegistry(str(tmp_path / "v.sqlite"), tool_intent.Registry.embedded())
    old = shared.begin_turn()
    shared.turn(state=old).plan()
    shared.change(lambda r: r.set_mcp_server("github", GITHUB)["registry"])
    # The version a turn was planned on says when; the new one has had none.
    used = [v["used_ms"] for v in shared.versions()]
    assert isinstance(used[0], int) and used[0] > 0 and used[1] is None
    report = shared.gc(keep_newest=1, keep_hours=0)
    assert report["removed"] == [old["registry"]] and report["kept"] == 1
    fresh = tool_intent.SharedRegistry(str(tmp_path / "v.sqlite"), tool_intent.Registry.embedded())
    with pytest.raises(tool_intent.ToolIntentError) as e:
        fresh.turn(state=old)
    assert e.value.code == "unknown_version" and "removed by gc" in str(e.value)
    assert fresh.begin_turn(old)["registry"] == fresh.current.fingerprint()


def test_on_postgres(postgres_url):
    url, _ = postgres_url
    a = tool_intent.SharedRegistry(url, tool_intent.Registry.embedded())
    b = tool_intent.SharedRegistry(url, tool_intent.Registry.embedded())
    state = a.begin_turn()
    first = sent(a, state)
    a.change(lambda r: r.set_mcp_server("github", GITHUB)["registry"])
    assert sent(b, state) == first
    assert "postgres store" in repr(b)
