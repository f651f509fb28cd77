// js/*.cjs are the CommonJS twins of js/*.mjs (Node 20 cannot require an ES module), written
// by hand: each pair must be the same code but for the module syntax. Comments, blank lines,
// "use strict", the `module.exports` line and `export ` are set aside; what is left must be
// equal line for line, and the two must export the same names.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const js = new URL("../../js/", import.meta.url);
const require = createRequire(import.meta.url);

function code(text) {
  return text
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() && !/^\s*(\/\/|\/\*\*.*\*\/$)/.test(line))
    .filter((line) => line !== '"use strict";' && !line.startsWith("module.exports = "))
    .map((line) => line.replace(/^export /, ""));
}

for (const name of ["error", "freed"]) {
  test(`js/${name}.cjs is js/${name}.mjs in CommonJS`, async () => {
    const esm = readFileSync(new URL(`${name}.mjs`, js), "utf8");
    const cjs = readFileSync(new URL(`${name}.cjs`, js), "utf8");
    assert.deepEqual(code(cjs), code(esm));
    const exported = Object.keys(await import(new URL(`${name}.mjs`, js))).sort();
    assert.ok(exported.length > 0);
    assert.deepEqual(Object.keys(require(new URL(`${name}.cjs`, js).pathname)).sort(), exported);
  });
}
