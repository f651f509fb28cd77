// The npm packages as a user gets them: `npm pack` of tool-intent (and tool-intent-exact,
// tool-intent-hybrid),
// each tarball installed into a throwaway project that imports `tool-intent` by name and
// prints one fingerprint, compared with the native CLI's (`tool-intent expand`):
//   1. Node ESM + TypeScript, `moduleResolution: nodenext` (compiled by tsc, run by node)
//   2. TypeScript with `moduleResolution: bundler` (ES module output), and CommonJS output
//      under `nodenext` and under `node10`, each compiled by tsc and run by node
//   3. CommonJS (`require`), init() included
//   4. a Vite browser build, loaded in headless Chromium (playwright-core)
//   5. a Node bundle (rolldown), run from a directory without node_modules
// and tool-intent-exact's o200k count and tool-intent-hybrid's hybrid search beside the core
// package. Installs are offline: the
// tarballs have no dependencies, and tsc, vite, rolldown and playwright-core are this
// repository's dev dependencies, run from here against the throwaway project.
//
// Needs: the wasm builds (scripts/build-wasm.sh), target/debug/tool-intent
// (`cargo build -p tool-intent-cli --features exact-tokens,hybrid`), /usr/bin/chromium. Run by scripts/test.sh.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium, serveFiles } from "../js/browser.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const bin = (tool) => join(root, "node_modules", ".bin", tool);
const OVERRIDE = { enabled: true, disabled: ["memory"], toolset: "research" };
let work;
let tarballs;
let expected;
let expectedHybrid;
const HYBRID_QUERY = "what does the clock say in Sydney";

function run(cmd, args, cwd, env = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...process.env, ...env } });
  assert.equal(r.status, 0, `${cmd} ${args.join(" ")} in ${cwd} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** A fresh project with `package.json` fields and files, the given tarballs installed offline. */
function project(name, pkg, files, packages = ["tool-intent"]) {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, ...pkg }, null, 2));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, ".."), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--no-package-lock", ...packages.map((p) => tarballs[p])], dir);
  return dir;
}

const PRINT = `const plan = Registry.embedded().planTurn(${JSON.stringify(OVERRIDE)});\n`;

before(() => {
  work = mkdtempSync(join(tmpdir(), "tool-intent-consumers-"));
  tarballs = {};
  for (const dir of [root, join(root, "npm/exact"), join(root, "npm/hybrid")]) {
    const [packed] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", work], dir));
    tarballs[packed.name] = join(work, packed.filename);
  }
  const cli = join(root, "target/debug/tool-intent");
  assert.ok(existsSync(cli), "target/debug/tool-intent missing: cargo build -p tool-intent-cli --features exact-tokens,hybrid");
  expected = JSON.parse(run(cli, ["expand", "--override", JSON.stringify(OVERRIDE)], root)).fingerprint;
  assert.match(expected, /^sha256:[0-9a-f]{64}$/);
  const hybridArgs = ["search", "--mcp", "time=tests/data/mcp/time.json", "--ranker", "hybrid", "--json", "--query", HYBRID_QUERY];
  expectedHybrid = JSON.parse(run(cli, hybridArgs, root)).hits;
  assert.ok(expectedHybrid.length > 0);
});

after(() => rmSync(work, { recursive: true, force: true }));

test("Node ESM + TypeScript (nodenext), with tool-intent-exact and tool-intent-hybrid beside it", () => {
  const dir = project(
    "esm-nodenext",
    { type: "module" },
    {
      "index.ts": `import { Registry, isToolIntentError, ToolIntentError } from "tool-intent";
import { countTokens } from "tool-intent-exact";
import { Registry as HybridRegistry } from "tool-intent-hybrid";
${PRINT}let code = "";
try { Registry.embedded().planTurn({ enabled: "yes" } as never); } catch (e) { if (e instanceof ToolIntentError && isToolIntentError(e)) code = e.code; }
const time = HybridRegistry.embedded().setMcpServer("time", ${JSON.stringify(readFileSync(join(root, "tests/data/mcp/time.json"), "utf8"))}).registry;
const hybrid = time.turn(null).search(${JSON.stringify(HYBRID_QUERY)}, { ranker: "hybrid" }).hits;
console.log(JSON.stringify({ fingerprint: plan.fingerprint, code, o200k: countTokens("hello world", "o200k"), hybrid }));
`,
      "tsconfig.json": JSON.stringify({
        compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, outDir: "dist", types: [], lib: ["ES2022", "DOM"] },
        files: ["index.ts"],
      }),
    },
    ["tool-intent", "tool-intent-exact", "tool-intent-hybrid"],
  );
  run(bin("tsc"), ["-p", "."], dir);
  const out = JSON.parse(run("node", ["dist/index.js"], dir));
  assert.equal(out.fingerprint, expected);
  assert.equal(out.code, "invalid_value");
  assert.equal(out.o200k, 2);
  assert.deepEqual(out.hybrid, expectedHybrid);
});

test("TypeScript: bundler resolution (ES modules), CommonJS under nodenext (the .d.cts) and node10", () => {
  const source = `import { Registry, type CounterName } from "tool-intent";
const counter: CounterName = "estimate";
${PRINT}console.log(plan.fingerprint, Registry.embedded().turn(null).budget({ counter }).counter);
`;
  const dir = project("ts-resolutions", {}, {
    "bundler/index.ts": source,
    "bundler/tsconfig.json": JSON.stringify({
      compilerOptions: { target: "ES2022", module: "ESNext", moduleResolution: "Bundler", strict: true, outDir: "dist", types: [], lib: ["ES2022", "DOM"] },
      files: ["index.ts"],
    }),
    // What a bundler-resolved build emits is ES modules: run it as one.
    "bundler/package.json": JSON.stringify({ type: "module" }),
    // No "type": "module" in this project, so under nodenext index.ts is CommonJS: it resolves
    // the `require` condition (js/node.cjs and its .d.cts) and compiles to require().
    "nodenext-cjs/index.ts": source,
    "nodenext-cjs/tsconfig.json": JSON.stringify({
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, outDir: "dist", types: [], lib: ["ES2022", "DOM"] },
      files: ["index.ts"],
    }),
    "node10/index.ts": source,
    "node10/tsconfig.json": JSON.stringify({
      compilerOptions: { target: "ES2022", module: "CommonJS", moduleResolution: "node10", strict: true, outDir: "dist", types: [], lib: ["ES2022", "DOM"] },
      files: ["index.ts"],
    }),
  });
  run(bin("tsc"), ["-p", "bundler"], dir);
  run(bin("tsc"), ["-p", "node10"], dir);
  run(bin("tsc"), ["-p", "nodenext-cjs"], dir);
  // Each output in the module form its settings promise, then run.
  const outputs = {
    "bundler/dist/index.js": /from "tool-intent"/,
    "node10/dist/index.js": /require\("tool-intent"\)/,
    "nodenext-cjs/dist/index.js": /require\("tool-intent"\)/,
  };
  for (const [out, form] of Object.entries(outputs)) {
    assert.match(readFileSync(join(dir, out), "utf8"), form, out);
    const [fingerprint, counter] = run("node", [out], dir).trim().split(" ");
    assert.equal(fingerprint, expected, out);
    assert.equal(counter, "estimate", out);
  }
});

test("CommonJS require, with init() resolving to the instance", () => {
  const dir = project("cjs", {}, {
    "index.cjs": `const { Registry, isToolIntentError, default: initDefault, init, initSync } = require("tool-intent");
${PRINT}Promise.all([init(), initDefault()]).then(([a, b]) => {
  console.log(JSON.stringify({ fingerprint: plan.fingerprint, memory: a.memory instanceof WebAssembly.Memory && a === b && initSync() === a, guard: isToolIntentError(new Error("x")) }));
});
`,
  });
  const out = JSON.parse(run("node", ["index.cjs"], dir));
  assert.deepEqual(out, { fingerprint: expected, memory: true, guard: false });
});

test("Vite browser build in headless Chromium", async () => {
  const dir = project("vite-app", { type: "module" }, {
    "index.html": `<!doctype html><html><body><script type="module" src="./main.js"></script></body></html>`,
    "main.js": `import init, { Registry } from "tool-intent";
await init();
${PRINT}document.body.dataset.fingerprint = plan.fingerprint;
`,
  });
  run("node", [join(root, "node_modules/vite/bin/vite.js"), "build", "--logLevel", "warn"], dir);
  const dist = join(dir, "dist");
  const { server, base } = await serveFiles((path) => join(dist, path === "/" ? "index.html" : path));
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(base);
    await page.waitForFunction(() => document.body.dataset.fingerprint, null, { timeout: 20000 }).catch(() => {});
    assert.deepEqual(errors, []);
    assert.equal(await page.evaluate(() => document.body.dataset.fingerprint), expected);
  } finally {
    await browser.close();
    server.close();
  }
});

test("Node bundle (rolldown) run without node_modules, the .wasm copied beside it", () => {
  const dir = project("node-bundle", { type: "module" }, {
    "entry.mjs": `import { Registry } from "tool-intent";
${PRINT}console.log(plan.fingerprint);
`,
  });
  run(bin("rolldown"), ["entry.mjs", "--platform", "node", "--format", "esm", "--file", "out/bundle.mjs"], dir);
  const away = join(work, "bundle-elsewhere");
  renameSync(join(dir, "out"), away);
  // Without the module beside it, the error says where it looked and what to do.
  const missing = spawnSync("node", ["bundle.mjs"], { cwd: away, encoding: "utf8" });
  assert.notEqual(missing.status, 0);
  assert.match(missing.stderr, /tool_intent_bg\.wasm not found at .*Bundling for Node/);
  cpSync(join(dir, "node_modules/tool-intent/pkg/web/tool_intent_bg.wasm"), join(away, "tool_intent_bg.wasm"));
  assert.equal(run("node", ["bundle.mjs"], away).trim(), expected);
});
