"""The Python surface against the one API table, tests/data/api.json (tests/js/arguments.test.mjs
checks JS against the same table): every call of the table exists with its parameters in order
and its options as keyword-only arguments, nothing public is missing from the table, and every
wrong-typed argument or option fails with a ToolIntentError that has a code and names it
(never PyO3's TypeError or OverflowError, never a silent default)."""

import inspect
import random
import re

import pytest

import tool_intent
from api_table import API, constructor, function_of, valid

# A call of one build (`build`) is checked by that build's own test (test_model.py).
TABLE = [c for c in API["calls"] if c.get("py", True) is not None and "build" not in c]
CODES = {
    "invalid_json", "invalid_value", "invalid_registry", "limit_exceeded", "unknown_source",
    "invalid_argument", "tool_not_available", "tool_removed", "database",
}

def cyclic():
    c = {"enabled": True}
    c["self"] = c
    return c


# Wrong values of each kind: none of them is a value of that kind.
WRONG = {
    "string": [42, True, None, b"bytes", ["a"], {"a": 1}, object(), "\ud800", 1.5],
    "string?": [42, False, b"x", ["a"], object(), "x\udc00"],
    "json": [object(), {1, 2}, float("nan"), float("inf"), {"a": object()}, [b"x"], "\ud800", cyclic()],
    "document": [object(), {1, 2}, float("nan"), "\udbff", cyclic()],
    "names": ["a", 42, None, {"a": 1}, [1], ["a", None], ["\ud800"], object()],
    "bool": ["yes", 1, 0, None, object()],
    "bool?": ["yes", 1, 0, object()],
    "toggles": [{"web_search": 5}, {"toolset": 3}, {"disabled": "shell"}, {"bogus": True}],
    "count?": [-1, 1.5, "5", True, 2**70, object()],
    "db": [42, None, b"x", object(), ["a"]],
    "registry?": [42, "embedded", {}, object()],
    "registry": [42, "embedded", {}, None, object()],
    "store": [42, None, b"x", object(), ["a"]],
    "function": [42, "f", None, {}],
    "function?": [42, "f", {}],
    "hours?": [-1, "5", True, float("nan"), float("inf"), object()],
}


def owner(spec):
    return {"Registry": tool_intent.Registry, "SessionRunConfig": tool_intent.SessionRunConfig,
            "registry": tool_intent.Registry, "turn": tool_intent.Turn, "module": tool_intent,
            "shared": tool_intent.SharedRegistry}[spec["on"]]


def member(spec):
    """The Python member a row names (unbound, for its signature), or its constructor."""
    return constructor(spec) or getattr(owner(spec), spec["name"], None)


def options(spec):
    return API["options"].get(spec.get("options"), {})


def call(spec, args, kwargs):
    if spec["params"] and spec["params"][0]["kind"] == "toggles":
        return function_of(spec)(**args[0], **kwargs)
    return function_of(spec)(*args, **kwargs)


# What no message or path may hold raw: a control character, a bidirectional or zero-width
# format one, or a line or paragraph separator (docs/contract.md, "Errors"); the core shows
# them escaped.
HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")


def tool_intent_error(fn, what):
    """The ToolIntentError fn raises (None when it returns); any other error fails the test, and
    so does one whose message or path shows a character of HIDDEN raw."""
    try:
        fn()
    except tool_intent.ToolIntentError as e:
        assert e.code in CODES, f"{what}: code {e.code}"
        assert e.path is None or e.path.startswith("$"), what
        assert not HIDDEN.search(str(e)) and not HIDDEN.search(e.path or ""), f"{what}: {str(e)!r} {e.path!r}"
        return e
    except Exception as e:  # noqa: BLE001 - the point is that nothing else escapes
        pytest.fail(f"{what}: {type(e).__name__}: {e}")
    return None


NOT_CALLS = {"len"}  # Python's len(r): the table's `py_form`


def test_every_call_of_the_table_exists_with_its_parameters_and_options():
    for spec in TABLE:
        if spec["name"] in NOT_CALLS:
            assert len(tool_intent.Registry.embedded()) > 0
            continue
        found = member(spec)
        assert found is not None, f"{spec['on']}.{spec['name']} is missing"
        if spec.get("kind") == "getter":
            assert isinstance(found, property) or inspect.isdatadescriptor(found), spec["name"]
            continue
        signature = inspect.signature(found)
        params = [p for p in signature.parameters.values() if p.name not in ("self", "cls")]
        positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        keywords = {p.name for p in params if p.kind == p.KEYWORD_ONLY}
        if spec["params"] and spec["params"][0]["kind"] == "toggles":
            assert [p.kind for p in params] == [inspect.Parameter.VAR_KEYWORD], spec["name"]
            continue
        assert positional == [p["name"] for p in spec["params"]], f"{spec['name']}: {signature}"
        assert keywords == set(options(spec)), f"{spec['name']}: {signature}"


def test_the_table_names_every_public_call():
    names = {(spec["on"], spec["name"]) for spec in TABLE}
    for name in tool_intent.__all__:
        if inspect.isbuiltin(getattr(tool_intent, name)):
            assert ("module", name) in names, f"{name} is not in tests/data/api.json"
    assert ("SharedRegistry", "open") in names, "SharedRegistry(store, initial) is not in tests/data/api.json"
    for on, cls in (("registry", tool_intent.Registry), ("turn", tool_intent.Turn),
                    ("shared", tool_intent.SharedRegistry)):
        for name, member in vars(cls).items():
            if name.startswith("_") or not (callable(member) or inspect.isdatadescriptor(member)):
                continue
            statics = {"Registry": {"embedded", "from_json"}}
            kind = "Registry" if name in statics.get(cls.__name__, set()) else on
            assert (kind, name) in names, f"{cls.__name__}.{name} is not in tests/data/api.json"


@pytest.mark.parametrize("spec", [s for s in TABLE if s["params"] or s.get("options")], ids=lambda s: s["name"])
def test_every_wrong_typed_argument_is_a_tool_intent_error_naming_it(spec):
    for at, param in enumerate(spec["params"]):
        for wrong in WRONG[param["kind"]]:
            args = valid(spec)
            args[at] = wrong
            what = f"{spec['name']}({param['name']}={wrong!r})"
            e = tool_intent_error(lambda: call(spec, args, {}), what)
            assert e is not None, f"{what} did not fail"
            assert e.argument == param["name"], f"{what}: {e.argument}: {e}"
    for keyword, kind in options(spec).items():
        for wrong in WRONG[kind]:
            what = f"{spec['name']}({keyword}={wrong!r})"
            e = tool_intent_error(lambda: call(spec, valid(spec), {keyword: wrong}), what)
            assert e is not None, f"{what} did not fail"
            assert e.argument == keyword, f"{what}: {e.argument}: {e}"


@pytest.mark.parametrize("spec", [s for s in TABLE if s.get("options")], ids=lambda s: s["name"])
def test_an_unknown_keyword_option_is_a_tool_intent_error_naming_options(spec):
    # As JS names `options` for an unknown member of its options object (not PyO3's TypeError).
    if spec["name"] in ("migrate", "undo", "audit"):
        # A database in a folder that is not there: nothing is opened or created before the
        # options are read.
        args = ["nonexistent-dir/x.db"] + valid(spec)[1:]
    else:
        args = valid(spec)
    for keyword in ("not_an_option", "limit" if spec["options"] != "search" else "counter"):
        what = f"{spec['name']}({keyword}=3)"
        e = tool_intent_error(lambda: call(spec, args, {keyword: 3}), what)
        assert e is not None, f"{what} did not fail"
        assert (e.argument, e.path) == ("options", f"$.{keyword}"), f"{what}: {e.argument} {e.path}: {e}"
        assert "known:" in str(e), str(e)
    # A keyword that would clear a terminal and reverse the rest of the line is shown escaped,
    # in the message and the path, as the core shows every name it quotes.
    hostile = "x\x1b[2J\u202e"
    e = tool_intent_error(lambda: call(spec, args, {hostile: 3}), f"{spec['name']}(**{{{hostile!r}: 3}})")
    assert e is not None and e.argument == "options", e
    assert e.path == '$["x\\u001b[2J\\u202e"]', e.path
    assert "\\u{001b}[2J\\u{202e}" in str(e) and not any(c in str(e) for c in "\x1b\u202e"), repr(str(e))


def test_a_json_option_that_is_not_a_json_value_is_invalid_argument_on_it_as_in_js():
    # tests/js/hostile.test.mjs names the same values the same way: the code, the option, `$`.
    deep = []
    for _ in range(200):
        deep = [deep]
    bad = [
        ("cyclic", cyclic(), "Circular"),
        ("nested past the reader's limit", {"loaded": deep}, "nested too deeply"),
        ("JSON text (an option is a value, never text)", '{"loaded": []}', "found string"),
        ("not JSON at all", {"loaded": [object()]}, "cannot be converted to JSON"),
    ]
    for option in ("state", "profile"):
        for what, value, message in bad:
            e = tool_intent_error(lambda: tool_intent.Registry.embedded().turn(None, **{option: value}), option)
            assert e is not None, f"{option} {what} was accepted"
            assert (e.code, e.argument, e.path) == ("invalid_argument", option, "$"), f"{option} {what}: {e}"
            assert message in str(e), str(e)
    # A keyword no call takes, whatever its value: the options argument at that key.
    for what, value in (("nested past the reader's limit", deep), ("a set", {1}), ("a number", 1)):
        e = tool_intent_error(lambda: tool_intent.Registry.embedded().turn(None, not_an_option=value), "options")
        assert e is not None and (e.code, e.argument, e.path) == ("invalid_argument", "options", "$.not_an_option"), f"{what}: {e}"


def arbitrary(rnd, depth=0):
    leaves = [
        lambda: None, lambda: rnd.random() < 0.5, lambda: rnd.randint(-1000, 1000), lambda: rnd.random() * 1e20,
        lambda: rnd.choice([float("nan"), float("inf"), 2**70, -0.0]),
        lambda: rnd.choice(["", "memory", "anthropic", "catalog", "select:memory", "{", "null", "[1,",
                            "\ud800", "é\x00", "a" * 300, '{"enabled":true}', "sha256:00", "x\x1b[2J\u202e"]),
        lambda: b"bytes", lambda: object(), lambda: {1, 2}, lambda: (1, "a"),
    ]
    if depth > 2 or rnd.random() < 0.5:
        return rnd.choice(leaves)()
    if rnd.random() < 0.5:
        return [arbitrary(rnd, depth + 1) for _ in range(rnd.randint(0, 3))]
    keys = ["enabled", "disabled", "allowed", "toolset", "web_search", "loaded", "frozen", "turn",
            "registry", "tools", "turns", "provider", "limit", "x", "x\x1b[2J\u202e"]
    return {rnd.choice(keys): arbitrary(rnd, depth + 1) for _ in range(rnd.randint(0, 3))}


def test_property_random_values_into_every_call_fail_only_as_tool_intent_error():
    rnd = random.Random(20261203)
    calls = failed = 0
    for _ in range(120):
        for spec in TABLE:
            if spec["name"] in ("migrate", "undo", "audit") or spec["name"] in NOT_CALLS or spec.get("kind") == "getter":
                continue  # their valid value names no database; test_migrate covers the runs
            if spec["params"] and spec["params"][0]["kind"] == "toggles":
                continue  # keywords, fed wrong toggles by the test above
            # A random str as a store would be a file made in the working folder: stores stay valid.
            args = [arbitrary(rnd) if p["kind"] != "store" and rnd.random() < 0.5 else v
                    for p, v in zip(spec["params"], valid(spec))]
            kwargs = {k: arbitrary(rnd) for k in options(spec) if rnd.random() < 0.3}
            calls += 1
            if tool_intent_error(lambda: call(spec, args, kwargs), f"{spec['name']}{args!r} {kwargs!r}"):
                failed += 1
    print(f"property: {calls} calls with random arguments, {failed} ToolIntentErrors, no other error")
    assert calls / 4 < failed < calls, f"{failed} of {calls} failed: the generator must make both"


def test_a_class_that_names_itself_anything_is_shown_escaped_on_one_line():
    # As tests/js/arguments.test.mjs holds a Symbol.toStringTag: the name is the caller's text.
    evil = type("Evil\x1b[2J\n  class", (), {})()
    e = tool_intent_error(lambda: tool_intent.Registry.embedded().set_mcp_server(evil, "[]"), "set_mcp_server(Evil)")
    assert e is not None and str(e).endswith("found Evil\\u{001b}[2J\\n  class"), str(e)
    e = tool_intent_error(lambda: tool_intent.Registry.from_json(evil), "from_json(Evil)")
    assert e is not None and "Object of type Evil\\u{001b}[2J\\n  class is not" in str(e), str(e)
    cyclic = {}
    cyclic["self"] = cyclic
    e = tool_intent_error(lambda: tool_intent.Registry.embedded().plan_turn(cyclic), "plan_turn(cyclic)")
    assert e is not None and "\n" not in str(e), str(e)
