// Browser and bundler entry of the package: the wasm-bindgen web build (call `await init()`
// once), plus the runtime ToolIntentError class.
export * from "../pkg/web/tool_intent.js";
export { default } from "../pkg/web/tool_intent.js";
export { ToolIntentError, isToolIntentError } from "./error.mjs";
