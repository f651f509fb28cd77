// One wrong value, one error, on every surface: every parameter and option of every call of
// tests/data/api.json that both JS and Python have is given JSON values its kind may refuse,
// and the error's code, argument and JSON path (or null, accepted) are the rows of
// tests/golden/argument-errors.json.
// This test writes the rows with UPDATE_GOLDEN=1 and otherwise holds JS to them;
// python/tests/test_argument_errors.py replays the same rows in Python, so the two surfaces
// name every such error alike (Python spells the argument, and a toggle's path, in snake_case).
// Values JSON cannot carry (cyclic, BigInt, a function) are tests/js/hostile.test.mjs's and
// arguments.test.mjs's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import * as lib from "tool-intent";

const { Registry } = lib;
const api = JSON.parse(readFileSync(new URL("../data/api.json", import.meta.url), "utf8"));
const GOLDEN = new URL("../golden/argument-errors.json", import.meta.url);
const camel = (name) => name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** JSON values each kind may refuse, each in another way; some are right for one parameter of
 * the kind (an intent keeps keys it does not know), and then both surfaces must accept them. */
const WRONG = {
  string: [42, true, null, {}, ["a"], "zz-unknown"],
  "string?": [42, false, {}, ["a"], "zz-unknown"],
  json: [42, true, "not json{", '{"enabled": 1}', { enabled: 1 }, { disabled: [1] }, [1],
    { turn: "x" }, { loaded: 5 }, { zzz: 1 }, { tools: 3 }, { turns: [{ x: 1 }] }],
  document: ["{", 42, [1], { tools: 5 }, { tools: [{ name: 1 }] },
    { tools: [{ name: "a", inputSchema: 3 }] }],
  names: ["a", 42, [1], ["a", null]],
  bool: ["yes", 1],
  "bool?": ["yes", 1],
  "count?": [-1, 1.5, "5", true, 100000],
  toggles: [{ web_search: 5 }, { toolset: 3 }, { disabled: "shell" }, { bogus: true }],
};

/** The cases: one wrong value at a time, the other arguments valid. */
function cases() {
  const out = [];
  for (const spec of api.calls) {
    if (spec.js === null || spec.py === null || spec.build || spec.kind === "getter") continue;
    if (spec.params.some((p) => ["db", "registry?", "bytes"].includes(p.kind))) continue;
    const valid = spec.params.map((p) => p.valid);
    spec.params.forEach((p, i) => {
      for (const wrong of WRONG[p.kind] ?? []) {
        const args = [...valid];
        args[i] = wrong;
        out.push({ call: spec.name, on: spec.on, args, options: {}, toggles: p.kind === "toggles" });
      }
    });
    for (const [name, kind] of Object.entries(api.options[spec.options] ?? {})) {
      for (const wrong of WRONG[kind] ?? []) {
        out.push({ call: spec.name, on: spec.on, args: valid, options: { [name]: wrong }, toggles: false });
      }
    }
  }
  return out;
}

function target(on) {
  switch (on) {
    case "Registry": return Registry;
    case "registry": return Registry.embedded();
    case "turn": return Registry.embedded().turn(null);
    case "module": return lib;
  }
  throw new Error(`no JS target for ${on}`);
}

/** [code, argument (snake_case), path] of the call's error, or null when it succeeds. */
function error(row) {
  const camelKeys = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [camel(k), v]));
  const args = row.toggles ? [camelKeys(row.args[0])] : [...row.args];
  if (Object.keys(row.options).length > 0) args.push(camelKeys(row.options));
  try {
    target(row.on)[camel(row.call)](...args);
    return null;
  } catch (e) {
    assert.equal(e.name, "ToolIntentError", `${row.call}: ${e.message}`);
    const path = e.path ?? null;
    // The message names the argument as JS spells it, never as Rust does.
    if (e.argument) {
      assert.ok(e.message.includes(e.argument), `${row.call}: ${e.argument} not in: ${e.message}`);
      if (snake(e.argument) !== e.argument) assert.ok(!e.message.includes(snake(e.argument)), e.message);
    }
    return [e.code, e.argument ? snake(e.argument) : null, row.toggles && path ? snake(path) : path];
  }
}

test("every wrong JSON value fails with the code, argument and path of the golden rows", () => {
  const rows = cases().map((row) => ({ ...row, error: error(row) }));
  const text = `${JSON.stringify(rows, null, 1)}\n`;
  if (process.env.UPDATE_GOLDEN) {
    writeFileSync(GOLDEN, text);
    return;
  }
  const golden = JSON.parse(readFileSync(GOLDEN, "utf8"));
  assert.equal(golden.length, rows.length, "the cases changed: run with UPDATE_GOLDEN=1 and review the diff");
  rows.forEach((row, k) => assert.deepEqual(row, golden[k], `row ${k}`));
  // Rows are mostly errors: a table of accepted values would test little.
  const accepted = rows.filter((r) => r.error === null).length;
  assert.ok(accepted < rows.length / 5, `${accepted} of ${rows.length} values were accepted`);
  console.log(`argument errors: ${rows.length} rows, ${accepted} accepted`);
});
