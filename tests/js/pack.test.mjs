// The npm package as `npm pack` makes it: complete when pkg/ is built, and a pack without the
// wasm builds fails loudly (scripts/prepack.mjs) instead of shipping a package without them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));

test("npm pack lists every built file of the package", () => {
  const out = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
  const files = out[0].files.map((f) => f.path);
  for (const f of ["js/node.mjs", "pkg/web/tool_intent.js", "pkg/web/tool_intent_bg.wasm", "pkg/node/tool_intent.cjs", "LICENSE-MIT", "LICENSE-APACHE", "README.md"]) {
    assert.ok(files.includes(f), `${f} missing from the tarball: ${files.join(", ")}`);
  }
});

test("packing without the wasm builds fails and says how to build them", () => {
  const dir = mkdtempSync(join(tmpdir(), "tool-intent-pack-"));
  cpSync(join(root, "package.json"), join(dir, "package.json"));
  mkdirSync(join(dir, "scripts"));
  cpSync(join(root, "scripts/prepack.mjs"), join(dir, "scripts/prepack.mjs"));
  cpSync(join(root, "js"), join(dir, "js"), { recursive: true });
  const run = spawnSync("node", ["scripts/prepack.mjs"], { cwd: dir, encoding: "utf8" });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /pkg\/web\/tool_intent_bg\.wasm \(missing\)/);
  assert.match(run.stderr, /scripts\/build-wasm\.sh/);
});

test("tool-intent-exact has the same entries as tool-intent (only the wasm differs)", () => {
  const core = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const exact = JSON.parse(readFileSync(join(root, "npm/exact/package.json"), "utf8"));
  for (const key of ["type", "main", "types", "sideEffects", "exports", "engines", "license", "version"]) {
    assert.deepEqual(exact[key], core[key], `npm/exact/package.json "${key}" differs from package.json`);
  }
  // The same code; the core package also ships the guides its README links to (the exact
  // package's README links to the core package's page instead).
  const guides = ["CHANGELOG.md", "docs/"];
  assert.deepEqual(exact.files.filter((f) => f !== "README.md"), core.files.filter((f) => !guides.includes(f)));
  for (const g of guides) assert.ok(core.files.includes(g), `tool-intent ships ${g}`);
  const out = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json"], { cwd: join(root, "npm/exact"), encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
  const files = out[0].files.map((f) => f.path);
  for (const f of ["js/node.mjs", "js/node.cjs", "pkg/web/tool_intent_bg.wasm", "pkg/node/tool_intent.cjs", "LICENSE-MIT", "README.md"]) {
    assert.ok(files.includes(f), `${f} missing from the tool-intent-exact tarball: ${files.join(", ")}`);
  }
});
