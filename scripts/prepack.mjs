// `npm pack` / `npm publish` run this first (package.json "prepack"): the package is only
// complete with the wasm builds in pkg/, which are build output (gitignored), so a pack from a
// fresh clone must fail loudly instead of producing a package without them. It checks that
// every file the package lists exists and that each .wasm is a real WebAssembly module.
import { existsSync, readFileSync, statSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const root = new URL("../", import.meta.url);
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
  console.error(`prepack: the package would be incomplete:\n  ${missing.join("\n  ")}\nBuild it first: npm run build:wasm (scripts/build-wasm.sh).`);
  process.exit(1);
}
console.error(`prepack: ${pkg.files.length} entries present`);
