// Browser and bundler entry of the package: the wasm-bindgen web build (call `await init()`
// once), plus the runtime ToolIntentError class.
import { Registry, RegistryChange, Turn } from "../pkg/web/tool_intent.js";
import { guardFreed } from "./freed.mjs";
export * from "../pkg/web/tool_intent.js";
export { default } from "../pkg/web/tool_intent.js";
export { ToolIntentError, isToolIntentError } from "./error.mjs";
guardFreed({ Registry, RegistryChange, Turn });
