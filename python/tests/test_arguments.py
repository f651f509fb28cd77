"""Every public call with wrong-typed arguments: each must fail with a ToolIntentError that has
a code and names the argument (never PyO3's TypeError or OverflowError, never a silent
default). The calls and their parameters come from one table, tests/data/api-calls.json;
tests/js/arguments.test.mjs walks the same table on JS."""

import copy
import inspect
import json
import pathlib
import random

import pytest

import tool_intent

ROOT = pathlib.Path(__file__).resolve().parents[2]
TABLE = json.loads((ROOT / "tests" / "data" / "api-calls.json").read_text())["py"]
CODES = {
    "invalid_json", "invalid_value", "invalid_registry", "limit_exceeded", "unknown_source",
    "invalid_argument", "tool_not_available", "tool_removed", "database",
}

# Wrong values of each kind: none of them is a value of that kind.
WRONG = {
    "string": [42, True, None, b"bytes", ["a"], {"a": 1}, object(), "\ud800", 1.5],
    "string?": [42, False, b"x", ["a"], object(), "x\udc00"],
    "json": [object(), {1, 2}, float("nan"), float("inf"), {"a": object()}, [b"x"], "\ud800"],
    "document": [object(), {1, 2}, float("nan"), "\udbff"],
    "names": ["a", 42, None, {"a": 1}, [1], ["a", None], ["\ud800"], object()],
    "bool": ["yes", 1, 0, None, object()],
    "count?": [-1, 1.5, "5", True, 2**70, object()],
    "db": [42, None, b"x", object(), ["a"]],
    "registry?": [42, "embedded", {}, object()],
}


def target(spec):
    if spec["on"] == "Registry":
        return tool_intent.Registry
    if spec["on"] == "SessionRunConfig":
        return tool_intent.SessionRunConfig
    if spec["on"] == "registry":
        return tool_intent.Registry.embedded()
    return tool_intent


def call(spec, args, kwargs):
    return getattr(target(spec), spec["call"])(*args, **kwargs)


def tool_intent_error(fn, what):
    """The ToolIntentError fn raises (None when it returns); any other error fails the test."""
    try:
        fn()
    except tool_intent.ToolIntentError as e:
        assert e.code in CODES, f"{what}: code {e.code}"
        assert e.path is None or e.path.startswith("$"), what
        return e
    except Exception as e:  # noqa: BLE001 - the point is that nothing else escapes
        pytest.fail(f"{what}: {type(e).__name__}: {e}")
    return None


def valid(spec):
    return [copy.deepcopy(p["valid"]) for p in spec["params"]]


def test_the_table_names_every_public_call():
    names = {spec["call"] for spec in TABLE}
    for name in tool_intent.__all__:
        obj = getattr(tool_intent, name)
        if inspect.isbuiltin(obj) and name != "build_intent":
            assert name in names, f"{name} is not in tests/data/api-calls.json"
    for name in ("from_json", "set_mcp_server", "set_mcp_servers", "remove_mcp_server", "begin_turn",
                 "tool_definition", "plan_turn", "check", "search", "resolve", "budget", "cache_report"):
        assert hasattr(tool_intent.Registry, name) and name in names, name


@pytest.mark.parametrize("spec", TABLE, ids=[s["call"] for s in TABLE])
def test_every_wrong_typed_argument_is_a_tool_intent_error_naming_it(spec):
    for at, param in enumerate(spec["params"]):
        for wrong in WRONG[param["kind"]]:
            args = valid(spec)
            args[at] = wrong
            what = f"{spec['call']}({param['name']}={wrong!r})"
            e = tool_intent_error(lambda: call(spec, args, {}), what)
            assert e is not None, f"{what} did not fail"
            assert e.argument == param.get("argument", param["name"]), f"{what}: {e.argument}: {e}"
    for keyword, kind in spec.get("keywords", {}).items():
        for wrong in WRONG[kind]:
            what = f"{spec['call']}({keyword}={wrong!r})"
            e = tool_intent_error(lambda: call(spec, valid(spec), {keyword: wrong}), what)
            assert e is not None, f"{what} did not fail"
            assert e.argument == keyword, f"{what}: {e.argument}: {e}"


def test_build_intent_toggles_of_the_wrong_type_name_the_toggles():
    for toggles in ({"web_search": 5}, {"toolset": 3}, {"disabled": "shell"}, {"bogus": True}):
        e = tool_intent_error(lambda: tool_intent.build_intent(**toggles), repr(toggles))
        assert e is not None and e.argument == "toggles", toggles


def arbitrary(rnd, depth=0):
    leaves = [
        lambda: None, lambda: rnd.random() < 0.5, lambda: rnd.randint(-1000, 1000), lambda: rnd.random() * 1e20,
        lambda: rnd.choice([float("nan"), float("inf"), 2**70, -0.0]),
        lambda: rnd.choice(["", "memory", "anthropic", "catalog", "select:memory", "{", "null", "[1,",
                            "\ud800", "é\x00", "a" * 300, '{"enabled":true}', "sha256:00"]),
        lambda: b"bytes", lambda: object(), lambda: {1, 2}, lambda: (1, "a"),
    ]
    if depth > 2 or rnd.random() < 0.5:
        return rnd.choice(leaves)()
    if rnd.random() < 0.5:
        return [arbitrary(rnd, depth + 1) for _ in range(rnd.randint(0, 3))]
    keys = ["enabled", "disabled", "allowed", "toolset", "web_search", "loaded", "frozen", "turn",
            "registry", "tools", "turns", "provider", "limit", "x"]
    return {rnd.choice(keys): arbitrary(rnd, depth + 1) for _ in range(rnd.randint(0, 3))}


def test_property_random_values_into_every_call_fail_only_as_tool_intent_error():
    rnd = random.Random(20261203)
    calls = failed = 0
    for _ in range(120):
        for spec in TABLE:
            if spec["call"] in ("migrate", "undo", "audit"):
                continue  # their valid value names no database; test_migrate covers the runs
            args = [arbitrary(rnd) if rnd.random() < 0.5 else v for v in valid(spec)]
            kwargs = {k: arbitrary(rnd) for k in spec.get("keywords", {}) if rnd.random() < 0.3}
            calls += 1
            if tool_intent_error(lambda: call(spec, args, kwargs), f"{spec['call']}{args!r} {kwargs!r}"):
                failed += 1
    print(f"property: {calls} calls with random arguments, {failed} ToolIntentErrors, no other error")
    assert calls / 4 < failed < calls, f"{failed} of {calls} failed: the generator must make both"
