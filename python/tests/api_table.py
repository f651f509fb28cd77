"""The one API table, tests/data/api.json, and the Python object each of its rows is called on:
shared by the tests that walk the table."""

import functools
import json
import os
import pathlib
import tempfile

import tool_intent

ROOT = pathlib.Path(__file__).resolve().parents[2]
API = json.loads((ROOT / "tests" / "data" / "api.json").read_text())


@functools.cache
def temporary_store():
    """The run's SQLite registry version store, in a temporary folder."""
    return os.path.join(tempfile.mkdtemp(prefix="tool-intent-api-"), "versions.db")


@functools.cache
def shared_registry():
    """The run's SharedRegistry on that store (joining a store reads its newest version back,
    ~8 ms a time, so the rows share one)."""
    return tool_intent.SharedRegistry(temporary_store(), tool_intent.Registry.embedded())


def keep(registry):
    """A change function that changes nothing."""
    return registry


# Values of the kinds JSON cannot hold (their rows' `valid` is null), made fresh per call.
VALID_BY_KIND = {
    "store": temporary_store,
    "registry": tool_intent.Registry.embedded,
    "function": lambda: keep,
}


def valid(spec):
    """A row's valid arguments, in order."""
    return [VALID_BY_KIND[p["kind"]]() if p["kind"] in VALID_BY_KIND else json.loads(json.dumps(p["valid"]))
            for p in spec["params"]]


def target(on):
    """What a row's `on` names: a class, a fresh embedded registry or turn, the run's shared
    registry (on a temporary store), or the module."""
    if on == "shared":
        return shared_registry()
    if on == "Registry":
        return tool_intent.Registry
    if on == "SessionRunConfig":
        return tool_intent.SessionRunConfig
    if on == "registry":
        return tool_intent.Registry.embedded()
    if on == "turn":
        return tool_intent.Registry.embedded().turn()
    assert on == "module", on
    return tool_intent


def constructor(spec):
    """The class a constructor row stands for (`SharedRegistry.open` is
    `SharedRegistry(store, initial)` in Python), or None for any other row."""
    return {("SharedRegistry", "open"): tool_intent.SharedRegistry}.get((spec["on"], spec["name"]))


def function_of(spec):
    """The Python callable of a row, on a fresh target: a method, a function, or a constructor."""
    return constructor(spec) or getattr(target(spec["on"]), spec["name"])
