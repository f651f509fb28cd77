"""Presets by MCP annotation through the Python binding: the embedded `readonly` preset
selects by `@read_only`, a server's claims count only when the registry trusts it, and a
server change reports the tools that entered or left such a preset (the native property test
is tests/annotations.rs; the cross-target golden rows replay the selectors byte for byte)."""

import json
from pathlib import Path

import pytest

import tool_intent

TIME = (Path(__file__).resolve().parents[2] / "tests" / "data" / "mcp" / "time.json").read_text()
OWN = ["browser", "enter_plan_mode", "glob", "grep", "list_sessions", "read_file", "web_search"]


def with_trust(trusted):
    doc = json.loads(tool_intent.Registry.embedded().to_json())
    doc["trusted_servers"] = trusted
    return tool_intent.Registry.from_json(json.dumps(doc)).set_mcp_server("time", TIME)["registry"]


def readonly(registry):
    plan = registry.plan_turn({"toolset": "readonly"})
    return sorted(n for n in plan.array + plan.catalog if n != "tool_search")


def test_a_servers_read_only_tools_count_only_when_it_is_trusted():
    assert readonly(with_trust([])) == OWN
    assert readonly(with_trust(["time"])) == sorted(OWN + ["mcp__time__convert_time", "mcp__time__get_current_time"])
    infos = {t["name"]: t["effective_annotations"] for t in with_trust([]).tool_infos()}
    assert infos["read_file"] == {"read_only": True, "destructive": False, "idempotent": True, "open_world": False, "trusted": True}
    assert infos["mcp__time__get_current_time"]["trusted"] is False
    assert infos["mcp__time__get_current_time"]["destructive"] is True


def test_a_server_change_names_the_tools_that_left_an_annotation_preset():
    tools = json.loads(TIME)
    tools[1]["annotations"]["readOnlyHint"] = False
    change = with_trust(["time"]).set_mcp_server("time", json.dumps(tools))
    assert change["diff"]["presets"] == [{"preset": "readonly", "entered": [], "left": ["mcp__time__" + tools[1]["name"]]}]


def test_an_unknown_selector_names_its_path():
    doc = {"tools": [{"name": "a", "description": "", "parameters": {"type": "object"}}], "toolsets": {"x": ["@readOnly"]}}
    with pytest.raises(tool_intent.ToolIntentError) as e:
        tool_intent.Registry.from_json(json.dumps(doc))
    assert (e.value.code, e.value.path) == ("invalid_registry", "$.toolsets.x[0]")
