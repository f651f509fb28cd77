"""Python half of the cross-target golden test: every fully resolved row that the native test
(tests/cross_target.rs) wrote is planned through the Python binding and must give the
same payload fingerprint, byte length and catalog fingerprint as native, Node and Chrome."""

import json
import pathlib

import tool_intent

ROOT = pathlib.Path(__file__).resolve().parents[2]
MCP = ["everything", "fetch", "filesystem", "git", "github", "memory", "playwright", "seqthink", "time"]


def mcp(name):
    return (ROOT / "tests/data/mcp" / f"{name}.json").read_text()


def golden_registry(recipe, module=tool_intent):
    """A golden registry by recipe, built by `module`'s Registry (the default module, or the
    hybrid one in test_hybrid.py)."""
    registry = module.Registry
    if recipe == "embedded":
        return registry.embedded()
    if recipe.startswith("doc:"):
        return registry.from_json((ROOT / "tests/data" / f"{recipe[4:]}-registry.json").read_text())
    if recipe == "all":
        r = registry.embedded()
        for name in MCP:
            r = r.set_mcp_server(name, mcp(name))["registry"]
        return r
    if recipe.startswith("mcp:"):
        return registry.from_json(mcp(recipe[4:]))
    name = recipe[len("embedded+"):]
    return registry.embedded().set_mcp_server(name, mcp(name))["registry"]


def check_search_rows(module, file, prepare=lambda registry: registry, keep=lambda row: True):
    """Runs every row of a search golden file that `keep` keeps through `module` (its limit,
    its ranker when the row names one, abstain when it asks) on registries passed through
    `prepare` (to give them a model) and compares hits, result text and (abstention rows)
    warning codes with the native build's; returns the row count."""
    rows = [row for row in json.loads((ROOT / file).read_text()) if keep(row)]
    pool = (ROOT / "tests/data/bfcl/retrieval-pool.json").read_text()
    registries = {
        "all": prepare(golden_registry("all", module)),
        "bfcl": prepare(module.Registry.embedded().set_mcp_server("b", pool)["registry"]),
    }
    for row in rows:
        options = {"ranker": row["ranker"]} if "ranker" in row else {}
        if row.get("abstain"):
            options["abstain"] = True
        result = registries[row["registry"]].turn(row["override"]).search(row["query"], limit=row["limit"], **options)
        assert result["hits"] == row["hits"], row["case"]
        assert module.fingerprint(result["text"]) == row["text"], row["case"]
        if "warnings" in row:
            assert [w["code"] for w in result.get("warnings", [])] == row["warnings"], row["case"]
    return len(rows)


def test_every_golden_row_has_the_native_fingerprint():
    rows = json.loads((ROOT / "tests/golden/cross-target.json").read_text())
    assert len(rows) == 1890
    recipe, registry = None, None
    for row in rows:
        if row["registry"] != recipe:
            recipe, registry = row["registry"], golden_registry(row["registry"])
        o = row["options"]
        # A row's `loaded` stands for a state that loaded those tools and began a turn
        # (tests/cross_target.rs, `turn_options`).
        state = {"loaded": o["loaded"], "frozen": o["loaded"], "turn": 1} if "loaded" in o else o.get("state")
        plan = registry.plan_turn(
            row["override"],
            profile=o.get("profile"),
            source=o.get("source"),
            state=state,
            provider=o.get("provider", "anthropic"),
            mode=o.get("mode", "catalog"),
            cache_control=o.get("cacheControl", False),
        )
        assert plan["fingerprint"] == row["fingerprint"], row["case"]
        assert len(plan["payload"].encode()) == row["bytes"], row["case"]
        assert plan.request_fields == row["requestFields"], row["case"]
        assert tool_intent.fingerprint(plan["payload"]) == plan["fingerprint"], row["case"]
        assert tool_intent.fingerprint(plan["catalog_text"]) == row["catalog"], row["case"]


def test_every_search_row_has_the_native_hits():
    assert check_search_rows(tool_intent, "tests/golden/search.json") == 128
