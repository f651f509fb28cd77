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


def test_threads_sharing_one_turn_take_turns():
    """A server runs a response's parallel tool calls at once: one thread's `tool_search`
    records its loads while others resolve tools and plan on the same `Turn`. The calls take
    turns (a `&mut self` search failed the others with "Already mutably borrowed"), and the
    turn ends as the same calls made one after another leave it."""
    r = registry()
    queries = ["create issue", "read a file", "remember a fact", "git commit", "browser click"] * 4
    names = ["read_file", "grep", "mcp__github__create_issue", "mcp__memory__create_entities"]

    alone = r.turn(None)
    expected_plan = alone.plan().payload
    expected_tools = {name: alone.resolve(name) for name in names}
    for q in queries:
        alone.search(q, limit=2)

    shared = r.turn(None)
    errors, plans, tools = [], [], []
    start = threading.Barrier(3)

    def searcher():
        start.wait()
        for q in queries:
            shared.search(q, limit=2)

    def resolver():
        start.wait()
        for _ in range(len(queries)):
            tools.append({name: shared.resolve(name) for name in names})

    def planner():
        start.wait()
        for _ in range(len(queries)):
            plans.append(shared.plan().payload)
            shared.budget()
            shared.state

    def run(f):
        try:
            f()
        except Exception as e:  # reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=run, args=(f,)) for f in (searcher, resolver, planner)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert shared.state == alone.state
    assert len(shared.state["loaded"]) > 0
    assert plans == [expected_plan] * len(queries)
    assert tools == [expected_tools] * len(queries)
