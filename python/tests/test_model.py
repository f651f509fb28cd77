"""The model ranker in Python: `Registry.with_model` of the `tool-intent[hybrid]` module takes
all-MiniLM-L6-v2's weights (target/retrieval/minilm/model/model.safetensors, which
scripts/setup.sh's setup_model downloads; without it these tests fail and say so), and
`search(..., ranker="model")` must give the native build's hits for every row of
tests/golden/search-model.json. `SharedRegistry.with_model` gives a fleet process the model
with the embeddings other processes shared through the store. The default module has no
with_model and refuses the ranker."""

import json
import pathlib
import pickle

import pytest

import tool_intent
from test_golden import check_search_rows, golden_registry
from test_hybrid import load_hybrid
from tool_intent import _tool_intent

ROOT = pathlib.Path(__file__).resolve().parents[2]
WEIGHTS = ROOT / "target/retrieval/minilm/model/model.safetensors"


def weights():
    assert WEIGHTS.is_file(), f"{WEIGHTS} missing: source scripts/setup.sh && setup_model"
    return WEIGHTS.read_bytes()


def refuses_bad_weights(hybrid, with_model):
    """`with_model` refuses what is not the model's weights, naming its argument."""
    for bad, says in [(b"\x01\x02\x03", "safetensors"), ("model.safetensors", "expected bytes")]:
        with pytest.raises(hybrid.ToolIntentError) as e:
            with_model(bad)
        assert (e.value.code, e.value.argument) == ("invalid_argument", "model")
        assert says in str(e.value)


def test_every_model_search_row_has_the_native_hits():
    hybrid = load_hybrid()
    model = weights()
    rows = json.loads((ROOT / "tests/golden/search-model.json").read_text())
    assert all(row["ranker"] == "model" for row in rows)
    assert check_search_rows(hybrid, "tests/golden/search-model.json", lambda r: r.with_model(model)) == 44


def test_the_model_is_kept_through_changes_and_refused_with_its_argument():
    hybrid = load_hybrid()
    plain = hybrid.Registry.embedded()
    r = plain.with_model(weights())
    assert r.fingerprint() == plain.fingerprint()
    time_list = (ROOT / "tests/data/mcp/time.json").read_text()
    changed = r.set_mcp_server("time", time_list)["registry"]
    hits = changed.turn().search("remind me what the clock says in Sydney", ranker="model", limit=1)["hits"]
    assert hits == ["mcp__time__get_current_time"]
    # The hybrid module loaded alone has its own error class (tool_intent picks one module).
    with pytest.raises(hybrid.ToolIntentError) as e:
        plain.turn().search("plan mode", ranker="model")
    assert (e.value.code, e.value.argument) == ("invalid_argument", "ranker")
    assert "with_model" in str(e.value)
    refuses_bad_weights(hybrid, plain.with_model)
    # A registry with the weights does not pickle, rather than arrive without them.
    with pytest.raises(hybrid.ToolIntentError) as e:
        pickle.dumps(r)
    assert (e.value.code, e.value.argument) == ("invalid_argument", "registry")
    assert "with_model" in str(e.value)


def test_the_default_module_has_no_model():
    assert not hasattr(_tool_intent.Registry, "with_model")
    assert not hasattr(_tool_intent.SharedRegistry, "with_model")
    with pytest.raises(tool_intent.ToolIntentError) as e:
        _tool_intent.Registry.embedded().turn().search("plan mode", ranker="model")
    assert e.value.argument == "ranker" and "tool-intent[hybrid]" in str(e.value)


def test_with_model_is_the_api_tables_call_of_the_hybrid_build():
    import inspect

    hybrid = load_hybrid()
    api = json.loads((ROOT / "tests/data/api.json").read_text())
    specs = [c for c in api["calls"] if c["name"] == "with_model"]
    classes = {"registry": hybrid.Registry, "shared": hybrid.SharedRegistry}
    assert sorted(c["on"] for c in specs) == sorted(classes)
    for spec in specs:
        assert spec["build"] == "hybrid"
        method = classes[spec["on"]].with_model
        params = [p.name for p in inspect.signature(method).parameters.values() if p.name != "self"]
        assert params == [p["name"] for p in spec["params"]], spec["on"]


def test_a_fleet_process_reads_the_embeddings_another_computed_and_keeps_the_model(tmp_path):
    hybrid = load_hybrid()
    model = weights()
    store = str(tmp_path / "versions.sqlite")
    memory = (ROOT / "tests/data/mcp/memory.json").read_text()
    initial = hybrid.Registry.embedded().set_mcp_server("memory", memory)["registry"]
    request = "remember that the user prefers dark mode"

    a = hybrid.SharedRegistry(store, initial)
    assert a.with_model(model) == {"loaded": 0, "refused": 0}
    state = a.begin_turn(None)
    hits = a.turn(state=state).search(request, ranker="model")["hits"]
    assert hits
    a.begin_turn(state)  # the boundary shares what the search embedded

    b = hybrid.SharedRegistry(store, initial)
    read = b.with_model(model)
    assert read["refused"] == 0 and read["loaded"] > 0, read
    assert b.turn(state=state).search(request, ranker="model")["hits"] == hits

    # A version the process publishes itself keeps the model.
    b.publish(hybrid.Registry.embedded())
    assert b.turn(None).search("plan mode", ranker="model")["hits"]

    refuses_bad_weights(hybrid, b.with_model)


def test_every_abstention_row_has_the_native_answer():
    """tests/golden/search-abstain.json: every ranker with abstain=True in the hybrid module,
    its keyword rows in the default module too (hits, text and warning codes)."""
    hybrid = load_hybrid()
    model = weights()
    file = "tests/golden/search-abstain.json"
    rows = json.loads((ROOT / file).read_text())
    assert any("search_abstained" in row["warnings"] for row in rows)
    assert check_search_rows(hybrid, file, lambda r: r.with_model(model)) == 140


def test_abstain_in_the_default_module():
    keyword = lambda row: row["ranker"] == "keyword"  # noqa: E731
    assert check_search_rows(tool_intent, "tests/golden/search-abstain.json", keep=keyword) == 60
    registry = golden_registry("all", tool_intent)
    request = "remind me what the clock says in Sydney"  # keyword's one abstention there
    out = registry.turn(None).search(request, abstain=True)
    assert out["hits"] == [] and out["state"]["loaded"] == []
    assert [w["code"] for w in out["warnings"]] == ["search_abstained"]
    assert out["text"].startswith("No deferred tool fits this request well enough to load")
    assert "under the 0.02 this search asks for" in out["text"]
    assert registry.turn(None).search(request)["hits"]
    turn = registry.turn(None)
    assert turn.search("select:mcp__git__git_status", abstain=True)["hits"] == ["mcp__git__git_status"]
    with pytest.raises(tool_intent.ToolIntentError) as e:
        turn.search("plan mode", abstain="yes")
    assert e.value.code == "invalid_argument" and e.value.argument == "abstain"
