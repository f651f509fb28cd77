"""Python values whose reading raises — a dict, list, str or bytes subclass whose methods raise,
an int whose conversion raises, an object whose truth raises — go into every parameter and
option of every call of tests/data/api.json (as tests/js/hostile.test.mjs does with revoked
Proxies and throwing getters in JS). Each call succeeds or raises a ToolIntentError naming the
argument the value was given as; the value's own exception never escapes, and the module plans
afterwards as it did before."""

import tool_intent
from api_table import API, function_of
from api_table import valid as api_valid

# Errors that are about the request, not about an argument's value: a hostile str subclass may
# still be a valid name of something the turn cannot give.
NOT_ABOUT_AN_ARGUMENT = {"tool_not_available"}


class Hostile(Exception):
    pass


def boom(*_args, **_kwargs):
    raise Hostile("hostile")


class RaisingDict(dict):
    items = keys = values = __iter__ = __len__ = __getitem__ = boom


class RaisingList(list):
    __iter__ = __len__ = __getitem__ = boom


class RaisingStr(str):
    __str__ = __repr__ = __hash__ = __eq__ = __iter__ = __len__ = boom


class RaisingInt(int):
    __index__ = __int__ = __repr__ = __str__ = boom


class RaisingTruth:
    __bool__ = boom


class RaisingBytes(bytes):
    __len__ = __iter__ = boom


HOSTILE = {
    "dict": lambda: RaisingDict(enabled=True),
    "list": lambda: RaisingList(["memory"]),
    "str": lambda: RaisingStr("memory"),
    "int": lambda: RaisingInt(3),
    "truth": RaisingTruth,
    "bytes": lambda: RaisingBytes(b"x"),
}


def test_values_that_raise_are_tool_intent_errors_naming_their_argument():
    before = tool_intent.Registry.embedded().plan_turn({"enabled": True, "web_search": True}, provider="gemini")
    calls = 0
    refused = {kind: 0 for kind in HOSTILE}
    for spec in API["calls"]:
        if spec.get("py", "") is None or spec.get("build") or spec.get("kind") == "getter":
            continue
        if spec["name"] in ("migrate", "undo", "audit", "len"):
            continue  # their valid value names no database; test_migrate covers the runs
        toggles = bool(spec["params"]) and spec["params"][0]["kind"] == "toggles"
        valid = api_valid(spec)
        # A hostile str subclass as a store path would be a file made in the working folder.
        slots = [] if toggles else [(p["name"], i) for i, p in enumerate(spec["params"]) if p["kind"] != "store"]
        slots += [(name, None) for name in API["options"].get(spec.get("options"), {})]
        for argument, position in slots:
            for kind, make in HOSTILE.items():
                args, kwargs = list(valid), {}
                if position is None:
                    kwargs[argument] = make()
                else:
                    args[position] = make()
                what = f"{spec['name']}({argument} = raising {kind})"
                call = function_of(spec)
                calls += 1
                try:
                    call(*args, **kwargs)
                except tool_intent.ToolIntentError as e:
                    refused[kind] += 1
                    if e.code not in NOT_ABOUT_AN_ARGUMENT:
                        assert e.argument == argument, f"{what}: {e.code} on {e.argument}: {e}"
                except BaseException as e:  # noqa: BLE001 - the point is that nothing else escapes
                    raise AssertionError(f"{what}: {type(e).__name__}: {e}") from e
    print(f"hostile: {calls} calls, refused by kind {refused}")
    # Every kind was refused somewhere: a value nobody reads would test nothing.
    assert all(refused.values()), refused
    after = tool_intent.Registry.embedded().plan_turn({"enabled": True, "web_search": True}, provider="gemini")
    assert (after.fingerprint, after.payload) == (before.fingerprint, before.payload)
