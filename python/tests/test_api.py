"""The binding's behaviour: values in Python's idiom, errors as ToolIntentError."""

import json
import math
import pathlib

import pytest

import tool_intent

ROOT = pathlib.Path(__file__).resolve().parents[2]


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


def test_the_handle_the_turn_and_the_plan_say_what_they_are():
    r = tool_intent.Registry.embedded()
    assert repr(r) == f'Registry({len(r)} tools, fingerprint="{r.fingerprint()}")'
    turn = r.turn(None, provider="gemini")
    assert repr(turn) == 'Turn(provider="gemini", mode="catalog", turn=0)'
    plan = turn.plan()
    assert repr(plan) == f'TurnPlan(fingerprint="{plan.fingerprint}", payload: {len(plan.payload.encode())} bytes)'


def test_errors_are_value_errors_with_code_argument_and_path():
    r = tool_intent.Registry.embedded()
    with pytest.raises(tool_intent.ToolIntentError) as e:
        r.plan_turn({"disabled": [1]})
    assert isinstance(e.value, ValueError)
    assert (e.value.code, e.value.argument, e.value.path) == ("invalid_value", "tools_override", "$.disabled[0]")
    with pytest.raises(tool_intent.ToolIntentError) as e:
        r.plan_turn(None, provider="gemeni")
    assert (e.value.argument, e.value.path) == ("provider", None)
    with pytest.raises(tool_intent.ToolIntentError) as e:
        r.plan_turn({"x": math.nan})
    assert e.value.code == "invalid_value"
    with pytest.raises(tool_intent.ToolIntentError) as e:
        r.plan_turn('{"disabled": ["shell"], "disabled": []}')
    assert (e.value.argument, e.value.path) == ("tools_override", "$.disabled")


def test_mcp_names_providers_refuse_get_wire_names_and_keep_their_source():
    r = tool_intent.Registry.embedded().set_mcp_server(
        "b", {"tools": [{"name": "math.factorial", "inputSchema": {"type": "dict"}}]}
    )["registry"]
    plan = r.plan_turn({"toolset": "full"})
    # The wire name is a function of (server, name) alone: the mapped name plus a hash.
    [renamed] = plan["renamed"]
    assert renamed["wire"].startswith("mcp__b__math_factorial_") and len(renamed["wire"]) == 31
    assert (renamed["source"], renamed["server"]) == ("math.factorial", "b")
    assert [w["code"] for w in r.warnings()] == ["normalised_schema"]
    assert tool_intent.canonical_intent({"disabled": ["b", "a", "a"]}) == '{"disabled":["a","b"]}'


def test_native_client_search_returns_tool_references():
    r = tool_intent.Registry.embedded()
    result = r.turn(mode="native-client").search("select:enter_plan_mode")
    assert result["provider_output"] == [{"type": "tool_reference", "tool_name": "enter_plan_mode"}]
    assert result["state"]["loaded"] == ["enter_plan_mode"]
    result = r.turn(provider="openai-responses", mode="native-client").search("select:enter_plan_mode")
    assert result["provider_output"]["type"] == "tool_search_output"
    plain = r.turn().search("select:enter_plan_mode")
    assert "provider_output" not in plain and plain["not_found"] == []


def test_provider_output_keeps_the_byte_order_of_the_payload():
    # Sent on with json.dumps, a search's provider output is the bytes JS sends: each tool in
    # an OpenAI Responses tool_search_output is its payload entry without `defer_loading`
    # (dicts keep the core's key order; a sorted dict would start with "description").
    r = tool_intent.Registry.embedded()
    turn = r.turn(provider="openai-responses", mode="native-client")
    result = turn.search("plan mode")
    output = result["provider_output"]
    assert list(output) == ["type", "execution", "tools"]
    payload = turn.plan()["payload"]
    assert len(output["tools"]) == len(result["hits"]) > 0
    for tool in output["tools"]:
        entry = json.dumps(tool, separators=(",", ":"), ensure_ascii=False)
        assert entry[:-1] + ',"defer_loading":true}' in payload, entry
    # Result dicts keep the field order of the JS objects too.
    assert list(turn.budget())[:3] == ["counter", "provider", "rows"]


def test_budget_counts_what_each_mode_sends():
    r = tool_intent.Registry.embedded()
    catalog = r.turn().budget()
    native = r.turn(mode="native-client").budget()
    assert catalog["catalog_tokens"] > 0
    assert native["catalog_tokens"] == 0
    assert all(row["tokens"] == 0 for row in native["rows"] if row["placement"] == "deferred")


def test_errors_name_the_python_argument_at_fault():
    r = tool_intent.Registry.embedded()
    cases = [
        (lambda: r.plan_turn(None, profile={"disabled": [1]}), "profile", "$.disabled[0]"),
        (lambda: r.plan_turn(None, state={"turn": "x"}), "state", "$.turn"),
        (lambda: r.plan_turn(None, mode="nativ"), "mode", None),
        (lambda: r.plan_turn(None, view="later"), "view", None),
        (lambda: r.plan_turn("{oops"), "tools_override", "$"),
        (lambda: r.turn().search("x", limit=0), "limit", None),
        (lambda: r.turn().search("   "), "query", None),
        (lambda: r.turn().budget(counter="o2"), "counter", None),
        (lambda: r.cache_report({"turns": 3}), "script", "$.turns"),
        (lambda: tool_intent.Registry.from_json({"tools": 3}), "document", "$.tools"),
        (lambda: r.set_mcp_server("a b", [])["registry"], "server", None),
        (lambda: r.set_mcp_server("ok", {"tools": 3})["registry"], "tools_list", "$"),
        (lambda: tool_intent.SessionRunConfig.from_row({"tools_enabled": "yes"}), "row", "$.tools_enabled"),
        (lambda: tool_intent.normalize_tools_value(7), "value", "$"),
        (lambda: r.begin_turn({"loaded": 3}), "state", "$.loaded"),
    ]
    for call, argument, path in cases:
        with pytest.raises(tool_intent.ToolIntentError) as e:
            call()
        assert (e.value.argument, e.value.path) == (argument, path), e.value
        # The message names the argument too, never the JS spelling of an option.
        assert "options" not in str(e.value) and "cacheControl" not in str(e.value), e.value


def walk_keys(value, where, found):
    if isinstance(value, dict):
        for k, v in value.items():
            found.append((where, k))
            # A provider's wire format and stored intents are data, not field names.
            if k not in ("provider_output", "intent", "snapshots_rewritten"):
                walk_keys(v, f"{where}.{k}", found)
    elif isinstance(value, list):
        for v in value:
            walk_keys(v, where, found)


def test_every_returned_dict_has_snake_case_keys(tmp_path):
    import sqlite3

    github = (ROOT / "tests/data/mcp/github.json").read_text()
    r = tool_intent.Registry.embedded().set_mcp_server("github", github)["registry"]
    state = r.begin_turn(tool_intent.record_loaded(None, ["memory"]))
    db = tmp_path / "s.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE sessions (tools_enabled INTEGER, tools_override TEXT)")
    con.execute("INSERT INTO sessions VALUES (1, ?)", ('["web_search","memory"]',))
    con.commit()
    con.close()
    results = {
        "plan_turn": r.plan_turn({"toolset": "nope", "x": 1}, state=state).to_dict(),
        "search": r.turn(state=state, mode="native-client").search("create issue"),
        "search_openai": r.turn(provider="openai-responses", mode="native-client").search("select:memory"),
        "budget": r.turn(state=state).budget(),
        "cache_report": r.cache_report({"turns": [{}, {"searches": ["select:memory"]}, {}]}),
        "tool_infos": r.tool_infos(),
        "warnings": tool_intent.Registry.embedded().set_mcp_server("b", [{"name": "a.b", "inputSchema": {"type": "dict"}}])["registry"].warnings(),
        "begin_turn": state,
        "record_loaded": tool_intent.record_loaded(state, ["x"]),
        "normalize_tools_value": tool_intent.normalize_tools_value({"enabled": True}),
        "to_row": tool_intent.SessionRunConfig.from_override({"web_search": True}).to_row(),
        "audit": tool_intent.audit(db),
        "migrate": tool_intent.migrate(db),
        "undo": tool_intent.undo(db),
    }
    found = []
    for name, value in results.items():
        walk_keys(value, name, found)
    assert len(found) > 60, found
    camel = [(w, k) for w, k in found if k != k.lower()]
    assert camel == [], camel
    # The converted keys are there under their Python names.
    assert "not_found" in results["search"] and "resident_tokens" in results["budget"]
    assert "rewritten_tokens" in results["cache_report"] and "rows_read" in results["migrate"]


def test_the_plan_is_made_once_and_its_lists_agree_with_its_payload():
    r = tool_intent.Registry.embedded()
    state = r.begin_turn(tool_intent.record_loaded(None, ["enter_plan_mode"]))
    plan = r.plan_turn(None, state=state, provider="openai-responses")
    names = [t["name"] for t in json.loads(plan.payload)]
    assert names == plan.array and plan.promoted == ["enter_plan_mode"]
    assert plan.catalog == plan.catalog_text.strip().split("\n")[1:]
    assert plan.renamed == [] and plan["fingerprint"] == tool_intent.fingerprint(plan.payload)


def test_check_lists_what_a_provider_refuses_or_changes():
    r = tool_intent.Registry.embedded()
    report = r.check("openai-responses")
    assert report["provider"] == "openai-responses"
    assert {f["rule"] for f in report["findings"]} == {"description_length"}
    # Bedrock's own web grounding is Nova-only: the embedded web search goes to it as a function.
    bedrock = r.check("bedrock-converse")["findings"]
    assert [(f["tool"], f["rule"], f["refused"]) for f in bedrock] == [("web_search", "builtin_fallback", False)]
    assert r.check("gemini") == {"provider": "gemini", "findings": []}
    server = {"tools": [{"name": "page", "inputSchema": {"type": "object", "anyOf": [{"required": ["id"]}]}}]}
    refused = r.set_mcp_server("notion", server)["registry"].check("anthropic")["findings"]
    assert [(f["tool"], f["rule"], f["refused"]) for f in refused] == [("mcp__notion__page", "top_level_combinator", True)]
    with pytest.raises(tool_intent.ToolIntentError) as e:
        r.check("gemeni")
    assert e.value.argument == "provider"


def test_live_servers_set_in_bulk_replace_remove_and_name_bad_input():
    def tools(*names):
        return {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in names]}

    base = tool_intent.Registry.embedded()
    both = base.set_mcp_servers([{"name": "a", "tools": tools("x", "y.z")}, {"name": "b", "tools": json.dumps(tools("w"))}])
    assert sorted(both["diff"]["added"])[:2] == ["mcp__a__x", "mcp__a__y_z_" + both["diff"]["added"][1][-8:]]
    one = base.set_mcp_server("a", tools("x", "y.z"))["registry"].set_mcp_server("b", tools("w"))["registry"]
    assert one.fingerprint() == both["registry"].fingerprint() != base.fingerprint()
    replaced = one.set_mcp_server("a", tools("x", "v"))
    assert replaced["diff"]["added"] == ["mcp__a__v"] and replaced["diff"]["changed"] == []
    assert len(replaced["diff"]["removed"]) == 1
    # A turn that began before the change keeps its bytes; dispatch of the removed tool says so.
    state = one.begin_turn(None)
    assert state["registry"] == one.fingerprint()
    assert replaced["registry"].plan_turn(None, state=state).payload == one.plan_turn(None, state=state).payload
    gone = replaced["registry"].remove_mcp_server("b")
    assert gone["diff"]["removed"] == ["mcp__b__w"]
    with pytest.raises(tool_intent.ToolIntentError) as e:
        gone["registry"].remove_mcp_server("b")
    assert (e.value.code, e.value.argument) == ("invalid_argument", "server")
    with pytest.raises(tool_intent.ToolIntentError) as e:
        base.set_mcp_servers([{"name": "ok", "tools": []}, {"name": "bad", "tools": 5}])
    assert e.value.argument == "servers" and e.value.path.startswith("$[1].tools")


def test_a_null_tools_list_is_an_error_naming_the_server():
    r = tool_intent.Registry.embedded().set_mcp_server("s", [{"name": "x", "inputSchema": {"type": "object"}}])["registry"]
    for tools in (None, "null"):
        with pytest.raises(tool_intent.ToolIntentError) as e:
            r.set_mcp_server("s", tools)
        assert e.value.argument == "tools_list" and 'server "s" is null' in str(e.value)
    assert r.set_mcp_server("s", [])["diff"]["removed"] == ["mcp__s__x"]


def test_record_loaded_refuses_a_load_past_the_limit():
    names = [f"t{i}" for i in range(10_000)]
    full = tool_intent.record_loaded(None, names)
    with pytest.raises(tool_intent.ToolIntentError) as e:
        tool_intent.record_loaded(full, ["one_more"])
    assert (e.value.code, e.value.argument, e.value.path) == ("limit_exceeded", "state", "$.loaded")
    found = tool_intent.Registry.embedded().turn(state={"loaded": names}).search("select:send_message")
    assert found["state"]["loaded"] == ["send_message"]


def test_cache_report_refuses_a_script_past_its_limits():
    r = tool_intent.Registry.embedded()
    for script, path in (
        ({"turns": [{}] * 10_001}, "$.turns"),
        ({"messageBytes": 1 << 20, "turns": [{}] * 65}, "$.messageBytes"),
    ):
        with pytest.raises(tool_intent.ToolIntentError) as e:
            r.cache_report(script)
        assert (e.value.code, e.value.argument, e.value.path) == ("limit_exceeded", "script", path)


def test_json_text_may_come_as_utf8_bytes_as_json_loads_takes_it(tmp_path):
    # A file's or a response's bytes need no decoding first; they read as the same text.
    path = tmp_path / "registry.json"
    path.write_text(tool_intent.Registry.embedded().to_json(), encoding="utf-8")
    from_bytes = tool_intent.Registry.from_json(path.read_bytes())
    from_text = tool_intent.Registry.from_json(path.read_text(encoding="utf-8"))
    assert from_bytes.fingerprint() == from_text.fingerprint()
    assert tool_intent.Registry.from_json(bytearray(path.read_bytes())).fingerprint() == from_text.fingerprint()
    intent = b'{"toolset": "full", "disabled": ["caf\xc3\xa9"]}'
    assert tool_intent.canonical_intent(intent) == '{"disabled":["caf\u00e9"],"toolset":"full"}'
    # Bytes that are not UTF-8: invalid_json at the line and column of the first bad byte.
    with pytest.raises(tool_intent.ToolIntentError) as e:
        tool_intent.Registry.from_json(b'{"tools":\n  ["\xe9"]}')
    assert (e.value.code, e.value.argument, e.value.path) == ("invalid_json", "document", "$")
    assert "line 2, column 5" in str(e.value) and "UTF-8" in str(e.value)


def test_a_wrong_search_limit_is_told_the_range_the_core_takes():
    turn = tool_intent.Registry.embedded().turn(None)
    for wrong in (0, 51, -1, "3", 2.0, True, 2**70):
        with pytest.raises(tool_intent.ToolIntentError) as e:
            turn.search("select:memory", limit=wrong)
        assert (e.value.code, e.value.argument) == ("invalid_argument", "limit"), wrong
        assert "expected an integer from 1 to 50, found" in str(e.value), (wrong, str(e.value))
    assert turn.search("send message", limit=1)["hits"] == ["send_message"]
