"""The server's session store and turn flow through the binding, on a real sqlite3 table
with the server's columns: intents are stored, never expanded lists."""

import json
import sqlite3

import pytest

import tool_intent

COLUMNS = "tools_enabled INTEGER, tools_override TEXT, web_search INTEGER, toolset TEXT"


def store(db, row):
    db.execute(
        "INSERT INTO sessions VALUES (?, ?, ?, ?)",
        (
            row["tools_enabled"],
            None if row["tools_override"] is None else json.dumps(row["tools_override"]),
            row["web_search"],
            row["toolset"],
        ),
    )


def row_for(intent):
    """The row a writer stores, with the override as a value (store() writes it as JSON)."""
    config = tool_intent.SessionRunConfig.from_override(intent)
    row = config.to_row()
    row["tools_override"] = config.tools_override
    return row


def read(db, rowid):
    cur = db.execute("SELECT tools_enabled, tools_override, web_search, toolset FROM sessions WHERE rowid = ?", (rowid,))
    return dict(zip(["tools_enabled", "tools_override", "web_search", "toolset"], cur.fetchone()))


def test_writers_store_intent_and_web_search_reads_back_true():
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE TABLE sessions ({COLUMNS})")
    store(db, row_for(tool_intent.build_intent(web_search=True)))
    store(db, row_for(tool_intent.build_intent(toolset="research")))
    first, second = read(db, 1), read(db, 2)
    assert first == {"tools_enabled": None, "tools_override": None, "web_search": 1, "toolset": None}
    assert tool_intent.SessionRunConfig.from_row(first).to_override() == {"web_search": True}
    assert tool_intent.SessionRunConfig.from_row(second).to_override() == {"toolset": "research"}
    # An old row without the column reads back as None (follow the defaults).
    assert tool_intent.SessionRunConfig.from_row({"tools_enabled": None}).to_override() == {}


def test_a_tool_added_to_the_registry_reaches_an_enabled_session_at_its_next_turn():
    base = tool_intent.Registry.embedded()
    config = tool_intent.SessionRunConfig.from_override({"enabled": True})
    before = base.plan_turn(config.to_override())
    grown = base.set_mcp_server("new", [{"name": "summarize", "inputSchema": {"type": "object"}}])["registry"]
    after = grown.plan_turn(config.to_override())
    assert "mcp__new__summarize" in after["catalog"]
    assert "mcp__new__summarize" not in before["catalog"] + before["array"]


def test_turns_search_and_dispatch():
    r = tool_intent.Registry.embedded()
    state = r.begin_turn()
    first = r.plan_turn(None, state=state)
    again = r.plan_turn(None, state=state)
    assert first["payload"] == again["payload"], "an unchanged intent gives identical bytes"
    result = r.turn(state=state).search("select:enter_plan_mode")
    state = result["state"]
    assert result["hits"] == ["enter_plan_mode"]
    assert r.plan_turn(None, state=state)["fingerprint"] == first["fingerprint"], "mid-turn: array unchanged"
    state = r.begin_turn(state)
    assert r.plan_turn(None, state=state)["promoted"] == ["enter_plan_mode"]
    assert r.turn().resolve("enter_plan_mode")["name"] == "enter_plan_mode"
    with pytest.raises(tool_intent.ToolIntentError) as e:
        r.turn({"enabled": True, "disabled": ["memory"]}).resolve("memory")
    assert e.value.code == "tool_not_available"
    budget = r.turn().budget()
    assert budget["resident_tokens"] > 0 and budget["counter"] == "estimate"
    assert r.plan_turn([])["array"] == []
    assert tool_intent.normalize_tools_value(["a"]) == {"tools_enabled": True, "tools_override": ["a"], "web_search": None, "toolset": None}


def test_bad_input_raises_tool_intent_error_never_crashes():
    r = tool_intent.Registry.embedded()
    for bad in [{"enabled": "yes"}, 42, {"disabled": [float("inf")]}, {"x": object()}]:
        with pytest.raises(tool_intent.ToolIntentError):
            r.plan_turn(bad)
    with pytest.raises(tool_intent.ToolIntentError) as e:
        tool_intent.build_intent(picked=["a"], web_search=True)
    assert e.value.path == "$.picked"
