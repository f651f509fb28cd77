// CommonJS entry in Node: wasm-bindgen's node glue (which reads the same .wasm as the browser
// build, ../pkg/web/tool_intent_bg.wasm), the runtime ToolIntentError class, and init /
// initSync as in the ES entries (already initialised; they return the instance's exports).
"use strict";
const glue = require("../pkg/node/tool_intent.cjs");
const output = glue.__wasmExports;
require("./freed.cjs").guardFreed({ Registry: glue.Registry, RegistryChange: glue.RegistryChange, Turn: glue.Turn });

async function init() {
  return output;
}

function initSync() {
  return output;
}

module.exports = { ...glue, ...require("./error.cjs"), initSync, init, default: init };
