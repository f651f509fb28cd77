// Keeping a tool-intent registry in step with live MCP servers (used by examples/tui-client.mjs
// and tests/js/mcp-servers.test.mjs).
//
// A server's tool list changes while sessions run: it sends `notifications/tools/list_changed`
// and the client lists the tools again (MCP specification, "Tools › List Changed
// Notification"), following `nextCursor` until the last page ("Pagination"). Each new list
// replaces that server's tools in the registry (`registry.setMcpServer`, which returns the new
// registry and a diff). Turns already running keep the registry version they began on; the
// change reaches each session at its next `registry.beginTurn`.

import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

/** Every page of a server's `tools/list`, as one `{tools}` result. */
export async function listAllTools(client) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined && cursor !== null);
  return { tools };
}

/**
 * Follows one server: call it before `client.connect` (a server may announce tools it adds
 * right after initialisation, before a handler set later would hear it), then `await
 * follower.update()` once connected. Every `list_changed` lists the tools again and sets them
 * in `live.registry` (always the newest registry); `onChange({server, diff, registry, tools})`
 * is called after each update, `onChange({server, error})` when one fails (the registry keeps
 * the server's earlier tools, and the next notification is followed). Updates run one at a
 * time, in the order notifications arrive; `settled()` waits for those queued so far.
 */
export function followServer(client, name, live, onChange = () => {}) {
  let queue = Promise.resolve();
  const update = () => {
    const run = async () => {
      const list = await listAllTools(client);
      const change = live.registry.setMcpServer(name, list);
      live.registry = change.registry;
      onChange({ server: name, diff: change.diff, registry: live.registry, tools: list.tools.length });
    };
    // This update rejects for its own failure only; the chain goes on past it (a rejected
    // link would skip every later update, and the registry would stop following the server).
    const next = queue.then(run);
    queue = next.catch(() => {});
    return next;
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    update().catch((error) => onChange({ server: name, error }));
  });
  return { update, settled: () => queue };
}
