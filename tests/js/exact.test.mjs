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
