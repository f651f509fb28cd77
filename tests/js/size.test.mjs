// The core module's size budget (issue 35; 155,000 for issue 47's checks of what comes back,
// back to 150,000 for issue 48; docs/benchmarks.md "Package size"): pkg/web/tool_intent_bg.wasm,
// as scripts/build-wasm.sh makes it, is at most 150,000 bytes after `gzip -9` (GNU gzip, the
// measure docs/benchmarks.md gives), and carries none of the standard library's panic messages (the build compiles std
// with panic=immediate-abort; docs/benchmarks.md, "Package size").
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const wasmPath = fileURLToPath(new URL("../../pkg/web/tool_intent_bg.wasm", import.meta.url));
const BUDGET_GZIP_BYTES = 150_000;

test("the core wasm module is within 150,000 bytes gzip -9", () => {
  const wasm = readFileSync(wasmPath); // a missing build fails here: run scripts/build-wasm.sh
  const gzipped = execFileSync("gzip", ["-9", "-c"], { input: wasm, maxBuffer: 1 << 26 });
  assert.ok(
    gzipped.length <= BUDGET_GZIP_BYTES,
    `pkg/web/tool_intent_bg.wasm is ${gzipped.length} bytes gzip -9 (${wasm.length} raw), over the budget of ${BUDGET_GZIP_BYTES}: twiggy top shows where the bytes went`,
  );
});

test("the core wasm module holds no standard-library panic message", () => {
  const wasm = readFileSync(wasmPath);
  // Texts of core's slicing and indexing panics: present whenever std's prebuilt panic path
  // is linked (a build without -Zbuild-std and panic=immediate-abort).
  for (const message of ["is not a char boundary", "out of range for slice of length", "index out of bounds"]) {
    assert.equal(wasm.indexOf(Buffer.from(message)), -1, `the module carries "${message}": std's panic formatting is linked`);
  }
});
