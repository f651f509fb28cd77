"""The binding's behaviour: values in Python's idiom, errors as ToolIntentError."""

import math

import pytest

import tool_intent


def test_plan_turn_lists_array_catalog_and_the_exact_payload():
    r = tool_intent.Registry.embedded()
    plan = r.plan_turn({"enabled": True, "web_search": True})
    assert "web_search" in plan["array"]
    assert "playwright_browser" in plan["catalog"]
    assert plan["payload"].startswith("[") and plan["fingerprint"].startswith("sha256:")
    again = r.plan_turn('{"web_search": true, "enabled": true}')
    assert again["payload"] == plan["payload"], "text and dict give the same bytes"


def test_turn_plan_attributes_items_and_to_dict_agree():
    plan = tool_intent.Registry.embedded().plan_turn({"enabled": True, "web_search": True})
    d = plan.to_dict()
    for key in ("array", "catalog", "promoted", "warnings", "renamed", "provider", "mode"):
        assert d[key] == plan[key], key
    assert d["array"] == plan.array and d["catalog"] == plan.catalog
    assert (d["payload"], d["catalog_text"], d["fingerprint"]) == (plan.payload, plan.catalog_text, plan.fingerprint)
    d["array"].append("not a tool")
    d["catalog"] = []
    assert "not a tool" not in plan["array"] and plan["catalog"], "to_dict hands out its own values"
    assert plan.to_dict()["array"] == plan.array


def test_errors_are_value_errors_with_code_argument_and_path():
    r = tool_intent.Registry.embedded()
    with pytest.raises(tool_intent.ToolIntentError) as e:
        r.plan_turn({"disabled": [1]})
    assert isinstance(e.value, ValueError)
    assert (e.value.code, e.value.argument, e.value.path) == ("invalid_value", "override", "$.disabled[0]")
    with pytest.raises(tool_intent.ToolIntentError) as e:
        r.plan_turn(None, provider="gemini")
    assert (e.value.argument, e.value.path) == ("options", "$.provider")
    with pytest.raises(tool_intent.ToolIntentError) as e:
        r.plan_turn({"x": math.nan})
    assert e.value.code == "invalid_value"
    with pytest.raises(tool_intent.ToolIntentError) as e:
        r.plan_turn('{"disabled": ["shell"], "disabled": []}')
    assert (e.value.argument, e.value.path) == ("override", "$.disabled")


def test_mcp_names_providers_refuse_get_wire_names_and_keep_their_source():
    r = tool_intent.Registry.embedded().merge_mcp_server(
        "b", {"tools": [{"name": "math.factorial", "inputSchema": {"type": "dict"}}]}
    )
    plan = r.plan_turn({"toolset": "full"})
    assert {"wire": "mcp__b__math_factorial", "source": "math.factorial"} in plan["renamed"]
    assert [w["code"] for w in r.warnings] == ["normalised_schema"]
    assert tool_intent.canonical_intent({"disabled": ["b", "a", "a"]}) == '{"disabled":["a","b"]}'


def test_native_client_search_returns_tool_references():
    r = tool_intent.Registry.embedded()
    result, state = r.tool_search("select:enter_plan_mode", mode="native-client")
    assert result["providerOutput"] == [{"type": "tool_reference", "tool_name": "enter_plan_mode"}]
    assert state["loaded"] == ["enter_plan_mode"]
    result, _ = r.tool_search("select:enter_plan_mode", provider="openai-responses", mode="native-client")
    assert result["providerOutput"]["type"] == "tool_search_output"
    plain, _ = r.tool_search("select:enter_plan_mode")
    assert "providerOutput" not in plain


def test_budget_counts_what_each_mode_sends():
    r = tool_intent.Registry.embedded()
    catalog = r.budget(None)
    native = r.budget(None, mode="native-client")
    assert catalog["catalogTokens"] > 0
    assert native["catalogTokens"] == 0
    assert all(row["tokens"] == 0 for row in native["rows"] if row["placement"] == "deferred")
