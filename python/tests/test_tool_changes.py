"""Tool changes inside the conversation (tool_changes="messages") through the Python binding:
the toggle session replayed turn by turn equals the native rows of
tests/golden/tool-changes.json, a withdrawn tool is refused with tool_removed, and a provider
without change messages is an invalid_argument naming tool_changes."""

import json

import pytest

import tool_intent
from test_golden import ROOT, golden_registry

ROWS = json.loads((ROOT / "tests/golden/tool-changes.json").read_text())
SCRIPT = json.loads((ROOT / "tests/data/cache-session-toggles.json").read_text())


def test_the_toggle_session_equals_the_native_rows():
    k = 0
    targets = [("anthropic", "catalog"), ("bedrock-converse", "catalog"), ("openai-responses", "catalog"), ("anthropic", "native-client")]
    for provider, mode in targets:
        registry = golden_registry("all")
        state = None
        intent = None
        for i, turn in enumerate(SCRIPT["turns"]):
            if "addServer" in turn:
                add = turn["addServer"]
                registry = registry.set_mcp_server(add["name"], json.dumps(add["tools"]))["registry"]
            if "removeServer" in turn:
                registry = registry.remove_mcp_server(turn["removeServer"])["registry"]
            if "override" in turn:
                intent = turn["override"]
            state = registry.begin_turn(state)
            t = registry.turn(intent, provider=provider, mode=mode, tool_changes="messages", state=state)
            plan = t.plan()
            row = ROWS[k]
            k += 1
            assert (provider, mode, i + 1) == (row["provider"], row["mode"], row["turn"])
            assert plan.fingerprint == row["fingerprint"], (provider, i + 1)
            assert tool_intent.fingerprint(plan.changes) == row["changes"], (provider, i + 1)
            assert len(plan.changes.encode()) == row["changesBytes"]
            assert plan.request_fields == row["requestFields"]
            # The request fields are a JSON object to merge into the request, in every mode.
            assert plan.request_fields == "" or isinstance(json.loads(plan.request_fields), dict)
            assert plan.betas == row["betas"]
            state = plan.state
            for query in turn.get("searches", []):
                state = t.search(query)["state"]
    assert k == 80
    assert any(r["requestFields"] for r in ROWS), "no row narrows tool_choice"


def test_withdrawing_every_tool_on_openai_responses_is_a_tool_choice_of_none():
    r = tool_intent.Registry.embedded()
    first = r.plan_turn({"enabled": True}, provider="openai-responses", tool_changes="messages")
    off = r.plan_turn({"enabled": False}, provider="openai-responses", tool_changes="messages", state=r.begin_turn(first.state))
    assert off.payload == first.payload
    assert json.loads(off.request_fields) == {"tool_choice": "none"}


def test_a_withdrawn_tool_is_refused_and_gemini_has_no_change_messages():
    r = tool_intent.Registry.embedded()
    first = r.plan_turn({"enabled": True}, tool_changes="messages", state=r.begin_turn(None))
    turn = r.turn(
        {"enabled": True, "disabled": ["shell"]},
        tool_changes="messages",
        state=r.begin_turn(first.state),
    )
    assert '"name":"shell"' in turn.plan().changes
    with pytest.raises(tool_intent.ToolIntentError) as e:
        turn.resolve("shell")
    assert e.value.code == "tool_removed" and "withdrawn" in str(e.value)
    with pytest.raises(tool_intent.ToolIntentError) as e:
        r.plan_turn(None, provider="gemini", tool_changes="messages")
    assert (e.value.code, e.value.argument) == ("invalid_argument", "tool_changes")


def test_the_cache_report_takes_tool_changes():
    registry = golden_registry("all")
    script = (ROOT / "tests/data/cache-session-toggles.json").read_text()
    reports = {
        tc: registry.cache_report(script, provider="anthropic", tool_changes=tc)
        for tc in ["array", "messages"]
    }
    assert reports["array"]["rewrites"] == 10
    assert reports["messages"]["rewrites"] == 0
    assert reports["messages"]["tool_changes"] == "messages"
