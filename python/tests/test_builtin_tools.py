"""Provider-executed tools through the Python binding: the embedded web_search goes out as each
provider's own tool or the function fallback, request fields come beside the payload, and
dispatch refuses a tool the provider runs (tests/builtin_tools.rs is the native suite)."""

import json
from pathlib import Path

import pytest

import tool_intent

WEB = {"enabled": True, "web_search": True}
ROOT = Path(__file__).resolve().parents[2]


def test_each_provider_gets_its_own_web_search_or_the_function():
    r = tool_intent.Registry.embedded()
    anthropic = json.loads(r.plan_turn(WEB).payload)
    assert {"type": "web_search_20260318", "name": "web_search"} in anthropic
    gemini = r.plan_turn(WEB, provider="gemini")
    assert json.loads(gemini.payload)[-1] == {"googleSearch": {}}
    assert json.loads(gemini.request_fields) == {"toolConfig": {"includeServerSideToolInvocations": True}}
    assert gemini.to_dict()["request_fields"] == gemini.request_fields
    chat = r.plan_turn(WEB, provider="openai-chat")
    assert chat.request_fields == "" and '"name":"web_search"' in chat.payload
    listed = tool_intent.Registry.from_json((ROOT / "tests/data/builtin-registry.json").read_text())
    options = json.loads(listed.plan_turn(WEB, provider="openai-chat").request_fields)
    assert options["web_search_options"]["user_location"]["approximate"] == {"city": "Lyon", "country": "FR"}
    info = {t["name"]: t for t in r.tool_infos()}["web_search"]
    assert info["builtin_providers"] == ["anthropic", "openai-responses", "gemini"]


def test_dispatch_refuses_a_tool_the_provider_runs():
    r = tool_intent.Registry.embedded()
    with pytest.raises(tool_intent.ToolIntentError) as e:
        r.turn(WEB).resolve("web_search")
    assert e.value.code == "provider_executed"
    assert r.turn(WEB, provider="bedrock-converse").resolve("web_search")["name"] == "web_search"
