// The JS surface against the one API table, tests/data/api.json (python/tests/test_arguments.py
// checks Python against the same table): every call of the table exists with its parameters in
// order and its option set, nothing else is exported, and every wrong-typed argument or option
// fails with a ToolIntentError that has a code and names it (never a TypeError from the
// generated glue, never a silent default).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as lib from "tool-intent";
import { rng } from "./random.mjs";

const { Registry, Turn, ToolIntentError } = lib;
const api = JSON.parse(readFileSync(new URL("../data/api.json", import.meta.url), "utf8"));
// A call of one build (`build`) is checked by that build's own test (tests/js/model.test.mjs).
const table = api.calls.filter((c) => c.js !== null && !c.build);
const CODES = new Set(["invalid_json", "invalid_value", "invalid_registry", "limit_exceeded",
  "unknown_source", "invalid_argument", "tool_not_available", "tool_removed"]);
const camel = (name) => name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

function cyclic() {
  const c = { enabled: true };
  c.self = c;
  return c;
}

/** Wrong values of each kind: none of them is a value of that kind. */
const WRONG = {
  string: [42, true, null, {}, ["a"], () => "a", Symbol("a"), 10n, "\ud800"],
  "string?": [42, false, {}, ["a"], () => "a", "x\udc00"],
  json: [() => 1, Symbol("s"), new Map([["a", 1]]), new Set([1]), 10n, NaN, Infinity,
    { enabled: () => true }, { x: new Map() }, "\ud800", cyclic()],
  document: [() => 1, Symbol("s"), new Map([["a", 1]]), 10n, NaN, "\udbff", cyclic()],
  names: ["a", 42, {}, [1], ["a", null], ["\ud800"], () => []],
  bool: ["yes", 1, {}, () => true],
  "bool?": ["yes", 1, {}, () => true],
  "count?": [-1, 1.5, "5", true, {}, 2 ** 60],
  toggles: [() => 1, Symbol("s"), 10n, NaN, { webSearch: () => true }, "\ud800", 3, [1]],
};

function target(spec) {
  switch (spec.on) {
    case "Registry": return Registry;
    case "registry": return Registry.embedded();
    case "turn": return Registry.embedded().turn(null);
    case "module": return lib;
  }
  throw new Error(`no JS target for ${spec.on}`);
}

/** The parameters a call takes: the table's, then the options object. */
const parameters = (spec) => [...spec.params.map((p) => camel(p.name)), ...(spec.options ? ["options"] : [])];

function call(spec, args) {
  const t = target(spec);
  return t[camel(spec.name)](...args);
}

/** The error must be a ToolIntentError with a known code; returns it. */
// What no message or path may hold raw: a control character, a bidirectional or zero-width
// format one, or a line or paragraph separator (docs/contract.md, "Errors"); the core shows
// them escaped.
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/;

function toolIntentError(fn, what) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ToolIntentError, `${what}: ${e?.name}: ${e?.message}`);
    assert.equal(e.name, "ToolIntentError", what);
    assert.ok(CODES.has(e.code), `${what}: code ${e.code}`);
    if (e.path !== undefined) assert.match(e.path, /^\$/, what);
    assert.ok(!HIDDEN.test(e.message) && !HIDDEN.test(e.path ?? ""), `${what}: ${JSON.stringify(e.message)} ${e.path}`);
    return e;
  }
  return null;
}

const valid = (spec) => [...spec.params.map((p) => structuredClone(p.valid)), ...(spec.options ? [{}] : [])];
function show(v) {
  if (typeof v === "symbol") return v.toString();
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "function") return "function";
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}

/** A function's parameter names as the generated glue declares them (camelCase, as the .d.ts). */
function declared(fn) {
  const m = /^[^(]*\(([^)]*)\)/.exec(fn.toString());
  return m[1].split(",").map((p) => p.trim()).filter(Boolean);
}

test("every call of the table exists with its parameters in order", () => {
  for (const spec of table) {
    const owner = { Registry, registry: Registry.prototype, turn: Turn.prototype, module: lib }[spec.on];
    const name = camel(spec.name);
    if (spec.kind === "getter") {
      assert.equal(typeof Object.getOwnPropertyDescriptor(owner, name)?.get, "function", `${spec.on}.${name} is not a getter`);
      continue;
    }
    assert.equal(typeof owner[name], "function", `${spec.on}.${name} is missing`);
    assert.deepEqual(declared(owner[name]), parameters(spec), `${spec.on}.${name}'s parameters`);
  }
});

test("the package exports no call the table lacks", () => {
  const known = (on) => new Set(table.filter((c) => c.on === on).map((c) => camel(c.name)));
  const glue = new Set(["constructor", "free", "__destroy_into_raw", "__wrap", "default", "initSync", "isToolIntentError"]);
  const own = (o) => Object.getOwnPropertyNames(o).filter((k) => !glue.has(k) && !k.startsWith("__"));
  const exported = Object.entries(lib).filter(([k, v]) => typeof v === "function" && k[0] === k[0].toLowerCase() && !glue.has(k)).map(([k]) => k);
  for (const [on, names] of [["module", exported], ["Registry", own(Registry).filter((k) => typeof Registry[k] === "function")],
    ["registry", own(Registry.prototype)], ["turn", own(Turn.prototype)]]) {
    const inTable = known(on);
    for (const name of names) assert.ok(inTable.has(name), `${on}.${name} is not in tests/data/api.json`);
  }
});

test("each call takes exactly the options of its set in the table", () => {
  for (const spec of table.filter((c) => c.options)) {
    const args = valid(spec);
    args[args.length - 1] = { notAnOption: 1 };
    const e = toolIntentError(() => call(spec, args), `${spec.name}({notAnOption})`);
    assert.ok(e, `${spec.name} accepted an unknown option`);
    assert.equal(e.argument, "options");
    const known = /known: ([^)]*)\)/.exec(e.message)?.[1].split(", ");
    assert.deepEqual(new Set(known), new Set(Object.keys(api.options[spec.options]).map(camel)), `${spec.name}: ${e.message}`);
    // A key that would clear a terminal and reverse the rest of the line is shown escaped,
    // in the message and the path (as python/tests/test_arguments.py checks of a keyword).
    args[args.length - 1] = { "x\u001b[2J\u202e": 1 };
    const hostile = toolIntentError(() => call(spec, args), `${spec.name}({hostile key})`);
    assert.equal(hostile?.path, '$["x\\u001b[2J\\u202e"]', `${spec.name}: ${hostile?.path}`);
    assert.ok(hostile.message.includes("\\u{001b}[2J\\u{202e}") && !/[\u001b\u202e]/.test(hostile.message), hostile.message);
  }
});

for (const spec of table.filter((c) => c.kind !== "getter" && (c.params.length || c.options))) {
  test(`${camel(spec.name)}: every wrong-typed argument or option is a ToolIntentError naming it`, () => {
    spec.params.forEach((param, at) => {
      const kinds = WRONG[param.kind];
      assert.ok(kinds, `no wrong values for kind ${param.kind}`);
      for (const wrong of kinds) {
        const args = valid(spec);
        args[at] = wrong;
        const what = `${spec.name}(${param.name} = ${show(wrong)})`;
        const e = toolIntentError(() => call(spec, args), what);
        assert.ok(e, `${what} did not fail`);
        assert.equal(e.argument, camel(param.name), `${what}: ${e.message}`);
      }
    });
    if (!spec.options) return;
    const at = spec.params.length;
    // The options object itself, then each option.
    for (const wrong of [42, "text", () => ({}), [1], new Map()]) {
      const args = valid(spec);
      args[at] = wrong;
      const e = toolIntentError(() => call(spec, args), `${spec.name}(options = ${show(wrong)})`);
      assert.ok(e, `${spec.name}(options = ${show(wrong)}) did not fail`);
      assert.equal(e.argument, "options", e.message);
    }
    for (const [option, kind] of Object.entries(api.options[spec.options])) {
      for (const wrong of WRONG[kind]) {
        const args = valid(spec);
        args[at] = { [camel(option)]: wrong };
        const what = `${spec.name}(options.${camel(option)} = ${show(wrong)})`;
        const e = toolIntentError(() => call(spec, args), what);
        assert.ok(e, `${what} did not fail`);
        assert.equal(e.argument, camel(option), `${what}: ${e.message}`);
        assert.match(e.path ?? "$", /^\$/, what);
      }
    }
  });
}

// A seeded generator of arbitrary JS values: every kind of primitive, odd strings, nested
// arrays and objects, and values JSON has no form for.

function arbitrary(next, depth = 0) {
  const pick = (xs) => xs[Math.floor(next() * xs.length)];
  const leaf = [
    () => null, () => undefined, () => next() < 0.5, () => Math.floor(next() * 2000) - 1000,
    () => next() * 1e20, () => pick([NaN, Infinity, -0, 2 ** 53]),
    () => pick(["", "memory", "anthropic", "catalog", "select:memory", "{", "null", "[1,", "\ud800", "é\u0000", "a".repeat(300), "{\"enabled\":true}", "sha256:00", "x\u001b[2J\u202e"]),
    () => Symbol("x"), () => 7n, () => () => 1, () => new Map(), () => new Date(0),
  ];
  if (depth > 2 || next() < 0.5) return pick(leaf)();
  if (next() < 0.5) return Array.from({ length: Math.floor(next() * 4) }, () => arbitrary(next, depth + 1));
  const keys = ["enabled", "disabled", "allowed", "toolset", "web_search", "loaded", "frozen", "turn", "registry", "tools", "turns", "provider", "limit", "x", "x\u001b[2J\u202e"];
  return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, () => [pick(keys), arbitrary(next, depth + 1)]));
}

test("property: random values into every parameter of every call fail only as ToolIntentError", () => {
  const next = rng(20261203);
  let calls = 0;
  let failed = 0;
  for (let round = 0; round < 150; round++) {
    for (const spec of table.filter((c) => c.kind !== "getter")) {
      const args = valid(spec).map((v) => (next() < 0.5 ? arbitrary(next) : v));
      // Sometimes an options object with random members.
      if (spec.options && next() < 0.5) {
        args[args.length - 1] = Object.fromEntries(Object.keys(api.options[spec.options]).filter(() => next() < 0.4).map((k) => [camel(k), arbitrary(next)]));
      }
      calls++;
      if (toolIntentError(() => call(spec, args), `${spec.name}(${args.map(show).join(", ")})`)) failed++;
    }
  }
  console.log(`property: ${calls} calls with random arguments, ${failed} ToolIntentErrors, no other error`);
  assert.ok(failed > calls / 4 && failed < calls, `${failed} of ${calls} failed: the generator must make both`);
});

test("a value of the wrong class is named by its class in the error", () => {
  const cases = [[new Map(), "Map"], [new Date(0), "Date"], [new Uint8Array(2), "Uint8Array"], [NaN, "non-finite number"],
    // A class may call itself anything: shown escaped, on one line.
    [{ [Symbol.toStringTag]: "Evil\u001b[2J\n  class" }, "Evil\\u{001b}[2J\\n  class"]];
  for (const [value, kind] of cases) {
    assert.throws(() => Registry.fromJson(value), (e) => {
      assert.equal(e.argument, "document");
      assert.ok(e.message.endsWith(`found ${kind}`), e.message);
      return true;
    });
  }
  assert.throws(() => Registry.embedded().setMcpServer(new Map(), "[]"), /expected a string, found Map$/);
});
