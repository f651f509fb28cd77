// The model ranker in headless Chromium (Debian's, driven by playwright-core): the hybrid
// package's browser build (npm/hybrid/pkg/web) and the weights served on 127.0.0.1, fetched by
// the page, given to a registry with withModel; then the median of 30 warm 20-word queries on
// the embedded registry (its few deferred tools: the query's cost is the model's forward pass,
// ~98% of a query over 1,000 tools in Node, benches/js/model-node.mjs). Issue 36's target:
// ≤ 60 ms in the browser.
//
//   bash scripts/build-wasm.sh hybrid && node benches/js/model-chrome.mjs [MODEL.safetensors]
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium, serveFiles } from "../../tests/js/browser.mjs";
import { QUERY } from "./search-bench.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const weights = process.argv[2] ?? join(root, "target/retrieval/minilm/model/model.safetensors");
const page = `<!doctype html><script type="module">
import init, { Registry } from "/pkg/tool_intent.js";
await init({ module_or_path: "/pkg/tool_intent_bg.wasm" });
const bytes = new Uint8Array(await (await fetch("/weights")).arrayBuffer());
let t = performance.now();
const registry = Registry.embedded().withModel(bytes);
const loadMs = performance.now() - t;
const turn = registry.turn(null);
turn.search(${JSON.stringify(QUERY)}, { ranker: "model" });
const xs = [];
for (let i = 0; i < 30; i++) {
  t = performance.now();
  turn.search(${JSON.stringify(QUERY)}, { ranker: "model" });
  xs.push(performance.now() - t);
}
xs.sort((a, b) => a - b);
document.body.dataset.result = JSON.stringify({ loadMs, queryMs: xs[15], userAgent: navigator.userAgent });
</script>`;
const { server, base } = await serveFiles((path) =>
  path === "/" ? { body: page, type: "text/html" } : path === "/weights" ? weights : join(root, "npm/hybrid/pkg/web", path.replace(/^\/pkg\//, "")),
);
const browser = await launchChromium();
try {
  const tab = await browser.newPage();
  const errors = [];
  tab.on("pageerror", (e) => errors.push(e.message));
  await tab.goto(base);
  await tab.waitForFunction(() => document.body?.dataset.result, null, { timeout: 180000 }).catch(() => {
    throw new Error(`no result: ${errors.join("; ") || "timed out"}`);
  });
  const r = JSON.parse(await tab.evaluate(() => document.body.dataset.result));
  console.log(`model-chrome: ${r.userAgent.match(/Chrome\/[\d.]+/)?.[0]}`);
  console.log(`  withModel ${r.loadMs.toFixed(0)} ms; warm 20-word query (median of 30) ${r.queryMs.toFixed(1)} ms`);
  console.log(JSON.stringify(r));
} finally {
  await browser.close();
  server.close();
}
