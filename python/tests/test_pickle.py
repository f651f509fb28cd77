"""Pickling and copying, as a process pool or a framework's deep copy does: a registry crosses
as its document and reads back deciding as before (trusted servers included); a session row
as its columns; a copy of a registry is the registry itself (no call changes one). What holds
a running turn (`Turn`) does not pickle."""

import copy
import multiprocessing
import pickle
from pathlib import Path

import pytest

import tool_intent
from test_annotations import with_trust

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "mcp"


def trusted_registry():
    """The embedded registry trusting server `time`, with `time` and `github` set."""
    return with_trust(["time"]).set_mcp_server("github", (DATA / "github.json").read_text())["registry"]


def decisions(r):
    """What a registry decides: its fingerprint, each tool's annotations and trust, and the
    bytes of a read-only turn for two providers."""
    readonly = {"toolset": "readonly"}
    return (
        r.fingerprint(),
        r.tool_infos(),
        r.plan_turn(readonly).payload,
        r.plan_turn(readonly, provider="openai-responses", mode="native").payload,
    )


def plan_in_a_worker(registry):
    return decisions(registry)


def test_a_registry_pickles_and_decides_as_before():
    r = trusted_registry()
    back = pickle.loads(pickle.dumps(r))
    assert isinstance(back, tool_intent.Registry)
    assert decisions(back) == decisions(r)
    # The trusted server's read-only tools are in the read-only preset on both sides.
    assert "mcp__time__get_current_time" in back.plan_turn({"toolset": "readonly"}).array + back.plan_turn(
        {"toolset": "readonly"}).catalog


def test_what_crosses_is_the_version_not_the_earlier_ones_it_holds():
    """A turn begun before a server joined runs on the earlier version the registry holds; a
    pickled copy holds only its own version, so there the turn warns that its version is gone,
    as on a process that never held it."""
    before = tool_intent.Registry.embedded()
    state = before.begin_turn(None)
    after = before.set_mcp_server("time", (DATA / "time.json").read_text())["registry"]

    def codes(registry):
        return [w["code"] for w in registry.turn(None, state=state).warnings()]

    assert codes(after) == ["turn_registry_earlier"]
    assert codes(pickle.loads(pickle.dumps(after))) == ["turn_registry_gone"]


def test_a_registry_crosses_to_a_spawned_process():
    r = trusted_registry()
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.apply(plan_in_a_worker, (r,)) == decisions(r)


def test_a_copy_of_a_registry_is_the_registry():
    r = trusted_registry()
    assert copy.copy(r) is r
    assert copy.deepcopy(r) is r
    assert copy.deepcopy({"registry": r})["registry"] is r


def test_a_session_row_pickles_and_copies_equal():
    config = tool_intent.SessionRunConfig.from_override(
        {"toolset": "research", "disabled": ["mcp__github__*"], "web_search": True, "future_key": [1, 2]})
    for back in [pickle.loads(pickle.dumps(config)), copy.deepcopy(config), copy.copy(config)]:
        assert back == config
        assert back.to_row() == config.to_row()


def test_a_turn_does_not_pickle():
    with pytest.raises(TypeError):
        pickle.dumps(tool_intent.Registry.embedded().turn(None))
