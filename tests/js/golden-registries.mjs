// The golden registries of tests/cross_target.rs, built through a package's own `Registry`
// (tool-intent, or tool-intent-hybrid), and the search-golden check every JS runner shares.
// Not a test file itself: node --test picks up only *.test.mjs here.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

const root = new URL("../../", import.meta.url);
export const read = (p) => readFileSync(new URL(p, root), "utf8");
export const MCP = ["everything", "fetch", "filesystem", "git", "github", "memory", "playwright", "seqthink", "time"];
const mcp = (name) => read(`tests/data/mcp/${name}.json`);

/** A golden registry by recipe: embedded, mcp:<file>, embedded+<file>, all, doc:<name>
 * (tests/data/<name>-registry.json). */
export function goldenRegistry(Registry, recipe) {
  if (recipe === "embedded") return Registry.embedded();
  if (recipe.startsWith("doc:")) return Registry.fromJson(read(`tests/data/${recipe.slice(4)}-registry.json`));
  if (recipe === "all") return MCP.reduce((r, name) => r.setMcpServer(name, mcp(name)).registry, Registry.embedded());
  const [kind, name] = recipe.startsWith("mcp:") ? ["mcp", recipe.slice(4)] : ["merged", recipe.slice("embedded+".length)];
  return kind === "mcp" ? Registry.fromJson(mcp(name)) : Registry.embedded().setMcpServer(name, mcp(name)).registry;
}

/** Runs every row of a search golden file (tests/golden/search*.json) that `keep` keeps
 * through the package — its limit, its ranker when the row names one, abstain when it asks —
 * and compares hits, result text and (abstention rows) warning codes with the native
 * build's. Returns the row count. */
export function checkSearchRows({ Registry, fingerprint }, file, keep = () => true) {
  const rows = JSON.parse(read(file)).filter(keep);
  const registries = {
    all: goldenRegistry(Registry, "all"),
    bfcl: Registry.embedded().setMcpServer("b", read("tests/data/bfcl/retrieval-pool.json")).registry,
  };
  for (const row of rows) {
    const options = { limit: row.limit };
    if (row.ranker) options.ranker = row.ranker;
    if (row.abstain) options.abstain = true;
    const out = registries[row.registry].turn(row.override).search(row.query, options);
    assert.deepEqual(out.hits, row.hits, row.case);
    assert.equal(fingerprint(out.text), row.text, row.case);
    if (row.warnings) assert.deepEqual((out.warnings ?? []).map((w) => w.code), row.warnings, row.case);
  }
  return rows.length;
}
