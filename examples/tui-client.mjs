#!/usr/bin/env node
// An example terminal client: it takes the user's toggles as flags, builds the intent it
// would send to the agent server (and the session row the server stores), and previews the
// expansion with the same core the server links natively.
//
//   node examples/tui-client.mjs --web-search on --toolset research --disable memory
//   node examples/tui-client.mjs --mcp github=tests/data/mcp/github.json --search "+github issue"
//   node examples/tui-client.mjs --mcp-command "memory=npx mcp-server-memory" --watch
//   node examples/tui-client.mjs --help
import { parseArgs } from "node:util";
import { readFileSync } from "node:fs";
import {
  Registry, buildIntent, sessionConfigFromOverride, recordLoaded,
} from "tool-intent";

const usage = `usage: tui-client [options]
  --tools on|off          master switch (off = no tools at all)
  --toolset NAME          preset chip (full, research, readonly, ...)
  --web-search on|off     the web-search switch
  --disable A,B           per-tool or glob disables (e.g. "mcp__github__*")
  --pick A,B              hand-pick exactly these tools (other toggles ignored)
  --source NAME           request source (default tui)
  --provider P            anthropic | openai-chat | openai-responses | bedrock-converse |
                          gemini (default anthropic)
  --mode M                catalog | native | native-client (default catalog; native and
                          native-client: anthropic, openai-responses)
  --registry FILE         registry JSON (default: the embedded registry)
  --mcp NAME=FILE         merge an MCP server's tools/list result (repeatable)
  --mcp-command NAME=CMD  start an MCP server over stdio ("NAME=command arg ..."; repeatable)
                          and keep its tools live: every list_changed updates the registry
  --watch                 with --mcp-command: keep running, print each change and the next
                          turn's fingerprint (Ctrl-C to stop)
  --loaded A,B            tools loaded earlier by tool_search
  --search QUERY          also run a tool_search query
  --json                  print one JSON object instead of text`;

let args;
try {
  args = parseArgs({
    options: {
      tools: { type: "string" }, toolset: { type: "string" }, "web-search": { type: "string" },
      disable: { type: "string" }, pick: { type: "string" }, source: { type: "string", default: "tui" },
      provider: { type: "string", default: "anthropic" }, mode: { type: "string", default: "catalog" },
      registry: { type: "string" }, mcp: { type: "string", multiple: true, default: [] },
      "mcp-command": { type: "string", multiple: true, default: [] }, watch: { type: "boolean", default: false },
      loaded: { type: "string" }, search: { type: "string" }, json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  }).values;
} catch (e) {
  console.error(`tui-client: ${e.message}\n${usage}`);
  process.exit(2);
}
if (args.help) {
  console.log(usage);
  process.exit(0);
}

const list = (s) => (s ? s.split(",").map((x) => x.trim()).filter(Boolean) : undefined);
function onOff(flag, value) {
  if (value === undefined) return undefined;
  if (value === "on") return true;
  if (value === "off") return false;
  console.error(`tui-client: --${flag} takes on or off, not ${JSON.stringify(value)}`);
  process.exit(2);
}

try {
  let registry = args.registry ? Registry.fromJson(readFileSync(args.registry, "utf8")) : Registry.embedded();
  for (const spec of args.mcp) {
    const at = spec.indexOf("=");
    const [name, file] = at < 0 ? [spec, ""] : [spec.slice(0, at), spec.slice(at + 1)];
    if (!name || !file) throw Object.assign(new Error(`--mcp ${spec}: expected NAME=FILE`), { code: "usage" });
    registry = registry.setMcpServer(name, readFileSync(file, "utf8")).registry;
  }
  // Live servers: started over stdio, followed on every list_changed (examples/mcp-live.mjs).
  const live = { registry };
  const clients = [];
  const say = (text) => { if (!args.json) console.log(text); };
  if (args["mcp-command"].length > 0) {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const { followServer } = await import("./mcp-live.mjs");
    for (const spec of args["mcp-command"]) {
      const at = spec.indexOf("=");
      const [name, command, ...rest] = [spec.slice(0, at), ...spec.slice(at + 1).trim().split(/\s+/)];
      if (at < 1 || !command) throw Object.assign(new Error(`--mcp-command ${spec}: expected NAME=COMMAND [ARGS]`), { code: "usage" });
      const client = new Client({ name: "tool-intent-tui", version: "0" }, { capabilities: {} });
      const follower = followServer(client, name, live, (c) => {
        if (c.error) return console.error(`tui-client: mcp ${name}: ${c.error.message}`);
        const { added, removed, changed } = c.diff;
        say(`mcp ${name}: ${c.tools} tools (+${added.length} -${removed.length} ~${changed.length})`);
      });
      try {
        await client.connect(new StdioClientTransport({ command, args: rest, stderr: "ignore" }));
        await follower.update();
      } catch (e) {
        // Which server failed, among several.
        e.message = `--mcp-command ${name}: ${e.message}`;
        throw e;
      }
      clients.push({ client, follower });
    }
    await Promise.all(clients.map((c) => c.follower.settled()));
    registry = live.registry;
  }
  const toggles = {
    toolsEnabled: onOff("tools", args.tools),
    toolset: args.toolset,
    webSearch: onOff("web-search", args["web-search"]),
    disabled: list(args.disable) ?? [],
    picked: list(args.pick),
  };
  const intent = buildIntent(toggles);
  const row = sessionConfigFromOverride(intent);
  // Tools loaded earlier are promoted at a turn boundary: the state carries them.
  const state = registry.beginTurn(recordLoaded(null, list(args.loaded) ?? []));
  const options = { source: args.source, provider: args.provider, mode: args.mode, state };
  // One turn: expanded once, planned, priced and searched.
  const turn = registry.turn(intent, options);
  const { payload, catalogText, ...expansion } = turn.plan();
  const budget = turn.budget();
  const search = args.search !== undefined ? turn.search(args.search) : null;

  if (args.json) {
    console.log(JSON.stringify({ intent, row, expansion, budget: { residentTokens: budget.residentTokens, catalogTokens: budget.catalogTokens, allResidentTokens: budget.allResidentTokens }, search }, null, 2));
    process.exit(0);
  }
  console.log(`intent sent to the server: ${JSON.stringify(intent)}`);
  console.log(`session row stored:        ${JSON.stringify(row)}`);
  console.log(`provider ${expansion.provider}, mode ${expansion.mode}, fingerprint ${expansion.fingerprint}\n`);
  const width = Math.max(4, ...budget.rows.map((r) => r.name.length));
  // As `tool-intent preview` says it: a loaded tool is promoted, and a tool the provider runs
  // itself (web search) is built-in.
  const infos = registry.toolInfos();
  const builtIn = new Set(infos.filter((t) => t.builtinProviders.includes(expansion.provider)).map((t) => t.name));
  const stateOf = (r) => (expansion.promoted.includes(r.name) ? "promoted" : builtIn.has(r.name) ? "built-in" : r.placement);
  console.log(`  ${"tool".padEnd(width)}  ${"state".padEnd(9)}  tokens`);
  for (const r of budget.rows) console.log(`  ${r.name.padEnd(width)}  ${stateOf(r).padEnd(9)}  ${String(r.tokens).padStart(6)}`);
  // Deferring a few small tools can cost more than it saves (the catalog and tool_search).
  const effect = `deferral ${budget.savingTokens < 0 ? "costs" : "saves"} ${Math.abs(budget.savingTokens)} tokens`;
  console.log(`\nresident ~${budget.residentTokens} tokens, catalog ~${budget.catalogTokens} tokens; everything resident would be ~${budget.allResidentTokens} (${effect})`);
  const offered = new Set(budget.rows.map((r) => r.name));
  const leftOut = infos.map((t) => t.name).filter((name) => !offered.has(name));
  if (leftOut.length) console.log(`not offered this turn: ${leftOut.length} of ${infos.length} tools (${leftOut.slice(0, 12).join(", ")}${leftOut.length > 12 ? ` and ${leftOut.length - 12} more` : ""})`);
  for (const w of expansion.warnings) console.log(`warning [${w.code}] ${w.message}`);
  if (search) console.log(`\ntool_search ${JSON.stringify(args.search)} -> ${search.hits.join(", ") || "(no hits)"}`);
  if (args.watch && clients.length > 0) {
    // Each change reaches the session at its next turn boundary: show that turn.
    let turn = state;
    let shown = live.registry;
    console.log("\nwatching for tools/list changes (Ctrl-C to stop)");
    setInterval(() => {
      if (live.registry === shown) return;
      shown = live.registry;
      turn = shown.beginTurn(turn);
      const plan = shown.planTurn(intent, { ...options, state: turn });
      console.log(`turn ${turn.turn}: ${plan.array.length} in the array, ${plan.catalog.length} in the catalog, fingerprint ${plan.fingerprint.slice(0, 19)}`);
    }, 200);
  } else {
    await Promise.all(clients.map((c) => c.client.close()));
  }
} catch (e) {
  // A library error names its argument (and a JSON path inside it): said as the flag it came from.
  const fromToggles = { "$.toolset": "--toolset", "$.disabled": "--disable", "$.picked": "--pick" };
  const flag = { provider: "--provider", mode: "--mode", source: "--source", query: "--search", state: "--loaded", document: "--registry" }[e.argument]
    ?? (e.argument === "toggles" ? Object.entries(fromToggles).find(([p]) => e.path?.startsWith(p))?.[1] : undefined);
  console.error(`tui-client: ${flag ? `${flag}: ` : ""}${e.code ? `[${e.code}] ` : ""}${e.message}`);
  process.exit(2);
}
