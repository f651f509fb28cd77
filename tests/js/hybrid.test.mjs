// The hybrid build (tool-intent-hybrid, npm/hybrid): the same API plus search's
// `ranker: "hybrid"`, whose hits must equal the native build's (tests/golden/search-hybrid.json,
// written by tests/cross_target.rs) and the native CLI's `search --ranker hybrid`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { Registry, buildFlavor, fingerprint } from "tool-intent-hybrid";
import { checkSearchRows, read } from "./golden-registries.mjs";
import * as core from "tool-intent";

const root = new URL("../../", import.meta.url);
const cli = new URL("target/debug/tool-intent", root).pathname;

test("hybrid build: its flavour, and hits equal to the native build's for every hybrid row", () => {
  assert.equal(buildFlavor(), "hybrid");
  assert.ok(JSON.parse(read("tests/golden/search-hybrid.json")).every((row) => row.ranker === "hybrid"));
  assert.equal(checkSearchRows({ Registry, fingerprint }, "tests/golden/search-hybrid.json"), 144);
});

test("hybrid search equals the native CLI's search --ranker hybrid", () => {
  assert.ok(existsSync(cli), `${cli} not built: run cargo build -p tool-intent-cli --features exact-tokens,hybrid first`);
  const query = "how many euros do I get for 20 dollars";
  const js = Registry.embedded().turn(null).search(query, { ranker: "hybrid", limit: 3 });
  const native = JSON.parse(execFileSync(cli, ["search", "--ranker", "hybrid", "--limit", "3", "--json", "--query", query], { encoding: "utf8" }));
  assert.deepEqual(js.hits, native.hits);
  assert.ok(js.hits.length > 0, "no hit");
});

test("the keyword ranker is the default and unchanged in the hybrid build", () => {
  const r = Registry.embedded();
  const c = core.Registry.embedded();
  for (const q of ["plan mode", "send a message to the team", "browser screenshot"]) {
    assert.deepEqual(r.turn(null).search(q).hits, c.turn(null).search(q).hits, q);
    assert.deepEqual(r.turn(null).search(q, { ranker: "keyword" }).hits, c.turn(null).search(q).hits, q);
  }
  // select: and the deferred-only candidate set hold under the hybrid ranker too.
  assert.deepEqual(r.turn(null).search("select:enter_plan_mode", { ranker: "hybrid" }).hits, ["enter_plan_mode"]);
  const disabled = r.turn({ disabled: ["enter_plan_mode"] }).search("enter plan mode", { ranker: "hybrid", limit: 50 });
  assert.ok(!disabled.hits.includes("enter_plan_mode"), disabled.hits.join(","));
});

test("the core package refuses ranker hybrid and names the package that has it", () => {
  assert.equal(core.buildFlavor(), "core");
  assert.throws(
    () => core.Registry.embedded().turn(null).search("plan mode", { ranker: "hybrid" }),
    (e) => e.code === "invalid_argument" && e.argument === "ranker" && e.path === undefined && /tool-intent-hybrid/.test(e.message),
  );
  assert.throws(
    () => Registry.embedded().turn(null).search("plan mode", { ranker: "semantic" }),
    (e) => e.code === "invalid_argument" && e.argument === "ranker" && /keyword, hybrid/.test(e.message),
  );
});
