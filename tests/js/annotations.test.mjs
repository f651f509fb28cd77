// Presets by MCP annotation through the wasm package: the embedded `readonly` preset selects
// by `@read_only`, a server's claims count only when the registry trusts it, and a server
// change reports the tools that entered or left such a preset. (The native property test is
// tests/annotations.rs; the cross-target golden rows replay the selectors byte for byte.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Registry } from "tool-intent";

const time = readFileSync(new URL("../data/mcp/time.json", import.meta.url), "utf8");
const withTrust = (trusted) => {
  const doc = JSON.parse(Registry.embedded().toJson());
  doc.trusted_servers = trusted;
  return Registry.fromJson(JSON.stringify(doc)).setMcpServer("time", time).registry;
};
const readonly = (r) => {
  const plan = r.planTurn({ toolset: "readonly" });
  return [...plan.array, ...plan.catalog].filter((n) => n !== "tool_search").sort();
};

test("the readonly preset offers a server's read-only tools only when the server is trusted", () => {
  const own = ["browser", "enter_plan_mode", "glob", "grep", "list_sessions", "read_file", "web_search"];
  assert.deepEqual(readonly(withTrust([])), own);
  assert.deepEqual(readonly(withTrust(["time"])), [...own, "mcp__time__convert_time", "mcp__time__get_current_time"].sort());
  const infos = withTrust([]).toolInfos();
  const info = (name) => infos.find((t) => t.name === name).effectiveAnnotations;
  assert.deepEqual(info("read_file"), { readOnly: true, destructive: false, idempotent: true, openWorld: false, trusted: true });
  assert.deepEqual(info("mcp__time__get_current_time"), { readOnly: false, destructive: true, idempotent: false, openWorld: true, trusted: false });
});

test("a server change says which tools entered or left an annotation preset", () => {
  const r = withTrust(["time"]);
  const list = JSON.parse(time);
  list[1].annotations = { ...list[1].annotations, readOnlyHint: false };
  const change = r.setMcpServer("time", JSON.stringify(list));
  assert.deepEqual(change.diff.presets, [{ preset: "readonly", entered: [], left: [`mcp__time__${list[1].name}`] }]);
  change.registry.free();
  r.free();
});

test("an unknown selector in a registry names its path", () => {
  const doc = { tools: [{ name: "a", description: "", parameters: { type: "object" } }], toolsets: { x: ["@readOnly"] } };
  assert.throws(() => Registry.fromJson(JSON.stringify(doc)), (e) => e.code === "invalid_registry" && e.path === "$.toolsets.x[0]");
});
