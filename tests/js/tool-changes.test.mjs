// Tool changes inside the conversation (toolChanges: "messages") through the wasm package:
// the toggle session replayed turn by turn equals the native rows of
// tests/golden/tool-changes.json (tools fingerprint, change message, request fields, betas),
// a withdrawn tool is refused with tool_removed, and a provider without change messages is
// an invalid_argument naming toolChanges.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Registry, fingerprint } from "tool-intent";
import { goldenRegistry, read } from "./golden-registries.mjs";

const rows = JSON.parse(read("tests/golden/tool-changes.json"));
const script = JSON.parse(read("tests/data/cache-session-toggles.json"));

test("the toggle session's change messages equal the native build's, turn by turn", () => {
  let k = 0;
  const targets = [["anthropic", "catalog"], ["bedrock-converse", "catalog"], ["openai-responses", "catalog"], ["anthropic", "native-client"]];
  for (const [provider, mode] of targets) {
    let registry = goldenRegistry(Registry, "all");
    let state = null;
    let intent = null;
    script.turns.forEach((turn, i) => {
      if (turn.addServer) {
        registry = registry.setMcpServer(turn.addServer.name, JSON.stringify(turn.addServer.tools)).registry;
      }
      if (turn.removeServer) registry = registry.removeMcpServer(turn.removeServer).registry;
      if ("override" in turn) intent = turn.override;
      state = registry.beginTurn(state);
      const t = registry.turn(intent, { provider, mode, toolChanges: "messages", state });
      const plan = t.plan();
      const row = rows[k++];
      assert.deepEqual(
        {
          provider,
          mode,
          turn: i + 1,
          fingerprint: plan.fingerprint,
          changes: fingerprint(plan.changes),
          changesBytes: Buffer.byteLength(plan.changes, "utf8"),
          requestFields: plan.requestFields,
          betas: plan.betas,
        },
        {
          provider: row.provider,
          mode: row.mode,
          turn: row.turn,
          fingerprint: row.fingerprint,
          changes: row.changes,
          changesBytes: row.changesBytes,
          requestFields: row.requestFields,
          betas: row.betas,
        },
      );
      if (i > 0 && provider !== "bedrock-converse") assert.equal(plan.fingerprint, rows[k - 1 - i].fingerprint);
      state = plan.state;
      for (const query of turn.searches ?? []) state = t.search(query).state;
    });
  }
  assert.equal(k, 80);
});

test("a withdrawn tool is refused with tool_removed; Gemini has no change messages", () => {
  const r = Registry.embedded();
  const first = r.planTurn({ enabled: true }, { toolChanges: "messages", state: r.beginTurn(null) });
  const turn = r.turn({ enabled: true, disabled: ["shell"] }, { toolChanges: "messages", state: r.beginTurn(first.state) });
  const plan = turn.plan();
  assert.match(plan.changes, /"tool_removal","tool":\{"type":"tool_reference","name":"shell"\}/);
  assert.throws(() => turn.resolve("shell"), (e) => e.code === "tool_removed" && /withdrawn/.test(e.message));
  assert.throws(
    () => r.planTurn(null, { provider: "gemini", toolChanges: "messages" }),
    (e) => e.code === "invalid_argument" && e.argument === "toolChanges" && /use "array"/.test(e.message),
  );
});

test("cacheReport takes toolChanges", () => {
  const registry = goldenRegistry(Registry, "all");
  const script = read("tests/data/cache-session-toggles.json");
  const array = registry.cacheReport(script, null, { provider: "openai-responses" });
  const messages = registry.cacheReport(script, null, { provider: "openai-responses", toolChanges: "messages" });
  assert.equal(array.rewrites, 10);
  assert.deepEqual([messages.rewrites, messages.toolChanges], [0, "messages"]);
});
