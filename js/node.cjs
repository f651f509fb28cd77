// CommonJS entry of the package in Node: the wasm-bindgen node build, plus the runtime
// ToolIntentError class.
"use strict";
module.exports = { ...require("../pkg/node/tool_intent.cjs"), ...require("./error.cjs") };
