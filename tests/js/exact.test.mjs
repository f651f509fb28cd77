// The exact build (tool-intent-exact, npm/exact): the same API plus o200k/cl100k counters, whose
// figures must equal the native CLI's `budget --counter o200k`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { Registry, countTokens, buildFlavor } from "tool-intent-exact";
import * as core from "tool-intent";

const cli = new URL("../../target/debug/tool-intent", import.meta.url).pathname;

test("exact build counts o200k tokens", () => {
  assert.equal(buildFlavor(), "exact");
  assert.equal(countTokens("hello world", "o200k"), 2);
  assert.equal(countTokens("", "cl100k"), 0);
});

test("exact budget equals the native exact budget", () => {
  assert.ok(existsSync(cli), `${cli} not built: run cargo build -p tool-intent-cli --features exact-tokens,hybrid first`);
  const override = { toolset: "research", web_search: true };
  const js = Registry.embedded().turn(override).budget({ counter: "o200k" });
  const native = JSON.parse(execFileSync(cli, ["budget", "--counter", "o200k", "--json", "--override", JSON.stringify(override)], { encoding: "utf8" }));
  assert.equal(js.residentTokens, native.residentTokens);
  assert.equal(js.catalogTokens, native.catalogTokens);
  assert.deepEqual(js.rows, native.rows);
});

test("core and exact builds render the same bytes", () => {
  const a = Registry.embedded().planTurn({ toolset: "full" });
  const b = core.Registry.embedded().planTurn({ toolset: "full" });
  assert.equal(a.fingerprint, b.fingerprint);
});

test("check lists what a provider refuses or changes, and is clean when there is nothing", () => {
  const r = Registry.embedded();
  const openai = r.check("openai-chat");
  assert.equal(openai.provider, "openai-chat");
  assert.ok(openai.findings.length >= 6);
  // Shortened descriptions, and the web search sent as a function (OpenAI Chat's own is for
  // search models, sent only when the registry lists openai-chat).
  assert.deepEqual([...new Set(openai.findings.map((f) => f.rule))], ["description_length", "builtin_fallback"]);
  assert.ok(openai.findings.every((f) => f.refused === false));
  assert.deepEqual(r.check("anthropic"), { provider: "anthropic", findings: [] });
  const gemini = Registry.fromJson([{ name: "2fa", parameters: { type: "object" } }]).check("gemini");
  assert.deepEqual(gemini.findings.map((f) => [f.tool, f.rule, f.refused]), [["2fa", "gemini_name", true]]);
  // A schema that is not JSON Schema, and an array without items (OpenAI only), with the path.
  const schemas = Registry.fromJson([
    { name: "ratio", parameters: { type: "object", properties: { x: { type: "float" } } } },
    { name: "tags", parameters: { type: "object", properties: { t: { type: "array" } } } },
  ]);
  const rules = (provider) => schemas.check(provider).findings.map((f) => [f.tool, f.rule, f.refused]);
  assert.deepEqual(rules("anthropic"), [["ratio", "invalid_schema", true]]);
  assert.deepEqual(rules("openai-responses"), [["ratio", "invalid_schema", true], ["tags", "array_items", true]]);
  assert.match(schemas.check("gemini").findings[0].message, /\$\.properties\.x\.type must be a type name/);
  assert.throws(() => r.check("gemeni"), (e) => e.code === "invalid_argument" && e.argument === "provider");
});
