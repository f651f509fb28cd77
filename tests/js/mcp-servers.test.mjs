// Real MCP servers over stdio (the official SDK's Client and StdioClientTransport, the
// reference servers pinned as devDependencies): the wasm registry follows each server's
// tools/list, a change waits for the next turn, and the turn's fingerprint equals the native
// CLI's on the same lists. A paginating in-memory server checks nextCursor and list_changed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ListRootsRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Registry } from "tool-intent";
import { followServer, listAllTools } from "../../examples/mcp-live.mjs";

const require = createRequire(import.meta.url);
const cli = new URL("../../target/debug/tool-intent", import.meta.url).pathname;
const serverScript = (pkg) => require.resolve(`@modelcontextprotocol/${pkg}/dist/index.js`);
const intent = { enabled: true };
const until = async (what, check, ms = 10000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

/** Starts a reference server over stdio, following its tools into `live` from the start. */
async function start(pkg, args, name, live, changes, capabilities = {}) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [serverScript(pkg), ...args], stderr: "ignore" });
  const client = new Client({ name: "tool-intent-test", version: "0" }, { capabilities });
  if (capabilities.roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }));
  const follower = followServer(client, name, live, (c) => changes.push(c));
  await client.connect(transport);
  await follower.update();
  return { name, client, follower };
}

test("three reference servers: the registry follows each tools/list; a server joining mid-turn waits for the next turn", async (t) => {
  assert.ok(existsSync(cli), "the native CLI is built by cargo test (scripts/test.sh runs it first)");
  const dir = mkdtempSync(join(tmpdir(), "tool-intent-mcp-"));
  const live = { registry: Registry.embedded() };
  const changes = [];
  const servers = [
    await start("server-memory", [], "memory", live, changes),
    await start("server-filesystem", [dir], "filesystem", live, changes),
  ];
  t.after(() => Promise.all(servers.map((s) => s.client.close())));
  let state = live.registry.beginTurn(null);
  const before = live.registry.planTurn(intent, { state, provider: "anthropic" });
  assert.ok(before.catalog.some((n) => n.startsWith("mcp__memory__")));
  assert.ok(before.catalog.some((n) => n.startsWith("mcp__filesystem__")));
  assert.ok(!before.catalog.some((n) => n.startsWith("mcp__everything__")));

  // Mid-turn, server-everything connects. Declaring roots, sampling and elicitation makes it
  // register more tools after initialisation and announce them with list_changed.
  servers.push(await start("server-everything", ["stdio"], "everything", live, changes, { roots: {}, sampling: {}, elicitation: {} }));
  await until("server-everything's list_changed", () => changes.filter((c) => c.server === "everything").length >= 2);
  await Promise.all(servers.map((s) => s.follower.settled()));
  assert.deepEqual(changes.filter((c) => c.error).map((c) => String(c.error)), []);
  const final = await listAllTools(servers[2].client);
  const followed = () => live.registry.toolInfos().filter((t) => t.name.startsWith("mcp__everything__")).length;
  await until("the registry to hold every listed tool", () => followed() === final.tools.length);
  const added = changes.filter((c) => c.server === "everything").flatMap((c) => c.diff?.added ?? []);
  assert.equal(added.length, final.tools.length, "each tool added once, whatever the number of notifications");

  // The rest of the turn: the same bytes as its first request.
  const mid = live.registry.planTurn(intent, { state, provider: "anthropic" });
  assert.equal(mid.fingerprint, before.fingerprint);
  assert.equal(mid.payload, before.payload);
  assert.equal(mid.catalogText, before.catalogText);
  // The next turn shows the new server's tools.
  state = live.registry.beginTurn(state);
  const next = live.registry.planTurn(intent, { state, provider: "anthropic" });
  assert.equal(next.catalog.filter((n) => n.startsWith("mcp__everything__")).length, final.tools.length);
  // In catalog mode the newcomers are deferred: the catalog text changes, the array does not.
  assert.notEqual(next.catalogText, before.catalogText);
  assert.equal(next.payload, before.payload);

  // The native CLI on the same lists, in the same order, plans the same bytes.
  const args = ["expand", "--override", JSON.stringify(intent), "--provider", "anthropic"];
  for (const { name, client } of servers) {
    const file = join(dir, `${name}.tools.json`);
    writeFileSync(file, JSON.stringify(await listAllTools(client)));
    args.push("--mcp", `${name}=${file}`);
  }
  const native = JSON.parse(execFileSync(cli, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
  assert.equal(native.fingerprint, next.fingerprint);
  assert.deepEqual(native.catalog, next.catalog);
});

test("a paginating server: every page is read; a changed list replaces the server's tools at the next turn", async () => {
  let tools = ["alpha", "beta", "gamma", "delta", "epsilon"];
  const server = new Server({ name: "pages", version: "0" }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const page = tools.slice(start, start + 2).map((name) => ({ name, description: `${name} tool`, inputSchema: { type: "object" } }));
    const next = start + 2 < tools.length ? String(start + 2) : undefined;
    return next === undefined ? { tools: page } : { tools: page, nextCursor: next };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "t", version: "0" });
  await client.connect(clientSide);
  const live = { registry: Registry.embedded() };
  // The SDK's listTools() is one page: set alone it would withdraw the later pages' tools.
  const first = await client.listTools();
  assert.equal(first.nextCursor, "2");
  assert.throws(() => live.registry.setMcpServer("pages", first), (e) => e.code === "invalid_value" && e.path === "$.nextCursor");
  const changes = [];
  const follower = followServer(client, "pages", live, (c) => changes.push(c));
  await follower.update();
  assert.deepEqual(changes[0].diff.added, tools.map((n) => `mcp__pages__${n}`));
  let state = live.registry.beginTurn(null);
  const before = live.registry.planTurn(null, { state });
  tools = ["alpha", "gamma", "zeta"];
  await server.sendToolListChanged();
  await until("the second update", () => changes.length === 2);
  await follower.settled();
  // Removed mid-turn: still declared this turn, and dispatch says it was removed.
  assert.equal(live.registry.planTurn(null, { state }).payload, before.payload);
  assert.throws(() => live.registry.turn(null, { state }).resolve("mcp__pages__beta"), (e) => e.code === "tool_removed");
  state = live.registry.beginTurn(state);
  assert.throws(() => live.registry.turn(null, { state }).resolve("mcp__pages__beta"), (e) => e.code === "tool_not_available");
  assert.ok(live.registry.planTurn(null, { state }).catalog.includes("mcp__pages__zeta"));
  assert.deepEqual(changes[1].diff, { added: ["mcp__pages__zeta"], removed: ["mcp__pages__beta", "mcp__pages__delta", "mcp__pages__epsilon"], changed: [], presets: [] });
  const names = live.registry.toolInfos().map((t) => t.name).filter((n) => n.startsWith("mcp__pages__"));
  assert.deepEqual(names, ["mcp__pages__alpha", "mcp__pages__gamma", "mcp__pages__zeta"]);
  await client.close();
});

test("a failed update leaves the registry as it was and the next list_changed is followed", async () => {
  let tools = ["alpha"];
  let failing = false;
  const server = new Server({ name: "flaky", version: "0" }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    if (failing) throw new Error("the server is restarting");
    return { tools: tools.map((name) => ({ name, inputSchema: { type: "object" } })) };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "t", version: "0" });
  await client.connect(clientSide);
  const live = { registry: Registry.embedded() };
  const changes = [];
  const follower = followServer(client, "flaky", live, (c) => changes.push(c));
  await follower.update();
  const before = live.registry;
  // One listing fails: that update rejects and the registry keeps the server's tools.
  failing = true;
  await assert.rejects(follower.update(), /restarting/);
  assert.equal(live.registry, before);
  // The server is back with a new list: the next notification is followed (a rejected link
  // in the update chain skipped every later update).
  failing = false;
  tools = ["alpha", "beta"];
  await server.sendToolListChanged();
  await until("the update after the failure", () => changes.some((c) => c.diff?.added?.includes("mcp__flaky__beta")), 3000);
  await follower.settled();
  assert.ok(live.registry.toolInfos().some((t) => t.name === "mcp__flaky__beta"));
  await client.close();
});
