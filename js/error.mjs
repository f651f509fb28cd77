// `ToolIntentError` at run time, for `e instanceof ToolIntentError` and as a type guard. The
// wasm module throws plain `Error`s named "ToolIntentError" with a stable `code` (see the
// README); this class recognises them rather than being their constructor, so it works the
// same for errors from every build (web, node, exact). CommonJS twin: js/error.cjs.
export class ToolIntentError extends Error {
  static [Symbol.hasInstance](value) {
    return isToolIntentError(value);
  }
}

/** Whether a thrown value is a tool-intent error (`code`, optional `argument` and `path`). */
export function isToolIntentError(value) {
  return value instanceof Error && value.name === "ToolIntentError" && typeof value.code === "string";
}
