// No JS value can corrupt the module (issue 47): values whose reading throws — a revoked Proxy
// (what a finished Immer draft is), a Proxy whose traps throw, a throwing getter or toJSON, a
// Symbol.toStringTag getter that throws, a cyclic value — and objects used after free() go
// into every parameter and option of every call of tests/data/api.json, 100,000 calls in all.
// Each call succeeds or throws a ToolIntentError naming an argument; none throws anything
// else. A JS exception that unwinds through the module's frames leaks its stack, and a few
// hundred of them once made every later call trap ("memory access out of bounds"): so the
// test ends by planning a turn on a registry made before the first call, and compares it
// with the plan made then.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as lib from "tool-intent";
import { rng } from "./random.mjs";

const { Registry, ToolIntentError } = lib;
const api = JSON.parse(readFileSync(new URL("../data/api.json", import.meta.url), "utf8"));
const table = api.calls.filter((c) => c.js !== null && !c.build && c.kind !== "getter");
const camel = (name) => name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const CALLS = Number(process.env.HOSTILE_CALLS ?? 100_000);


const boom = () => {
  throw new TypeError("hostile");
};
const throwingTraps = Object.fromEntries(
  ["get", "has", "ownKeys", "getOwnPropertyDescriptor", "getPrototypeOf", "apply", "construct", "defineProperty", "set", "deleteProperty", "isExtensible", "preventExtensions", "setPrototypeOf"].map((t) => [t, boom]),
);

/** The hostile values, each made fresh (a revoked Proxy is revoked once). */
const HOSTILE = [
  ["revoked Proxy", () => {
    const { proxy, revoke } = Proxy.revocable({ enabled: true }, {});
    revoke();
    return proxy;
  }],
  ["revoked array Proxy", () => {
    const { proxy, revoke } = Proxy.revocable(["memory"], {});
    revoke();
    return proxy;
  }],
  ["Proxy with throwing traps", () => new Proxy({ enabled: true }, throwingTraps)],
  ["array Proxy with throwing traps", () => new Proxy(["memory"], throwingTraps)],
  ["Proxy of a Uint8Array", () => new Proxy(new Uint8Array(4), {})],
  ["throwing getter", () => ({ get enabled() { return boom(); } })],
  ["throwing toJSON", () => ({ toJSON: boom })],
  ["throwing toStringTag", () => ({ get [Symbol.toStringTag]() { return boom(); } })],
  ["cyclic object", () => {
    const c = { enabled: true };
    c.self = c;
    return c;
  }],
  ["cyclic array", () => {
    const c = [];
    c.push(c);
    return c;
  }],
  ["array with a throwing index getter", () => {
    const a = ["memory"];
    Object.defineProperty(a, 0, { get: boom });
    return a;
  }],
];

function target(spec, shared) {
  switch (spec.on) {
    case "Registry": return Registry;
    case "registry": return shared.registry;
    case "turn": return shared.turn;
    case "module": return lib;
  }
  throw new Error(`no JS target for ${spec.on}`);
}

function expectToolIntentError(fn, what) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ToolIntentError, `${what}: ${e?.name}: ${e?.message}`);
    assert.equal(typeof e.code, "string", what);
    return e;
  }
  return null;
}

test("hostile values and freed objects are ToolIntentErrors, and the module stays usable", () => {
  const before = Registry.embedded();
  const planBefore = before.planTurn({ enabled: true, web_search: true }, { provider: "bedrock-converse" });
  const shared = { registry: Registry.embedded(), turn: Registry.embedded().turn(null) };
  const next = rng(47);
  const pick = (xs) => xs[Math.floor(next() * xs.length)];
  let failed = 0;
  const seen = new Map();
  for (let k = 0; k < CALLS; k++) {
    const spec = pick(table);
    const args = [...spec.params.map((p) => structuredClone(p.valid)), ...(spec.options ? [{}] : [])];
    if (args.length === 0) continue;
    const [kind, make] = pick(HOSTILE);
    const at = Math.floor(next() * args.length);
    const optionKeys = spec.options ? Object.keys(api.options[spec.options]) : [];
    let argument;
    if (spec.options && at === args.length - 1 && next() < 0.6) {
      // An option's value, or the options object itself.
      const option = pick(optionKeys);
      args[at] = { [camel(option)]: make() };
      argument = camel(option);
    } else {
      args[at] = make();
      argument = at < spec.params.length ? camel(spec.params[at].name) : "options";
    }
    const what = `${spec.name}(${argument} = ${kind})`;
    const e = expectToolIntentError(() => target(spec, shared)[camel(spec.name)](...args), what);
    if (e) {
      failed++;
      seen.set(kind, (seen.get(kind) ?? 0) + 1);
    }
  }
  // Objects used after free(): every method, and the error names the object.
  let freedCalls = 0;
  for (let k = 0; k < 200; k++) {
    const registry = Registry.embedded();
    const turn = registry.turn(null);
    const change = registry.setMcpServer("s", "[]");
    registry.free();
    turn.free();
    const changedRegistry = change.registry;
    change.free();
    for (const [object, argument, on] of [[registry, "registry", "registry"], [turn, "turn", "turn"]]) {
      const spec = pick(table.filter((c) => c.on === on));
      const args = [...spec.params.map((p) => structuredClone(p.valid)), ...(spec.options ? [{}] : [])];
      const e = expectToolIntentError(() => object[camel(spec.name)](...args), `freed ${argument}.${spec.name}`);
      assert.ok(e, `freed ${argument}.${spec.name} did not fail`);
      assert.equal(e.argument, argument, e.message);
      freedCalls++;
    }
    assert.ok(expectToolIntentError(() => change.registry, "freed change.registry"));
    changedRegistry.free();
  }
  console.log(`hostile: ${CALLS} calls, ${failed} ToolIntentErrors (${[...seen].map(([k, n]) => `${k} ${n}`).join(", ")}), ${freedCalls} calls on freed objects`);
  // Every kind was refused somewhere: a value nobody reads would test nothing.
  for (const [kind] of HOSTILE) assert.ok(seen.get(kind) > 0, `${kind} never refused`);
  // The module is intact: a registry made before the first call plans as it did then.
  const planAfter = before.planTurn({ enabled: true, web_search: true }, { provider: "bedrock-converse" });
  assert.equal(planAfter.fingerprint, planBefore.fingerprint);
  assert.equal(planAfter.payload, planBefore.payload);
  assert.equal(Registry.embedded().planTurn(null).fingerprint, before.planTurn(null).fingerprint);
});

test("a JSON option that is not a JSON value is invalid_argument on that option at $, as in Python", () => {
  // python/tests/test_arguments.py names the same values the same way.
  const c = { loaded: [] };
  c.self = c;
  let deep = [];
  for (let k = 0; k < 200; k++) deep = [deep];
  const bad = [
    ["cyclic", c, /circular|cyclic/i],
    ["nested past the reader's limit", { loaded: deep }, /nested too deeply/],
    ["JSON text (an option is a value, never text)", '{"loaded": []}', /found string/],
  ];
  for (const option of ["state", "profile"]) {
    for (const [what, value, message] of bad) {
      const e = expectToolIntentError(() => Registry.embedded().turn(null, { [option]: value }), option);
      assert.ok(e, `${option} ${what} was accepted`);
      assert.deepEqual([e.code, e.argument, e.path], ["invalid_argument", option, "$"], `${option} ${what}: ${e.message}`);
      assert.match(e.message, message, e.message);
    }
  }
  // A key no call takes, whatever its value: the options argument at that key.
  for (const [what, value] of [["nested past the reader's limit", deep], ["a Map", new Map()], ["a number", 1]]) {
    const e = expectToolIntentError(() => Registry.embedded().turn(null, { notAnOption: value }), "options");
    assert.deepEqual([e?.code, e?.argument, e?.path], ["invalid_argument", "options", "$.notAnOption"], `${what}: ${e?.message}`);
  }
  const e = expectToolIntentError(() => Registry.embedded().turn(c), "tools_override");
  assert.equal(e.argument, "toolsOverride", e.message);
});
