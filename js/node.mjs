// Node ESM entry: the browser build (`--target web`), instantiated synchronously from the one
// .wasm in pkg/web, so `import { Registry } from "tool-intent"` works without an init
// call. `init()` and `initSync()` are accepted too and return the module's exports, so code
// shared with the browser entry runs unchanged.
//
// Bundled for Node (esbuild, rolldown, ...), this file moves into the bundle and the relative
// path no longer reaches pkg/: the module is then looked for beside the bundle, where the
// README's "Bundling for Node" section says to copy it.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { initSync as initWasm, Registry, RegistryChange, Turn } from "../pkg/web/tool_intent.js";
import { guardFreed } from "./freed.mjs";

function wasmBytes() {
  const candidates = [new URL("../pkg/web/tool_intent_bg.wasm", import.meta.url), new URL("./tool_intent_bg.wasm", import.meta.url)];
  const found = candidates.find((url) => existsSync(url));
  if (!found) {
    const paths = candidates.map((url) => fileURLToPath(url)).join(" or ");
    throw new Error(`tool-intent: tool_intent_bg.wasm not found at ${paths}; a Node bundle needs it copied beside the bundle (README, "Bundling for Node")`);
  }
  return readFileSync(found);
}

const output = initWasm({ module: wasmBytes() });
guardFreed({ Registry, RegistryChange, Turn });

export * from "../pkg/web/tool_intent.js";
export { ToolIntentError, isToolIntentError } from "./error.mjs";

/** Already initialised in Node: returns the instance's exports. */
export function initSync() {
  return output;
}

/** Already initialised in Node: resolves to the instance's exports. */
export default async function init() {
  return output;
}
