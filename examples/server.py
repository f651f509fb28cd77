"""The server side of the tool-toggle flow, natively through the Python binding.

A client sends its toggles; the server stores the *intent* in its sqlite3 session table (never
an expanded tool list); on every turn it reads the row, expands it against the live registry
and builds the provider request. A `tool_search` call mid-turn records the loads, dispatch
resolves names, and the next turn's array shows them. The admin part at the end runs the
legacy-snapshot audit, migration and undo on the same table.

    python3 -m venv .venv-py && .venv-py/bin/pip install maturin
    VIRTUAL_ENV=$PWD/.venv-py .venv-py/bin/maturin develop -m python/Cargo.toml
    .venv-py/bin/python examples/server.py

`scripts/test.sh` runs it, and type-checks it with mypy against the stubs
(python/tool_intent/_tool_intent.pyi): it calls every function of the module.
"""

import json
import sqlite3
import tempfile
from pathlib import Path
from typing import Any, Dict, List

import tool_intent
from tool_intent import Registry, SessionRunConfig, ToolIntentError, Turn

SYSTEM_PROMPT = "You are the coding agent of this workspace."


def save_toggles(db: sqlite3.Connection, session: int, message: str) -> None:
    """A client's toggles message ({"webSearch": true, "toolset": "research", ...})."""
    toggles: Dict[str, Any] = json.loads(message)
    intent = tool_intent.build_intent(
        web_search=toggles.get("webSearch"),
        toolset=toggles.get("toolset"),
        disabled=toggles.get("disabled"),
    )
    row = SessionRunConfig.from_override(intent).to_row()
    db.execute(
        "UPDATE sessions SET tools_enabled = ?, tools_override = ?, web_search = ?, toolset = ? WHERE id = ?",
        (row["tools_enabled"], row["tools_override"], row["web_search"], row["toolset"], session),
    )


def load_config(db: sqlite3.Connection, session: int) -> SessionRunConfig:
    cur = db.execute(
        "SELECT tools_enabled, tools_override, web_search, toolset FROM sessions WHERE id = ?", (session,)
    )
    columns = ["tools_enabled", "tools_override", "web_search", "toolset"]
    return SessionRunConfig.from_row(dict(zip(columns, cur.fetchone())))


def build_request(turn: Turn) -> Dict[str, Any]:
    """One provider request: tools as the exact bytes the core rendered, the catalog in the
    system prompt."""
    plan = turn.plan()
    system = SYSTEM_PROMPT + ("\n\n" + plan["catalog_text"] if plan["catalog_text"] else "")
    request: Dict[str, Any] = {"system": system, "fingerprint": plan["fingerprint"]}
    # A turn without tools has the payload "[]": send no tools field then (OpenAI Chat and
    # Bedrock Converse refuse an empty one; docs/providers.md, "A turn without tools").
    if plan["payload"] != "[]":
        request["tools"] = json.loads(plan["payload"])
    return request


def main() -> None:
    registry = Registry.embedded()
    github = Path(__file__).resolve().parents[1] / "tests/data/mcp/github.json"
    registry = registry.set_mcp_server("github", github.read_text())["registry"]
    assert len(registry) > 0 and isinstance(registry.warnings(), list)

    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE sessions (id INTEGER PRIMARY KEY, tools_enabled INTEGER, tools_override TEXT, web_search INTEGER, toolset TEXT)")
    db.execute("INSERT INTO sessions (id) VALUES (1)")
    save_toggles(db, 1, '{"webSearch": true, "disabled": ["memory"]}')
    config = load_config(db, 1)
    print("stored:", config.to_row())

    # Turn 1: one Turn per request (expanded once); the model searches for a deferred tool and
    # dispatch resolves it at once.
    state = registry.begin_turn(None)
    turn = registry.turn(config.to_override(), state=state, source="webui")
    first = build_request(turn)
    result = turn.search("create github issue")
    state = turn.state
    print("turn 1:", len(first["tools"]), "tools, tool_search ->", result["hits"][:3])
    tool = turn.resolve(result["hits"][0])
    print("dispatch:", tool["name"], "(at its server:", (tool.get("source_name") or tool["name"]) + ")")

    # Turn 2: the loads join the array at the turn boundary; the request is otherwise unchanged.
    state = registry.begin_turn(state)
    turn = registry.turn(config.to_override(), state=state, source="webui")
    second = build_request(turn)
    print("turn 2:", len(second["tools"]), "tools, fingerprint", second["fingerprint"][:19])
    budget = turn.budget()
    print("budget: array", budget["resident_tokens"], "tokens, catalog", budget["catalog_tokens"])

    # Turn 3: the user turns the tools off; the request carries no tools field at all.
    off = build_request(registry.turn({"enabled": False}, state=registry.begin_turn(state), source="webui"))
    assert "tools" not in off
    print("turn 3: tools off, no tools field")
    report = registry.cache_report({"turns": [{}, {"searches": ["select:memory"]}, {}]}, config.to_override())
    print("cache report:", report["rewrites"], "rewrite(s),", report["rewritten_tokens"], "tokens written again")
    print("tools:", len(registry.tool_infos()), "presets:", ", ".join(registry.toolset_names()),
          "sources:", ", ".join(registry.source_names()))
    assert registry.tool_definition("grep")["name"] == "grep"
    assert Registry.from_json(registry.to_json()).plan_turn(None).fingerprint == registry.plan_turn(None).fingerprint
    assert tool_intent.count_tokens("hello world") >= 2

    # The same values the other surfaces produce.
    assert tool_intent.fingerprint(json.dumps(second["tools"], separators=(",", ":"))) != ""
    assert tool_intent.canonical_intent(config.to_override()) == json.dumps(
        config.to_override(), separators=(",", ":"), sort_keys=True
    )
    assert SessionRunConfig.from_row(config.to_row()).to_override() == config.to_override()
    assert SessionRunConfig.from_override({"web_search": True}).to_row()["web_search"] is True
    # A writer's value as row columns: a list is a hand-pick.
    assert tool_intent.normalize_tools_value(["grep"])["tools_override"] == ["grep"]
    assert tool_intent.record_loaded(None, ["grep"])["loaded"] == ["grep"]
    try:
        registry.plan_turn({"enabled": "yes"})
    except ToolIntentError as e:
        print("bad input:", e.code, e.path)

    # Admin: legacy snapshot rows (whole expanded lists) audited, migrated, undone.
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "legacy.db"
        legacy = sqlite3.connect(path)
        legacy.execute("CREATE TABLE sessions (tools_enabled INTEGER, tools_override TEXT)")
        snapshot: List[str] = ["read_file", "write_file", "edit_file", "shell", "grep", "glob",
                               "tool_search", "playwright_browser", "enter_plan_mode", "exit_plan_mode"]
        legacy.execute("INSERT INTO sessions VALUES (NULL, ?)", (json.dumps(snapshot),))
        legacy.commit()
        legacy.close()  # first: tool_intent's SQLite is another copy (docs/migration.md)
        print("audit:", tool_intent.audit(path))
        print("migrate:", tool_intent.migrate(path, table="sessions")["snapshots_rewritten"])
        restored = tool_intent.undo(path)["rows_restored"]
        print("undo:", restored, "row restored" if restored == 1 else "rows restored")


if __name__ == "__main__":
    main()
