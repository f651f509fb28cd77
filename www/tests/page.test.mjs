// End-to-end tests of the demo page: the Vite build (www/dist) served on 127.0.0.1 and driven
// in Debian's headless Chromium by playwright-core (no browser download). Screenshots of the
// main states go to test-output/screenshots/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile, mkdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium, serveFiles } from "../../tests/js/browser.mjs";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const shots = fileURLToPath(new URL("../../test-output/screenshots/", import.meta.url));
const githubJson = fileURLToPath(new URL("../../tests/data/mcp/github.json", import.meta.url));

let server, browser, base;

before(async () => {
  assert.ok(existsSync(join(dist, "index.html")), "www/dist missing: run `npx vite build www` first");
  await mkdir(shots, { recursive: true });
  ({ server, base } = await serveFiles((path) => join(dist, path.endsWith("/") ? `${path}index.html` : path)));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
});

async function openPage(viewport = { width: 1400, height: 1500 }) {
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto(base);
  await page.waitForSelector("body[data-ready=true]", { timeout: 15000 });
  page.errors = errors;
  return page;
}

const text = (page, sel) => page.locator(sel).innerText();
const names = (page, sel) => page.locator(`${sel} > li`).evaluateAll((lis) => lis.map((li) => li.firstChild.textContent));

test("page loads the embedded registry and shows the split", async () => {
  const page = await openPage();
  assert.match(await text(page, "#registry-status"), /embedded registry: 17 tools/);
  assert.deepEqual(await names(page, "#deferred"), ["send_message", "playwright_browser", "enter_plan_mode", "exit_plan_mode"]);
  assert.ok((await names(page, "#resident")).includes("tool_search"));
  assert.match(await text(page, "#fingerprint"), /^sha256:[0-9a-f]{64}$/);
  assert.match(await text(page, "#budget-summary"), /Deferral saves ~\d+ tokens/);
  await page.screenshot({ path: join(shots, "01-default.png"), fullPage: true });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("toggling web search changes the stored intent and the resident list", async () => {
  const page = await openPage();
  assert.equal(await text(page, "#stored-intent"), '{"enabled":true}');
  assert.ok(!(await names(page, "#resident")).includes("web_search"));
  await page.getByRole("radio", { name: "on", exact: true }).check();
  assert.equal(await text(page, "#stored-intent"), '{"enabled":true,"web_search":true}');
  assert.ok((await names(page, "#resident")).includes("web_search"));
  // The old design would store the whole expanded list instead.
  const snapshot = JSON.parse(await text(page, "#stored-snapshot"));
  assert.ok(snapshot.includes("web_search") && snapshot.length > 10);
  // Keyboard: a preset chip chosen with the keyboard.
  await page.getByRole("radio", { name: "research" }).focus();
  await page.keyboard.press("Space");
  assert.equal(await text(page, "#stored-intent"), '{"enabled":true,"toolset":"research","web_search":true}');
  await page.screenshot({ path: join(shots, "02-web-search-research.png"), fullPage: true });
  // With memory off, research defers one small tool: the catalog and tool_search cost more
  // than that saves, and the summary says so instead of a negative saving.
  await page.getByRole("checkbox", { name: "memory", exact: true }).uncheck();
  assert.match(await text(page, "#budget-summary"), /Deferral costs ~\d+ tokens \(\d+%\)/);
  await page.close();
});

test("a mid-turn search leaves the fingerprint unchanged; the next turn changes it", async () => {
  const page = await openPage();
  await page.getByRole("button", { name: "Start next turn" }).click();
  const start = await text(page, "#fingerprint");
  await page.getByRole("textbox", { name: "tool_search query" }).fill("select:enter_plan_mode");
  await page.getByRole("button", { name: "Run search" }).click();
  assert.equal(await text(page, "#fingerprint"), start, "fingerprint moved mid-turn");
  assert.ok((await names(page, "#deferred")).includes("enter_plan_mode"), "promoted before the boundary");
  assert.match(await text(page, "#turn-log"), /enter_plan_mode; array unchanged until the next turn/);
  await page.screenshot({ path: join(shots, "03-mid-turn-search.png"), fullPage: true });
  await page.getByRole("button", { name: "Start next turn" }).click();
  const next = await text(page, "#fingerprint");
  assert.notEqual(next, start);
  const resident = await names(page, "#resident");
  assert.equal(resident.at(-1), "enter_plan_mode", "promoted tool joins at the end");
  assert.ok(!(await names(page, "#deferred")).includes("enter_plan_mode"));
  assert.equal(await page.locator("#resident li.promoted").count(), 1);
  await page.screenshot({ path: join(shots, "04-next-turn-promoted.png"), fullPage: true });
  await page.close();
});

test("an MCP server with names providers refuse shows both names", async () => {
  const page = await openPage();
  await page.getByLabel("as MCP server").fill("bfcl");
  const tools = [
    { name: "math.factorial", description: "n!", inputSchema: { type: "dict", properties: { n: { type: "integer" } } } },
    { name: "calculate_BMI", description: "BMI", inputSchema: { type: "object" } },
    { name: "calculate_bmi", description: "bmi", inputSchema: { type: "object" } },
  ];
  await page.locator("#registry-text").fill(JSON.stringify({ tools }));
  await page.getByRole("button", { name: "Load", exact: true }).click();
  await page.waitForFunction(() => document.querySelector("#registry-status").textContent.includes("bfcl"));
  const tags = await page.locator("#tool-list .source-name").allTextContents();
  // Wire names are a function of (server, name): mapped names and names with capitals carry a
  // hash, so the page shows their MCP names; a clean lowercase name is its own wire name.
  assert.ok(tags.includes("MCP name: math.factorial"), tags.join(" | "));
  assert.ok(tags.includes("MCP name: calculate_BMI"), tags.join(" | "));
  assert.ok(!tags.includes("MCP name: calculate_bmi"), tags.join(" | "));
  const deferred = await names(page, "#deferred");
  assert.ok(deferred.some((n) => /^mcp__bfcl__math_factorial_[0-9a-f]{8}$/.test(n)), deferred.join(","));
  assert.ok(deferred.some((n) => /^mcp__bfcl__calculate_BMI_[0-9a-f]{8}$/.test(n)), deferred.join(","));
  assert.ok(deferred.includes("mcp__bfcl__calculate_bmi"), deferred.join(","));
  await page.close();
});

test("each tool says what it does; a server's claims show as untrusted", async () => {
  const page = await openPage();
  const does = async (name) => page.locator(`#tool-list li:has(label[for="tool-${name}"]) .does`).textContent();
  assert.equal(await does("read_file"), "read-only");
  assert.equal(await does("shell"), "destructive");
  // The embedded tools say what they do: searching reads only, sending a message writes.
  assert.equal(await does("tool_search"), "read-only");
  assert.equal(await does("send_message"), "writes");
  const preset = await page.locator("#presets label", { hasText: "readonly" }).getAttribute("title");
  assert.equal(preset, "@read_only");
  await page.getByLabel("as MCP server").fill("notes");
  const tools = [{ name: "list_notes", description: "List.", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }];
  await page.locator("#registry-text").fill(JSON.stringify({ tools }));
  await page.getByRole("button", { name: "Load", exact: true }).click();
  await page.waitForFunction(() => document.querySelector("#registry-status").textContent.includes("notes"));
  assert.equal(await does("mcp__notes__list_notes"), "destructive?");
  await page.close();
});

test("loading github.json shows its tools", async () => {
  const page = await openPage();
  await page.getByLabel("as MCP server").fill("github");
  await page.locator("#registry-file").setInputFiles(githubJson);
  await page.waitForFunction(() => document.querySelector("#registry-status").textContent.includes("github"));
  assert.match(await text(page, "#registry-status"), /43 tools/);
  const deferred = await names(page, "#deferred");
  assert.ok(deferred.includes("mcp__github__create_issue"), deferred.join(","));
  assert.equal(deferred.filter((n) => n.startsWith("mcp__github__")).length, 26);
  assert.equal(await page.locator("#tool-list li").count(), 43);
  // A ticked tool the turn does not offer says so: web search is off until switched on, and
  // the default preset leaves out four of the embedded tools.
  const offTools = async () => (await page.locator("#tool-list li:has(.offered:not([hidden]))").evaluateAll((lis) => lis.map((li) => li.dataset.tool))).sort();
  assert.deepEqual(await offTools(), ["browser", "image", "memory", "web_search", "worktree"]);
  // Disable the whole server with a glob.
  await page.getByRole("textbox", { name: "Disable by glob" }).fill("mcp__github__*");
  await page.getByRole("button", { name: "Disable", exact: true }).click();
  assert.equal((await names(page, "#deferred")).filter((n) => n.startsWith("mcp__github__")).length, 0);
  // Its tools stay ticked (the glob, not each box, turns them off) and are shown off this turn.
  const off = await offTools();
  assert.equal(off.filter((n) => n.startsWith("mcp__github__")).length, 26, off.join(","));
  assert.equal(off.length, 31, off.join(","));
  assert.match(await text(page, "#stored-intent"), /"disabled":\["mcp__github__\*"\]/);
  await page.screenshot({ path: join(shots, "05-github-merged.png"), fullPage: true });
  // Pasting the same file alone replaces the registry.
  await page.getByLabel("as MCP server").fill("");
  await page.locator("#registry-text").fill(await readFile(githubJson, "utf8"));
  await page.getByRole("button", { name: "Load", exact: true }).click();
  assert.match(await text(page, "#registry-status"), /pasted registry: 27 tools/);
  assert.ok((await names(page, "#resident")).includes("create_issue"));
  await page.close();
});

test("bad JSON shows a readable error and keeps the previous state", async () => {
  const page = await openPage();
  await page.getByRole("radio", { name: "on", exact: true }).check();
  const before = { fp: await text(page, "#fingerprint"), intent: await text(page, "#stored-intent"), status: await text(page, "#registry-status") };
  await page.locator("#registry-text").fill('{"tools": [{"name": "ok"}, ');
  await page.getByRole("button", { name: "Load", exact: true }).click();
  const alert = page.getByRole("alert").filter({ hasText: "invalid_json" });
  await alert.waitFor();
  assert.match(await alert.innerText(), /\[invalid_json\] document is not valid JSON \(line 1, column \d+\)/);
  assert.equal(await text(page, "#fingerprint"), before.fp);
  assert.equal(await text(page, "#stored-intent"), before.intent);
  assert.equal(await text(page, "#registry-status"), before.status);
  // A well-formed registry that breaks a rule names the bad value's path.
  await page.locator("#registry-text").fill('[{"name": "has space", "inputSchema": {"type": "object"}}]');
  await page.getByRole("button", { name: "Load", exact: true }).click();
  await page.getByRole("alert").filter({ hasText: "$[0].name" }).waitFor();
  await page.screenshot({ path: join(shots, "06-bad-json.png"), fullPage: true });
  assert.equal(await text(page, "#fingerprint"), before.fp);
  await page.close();
});

test("registry changed: the intent session picks up the new tool, the snapshot does not", async () => {
  const page = await openPage();
  await page.getByRole("radio", { name: "on", exact: true }).check();
  await page.getByRole("button", { name: /Registry changed/ }).click();
  const result = await text(page, "#registry-change-result");
  assert.match(result, /Intent session: picks it up on its next request \(resident\)/);
  assert.match(result, /Old snapshot session: never sees it/);
  assert.ok((await names(page, "#resident")).includes("summarize_diff"));
  assert.ok(!JSON.parse(await text(page, "#stored-snapshot")).includes("summarize_diff"));
  await page.screenshot({ path: join(shots, "07-registry-changed.png"), fullPage: true });
  await page.close();
});

test("the prompt-cache chart shows the CLI's figures for both 20-turn sessions", async () => {
  const { execFileSync } = await import("node:child_process");
  const repo = fileURLToPath(new URL("../../", import.meta.url));
  const cli = join(repo, "target/debug/tool-intent");
  assert.ok(existsSync(cli), "target/debug/tool-intent missing: run `cargo build` (scripts/test.sh runs cargo test first)");
  const servers = ["everything", "fetch", "filesystem", "git", "github", "memory", "playwright", "seqthink", "time"];
  const page = await openPage();
  const cliReports = (session, provider, toolChanges) => {
    const args = ["cache-report", "--script", `@${join(repo, `tests/data/${session}.json`)}`, "--provider", provider, "--tool-changes", toolChanges, "--json"];
    for (const s of servers) args.push("--mcp", `${s}=${join(repo, `tests/data/mcp/${s}.json`)}`);
    const key = (r) => (toolChanges !== "messages" ? r.mode : r.mode === "catalog" ? "messages" : `messages-${r.mode}`);
    return JSON.parse(execFileSync(cli, args, { encoding: "utf8" })).map((r) => ({ ...r, key: key(r) }));
  };
  for (const session of ["cache-session", "cache-session-toggles"]) {
    await page.selectOption("#cache-session", session);
    for (const provider of ["anthropic", "openai-responses", "bedrock-converse", "gemini"]) {
      const expected = cliReports(session, provider, "array");
      if (provider !== "gemini") expected.push(...cliReports(session, provider, "messages"));
      await page.selectOption("#cache-provider", provider);
      const totals = await page.locator("#cache-totals tbody tr").evaluateAll((rows) =>
        rows.map((r) => ({ mode: r.dataset.mode, rewrites: Number(r.dataset.rewrites), tokens: Number(r.dataset.tokens) })),
      );
      assert.deepEqual(totals, expected.map((r) => ({ mode: r.key, rewrites: r.rewrites, tokens: r.rewrittenTokens })), `${session} ${provider}`);
      const bars = await page.locator("#cache-chart rect").evaluateAll((rects) =>
        rects.map((r) => ({ mode: r.dataset.mode, turn: Number(r.dataset.turn), tokens: Number(r.dataset.tokens) })),
      );
      assert.deepEqual(bars, expected.flatMap((r) => r.turns.map((t) => ({ mode: r.key, turn: t.turn, tokens: t.rewrittenTokens }))), `${session} ${provider}`);
      // Tool changes as messages: no rewrite on Anthropic and Responses; on Bedrock only the
      // one tool its first array did not declare (the joining server's, loaded on turn 11).
      for (const messages of expected.filter((r) => r.key.startsWith("messages"))) {
        const turns = messages.turns.filter((t) => t.rewrittenTokens > 0).map((t) => t.turn);
        assert.deepEqual(turns, provider === "bedrock-converse" && session === "cache-session-toggles" ? [12] : [], `${session} ${provider}`);
      }
      if (session === "cache-session" && provider !== "bedrock-converse" && provider !== "gemini") {
        // native-client: Anthropic keeps deferred tools out of the prefix (no rewrite); OpenAI
        // Responses shows deferred names, so the registry change (12) and the intent change (15) do.
        const client = expected.find((r) => r.key === "native-client");
        const expectedTurns = provider === "anthropic" ? [] : [12, 15];
        assert.deepEqual(client.turns.filter((t) => t.rewrittenTokens > 0).map((t) => t.turn), expectedTurns, provider);
      }
    }
  }
  await page.selectOption("#cache-session", "cache-session-toggles");
  await page.selectOption("#cache-provider", "anthropic");
  await page.locator("#cache-chart").screenshot({ path: join(shots, "cache-chart.png") });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the deferral select says what the chosen mode sends", async () => {
  const page = await openPage();
  assert.match(await text(page, "#mode-hint"), /catalog in the system prompt/);
  await page.selectOption("#mode", "native");
  assert.match(await text(page, "#mode-hint"), /provider's own search/);
  await page.selectOption("#mode", "native-client");
  assert.match(await text(page, "#mode-hint"), /our tool_search loads them/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("on a phone's width the page fits: nothing wider than the screen", async () => {
  const page = await openPage({ width: 420, height: 900 });
  const wider = await page.evaluate(() => {
    const screen = document.documentElement.clientWidth;
    return [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > screen + 1)
      .map((e) => `${e.tagName.toLowerCase()}#${e.id}`);
  });
  assert.deepEqual(wider, []);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 420);
  await page.screenshot({ path: join(shots, "08-phone-width.png") });
  assert.deepEqual(page.errors, []);
  await page.close();
});
