// wasm vs plain JS, in one run: the same preview (expand + split + payload + fingerprint) of
// the same generated registries, through the tool-intent wasm package and through
// benches/js/plain-js.mjs, alternating rounds, median per call (ratios: the median of the
// per-round ratios). Also the cost of the data-passing routes at the boundary. Prints tables
// and writes bench-results/wasm-vs-js.json.
//
//   node benches/js/wasm-vs-js.mjs bench-results/registry-50.json bench-results/registry-1000.json ...
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import assert from "node:assert/strict";
import { Registry, recordLoaded } from "tool-intent";
import { PlainRegistry } from "./plain-js.mjs";

const INTENT = { toolset: "full", web_search: true, disabled: ["mcp__github0__*", "memory"] };
const files = process.argv.slice(2);
if (!files.length) {
  console.error("usage: node benches/js/wasm-vs-js.mjs REGISTRY.json ...");
  process.exit(2);
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median µs per call of each function, measured in alternating rounds. */
function race(fns, options) {
  return raceRounds(fns, options).map(median);
}

/** µs per call of each function in each of `rounds` alternating rounds (one list per function). */
function raceRounds(fns, { rounds = 15, minMs = 40 } = {}) {
  const per = fns.map(() => []);
  const counts = fns.map((fn) => {
    let n = 1;
    for (;;) {
      const t = performance.now();
      for (let i = 0; i < n; i++) fn();
      if (performance.now() - t > minMs / 4 || n > 1e6) return n;
      n *= 2;
    }
  });
  for (let r = 0; r < rounds; r++) {
    fns.forEach((fn, k) => {
      const t = performance.now();
      for (let i = 0; i < counts[k]; i++) fn();
      per[k].push(((performance.now() - t) * 1000) / counts[k]);
    });
  }
  return per;
}

/** The median over rounds of `slow[r] / fast[r]`: a ratio of two functions timed in the same
 * round, so a slow stretch of the machine (this VM's shared cores) slows both sides of it. */
function pairedRatio(slow, fast) {
  return median(slow.map((s, r) => s / fast[r]));
}

const results = { intent: INTENT, node: process.version, sizes: [], boundary: [], search: [] };
// The same 20-word query as the native bench (benches/expansion.rs, tool_search_20_words).
const SEARCH_20_WORDS = "find the open github issues assigned to me about the failing deploy pipeline and add a comment with the logs";
let previous = null;
console.log("preview = expand + split + payload + fingerprint, Anthropic catalog mode, 3 promoted tools\n");
console.log("plain JS (browser) hashes with a JS SHA-256 as a web UI must; plain JS (node) uses node:crypto\n");
console.log("  tools | wasm µs/call | plain JS (browser) | ratio JS÷wasm | plain JS (node) | ratio | wasm growth | JS growth");
console.log("  ------+--------------+--------------------+---------------+-----------------+-------+-------------+----------");
for (const file of files) {
  const text = readFileSync(file, "utf8");
  const wasm = Registry.fromJson(text);
  const plain = new PlainRegistry(text);
  const plainNode = new PlainRegistry(text, { hash: "node" });
  const loaded = JSON.parse(text).tools.map((t) => t.name).filter((n) => n.startsWith("mcp__") && !n.startsWith("mcp__github0__")).slice(0, 3);
  const state = wasm.beginTurn(recordLoaded(null, loaded));
  const a = wasm.planTurn(INTENT, { state });
  const b = plain.preview(INTENT, state);
  // Same work, same answer: refuse to compare implementations that disagree.
  assert.equal(b.fingerprint, a.fingerprint, `${file}: plain-JS fingerprint differs from wasm`);
  assert.deepEqual(b.resident, a.array);
  assert.deepEqual(b.deferred, a.catalog);
  assert.equal(plainNode.preview(INTENT, state).fingerprint, a.fingerprint);
  // 31 rounds: the ratio is judged (≥ 1.5× at 1,000 tools), and a median over 15 rounds moved
  // from 1.0× to 1.8× between runs on this 2-core VM.
  const rounds = raceRounds([() => wasm.planTurn(INTENT, { state }), () => plain.preview(INTENT, state), () => plainNode.preview(INTENT, state)], { rounds: 31 });
  const [w, j, jn] = rounds.map(median);
  const row = {
    tools: wasm.len(),
    wasmMicros: +w.toFixed(1),
    plainJsMicros: +j.toFixed(1),
    jsOverWasm: +pairedRatio(rounds[1], rounds[0]).toFixed(2),
    plainJsNodeCryptoMicros: +jn.toFixed(1),
    jsNodeOverWasm: +pairedRatio(rounds[2], rounds[0]).toFixed(2),
  };
  if (previous) {
    row.wasmGrowth = +(w / previous.wasmMicros).toFixed(2);
    row.jsGrowth = +(j / previous.plainJsMicros).toFixed(2);
    row.toolGrowth = +(wasm.len() / previous.tools).toFixed(1);
  }
  results.sizes.push(row);
  const g = (x) => (x === undefined ? "" : `×${x}`);
  console.log(`  ${String(row.tools).padStart(5)} | ${w.toFixed(1).padStart(12)} | ${j.toFixed(1).padStart(18)} | ${row.jsOverWasm.toFixed(2).padStart(13)} | ${jn.toFixed(1).padStart(15)} | ${row.jsNodeOverWasm.toFixed(2).padStart(5)} | ${g(row.wasmGrowth).padStart(11)} | ${g(row.jsGrowth).padStart(8)}`);
  previous = row;

  // Data-passing routes at the boundary.
  const doc = JSON.parse(text);
  const intentText = JSON.stringify(INTENT);
  // Loads race in alternating rounds with the plain-JS load, so machine noise hits all three.
  const [loadStr, loadObj, plainLoad] = race(
    [() => Registry.fromJson(text).free(), () => Registry.fromJson(doc).free(), () => new PlainRegistry(text)],
    { rounds: 11, minMs: 200 },
  );
  const [inObj, inStr] = race([() => wasm.planTurn(INTENT, { state }), () => wasm.planTurn(intentText, { state })]);
  results.boundary.push({
    tools: wasm.len(),
    registryBytes: Buffer.byteLength(text),
    loadFromStringMicros: +loadStr.toFixed(0),
    loadFromObjectMicros: +loadObj.toFixed(0),
    plainJsLoadMicros: +plainLoad.toFixed(0),
    overrideAsObjectMicros: +inObj.toFixed(1),
    overrideAsStringMicros: +inStr.toFixed(1),
  });

  // tool_search: the first keyword query of a registry builds its keyword index (median of
  // 5 fresh registries; load not timed), then a 20-word query against the built index. Each
  // turn is freed as a server frees it: a turn holds its registry version (and that version's
  // index) until it is freed or collected.
  const firsts = [];
  for (let k = 0; k < 5; k++) {
    const fresh = Registry.fromJson(text);
    const t = performance.now();
    const turn = fresh.turn(INTENT);
    turn.search("issue");
    firsts.push((performance.now() - t) * 1000);
    turn.free();
    fresh.free();
  }
  const turn = wasm.turn(INTENT);
  const [query20] = race([() => turn.search(SEARCH_20_WORDS)]);
  turn.free();
  results.search.push({ tools: wasm.len(), firstQueryMicros: +median(firsts).toFixed(0), query20WordsMicros: +query20.toFixed(1) });
}

console.log("\nboundary routes (µs per call)\n");
console.log("  tools | registry in: string | object | (plain-JS load) | override: object | string");
for (const b of results.boundary) {
  console.log(
    `  ${String(b.tools).padStart(5)} | ${String(b.loadFromStringMicros).padStart(19)} | ${String(b.loadFromObjectMicros).padStart(6)} | ${String(b.plainJsLoadMicros).padStart(15)} | ${b.overrideAsObjectMicros.toFixed(1).padStart(16)} | ${b.overrideAsStringMicros.toFixed(1).padStart(6)}`,
  );
}
console.log("\ntool_search in wasm (µs)\n");
console.log("  tools | first keyword query (builds the index) | 20-word query");
for (const q of results.search) {
  console.log(`  ${String(q.tools).padStart(5)} | ${String(q.firstQueryMicros).padStart(38)} | ${q.query20WordsMicros.toFixed(1).padStart(13)}`);
}
// The figures issue targets are judged on, from this one run.
const wasmFile = new URL("../../pkg/web/tool_intent_bg.wasm", import.meta.url);
const wasmBytes = readFileSync(wasmFile);
// gzip -9 -n as scripts/build-wasm.sh and tests/js/size.test.mjs measure it (no file name in the
// header; Node's zlib differs by about 1 KB).
let gzip;
try {
  gzip = execFileSync("gzip", ["-9", "-n", "-c", wasmFile.pathname]).length;
} catch {
  gzip = gzipSync(wasmBytes, { level: 9 }).length;
}
const at1000 = results.sizes.find((r) => r.tools >= 1000 && r.tools < 2000);
const load1000 = results.boundary.find((b) => b.tools >= 1000 && b.tools < 2000);
results.coreWasm = { bytes: wasmBytes.length, gzipBytes: gzip };
console.log("\ntargets (this run)\n");
const line = (ok, text) => console.log(`  ${ok ? "met " : "MISS"}  ${text}`);
for (const b of results.boundary) {
  // The load target is set for registries of 1,000 tools and more; smaller ones are shown.
  const judged = b.tools >= 1000;
  (judged ? line : (_, t) => console.log(`  info  ${t}`))(b.loadFromStringMicros <= 0.8 * b.plainJsLoadMicros, `registry load at ${b.tools} tools: wasm ${(b.loadFromStringMicros / 1000).toFixed(1)} ms vs plain JS ${(b.plainJsLoadMicros / 1000).toFixed(1)} ms (ratio ${(b.loadFromStringMicros / b.plainJsLoadMicros).toFixed(2)}, target ≤ 0.8)`);
}
if (at1000) {
  line(at1000.wasmMicros <= 800 && at1000.jsNodeOverWasm >= 1.5, `preview at ${at1000.tools} tools: wasm ${(at1000.wasmMicros / 1000).toFixed(3)} ms (≤ 0.8 ms) vs plain JS + node:crypto ${(at1000.plainJsNodeCryptoMicros / 1000).toFixed(3)} ms (${at1000.jsNodeOverWasm.toFixed(2)}× round by round, target ≥ 1.5×)`);
}
// Size history (README, "Package size"): 149,673 after the restructuring, 156,559 with the
// BM25F tool_search (allowed ≤ 157,683), 164,286 with native-client and the cache report.
console.log(`  info  core .wasm ${wasmBytes.length} bytes, ${gzip} bytes gzip -9`);
const search10k = results.search.find((q) => q.tools >= 10000);
if (search10k) {
  line(search10k.query20WordsMicros <= 3000, `20-word tool_search at ${search10k.tools} tools: ${(search10k.query20WordsMicros / 1000).toFixed(2)} ms in wasm (≤ 3 ms)`);
}
mkdirSync("bench-results", { recursive: true });
writeFileSync("bench-results/wasm-vs-js.json", JSON.stringify(results, null, 2) + "\n");
console.log("\nwrote bench-results/wasm-vs-js.json");
