"""The one API table, tests/data/api.json, and the Python object each of its rows is called on:
shared by the tests that walk the table."""

import json
import pathlib

import tool_intent

ROOT = pathlib.Path(__file__).resolve().parents[2]
API = json.loads((ROOT / "tests" / "data" / "api.json").read_text())


def target(on):
    """What a row's `on` names: a class, a fresh embedded registry or turn, or the module."""
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
