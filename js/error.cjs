// CommonJS twin of js/error.mjs (Node 20 cannot require an ES module): the same code but for
// the module syntax, held so by tests/js/twins.test.mjs.
"use strict";

class ToolIntentError extends Error {
  static [Symbol.hasInstance](value) {
    return isToolIntentError(value);
  }
}

function isToolIntentError(value) {
  return value instanceof Error && value.name === "ToolIntentError" && typeof value.code === "string";
}

module.exports = { ToolIntentError, isToolIntentError };
