// Search abstention (`abstain: true`): a keyword query that names no tool and whose best match
// fits below the ranker's calibrated threshold loads nothing, names the nearest tools in its
// text and warns `search_abstained`. The rows of tests/golden/search-abstain.json (written by
// tests/cross_target.rs) must replay with the native build's hits, text and warnings in
// tool-intent-hybrid (every ranker) and tool-intent-exact (keyword); the core package leaves
// abstention out (its size budget) and refuses the option by name.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import * as hybrid from "tool-intent-hybrid";
import * as exact from "tool-intent-exact";
import * as core from "tool-intent";
import { checkSearchRows, goldenRegistry, read } from "./golden-registries.mjs";

const FILE = "tests/golden/search-abstain.json";
const rows = JSON.parse(read(FILE));
const weightsPath = new URL("../../target/retrieval/minilm/model/model.safetensors", import.meta.url).pathname;
assert.ok(existsSync(weightsPath), `${weightsPath} missing: source scripts/setup.sh && setup_model`);

test("abstention rows: tool-intent-hybrid gives the native hits, text and warnings for every ranker", () => {
  const weights = readFileSync(weightsPath);
  const withModel = {
    Registry: { embedded: () => hybrid.Registry.embedded().withModel(weights), fromJson: (t) => hybrid.Registry.fromJson(t).withModel(weights) },
    fingerprint: hybrid.fingerprint,
  };
  assert.deepEqual([...new Set(rows.map((r) => r.ranker))], ["keyword", "hybrid", "model"]);
  assert.ok(rows.some((r) => r.warnings.includes("search_abstained")), "no row abstains");
  assert.equal(checkSearchRows(withModel, FILE), 140);
});

test("abstention rows: tool-intent-exact gives the native answers for the keyword ranker", () => {
  const keyword = (r) => r.ranker === "keyword";
  assert.ok(rows.filter(keyword).some((r) => r.warnings.includes("search_abstained")), "no keyword row abstains");
  assert.equal(checkSearchRows({ Registry: exact.Registry, fingerprint: exact.fingerprint }, FILE, keyword), 60);
});

test("an abstaining search loads nothing and tells the model what to do next", () => {
  const registry = goldenRegistry(hybrid.Registry, "all");
  const request = "translate this paragraph into Japanese";
  const out = registry.turn(null).search(request, { ranker: "hybrid", abstain: true });
  assert.deepEqual(out.hits, []);
  assert.deepEqual(out.state.loaded, []);
  assert.equal(out.warnings.length, 1);
  assert.equal(out.warnings[0].code, "search_abstained");
  assert.equal(out.warnings[0].message, out.text);
  assert.match(out.text, /^No deferred tool fits this request well enough to load \(the best match scores 0\.0\d, under the 0\.06 this search asks for\)\. Nearest: mcp__[\w-]+, mcp__[\w-]+, mcp__[\w-]+\. Ask the user/);
  // Without the option the same request loads its best five.
  assert.equal(registry.turn(null).search(request, { ranker: "hybrid" }).hits.length, 5);
  // In native-client mode the provider's shape carries the text (Anthropic: a text block).
  const native = registry.turn(null, { provider: "anthropic", mode: "native-client" }).search(request, { ranker: "hybrid", abstain: true });
  assert.deepEqual(native.providerOutput, [{ type: "text", text: out.text }]);
});

test("the core package refuses abstain by name; a ranker weight without a threshold is not a case in JS", () => {
  const turn = core.Registry.embedded().turn(null);
  assert.throws(
    () => turn.search("plan mode", { abstain: true }),
    (e) => e.code === "invalid_argument" && e.argument === "abstain" && /tool-intent-exact or tool-intent-hybrid/.test(e.message),
  );
  // false is accepted everywhere; a non-boolean is refused with the argument's name.
  assert.ok(turn.search("plan mode", { abstain: false }).hits.length > 0);
  assert.throws(() => turn.search("plan mode", { abstain: "yes" }), (e) => e.code === "invalid_argument" && e.argument === "abstain");
});
