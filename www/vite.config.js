// The demo page is built as a real web UI would build it: Vite resolves `tool-intent` by
// its package name (the repository root's package.json "exports", browser condition) and
// emits the .wasm as an asset.
import { defineConfig } from "vite";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  base: "./",
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
  server: { fs: { allow: [fileURLToPath(new URL("..", import.meta.url))] } },
});
