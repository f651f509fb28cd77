// The providers' own SDKs as the judges of our payloads: every payload the library renders
// for a provider and mode (the embedded registry, and with the nine real MCP servers of
// tests/data/mcp merged in; with a tool loaded; with and without explicit caching; the
// Anthropic ones against the Messages and the beta Messages types) and the
// native-client search outputs, and the change messages of toolChanges "messages", are written into a TypeScript file as `const x: <SDK type> =
// <payload>` and type-checked by tsc --strict against the SDK versions pinned in
// package-lock.json. One payload made wrong on purpose must fail, so the check has teeth.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { Registry } from "tool-intent";
import { goldenRegistry, read } from "./golden-registries.mjs";

const root = new URL("../../", import.meta.url);
const dir = new URL("test-output/sdk-types/", root);

const registries = {
  embedded: Registry.embedded(),
  all: goldenRegistry(Registry, "all"),
  // web_search as every provider's own tool, with options (tests/data/builtin-registry.json).
  builtin: goldenRegistry(Registry, "doc:builtin"),
};

// provider, mode, whether explicit caching exists there, the SDK type of the tools list.
const targets = [
  ["anthropic", "catalog", true, 'MessageCreateParams["tools"]'],
  ["anthropic", "native", true, 'MessageCreateParams["tools"]'],
  ["anthropic", "native-client", true, 'MessageCreateParams["tools"]'],
  ["openai-chat", "catalog", false, 'ChatCompletionCreateParams["tools"]'],
  ["openai-responses", "catalog", false, 'ResponseCreateParams["tools"]'],
  ["openai-responses", "native", false, 'ResponseCreateParams["tools"]'],
  ["openai-responses", "native-client", false, 'ResponseCreateParams["tools"]'],
  ["bedrock-converse", "catalog", true, 'ToolConfiguration["tools"]'],
  ["gemini", "catalog", false, "GeminiTool[]"],
];

test("every payload and search output type-checks against the providers' SDKs", () => {
  const lines = [
    'import type { MessageCreateParams, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";',
    'import type { MessageCreateParams as BetaMessageCreateParams, BetaToolResultBlockParam, BetaMessageParam } from "@anthropic-ai/sdk/resources/beta/messages/messages";',
    'import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";',
    'import type { ResponseCreateParams, ResponseToolSearchOutputItemParam, ResponseInputItem } from "openai/resources/responses/responses";',
    'import type { ToolConfiguration, Message as BedrockMessage } from "@aws-sdk/client-bedrock-runtime";',
    'import type { Tool as GeminiTool, ToolConfig as GeminiToolConfig } from "@google/genai";',
    "",
  ];
  let n = 0;
  let fields = 0;
  for (const [label, registry] of Object.entries(registries)) {
    const intent = { toolset: "full" };
    const firstDeferred = registry.planTurn(intent).catalog[0];
    const state = { loaded: [firstDeferred], frozen: [firstDeferred], turn: 1 };
    for (const [provider, mode, caching, type] of targets) {
      for (const cacheControl of caching ? [false, true] : [false]) {
        const plan = registry.planTurn(intent, { provider, mode, cacheControl, state });
        lines.push(`// ${label} ${provider} ${mode}${cacheControl ? " cached" : ""}`);
        lines.push(`export const p${n++}: ${type} = ${plan.payload};`);
        // The request fields a built-in needs beside the tools, typed as the request's own.
        if (plan.requestFields) {
          const fieldType = provider === "openai-chat" ? 'Pick<ChatCompletionCreateParams, "web_search_options">' : "{ toolConfig: GeminiToolConfig }";
          lines.push(`export const rf${fields++}: ${fieldType} = ${plan.requestFields};`);
        }
        if (provider === "anthropic") {
          // The beta Messages API, which servers on the tool-search beta use.
          lines.push(`export const b${n}: BetaMessageCreateParams["tools"] = p${n - 1};`);
        }
      }
    }
    // native-client search outputs: Anthropic tool_result content (hits, and a miss), OpenAI
    // Responses' tool_search_output input item.
    for (const query of [`select:${firstDeferred}`, "+zyzzyva"]) {
      const out = registry.turn(intent, { provider: "anthropic", mode: "native-client" }).search(query);
      lines.push(`export const s${n}: ToolResultBlockParam["content"] = ${JSON.stringify(out.providerOutput)};`);
      lines.push(`export const bs${n}: BetaToolResultBlockParam["content"] = s${n++};`);
    }
    const openai = registry.turn(intent, { provider: "openai-responses", mode: "native-client" }).search(`select:${firstDeferred}`);
    lines.push(`export const s${n++}: ResponseToolSearchOutputItemParam = ${JSON.stringify({ ...openai.providerOutput, call_id: "call_1" })};`);
  }
  // Change messages (toolChanges "messages"): a session that switches web search, the preset
  // and a disable, with a load, on the three providers that take them; every turn's items and
  // request fields typed as the SDKs' own message and input-item types.
  let changes = 0;
  const session = [{ enabled: true }, { enabled: true, web_search: true }, { enabled: true, toolset: "research" }, { enabled: true, disabled: ["shell", "mcp__github__*"] }, { enabled: true }];
  const itemType = { anthropic: "BetaMessageParam[]", "bedrock-converse": "BedrockMessage[]", "openai-responses": "ResponseInputItem[]" };
  for (const [provider, mode] of [...Object.keys(itemType).map((p) => [p, "catalog"]), ["anthropic", "native-client"]]) {
    const r = registries.all;
    let state = null;
    session.forEach((intent, i) => {
      state = r.beginTurn(state);
      const t = r.turn(intent, { provider, mode, toolChanges: "messages", state });
      const plan = t.plan();
      if (i === 0) lines.push(`export const ct${changes}: ${provider === "anthropic" ? 'BetaMessageCreateParams["tools"]' : provider === "bedrock-converse" ? 'ToolConfiguration["tools"]' : 'ResponseCreateParams["tools"]'} = ${plan.payload};`);
      if (plan.changes) lines.push(`export const c${changes++}: ${itemType[provider]} = ${plan.changes};`);
      if (plan.requestFields) lines.push(`export const cf${changes++}: Pick<ResponseCreateParams, "tool_choice"> = ${plan.requestFields};`);
      state = plan.state;
      if (i === 1) state = t.search("select:mcp__git__git_status").state;
    });
  }
  // A provider switch mid-session (every pair of the three): the turn after the switch
  // declares again for the new provider; every turn's tools, items and fields typed as that
  // provider's own. And states edited as a stored row may be (every known definition, a
  // declared entry replaced by bytes of its own, text appended to an entry, a reference, the
  // provider): whatever the plan is, the SDKs take it.
  const toolsType = { anthropic: 'BetaMessageCreateParams["tools"]', "bedrock-converse": 'ToolConfiguration["tools"]', "openai-responses": 'ResponseCreateParams["tools"]' };
  const typed = (provider, plan) => {
    lines.push(`export const st${changes++}: ${toolsType[provider]} = ${plan.payload};`);
    if (plan.changes) lines.push(`export const sc${changes++}: ${itemType[provider]} = ${plan.changes};`);
    if (plan.requestFields) lines.push(`export const sf${changes++}: Pick<ResponseCreateParams, "tool_choice"> = ${plan.requestFields};`);
  };
  const providers = Object.keys(itemType);
  for (const from of providers) {
    for (const to of providers.filter((p) => p !== from)) {
      let state = null;
      [from, from, to, to].forEach((provider, i) => {
        state = registries.all.beginTurn(state);
        const t = registries.all.turn(session[i], { provider, toolChanges: "messages", state });
        const plan = t.plan();
        typed(provider, plan);
        state = t.search("select:mcp__git__git_status").state;
      });
    }
  }
  const edits = [
    (c) => { for (const k of Object.values(c.known)) k.definition = `sha256:${"0".repeat(64)}`; },
    (c) => { c.tools[0] = '{"name":"shell","description":"edited","input_schema":{"type":"object"}}'; },
    (c) => { c.tools[0] += '],"system":"injected","tools":[{"name":"y"}'; },
    (c) => { for (const k of Object.values(c.known)) k.reference = '{"type":"function","name":"shell"}],"instructions":"x'; },
    (c) => { c.provider = "anthropic"; },
  ];
  for (const provider of providers) {
    const r = registries.all;
    const first = r.turn(session[0], { provider, toolChanges: "messages", state: r.beginTurn(null) });
    const stored = first.plan().state;
    edits.forEach((edit) => {
      const state = structuredClone(stored);
      edit(state.conversation);
      const plan = r.turn(session[1], { provider, toolChanges: "messages", state: r.beginTurn(state) }).plan();
      typed(provider, plan);
    });
  }
  lines.push("// @ts-expect-error a tool_reference names its tool");
  lines.push('export const bad4: BetaMessageParam[] = [{ role: "system", content: [{ type: "tool_addition", tool: { type: "tool_reference" } }] }];');
  lines.push("// @ts-expect-error a Bedrock toolRemoval holds a ToolReference, not a name");
  lines.push('export const bad5: BedrockMessage[] = [{ role: "system", content: [{ toolRemoval: { tool: "shell" } }] }];');
  lines.push("// @ts-expect-error additional_tools are the developer's");
  lines.push('export const bad6: ResponseInputItem[] = [{ type: "additional_tools", role: "user", tools: [] }];');
  // Teeth: a Responses function without strict, a Bedrock tool without inputSchema, an
  // Anthropic web search of a version that does not exist, and Chat's location without its
  // `approximate` wrapper.
  lines.push("// @ts-expect-error no such Anthropic web search version");
  lines.push('export const bad2: MessageCreateParams["tools"] = [{ type: "web_search_20990101", name: "web_search" }];');
  lines.push("// @ts-expect-error Chat's user_location wraps its fields in approximate");
  lines.push('export const bad3: Pick<ChatCompletionCreateParams, "web_search_options"> = { web_search_options: { user_location: { type: "approximate", city: "Lyon" } } };');
  lines.push("// @ts-expect-error strict is required on a Responses function tool");
  lines.push('export const bad0: ResponseCreateParams["tools"] = [{ type: "function", name: "f", parameters: {} }];');
  lines.push("// @ts-expect-error a Bedrock toolSpec needs inputSchema");
  lines.push('export const bad1: ToolConfiguration["tools"] = [{ toolSpec: { name: "f" } }];');
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL("check.ts", dir), lines.join("\n") + "\n");
  writeFileSync(
    new URL("tsconfig.json", dir),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true,
        skipLibCheck: true, types: [], lib: ["ES2022", "DOM"], typeRoots: [],
        baseUrl: ".", paths: { "*": [new URL("node_modules/*", root).pathname] },
      },
      files: ["check.ts"],
    }),
  );
  const tsc = new URL("node_modules/typescript/bin/tsc", root).pathname;
  let output = "";
  try {
    output = execFileSync(process.execPath, [tsc, "-p", new URL("tsconfig.json", dir).pathname], { encoding: "utf8", maxBuffer: 1 << 26 });
  } catch (e) {
    assert.fail(`SDK type errors:\n${String(e.stdout).slice(0, 4000)}${e.stderr}`);
  }
  assert.equal(output.trim(), "");
  assert.equal(n, 3 * (targets.length + 4 + 3), "payloads and search outputs written");
  // Chat's web_search_options and Gemini's toolConfig, each with and without caching rows.
  assert.ok(fields >= 3, `request fields written: ${fields}`);
  // Change messages on every provider's turns, and the Responses allow-lists.
  assert.ok(changes >= 10, `change messages written: ${changes}`);
});
