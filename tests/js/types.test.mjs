// Type drift check: one real value of every output type, produced by the built package, is
// written into a TypeScript file as `value satisfies Type` and type-checked against the
// shipped declarations (bindings/wasm/src/types.d.ts via pkg/web/tool_intent.d.ts). An output field the
// declarations lack, or a declared field the output misses, fails `tsc`. One invalid value of
// every input type must fail too (`@ts-expect-error`), so the declarations are not too loose.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import {
  Registry, buildIntent, recordLoaded, sessionConfigFromOverride, normalizeToolsValue, sessionConfigToOverride,
} from "tool-intent";

const root = new URL("../../", import.meta.url);
const dir = new URL("test-output/types/", root);

test("every output value satisfies its declared type; invalid inputs are rejected", () => {
  const r = Registry.embedded();
  const intent = buildIntent({ webSearch: true, toolset: "research", disabled: ["memory"] });
  let state = r.beginTurn(null);
  const found = r.turn(null, { state }).search("select:enter_plan_mode");
  state = r.beginTurn(found.state);
  const outputs = {
    TurnPlan: r.planTurn(null, { state, source: "webui" }),
    TurnPlanWithWarnings: r.planTurn({ toolset: "nope", x: 1 }, { state: r.beginTurn(recordLoaded(null, ["nope"])), provider: "openai-responses" }),
    SearchOutcome: found,
    SearchOutcomeNativeClient: r.turn(null, { mode: "native-client" }).search("select:enter_plan_mode"),
    CacheReport: r.cacheReport({ turns: [{}, { searches: ["select:enter_plan_mode"] }, {}] }, null, { mode: "catalog" }),
    Budget: r.turn(null, { state }).budget(),
    "ToolInfo[]": r.toolInfos(),
    ToolDefinition: r.toolDefinition("grep"),
    TurnState: recordLoaded(state, ["memory"]),
    ToolsOverride: intent,
    SessionRunConfig: sessionConfigFromOverride(intent),
    NormalizedRow: normalizeToolsValue(["a"]),
    ExpansionWarning: r.warnings(),
    ResolvedOverride: sessionConfigToOverride({ tools_enabled: true, web_search: true }),
    // tool_changes "messages": the state carries the conversation's record, the plan its
    // betas, the budget the declared array and the change message, the report its mode.
    TurnPlanMessages: r.planTurn(null, { toolChanges: "messages" }),
    BudgetMessages: r.turn(null, { toolChanges: "messages" }).budget(),
    CacheReportMessages: r.cacheReport({ turns: [{}, { override: { enabled: true, web_search: true } }] }, null, { toolChanges: "messages" }),
    RegistryDiff: r.setMcpServer("time", { tools: [{ name: "now", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }] }).diff,
  };
  const typeOf = (name) => ({ TurnPlanWithWarnings: "TurnPlan", ResolvedOverride: "ToolsOverride", SearchOutcomeNativeClient: "SearchOutcome", NormalizedRow: "SessionRunConfig", ExpansionWarning: "ExpansionWarning[]", TurnPlanMessages: "TurnPlan", BudgetMessages: "Budget", CacheReportMessages: "CacheReport" })[name] ?? name;
  const names = new Set(Object.keys(outputs).map(typeOf).map((t) => t.replace("[]", "")));
  const lines = [
    `import type { ${[...names, "TurnOptions", "SearchOptions", "BudgetOptions", "Toggles", "RegistryDocument", "CounterName", "CacheScript"].join(", ")} } from "tool-intent";`,
    "",
  ];
  Object.entries(outputs).forEach(([name, value], i) => {
    lines.push(`export const out${i} = ${JSON.stringify(value)} satisfies ${typeOf(name)};`);
  });
  const invalid = {
    TurnOptions: { provider: "gemeni" },
    SearchOptions: { limit: "5" },
    BudgetOptions: { counter: "o200" },
    Toggles: { webSearch: "yes" },
    RegistryDocument: { tools: [{ name: 1 }] },
    CounterName: "o300k",
    CacheScript: { turns: [{ searches: "select:x" }] },
  };
  // Valid inputs type-check: the scripted sessions of tests/data (one removes a server), and
  // the registry documents the library ships and tests with.
  const valid = [
    ["tests/data/cache-session.json", "CacheScript"],
    ["tests/data/cache-session-toggles.json", "CacheScript"],
    ["src/default_registry.json", "RegistryDocument"],
    ["tests/data/builtin-registry.json", "RegistryDocument"],
  ];
  valid.forEach(([file, type], i) => {
    lines.push(`export const good${i} = ${readFileSync(new URL(file, root), "utf8").trim()} satisfies ${type};`);
  });
  Object.entries(invalid).forEach(([type, value], i) => {
    lines.push("// @ts-expect-error an invalid input value must not type-check");
    lines.push(`export const bad${i} = ${JSON.stringify(value)} satisfies ${type};`);
  });
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL("check.ts", dir), lines.join("\n") + "\n");
  writeFileSync(
    new URL("tsconfig.json", dir),
    JSON.stringify({
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, types: [], lib: ["ES2022", "ESNext.Disposable", "DOM"] },
      files: ["check.ts"],
    }),
  );
  const tsc = new URL("node_modules/typescript/bin/tsc", root).pathname;
  let output = "";
  try {
    output = execFileSync(process.execPath, [tsc, "-p", new URL("tsconfig.json", dir).pathname], { encoding: "utf8" });
  } catch (e) {
    output = `${e.stdout}${e.stderr}`;
    assert.fail(`declarations drifted from the outputs:\n${output}`);
  }
  assert.equal(output.trim(), "");
  assert.ok(Object.keys(outputs).length >= 12);
});
