// `npm pack` / `npm publish` run this first (package.json "prepack"): the package is only
// complete with the wasm builds in pkg/, which are build output (gitignored), so a pack from a
// fresh clone must fail loudly instead of producing a package without them. It checks that
// every file the package lists exists (tool-intent and tool-intent-exact alike) and that each .wasm is a real WebAssembly module.
import { existsSync, readFileSync, statSync } from "node:fs";

// npm runs it in the directory of the package being packed: this one or npm/exact.
const root = new URL(`file://${process.cwd()}/`);
const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));
const missing = [];
for (const file of pkg.files.filter((f) => !f.endsWith("/"))) {
  const url = new URL(file, root);
  if (!existsSync(url)) {
    missing.push(`${file} (missing)`);
  } else if (file.endsWith(".wasm")) {
    const head = readFileSync(url).subarray(0, 4);
    if (statSync(url).size < 1024 || head.toString("latin1") !== "\0asm") missing.push(`${file} (not a wasm module)`);
  }
}
if (missing.length) {
  console.error(`prepack: the package would be incomplete:\n  ${missing.join("\n  ")}\nBuild it first: bash scripts/build-wasm.sh (from the repository root).`);
  process.exit(1);
}
console.error(`prepack: ${pkg.name}: ${pkg.files.length} entries present`);
