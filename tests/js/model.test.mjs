// The model ranker in the hybrid build (tool-intent-hybrid): Registry.withModel takes
// all-MiniLM-L6-v2's weights (target/retrieval/minilm/model/model.safetensors, downloaded by
// scripts/setup.sh's setup_model), and search's `ranker: "model"` must give the native build's
// hits (tests/golden/search-model.json, written by tests/cross_target.rs) and the native CLI's
// `search --ranker model --model FILE`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { Registry } from "tool-intent-hybrid";
import * as hybrid from "tool-intent-hybrid";
import * as core from "tool-intent";
import { checkSearchRows, read } from "./golden-registries.mjs";

const root = new URL("../../", import.meta.url);
const weightsPath = new URL("target/retrieval/minilm/model/model.safetensors", root).pathname;
const cli = new URL("target/debug/tool-intent", root).pathname;
assert.ok(existsSync(weightsPath), `${weightsPath} missing: source scripts/setup.sh && setup_model`);
const weights = readFileSync(weightsPath);
const withModel = { Registry: { embedded: () => Registry.embedded().withModel(weights), fromJson: (t) => Registry.fromJson(t).withModel(weights) }, fingerprint: hybrid.fingerprint };

test("model rows: hits equal to the native build's for every row", () => {
  assert.ok(JSON.parse(read("tests/golden/search-model.json")).every((row) => row.ranker === "model"));
  assert.equal(checkSearchRows(withModel, "tests/golden/search-model.json"), 44);
});

test("model search equals the native CLI's search --ranker model", () => {
  assert.ok(existsSync(cli), `${cli} not built: run cargo build -p tool-intent-cli --features exact-tokens,model first`);
  const query = "remind me what the clock says in Sydney";
  const mcp = "tests/data/mcp/time.json";
  const js = Registry.embedded().withModel(weights).setMcpServer("time", read(mcp)).registry.turn(null).search(query, { ranker: "model", limit: 3 });
  const native = JSON.parse(execFileSync(cli, ["search", "--mcp", `time=${new URL(mcp, root).pathname}`, "--ranker", "model", "--model", weightsPath, "--limit", "3", "--json", "--query", query], { encoding: "utf8" }));
  assert.deepEqual(js.hits, native.hits);
  assert.equal(js.hits[0], "mcp__time__get_current_time");
});

test("the model survives registry changes, leaves the fingerprint alone and is refused where missing", () => {
  const plain = Registry.embedded();
  const r = plain.withModel(weights);
  assert.equal(r.fingerprint(), plain.fingerprint(), "the model is not registry content");
  const changed = r.setMcpServer("time", read("tests/data/mcp/time.json")).registry;
  assert.deepEqual(changed.turn(null).search("remind me what the clock says in Sydney", { ranker: "model", limit: 1 }).hits, ["mcp__time__get_current_time"]);
  // A registry without weights: an error on `ranker` that says how to give them.
  assert.throws(
    () => plain.turn(null).search("plan mode", { ranker: "model" }),
    (e) => e.code === "invalid_argument" && e.argument === "ranker" && /withModel/.test(e.message),
  );
  // Bytes that are not the model: an error on `model` naming what is wrong.
  assert.throws(
    () => plain.withModel(new Uint8Array([1, 2, 3])),
    (e) => e.code === "invalid_argument" && e.argument === "model" && /safetensors/.test(e.message),
  );
  assert.throws(
    () => plain.withModel(weights.subarray(0, 1 << 20)),
    (e) => e.code === "invalid_argument" && e.argument === "model" && /run past/.test(e.message),
  );
  // The core package has neither withModel nor the ranker.
  assert.equal(typeof core.Registry.embedded().withModel, "undefined");
  assert.throws(
    () => core.Registry.embedded().turn(null).search("plan mode", { ranker: "model" }),
    (e) => e.code === "invalid_argument" && e.argument === "ranker" && /tool-intent-hybrid/.test(e.message),
  );
});

test("withModel is the API table's call of the hybrid build: its parameter as the table names it", () => {
  const api = JSON.parse(read("tests/data/api.json"));
  const spec = api.calls.find((c) => c.name === "with_model");
  assert.equal(spec.build, "hybrid");
  const declared = /^[^(]*\(([^)]*)\)/.exec(Registry.prototype.withModel.toString())[1].split(",").map((p) => p.trim());
  assert.deepEqual(declared, spec.params.map((p) => p.name));
  // A wrong-typed argument is a ToolIntentError naming it, not a TypeError from the glue.
  for (const wrong of [42, "model.safetensors", null, {}, [1, 2]]) {
    assert.throws(() => Registry.embedded().withModel(wrong), (e) => e.code === "invalid_argument" && e.argument === "model", String(wrong));
  }
});
