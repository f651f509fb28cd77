"""The binding releases the GIL while the core works: turns from several threads at once
against one registry give the same bytes as one thread (the registry is shared read-only;
its caches are built once, whichever thread gets there first)."""

import json
import pathlib
import threading

import tool_intent

ROOT = pathlib.Path(__file__).resolve().parents[2]
MCP = ["everything", "filesystem", "git", "github", "memory", "playwright"]


def registry():
    r = tool_intent.Registry.embedded()
    for name in MCP:
        r = r.set_mcp_server(name, (ROOT / "tests/data/mcp" / f"{name}.json").read_text())["registry"]
    return r


def work(r, k):
    """One thread's calls; everything it returns, as text."""
    intent = [None, {"toolset": "full"}, {"enabled": True, "web_search": True}][k % 3]
    provider = ["anthropic", "openai-responses", "gemini"][k % 3]
    plan = r.plan_turn(intent, provider=provider)
    found = r.turn(intent).search("create issue", limit=3)
    budget = r.turn(intent, provider=provider).budget()
    return json.dumps([plan.payload, plan.catalog_text, found, budget, r.check(provider)], sort_keys=True)


def test_threads_at_once_give_the_bytes_of_one_thread():
    expected = [work(registry(), k) for k in range(6)]
    shared = registry()  # fresh: its search index and caches are built by the threads below
    results = [None] * 24
    errors = []
    start = threading.Barrier(8)

    def run(slot):
        try:
            start.wait()
            for k in range(slot, len(results), 8):
                results[k] = work(shared, k)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for k, got in enumerate(results):
        assert got == expected[k % 6], k
