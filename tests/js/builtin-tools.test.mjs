// Provider-executed tools through the wasm package: the embedded web_search goes out as each
// provider's own tool or the function fallback, Gemini's and OpenAI Chat's request fields come
// beside the payload, and dispatch refuses a tool the provider runs (tests/builtin_tools.rs is
// the native suite; the cross-target golden rows replay every form byte for byte).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Registry } from "tool-intent";

const web = { enabled: true, web_search: true };
const own = (plan) => JSON.parse(plan.payload).filter((e) => JSON.stringify(e).includes("web_search") && !e.input_schema && !e.parameters && !e.function && !e.toolSpec);

test("each provider's own web search, or the function", () => {
  const r = Registry.embedded();
  assert.deepEqual(own(r.planTurn(web)), [{ type: "web_search_20260318", name: "web_search" }]);
  assert.deepEqual(own(r.planTurn(web, { provider: "openai-responses" })), [{ type: "web_search" }]);
  const gemini = r.planTurn(web, { provider: "gemini" });
  assert.deepEqual(JSON.parse(gemini.payload).at(-1), { googleSearch: {} });
  assert.deepEqual(JSON.parse(gemini.requestFields), { toolConfig: { includeServerSideToolInvocations: true } });
  const chat = r.planTurn(web, { provider: "openai-chat" });
  assert.equal(chat.requestFields, "");
  assert.ok(chat.payload.includes('"name":"web_search"'), "the function fallback");
  assert.deepEqual(r.toolInfos().find((t) => t.name === "web_search").builtinProviders, ["anthropic", "openai-responses", "gemini"]);
});

test("OpenAI Chat's web_search_options come beside the payload when the registry lists it", () => {
  const r = Registry.fromJson(readFileSync(new URL("../data/builtin-registry.json", import.meta.url), "utf8"));
  const chat = r.planTurn(web, { provider: "openai-chat" });
  assert.ok(!chat.array.includes("web_search"));
  assert.deepEqual(JSON.parse(chat.requestFields), {
    web_search_options: { search_context_size: "medium", user_location: { type: "approximate", approximate: { city: "Lyon", country: "FR" } } },
  });
  assert.ok(r.warnings().some((w) => w.code === "builtin_option_dropped" && w.message.startsWith("bedrock-converse")));
});

test("dispatch refuses a tool the provider runs; a domain list no listed provider can send is refused", () => {
  const r = Registry.embedded();
  assert.throws(() => r.turn(web).resolve("web_search"), (e) => e.code === "provider_executed");
  assert.equal(r.turn(web, { provider: "openai-chat" }).resolve("web_search").name, "web_search");
  const doc = JSON.parse(r.toJson());
  doc.tools.find((t) => t.name === "web_search").builtin = { kind: "web_search", allowed_domains: ["docs.rs"], providers: ["gemini"] };
  assert.throws(() => Registry.fromJson(JSON.stringify(doc)), (e) => e.code === "invalid_registry" && e.path.endsWith(".builtin.allowed_domains"));
});
