// wasm half of the cross-target golden test (Node). tests/golden/cross-target.json holds the
// fully resolved rows the native test (tests/cross_target.rs) wrote: registry recipe,
// override, options, fingerprint. Each row is rendered by the wasm package, imported by its
// name as a consumer would; the payload bytes are hashed here too, so equal fingerprints mean
// equal bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Registry, fingerprint, recordLoaded } from "tool-intent";
import { checkSearchRows, goldenRegistry as golden, read } from "./golden-registries.mjs";

const rows = JSON.parse(read("tests/golden/cross-target.json"));
const goldenRegistry = (recipe) => golden(Registry, recipe);

/** A row's options as the library reads them: the rows' `loaded` stands for a state that
 * loaded those tools and began a turn (tests/cross_target.rs, `turn_options`). */
function turnOptions({ loaded, ...options }) {
  return loaded ? { ...options, state: { loaded, frozen: loaded, turn: 1 } } : options;
}

const sha256 = (s) => "sha256:" + createHash("sha256").update(s, "utf8").digest("hex");

test("wasm payload fingerprints equal the native build's for every row", () => {
  let registry = null;
  let recipe = null;
  for (const row of rows) {
    if (row.registry !== recipe) [recipe, registry] = [row.registry, goldenRegistry(row.registry)];
    const plan = registry.planTurn(row.override, turnOptions(row.options));
    assert.equal(plan.fingerprint, row.fingerprint, row.case);
    assert.equal(Buffer.byteLength(plan.payload, "utf8"), row.bytes, row.case);
    assert.equal(sha256(plan.payload), plan.fingerprint, `${row.case}: fingerprint is not of the bytes`);
    assert.equal(fingerprint(plan.catalogText), row.catalog, `${row.case} catalog`);
    assert.equal(plan.requestFields, row.requestFields, `${row.case} request fields`);
  }
  assert.equal(rows.length, 1890);
});

test("wasm tool_search hits equal the native build's for every search row", () => {
  assert.equal(checkSearchRows({ Registry, fingerprint }, "tests/golden/search.json"), 128);
});

test("golden payload files of the embedded registry match byte for byte", () => {
  const r = Registry.embedded();
  for (const provider of ["anthropic", "openai-chat", "openai-responses"]) {
    const golden = read(`tests/golden/${provider}.default.json`);
    assert.equal(r.planTurn(null, { provider }).payload, golden, provider);
  }
});

test("the cache-impact report in wasm equals the native report for the issue-14 session", () => {
  const golden = JSON.parse(read("tests/golden/cache-report.json"));
  const registry = goldenRegistry("all");
  const script = read("tests/data/cache-session.json");
  const reports = [];
  for (const provider of ["anthropic", "openai-responses"]) {
    for (const mode of ["catalog", "native", "native-client"]) {
      reports.push(registry.cacheReport(script, null, { provider, mode }));
    }
  }
  assert.deepEqual(reports, golden);
  // Anthropic keeps deferred tools out of the cached prefix; OpenAI Responses shows their
  // names and descriptions, so the turn-12 newcomer and the turn-15 removal rewrite there.
  const anthropic = reports.find((r) => r.provider === "anthropic" && r.mode === "native-client");
  assert.equal(anthropic.rewrites, 0);
  const openai = reports.find((r) => r.provider === "openai-responses" && r.mode === "native-client");
  assert.deepEqual(openai.turns.filter((t) => t.rewrittenTokens > 0).map((t) => t.turn), [12, 15]);
});

test("native-client search returns provider-shaped output", () => {
  const r = Registry.embedded();
  const anthropic = r.turn(null, { mode: "native-client" }).search("select:enter_plan_mode");
  assert.deepEqual(anthropic.providerOutput, [{ type: "tool_reference", tool_name: "enter_plan_mode" }]);
  const openai = r.turn(null, { mode: "native-client", provider: "openai-responses" }).search("select:enter_plan_mode");
  assert.equal(openai.providerOutput.type, "tool_search_output");
  assert.equal(openai.providerOutput.execution, "client");
  assert.equal(openai.providerOutput.tools[0].name, "enter_plan_mode");
  const plan = r.planTurn(null, { mode: "native-client", provider: "openai-responses" });
  const search = JSON.parse(plan.payload).find((t) => t.type === "tool_search");
  assert.equal(search.execution, "client");
  assert.ok(search.parameters.properties.query);
});

test("cacheReport starts from the options' state and profile", () => {
  const registry = Registry.embedded();
  const script = { turns: [{}, { searches: ["select:enter_plan_mode"] }, {}] };
  assert.equal(registry.cacheReport(script, null, { mode: "catalog" }).rewrites, 1);
  const loaded = recordLoaded(registry.beginTurn(null), ["enter_plan_mode"]);
  assert.equal(registry.cacheReport(script, null, { mode: "catalog", state: loaded }).rewrites, 0);
  assert.equal(registry.cacheReport(script, null, { mode: "catalog", profile: { enabled: false } }).rewrites, 0);
});
