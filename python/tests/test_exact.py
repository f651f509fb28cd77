"""Exact token counts in Python: both wheels are built with the `exact-tokens` feature
(python/pyproject.toml, python/hybrid/pyproject.toml), so `budget(counter="o200k")` and
`count_tokens(text, "cl100k")` work out of the box, and their figures must equal the native
CLI's `budget --counter ...` (target/debug/tool-intent, built with exact-tokens by the workspace
tests scripts/test.sh runs first; without it the test fails and says how to build it).
scripts/test.sh also checks the installed default wheel counts o200k."""

import json
import pathlib
import subprocess

import pytest

import tool_intent
from test_hybrid import load_hybrid

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = ROOT / "target/debug/tool-intent"


def native_budget(override, counter):
    assert CLI.is_file(), (
        f"{CLI} not built: cargo build -p tool-intent-cli --features exact-tokens,hybrid"
    )
    out = subprocess.run(
        [str(CLI), "budget", "--counter", counter, "--json", "--override", json.dumps(override)],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out)


def test_count_tokens_exact():
    assert tool_intent.count_tokens("hello world", "o200k") == 2
    assert tool_intent.count_tokens("", "cl100k") == 0
    # The estimator differs from the vocabularies on this text: the counter chosen is used.
    text = "tool_search(query: string, limit?: integer) -> the deferred tools' names"
    counts = {c: tool_intent.count_tokens(text, c) for c in ("estimate", "o200k", "cl100k")}
    assert len(set(counts.values())) > 1, counts


@pytest.mark.parametrize("counter", ["o200k", "cl100k"])
@pytest.mark.parametrize("module", ["default", "hybrid"])
def test_budget_equals_the_native_exact_budget(counter, module):
    native_module = tool_intent._tool_intent if module == "default" else load_hybrid()
    override = {"toolset": "research", "web_search": True}
    py = native_module.Registry.embedded().turn(override).budget(counter=counter)
    native = native_budget(override, counter)
    assert py["counter"] == native["counter"] == f"{counter}_base"
    assert py["resident_tokens"] == native["residentTokens"]
    assert py["catalog_tokens"] == native["catalogTokens"]
    assert [(r["name"], r["tokens"]) for r in py["rows"]] == [(r["name"], r["tokens"]) for r in native["rows"]]
    assert py["resident_tokens"] != native_module.Registry.embedded().turn(override).budget()["resident_tokens"]
