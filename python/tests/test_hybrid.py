"""The hybrid ranker in Python: the module of the `tool-intent-hybrid` distribution (what
`pip install tool-intent[hybrid]` adds) must give the native build's hits for every row of
tests/golden/search-hybrid.json, and the default module must refuse `ranker="hybrid"` naming
the extra.

The hybrid module is loaded from the file scripts/test.sh unpacks from the built wheel
(target/hybrid-module/tool_intent/_tool_intent_hybrid.abi3.so); without it the test fails and
says how to build it. scripts/test.sh also installs both wheels into a fresh virtualenv with
`pip install tool-intent[hybrid]` and checks that `import tool_intent` then uses this module."""

import importlib.machinery
import importlib.util
import json
import pathlib

import pytest

import tool_intent
from test_golden import check_search_rows
from tool_intent import _tool_intent

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODULE = ROOT / "target/hybrid-module/tool_intent/_tool_intent_hybrid.abi3.so"


def load_hybrid():
    assert MODULE.is_file(), (
        f"{MODULE} missing: build the hybrid wheel (cd python/hybrid && maturin build --release) "
        "and unzip its tool_intent/ into target/hybrid-module (scripts/test.sh does)"
    )
    name = "tool_intent._tool_intent_hybrid"
    loader = importlib.machinery.ExtensionFileLoader(name, str(MODULE))
    spec = importlib.util.spec_from_file_location(name, MODULE, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_every_hybrid_search_row_has_the_native_hits():
    hybrid = load_hybrid()
    rows = json.loads((ROOT / "tests/golden/search-hybrid.json").read_text())
    assert all(row["ranker"] == "hybrid" for row in rows)
    assert check_search_rows(hybrid, "tests/golden/search-hybrid.json") == 144


def test_the_default_module_refuses_the_hybrid_ranker_and_names_the_extra():
    with pytest.raises(tool_intent.ToolIntentError) as e:
        _tool_intent.Registry.embedded().turn().search("plan mode", ranker="hybrid")
    assert e.value.code == "invalid_argument"
    assert e.value.argument == "ranker"
    assert "tool-intent[hybrid]" in str(e.value)
    with pytest.raises(tool_intent.ToolIntentError) as e:
        _tool_intent.Registry.embedded().turn().search("plan mode", ranker="semantic")
    assert e.value.argument == "ranker" and "keyword, hybrid, model" in str(e.value)
