// The model ranker in wasm under Node (tool-intent-hybrid, Registry.withModel): the same
// registry and 20-word query as the hybrid benchmarks (benches/js/hybrid-node.mjs,
// benches/hybrid.rs). Prints the weights' load, the first model search (every deferred tool
// embedded), a registry change that adds one server (only its tools embedded), and the median
// warm query. Issue 36's target: ≤ 60 ms per warm 20-word query over 1,000 deferred tools.
//
//   cargo run --release --example gen_registry -- 1020 42 > bench-results/registry-1020.json
//   source scripts/setup.sh && setup_model   # the weights, into target/retrieval/minilm/model
//   node benches/js/model-node.mjs bench-results/registry-1020.json [MODEL.safetensors]
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { INTENT, QUERY } from "./search-bench.mjs";

const file = process.argv[2];
const weightsFile = process.argv[3] ?? "target/retrieval/minilm/model/model.safetensors";
if (!file) {
  console.error("usage: node benches/js/model-node.mjs REGISTRY.json [MODEL.safetensors]");
  process.exit(2);
}
const text = readFileSync(file, "utf8");

const mib = () => process.memoryUsage().rss / 2 ** 20;
const rssBefore = mib();
const { Registry } = await import("tool-intent-hybrid");
const weights = readFileSync(weightsFile);
let started = performance.now();
const registry = Registry.fromJson(text).withModel(weights);
const loadMs = performance.now() - started;
const rssLoaded = mib();
const search = (r) => {
  const turn = r.turn(INTENT);
  try {
    return turn.search(QUERY, { ranker: "model" });
  } finally {
    turn.free();
  }
};
started = performance.now();
search(registry);
const firstMs = performance.now() - started;
const rssFirst = mib();
const deferred = registry.planTurn(INTENT).catalog.length;

// A registry change: one more server of 5 tools; only they are embedded.
const server = { tools: [0, 1, 2, 3, 4].map((i) => ({ name: `extra_${i}`, description: `Extra tool number ${i} that files expense reports`, inputSchema: { type: "object" } })) };
const changed = registry.setMcpServer("extra", server).registry;
started = performance.now();
search(changed);
const changeMs = performance.now() - started;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const warm = [];
for (let i = 0; i < 30; i++) {
  const t = performance.now();
  search(registry);
  warm.push(performance.now() - t);
}
const queryMs = median(warm);
console.log(`model-node: Node ${process.version}, ${deferred} deferred tools, a ${QUERY.split(" ").length}-word query`);
console.log(`  withModel (parse ${(weights.length / 1e6).toFixed(1)} MB of weights) ${loadMs.toFixed(0)} ms; first model search (embeds every deferred tool) ${(firstMs / 1000).toFixed(1)} s`);
console.log(`  a server of 5 tools added: the next search ${changeMs.toFixed(0)} ms (embeds those 5 and the query)`);
console.log(`  warm query (median of 30) ${queryMs.toFixed(1)} ms`);
console.log(`  resident memory: ${rssBefore.toFixed(0)} MiB before, ${rssLoaded.toFixed(0)} with the model, ${rssFirst.toFixed(0)} after the first search`);
console.log(JSON.stringify({ node: process.version, deferred, loadMs, firstMs, changeMs, queryMs, rssBefore, rssLoaded, rssFirst }));
