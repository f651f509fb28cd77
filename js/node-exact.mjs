// Node ESM entry of the exact package (o200k/cl100k counters): the browser build (`--target web`), instantiated
// synchronously from the .wasm next to it, so `import { ToolRegistry } from "tool-intent"`
// works without an init call. `await init()` is accepted too (a no-op), so code shared with
// the browser entry runs unchanged.
import { readFileSync } from "node:fs";
import { initSync } from "../pkg/exact-web/tool_intent.js";

initSync({ module: readFileSync(new URL("../pkg/exact-web/tool_intent_bg.wasm", import.meta.url)) });

export * from "../pkg/exact-web/tool_intent.js";
export { ToolIntentError, isToolIntentError } from "./error.mjs";

/** Already initialised in Node; kept so browser and Node code can share `await init()`. */
export default async function init() {}
