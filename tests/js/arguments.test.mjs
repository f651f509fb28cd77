// Every public call with wrong-typed arguments: each must fail with a ToolIntentError that has
// a code and names the argument (never a TypeError from the generated glue, never a silent
// default). The calls and their parameters come from one table, tests/data/api-calls.json;
// python/tests/test_arguments.py walks the same table on Python.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as lib from "tool-intent";

const { Registry, ToolIntentError } = lib;
const table = JSON.parse(readFileSync(new URL("../data/api-calls.json", import.meta.url), "utf8"));
const CODES = new Set(["invalid_json", "invalid_value", "invalid_registry", "limit_exceeded",
  "unknown_source", "invalid_argument", "tool_not_available", "tool_removed"]);

/** Wrong values of each kind: none of them is a value of that kind. */
const WRONG = {
  string: [42, true, null, {}, ["a"], () => "a", Symbol("a"), 10n, "\ud800"],
  "string?": [42, false, {}, ["a"], () => "a", "x\udc00"],
  json: [() => 1, Symbol("s"), new Map([["a", 1]]), new Set([1]), 10n, NaN, Infinity,
    { enabled: () => true }, { x: new Map() }, "\ud800"],
  document: [() => 1, Symbol("s"), new Map([["a", 1]]), 10n, NaN, "\udbff"],
  names: ["a", 42, {}, [1], ["a", null], ["\ud800"], () => []],
  bool: ["yes", 1, {}, () => true],
  "count?": [-1, 1.5, "5", true, {}, 2 ** 60],
};

const target = (spec) => (spec.on === "Registry" ? Registry : spec.on === "registry" ? Registry.embedded() : lib);

function call(spec, args) {
  const t = target(spec);
  return t[spec.call](...args);
}

/** The error must be a ToolIntentError with a known code; returns it. */
function toolIntentError(fn, what) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ToolIntentError, `${what}: ${e?.name}: ${e?.message}`);
    assert.equal(e.name, "ToolIntentError", what);
    assert.ok(CODES.has(e.code), `${what}: code ${e.code}`);
    if (e.path !== undefined) assert.match(e.path, /^\$/, what);
    return e;
  }
  return null;
}

const valid = (spec) => spec.params.map((p) => structuredClone(p.valid));
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

test("the table names every exported call of the package", () => {
  const inTable = new Set(table.js.map((c) => c.call));
  const taking = Object.entries(lib).filter(([k, v]) => typeof v === "function" && v.length > 0
    && !["default", "initSync", "isToolIntentError"].includes(k) && k[0] === k[0].toLowerCase()).map(([k]) => k);
  for (const name of taking) assert.ok(inTable.has(name), `${name} is not in tests/data/api-calls.json`);
  const proto = Object.getOwnPropertyNames(Registry.prototype)
    .filter((k) => k !== "constructor" && typeof Registry.prototype[k] === "function" && Registry.prototype[k].length > 0);
  for (const name of proto) assert.ok(inTable.has(name), `Registry.${name} is not in the table`);
});

for (const spec of table.js) {
  test(`${spec.call}: every wrong-typed argument is a ToolIntentError naming it`, () => {
    spec.params.forEach((param, at) => {
      const kinds = param.kind === "options" ? [] : WRONG[param.kind];
      assert.ok(param.kind === "options" || kinds, `no wrong values for kind ${param.kind}`);
      for (const wrong of kinds) {
        const args = valid(spec);
        args[at] = wrong;
        const what = `${spec.call}(${param.name} = ${show(wrong)})`;
        const e = toolIntentError(() => call(spec, args), what);
        assert.ok(e, `${what} did not fail`);
        assert.equal(e.argument, param.argument ?? param.name, `${what}: ${e.message}`);
      }
      if (param.kind !== "options") return;
      // The options object itself, then each member.
      for (const wrong of [42, "text", () => ({}), [1], new Map()]) {
        const args = valid(spec);
        args[at] = wrong;
        const e = toolIntentError(() => call(spec, args), `${spec.call}(options = ${show(wrong)})`);
        assert.ok(e, `${spec.call}(options = ${show(wrong)}) did not fail`);
        assert.equal(e.argument, "options", e.message);
      }
      for (const [member, kind] of Object.entries(param.members)) {
        for (const wrong of WRONG[kind]) {
          const args = valid(spec);
          args[at] = { [member]: wrong };
          const what = `${spec.call}(options.${member} = ${show(wrong)})`;
          const e = toolIntentError(() => call(spec, args), what);
          assert.ok(e, `${what} did not fail`);
          // Named as the options argument at the member, or as the member itself.
          assert.ok(e.argument === "options" || e.argument === member || e.argument === kindArgument(member),
            `${what}: argument ${e.argument}: ${e.message}`);
          if (e.argument === "options") assert.ok(e.path?.startsWith(`$.${member}`), `${what}: ${e.path} ${e.message}`);
        }
      }
    });
  });
}

/** The core's own input names for option members read as inputs of their own. */
function kindArgument(member) {
  return { profile: "profile", state: "state", source: "source" }[member];
}

// A seeded generator of arbitrary JS values: every kind of primitive, odd strings, nested
// arrays and objects, and values JSON has no form for.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function arbitrary(next, depth = 0) {
  const pick = (xs) => xs[Math.floor(next() * xs.length)];
  const leaf = [
    () => null, () => undefined, () => next() < 0.5, () => Math.floor(next() * 2000) - 1000,
    () => next() * 1e20, () => pick([NaN, Infinity, -0, 2 ** 53]),
    () => pick(["", "memory", "anthropic", "catalog", "select:memory", "{", "null", "[1,", "\ud800", "é\u0000", "a".repeat(300), "{\"enabled\":true}", "sha256:00"]),
    () => Symbol("x"), () => 7n, () => () => 1, () => new Map(), () => new Date(0),
  ];
  if (depth > 2 || next() < 0.5) return pick(leaf)();
  if (next() < 0.5) return Array.from({ length: Math.floor(next() * 4) }, () => arbitrary(next, depth + 1));
  const keys = ["enabled", "disabled", "allowed", "toolset", "web_search", "loaded", "frozen", "turn", "registry", "tools", "turns", "provider", "limit", "x"];
  return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, () => [pick(keys), arbitrary(next, depth + 1)]));
}

test("property: random values into every parameter of every call fail only as ToolIntentError", () => {
  const next = rng(20261203);
  let calls = 0;
  let failed = 0;
  for (let round = 0; round < 150; round++) {
    for (const spec of table.js) {
      const args = valid(spec).map((v) => (next() < 0.5 ? arbitrary(next) : v));
      // Sometimes an options object with random members.
      spec.params.forEach((p, i) => {
        if (p.kind === "options" && next() < 0.5) {
          args[i] = Object.fromEntries(Object.keys(p.members).filter(() => next() < 0.4).map((k) => [k, arbitrary(next)]));
        }
      });
      calls++;
      if (toolIntentError(() => call(spec, args), `${spec.call}(${args.map(show).join(", ")})`)) failed++;
    }
  }
  console.log(`property: ${calls} calls with random arguments, ${failed} ToolIntentErrors, no other error`);
  assert.ok(failed > calls / 4 && failed < calls, `${failed} of ${calls} failed: the generator must make both`);
});
