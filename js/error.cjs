// CommonJS twin of js/error.mjs (Node 20 cannot require an ES module): keep the two equal.
"use strict";

function isToolIntentError(value) {
  return value instanceof Error && value.name === "ToolIntentError" && typeof value.code === "string";
}

class ToolIntentError extends Error {
  static [Symbol.hasInstance](value) {
    return isToolIntentError(value);
  }
}

module.exports = { ToolIntentError, isToolIntentError };
