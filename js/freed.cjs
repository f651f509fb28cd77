"use strict";
// Objects used after free(): every method and getter of the module's classes checks its
// object first and throws a ToolIntentError naming it (`argument`: "registry", "turn",
// "registryChange"). Without the check the call enters the module with a null pointer and the
// module throws from inside its own frames ("null pointer passed to rust"), which is not a
// ToolIntentError and leaves the module's stack unbalanced. ES twin: js/freed.mjs (Node 20
// cannot require an ES module): the same code but for the module syntax, held so by
// tests/js/twins.test.mjs.

function freedError(className, argument) {
  const e = new Error(`this ${className} was freed (free(), or the end of its using block) and cannot be used; make a new one`);
  e.name = "ToolIntentError";
  e.code = "invalid_argument";
  e.argument = argument;
  return e;
}

/** Wraps each method and getter of each class so a freed object is refused before the call. */
function guardFreed(classes) {
  for (const [className, cls] of Object.entries(classes)) {
    const argument = className[0].toLowerCase() + className.slice(1);
    const proto = cls.prototype;
    for (const key of Reflect.ownKeys(proto)) {
      if (key === "constructor" || key === "free" || (typeof key === "string" && key.startsWith("__"))) continue;
      const d = Object.getOwnPropertyDescriptor(proto, key);
      const guard = (fn) => {
        const guarded = {
          [fn.name](...args) {
            if (!this || !this.__wbg_ptr) throw freedError(className, argument);
            return fn.apply(this, args);
          },
        }[fn.name];
        // The wrapped function's own text and arity (the tests read its parameter names).
        Object.defineProperty(guarded, "toString", { value: () => fn.toString() });
        Object.defineProperty(guarded, "length", { value: fn.length });
        return guarded;
      };
      if (typeof d.value === "function" && key !== Symbol.dispose) {
        Object.defineProperty(proto, key, { ...d, value: guard(d.value) });
      } else if (typeof d.get === "function") {
        Object.defineProperty(proto, key, { ...d, get: guard(d.get) });
      }
    }
  }
}

module.exports = { guardFreed };
