// The hybrid ranker in wasm under Node (tool-intent-hybrid): the same registry and 20-word query
// as the native benchmark (benches/hybrid.rs), so the figures compare. Prints the process's
// first hybrid query (module start, table parse, indexes, query), the index build on fresh
// registries (the first hybrid query of each), and the median of warm queries; the keyword
// ranker's beside them. Issue targets: ≤ 60 ms per warm query in wasm under Node.
//
//   cargo run --release --example gen_registry -- 1020 42 > bench-results/registry-1020.json
//   node benches/js/hybrid-node.mjs bench-results/registry-1020.json
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { INTENT, QUERY } from "./search-bench.mjs";

const file = process.argv[2];
if (!file) {
  console.error("usage: node benches/js/hybrid-node.mjs REGISTRY.json (from the gen_registry example)");
  process.exit(2);
}
const text = readFileSync(file, "utf8");

const mib = () => process.memoryUsage().rss / 2 ** 20;
const rssBefore = mib();
let started = performance.now();
const { Registry } = await import("tool-intent-hybrid");
const rssImported = mib();
const importMs = performance.now() - started;
let registry = Registry.fromJson(text);
// One turn per query, freed as a server frees it (a turn holds its registry version and that
// version's indexes until it is freed or collected).
const search = (r, options) => {
  const turn = r.turn(INTENT);
  try {
    return turn.search(QUERY, options);
  } finally {
    turn.free();
  }
};
started = performance.now();
search(registry, { ranker: "hybrid" });
const firstMs = performance.now() - started;
const rssFirst = mib();
const deferred = registry.planTurn(INTENT).catalog.length; // the catalog lists every deferred tool

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = {};
for (const ranker of ["hybrid", "keyword"]) {
  const builds = [];
  for (let i = 0; i < 7; i++) {
    const fresh = Registry.fromJson(text);
    const t = performance.now();
    search(fresh, { ranker });
    builds.push(performance.now() - t);
    fresh.free();
  }
  search(registry, { ranker });
  const warm = [];
  for (let i = 0; i < 50; i++) {
    const t = performance.now();
    search(registry, { ranker });
    warm.push(performance.now() - t);
  }
  results[ranker] = { indexBuildMs: median(builds), queryMs: median(warm) };
}
console.log(`hybrid-node: Node ${process.version}, ${deferred} deferred tools, a ${QUERY.split(" ").length}-word query`);
console.log(`  import tool-intent-hybrid ${importMs.toFixed(1)} ms; the process's first hybrid query (table parse + indexes) ${firstMs.toFixed(1)} ms`);
console.log(`  resident memory: ${rssBefore.toFixed(0)} MiB before the import, ${rssImported.toFixed(0)} after it, ${rssFirst.toFixed(0)} after the first hybrid query`);
for (const [ranker, r] of Object.entries(results)) {
  console.log(`  ${ranker.padEnd(7)} index build (first query on a fresh registry, median of 7) ${r.indexBuildMs.toFixed(1)} ms; warm query (median of 50) ${r.queryMs.toFixed(2)} ms`);
}
console.log(JSON.stringify({ node: process.version, deferred, importMs, firstMs, rssBefore, rssImported, rssFirst, ...results }));
