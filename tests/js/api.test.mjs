// The JS API of the core package, imported by name as a consumer would.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import init, {
  Registry, buildIntent, canonicalIntent, sessionConfigToOverride, normalizeToolsValue,
  sessionConfigFromOverride, recordLoaded, fingerprint, countTokens, buildFlavor,
  ToolIntentError, isToolIntentError,
} from "tool-intent";

await init(); // a no-op in Node; kept to show browser-compatible code

const github = readFileSync(new URL("../data/mcp/github.json", import.meta.url), "utf8");

/** Asserts a ToolIntentError with this code and, when given, argument and JSON path. */
function throwsCode(fn, code, argument, path) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Error, "not an Error");
    assert.ok(e instanceof ToolIntentError && isToolIntentError(e), "instanceof ToolIntentError");
    assert.equal(e.name, "ToolIntentError");
    assert.equal(e.code, code, e.message);
    if (argument !== undefined) assert.equal(e.argument, argument, e.message);
    if (path !== undefined) assert.equal(e.path, path, e.message);
    if (e.path !== undefined) assert.match(e.path, /^\$/, "a path is always a JSON path");
    return true;
  });
}

test("the embedded registry plans a turn like the CLI", () => {
  const r = Registry.embedded();
  assert.equal(r.len(), 17);
  assert.equal(r.isEmpty(), false);
  const e = r.planTurn(null);
  assert.deepEqual(e.catalog, ["send_message", "playwright_browser", "enter_plan_mode", "exit_plan_mode"]);
  assert.ok(e.array.includes("tool_search"));
  assert.match(e.fingerprint, /^sha256:[0-9a-f]{64}$/);
  assert.deepEqual(Object.keys(e).sort(), ["array", "catalog", "catalogText", "changes", "fingerprint", "mode", "payload", "promoted", "provider", "renamed", "requestFields", "warnings"]);
  assert.equal(buildFlavor(), "core");
});

test("overrides may be JSON text or plain values", () => {
  const r = Registry.embedded();
  assert.deepEqual(r.planTurn('{"enabled":true,"web_search":true}'), r.planTurn({ enabled: true, web_search: true }));
  assert.ok(r.planTurn({ web_search: true }).array.includes("web_search"));
  assert.deepEqual(r.planTurn([]).array, []);
  assert.deepEqual(r.planTurn([]).catalog, []);
});

test("errors are Errors with a stable code and the JSON path", () => {
  const r = Registry.embedded();
  throwsCode(() => r.planTurn({ disabled: [1] }), "invalid_value", "toolsOverride", "$.disabled[0]");
  throwsCode(() => r.planTurn("{oops"), "invalid_json", "toolsOverride", "$");
  throwsCode(() => r.planTurn(42), "invalid_value", "toolsOverride", "$");
  throwsCode(() => r.planTurn(null, { source: "nope" }), "unknown_source", "source", undefined);
  throwsCode(() => r.planTurn(null, { provider: "gemeni" }), "invalid_argument", "provider", undefined);
  throwsCode(() => r.planTurn(null, { bogus: 1 }), "invalid_argument", "options", "$.bogus");
  throwsCode(() => r.planTurn(null, { limit: 3 }), "invalid_argument", "options", "$.limit");
  throwsCode(() => r.turn(null).search("x", { limit: 0 }), "invalid_argument", "limit", undefined);
  throwsCode(() => r.planTurn(null, { provider: "openai-chat", mode: "native" }), "invalid_argument", "mode", undefined);
  // `loaded` is no option: the turn state is the one source of loaded tools.
  throwsCode(() => r.planTurn(null, { loaded: ["memory"] }), "invalid_argument", "options", "$.loaded");
  throwsCode(() => Registry.fromJson('{"tools":[{"name":"a b","parameters":{}}]}'), "invalid_registry", "document", "$.tools[0].name");
  throwsCode(() => Registry.fromJson({ tools: [{ name: "x", parameters: [] }] }), "invalid_value", "document", "$.tools[0].parameters");
  throwsCode(() => Registry.fromJson({ tools: [{ name: "x", parameters: {}, n: 10n }] }), "invalid_value", "document", "$");
  throwsCode(() => r.turn({ enabled: true, disabled: ["shell"] }).resolve("shell"), "tool_not_available");
  throwsCode(() => r.turn(null).budget({ counter: "o200k" }), "invalid_argument", "counter");
  // The core package says where the exact counters are.
  assert.throws(() => countTokens("x", "o200k"), /tool-intent-exact/);
  throwsCode(() => r.turn(null).budget({ counter: "o2" }), "invalid_argument", "counter", undefined);
  throwsCode(() => r.planTurn(null, { profile: { enabled: "x" } }), "invalid_argument", "profile", "$.enabled");
});

test("planTurn returns the exact bytes, their fingerprint and the catalog text from one planning", () => {
  const r = Registry.embedded();
  const p = r.planTurn({ enabled: true }, { provider: "openai-responses" });
  assert.equal(fingerprint(p.payload), p.fingerprint);
  const parsed = JSON.parse(p.payload);
  assert.equal(parsed[0].type, "function");
  assert.deepEqual(p.array, parsed.map((t) => t.name));
  assert.ok(p.catalogText.includes("\nplaywright_browser\n"));
  assert.deepEqual(p.catalogText.trim().split("\n").slice(1), p.catalog);
});

test("turn state: a mid-turn search leaves the array alone, the next turn promotes", () => {
  const r = Registry.embedded().setMcpServer("github", github).registry;
  const intent = { toolset: "full" };
  let state = r.beginTurn(null);
  const before = r.planTurn(intent, { state });
  const found = r.turn(intent, { state }).search("+github issue create", { limit: 3 });
  assert.ok(found.hits.length >= 1 && found.hits.length <= 3);
  assert.ok(found.hits.every((h) => h.startsWith("mcp__github__")));
  assert.match(found.text, /can be called at once/);
  state = found.state;
  assert.deepEqual(state.loaded, found.hits);
  assert.equal(r.planTurn(intent, { state }).fingerprint, before.fingerprint);
  assert.ok(r.turn(intent, { state }).resolve(found.hits[0]).parameters);
  state = r.beginTurn(state);
  const after = r.planTurn(intent, { state });
  assert.notEqual(after.fingerprint, before.fingerprint);
  assert.deepEqual(after.promoted, found.hits);
  assert.deepEqual(after.array.slice(-found.hits.length), found.hits);
  assert.deepEqual(recordLoaded(state, ["a", "a", "b"]).loaded, [...found.hits, "a", "b"]);
  // live view reads loads without a boundary
  const live = r.planTurn(intent, { state: recordLoaded(state, ["memory"]), view: "live" });
  assert.equal(live.promoted.at(-1), "memory");
});

test("session config helpers never materialise lists", () => {
  assert.deepEqual(buildIntent({ webSearch: true }), { web_search: true });
  assert.deepEqual(buildIntent({ toolset: "research", disabled: ["b", "a"] }), { disabled: ["a", "b"], toolset: "research" });
  assert.deepEqual(buildIntent({ toolsEnabled: false }), []);
  assert.deepEqual(buildIntent({ picked: ["web_search"] }), ["web_search"]);
  assert.equal(buildIntent({}), null);
  assert.equal(canonicalIntent({ web_search: true, disabled: ["b", "a", "a"], enabled: null }), '{"disabled":["a","b"],"web_search":true}');
  assert.deepEqual(sessionConfigToOverride({ tools_enabled: false }), []);
  assert.deepEqual(sessionConfigToOverride({ tools_enabled: true, web_search: true }), { enabled: true, web_search: true });
  assert.deepEqual(sessionConfigToOverride({ tools_enabled: 1, tools_override: '["x"]' }), ["x"]);
  assert.deepEqual(sessionConfigToOverride({}), {});
  const row = sessionConfigFromOverride({ toolset: "research", web_search: true });
  assert.deepEqual(row, { tools_enabled: null, tools_override: null, web_search: true, toolset: "research" });
  assert.deepEqual(normalizeToolsValue(["a"]), { tools_enabled: true, tools_override: ["a"], web_search: null, toolset: null });
  assert.deepEqual(normalizeToolsValue(true), { tools_enabled: true, tools_override: null, web_search: null, toolset: null });
  throwsCode(() => normalizeToolsValue(7), "invalid_value", "value", "$");
  throwsCode(() => buildIntent({ webserch: true }), "invalid_value", "toggles", "$.webserch");
});

test("strings cross intact (ASCII, accents, emoji); a lone surrogate is refused with its path", () => {
  const description = "é".repeat(5) + " 🚀 ascii " + "x".repeat(100) + " end ☃";
  const r = Registry.fromJson(JSON.stringify([{ name: "u", description, parameters: { type: "object" } }]));
  assert.equal(r.toolDefinition("u").description, description);
  // JSON.stringify writes a lone surrogate as the escape \ud800, which no JSON parser reads.
  throwsCode(() => Registry.fromJson([{ name: "s", description: "a\ud800", parameters: {} }]), "invalid_value", "document", "$[0].description");
  // As raw text the same half character is not text: refused, with where it is, never
  // turned into U+FFFD behind the caller's back.
  const raw = `[{"name":"s","description":"a\ud800","parameters":{}}]`;
  throwsCode(() => Registry.fromJson(raw), "invalid_argument", "document");
  assert.throws(() => Registry.fromJson(raw), /at index 29/);
  const emojiOnly = "🚀".repeat(3);
  assert.equal(Registry.fromJson(JSON.stringify([{ name: "e", description: emojiOnly, parameters: {} }])).toolDefinition("e").description, emojiOnly);
});

test("registry helpers", () => {
  const r = Registry.embedded();
  const info = r.toolInfos();
  assert.equal(info.length, 17);
  assert.deepEqual(r.warnings(), []);
  assert.deepEqual(info.find((t) => t.name === "web_search"), info.find((t) => t.overlay));
  assert.ok(r.toolsetNames().includes("research"));
  assert.deepEqual(r.sourceNames(), ["channel", "tui", "webui"]);
  assert.equal(r.toolDefinition("grep").name, "grep");
  const again = Registry.fromJson(r.toJson());
  assert.equal(again.planTurn(null).fingerprint, r.planTurn(null).fingerprint);
  assert.ok(countTokens("hello world") >= 2);
});

test("budget prices both halves", () => {
  const b = Registry.embedded().turn(null).budget();
  assert.equal(b.counter, "estimate");
  assert.ok(b.residentTokens > 3000 && b.catalogTokens < 100);
  assert.ok(b.savingTokens > 0);
  const pw = b.rows.find((r) => r.name === "playwright_browser");
  assert.equal(pw.placement, "deferred");
  assert.ok(pw.tokens < 8 && pw.residentTokens > 1000);
});

test("CommonJS require works too", () => {
  const require = createRequire(import.meta.url);
  const cjs = require("tool-intent");
  assert.equal(cjs.Registry.embedded().planTurn(null).fingerprint, Registry.embedded().planTurn(null).fingerprint);
});

test("hostile input at the boundary throws ToolIntentError, never traps", () => {
  const r = Registry.embedded();
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const atoms = [null, undefined, true, false, 0, -1, 1.5, 2 ** 60, NaN, "", "*", "select:", "{", "[1]", "read_file", "\u0000", "é".repeat(300), [], {}, () => 1, Symbol.iterator, 10n];
  const gen = (d = 0) => {
    const k = rnd();
    if (d > 3 || k < 0.4) return atoms[Math.floor(rnd() * atoms.length)];
    if (k < 0.7) return Array.from({ length: Math.floor(rnd() * 4) }, () => gen(d + 1));
    const keys = ["enabled", "disabled", "allowed", "toolset", "web_search", "source", "loaded", "state", "provider", "mode", "tools", "name", "parameters", "limit", "counter", "view", "picked", "webSearch"];
    return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 4) }, () => [keys[Math.floor(rnd() * keys.length)], gen(d + 1)]));
  };
  const calls = [
    (a, b) => r.planTurn(a, b), (a, b) => r.cacheReport(a, null, b), (a, b) => r.turn(a).search(String(b)), (a, b) => r.turn(a, b).budget(),
    (a) => Registry.fromJson(a), (a) => buildIntent(a), (a) => canonicalIntent(a), (a) => sessionConfigToOverride(a),
    (a) => normalizeToolsValue(a), (a) => r.beginTurn(a), (a, b) => recordLoaded(a, Array.isArray(b) ? b.map(String) : []),
    (a, b) => r.setMcpServer(String(a), b).registry, (a, b) => r.turn(a).resolve(String(b)),
  ];
  for (let i = 0; i < 3000; i++) {
    const call = calls[i % calls.length];
    try {
      call(gen(), gen());
    } catch (e) {
      if (e instanceof TypeError && /wasm|Symbol|BigInt|convert/i.test(e.message)) continue; // rejected by the generated glue before Rust runs
      assert.ok(e instanceof Error, String(e));
      assert.equal(e.name, "ToolIntentError", `${e.name}: ${e.message}`);
      assert.equal(typeof e.code, "string");
    }
  }
  // The module still works after all of it.
  assert.equal(r.planTurn(null).catalog.length, 4);
});

test("ToolIntentError works with instanceof from ESM and CommonJS, and rejects other errors", () => {
  const require = createRequire(import.meta.url);
  const cjs = require("tool-intent");
  let thrown;
  try {
    cjs.Registry.embedded().planTurn({ disabled: [1] });
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown instanceof cjs.ToolIntentError && thrown instanceof ToolIntentError);
  assert.equal(thrown.code, "invalid_value");
  assert.ok(cjs.isToolIntentError(thrown));
  assert.ok(!(new Error("x") instanceof ToolIntentError));
  assert.ok(!isToolIntentError({ name: "ToolIntentError", code: "x" }), "not an Error");
});

test("the entries export the documented API and nothing else", async () => {
  const api = ["Registry", "RegistryChange", "ToolIntentError", "Turn", "buildFlavor", "buildIntent", "canonicalIntent", "countTokens", "default", "fingerprint", "initSync", "isToolIntentError", "normalizeToolsValue", "recordLoaded", "sessionConfigFromOverride", "sessionConfigToOverride"];
  const esm = await import("tool-intent");
  assert.deepEqual(Object.keys(esm).sort(), api);
  const cjs = createRequire(import.meta.url)("tool-intent");
  // CommonJS has no default import: `init` is also there by name.
  assert.deepEqual(Object.keys(cjs).sort(), [...api, "init"].sort());
  const web = await import("../../js/web.mjs");
  assert.deepEqual(Object.keys(web).sort(), api);
  assert.equal(await esm.default(), esm.initSync());
  assert.ok(esm.initSync().memory instanceof WebAssembly.Memory);
});

test("the core package reads check's provider, then refuses the call by name", () => {
  // check is in tool-intent-exact and tool-intent-hybrid (tests/js/exact.test.mjs): the core
  // module stays within its size budget (docs/benchmarks.md, "Package size").
  const r = Registry.embedded();
  assert.throws(
    () => r.check("anthropic"),
    (e) => e.code === "invalid_argument" && e.argument === "provider" && /tool-intent-exact or tool-intent-hybrid/.test(e.message),
  );
  throwsCode(() => r.check("gemeni"), "invalid_argument", "provider");
});

test("live servers: setMcpServers in one build, removeMcpServer, errors naming the server's path", () => {
  const tools = (names) => ({ tools: names.map((name) => ({ name, inputSchema: { type: "object" } })) });
  const base = Registry.embedded();
  const both = base.setMcpServers([{ name: "a", tools: tools(["x", "y.z"]) }, { name: "b", tools: JSON.stringify(tools(["w"])) }]);
  assert.equal(both.diff.added.length, 3);
  assert.ok(both.diff.added.includes("mcp__a__x") && both.diff.added.includes("mcp__b__w"));
  assert.ok(both.diff.added.some((n) => /^mcp__a__y_z_[0-9a-f]{8}$/.test(n)), JSON.stringify(both.diff.added));
  let one = base;
  for (const [name, list] of [["a", tools(["x", "y.z"])], ["b", tools(["w"])]]) one = one.setMcpServer(name, list).registry;
  assert.equal(one.fingerprint(), both.registry.fingerprint());
  assert.notEqual(base.fingerprint(), one.fingerprint());
  const gone = both.registry.removeMcpServer("a");
  assert.deepEqual(gone.diff.removed.slice(0, 1), ["mcp__a__x"]);
  assert.ok(!gone.registry.toolInfos().some((t) => t.name.startsWith("mcp__a__")));
  assert.throws(() => gone.registry.removeMcpServer("a"), (e) => e.code === "invalid_argument" && e.argument === "server");
  assert.throws(() => base.setMcpServers([{ name: "ok", tools: [] }, { name: "bad", tools: 5 }]),
    (e) => e.path?.startsWith("$[1].tools") && e.code === "invalid_value" || (console.error(e), false));
  assert.throws(() => base.setMcpServer("a__b", []), (e) => e.argument === "server");
});

test("a null tools list is an error naming the server, never a removal", () => {
  const r = Registry.embedded().setMcpServer("s", [{ name: "x", inputSchema: { type: "object" } }]).registry;
  for (const list of [null, "null", undefined]) {
    throwsCode(() => r.setMcpServer("s", list), "invalid_value");
    assert.throws(() => r.setMcpServer("s", list), /server "s" is null/);
  }
  throwsCode(() => r.setMcpServers([{ name: "s", tools: null }]), "invalid_value");
  assert.deepEqual(r.setMcpServer("s", []).diff.removed, ["mcp__s__x"], "[] still empties the server");
  assert.deepEqual(r.removeMcpServer("s").diff.removed, ["mcp__s__x"]);
});

test("recordLoaded refuses a load past the limit, as beginTurn refuses such a state", () => {
  const names = Array.from({ length: 10_000 }, (_, i) => `t${i}`);
  const full = recordLoaded(null, names);
  assert.equal(full.loaded.length, 10_000);
  throwsCode(() => recordLoaded(full, ["one_more"]), "limit_exceeded", "state", "$.loaded");
  throwsCode(() => Registry.embedded().beginTurn({ loaded: [...names, "one_more"] }), "limit_exceeded", "state", "$.loaded");
  // A tool_search load into a state full of gone tools is still recorded.
  const found = Registry.embedded().turn(null, { state: { loaded: names } }).search("select:send_message");
  assert.deepEqual(found.hits, ["send_message"]);
  assert.deepEqual(found.state.loaded, ["send_message"]);
});

test("a stored override with a key given twice is refused, as planTurn refuses it", () => {
  const twice = '{"enabled":true,"enabled":false}';
  throwsCode(() => sessionConfigToOverride({ tools_override: twice }), "invalid_value", "config", "$.tools_override");
  throwsCode(() => Registry.embedded().planTurn(twice), "invalid_value", "toolsOverride", "$.enabled");
});

test("cacheReport refuses a script past its limits, naming the member", () => {
  const r = Registry.embedded();
  throwsCode(() => r.cacheReport({ turns: Array.from({ length: 10_001 }, () => ({})) }, null), "limit_exceeded", "script", "$.turns");
  throwsCode(() => r.cacheReport({ messageBytes: 1 << 20, turns: Array.from({ length: 65 }, () => ({})) }, null), "limit_exceeded", "script", "$.messageBytes");
  throwsCode(() => r.cacheReport({ systemPromptBytes: (1 << 20) + 1, turns: [] }, null), "invalid_value", "script", "$.systemPromptBytes");
  // The largest accepted shape runs.
  assert.equal(r.cacheReport({ messageBytes: 1 << 20, turns: Array.from({ length: 64 }, () => ({})) }, null, { mode: "catalog" }).turns.length, 64);
});
