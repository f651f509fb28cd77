// The README's JavaScript example and its terminal-client lines, run as written (from the
// repository root, importing the package by name), so they cannot rot.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const readme = readFileSync(new URL("README.md", `file://${root}`), "utf8");
const section = readme.slice(readme.indexOf("### JavaScript"));

function block(lang) {
  const start = section.indexOf("```" + lang + "\n") + lang.length + 4;
  return section.slice(start, section.indexOf("```", start));
}

test("the README's JavaScript example runs and does what its comments say", () => {
  const code = `${block("js")}
const { fingerprint: hash } = await import("tool-intent");
if (hash(payload) !== plan.fingerprint) throw new Error("the fingerprint is not of the payload bytes");
if (!payload.startsWith("[") || !catalogText.includes("\\nmemory\\n")) throw new Error("payload: " + payload.slice(0, 80));
if (!plan.catalog.includes("memory")) throw new Error("catalog: " + plan.catalog);
if (found.hits.join() !== "memory" || found.notFound.length || !turn.state.loaded.includes("memory")) throw new Error("search: " + JSON.stringify(found));
if (JSON.stringify(intent) !== '{"toolset":"research","web_search":true}') throw new Error("intent: " + JSON.stringify(intent));
console.log("readme ok");`;
  const r = spawnSync("node", ["--input-type=module", "-e", code], { cwd: root, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), "readme ok");
});

test("the README's terminal-client lines run", () => {
  const lines = block("sh").split("\n").filter((l) => l.startsWith("node examples/tui-client.mjs"));
  assert.equal(lines.length, 2);
  for (const line of lines) {
    const r = spawnSync("sh", ["-c", line], { cwd: root, encoding: "utf8" });
    assert.equal(r.status, 0, `${line}\n${r.stderr}`);
    assert.ok(r.stdout.length > 100, `${line}: ${r.stdout}`);
    // Deferral's effect said the right way round, never a negative saving.
    assert.match(r.stdout, /\(deferral (saves|costs) \d+ tokens\)/, `${line}: ${r.stdout}`);
    // The registry's other tools are named, as `tool-intent preview` names them.
    assert.match(r.stdout, /^not offered this turn: \d+ of \d+ tools \(/m, `${line}: ${r.stdout}`);
  }
  // Anthropic runs the embedded web search itself: the first line's table says so.
  const first = spawnSync("sh", ["-c", lines[0]], { cwd: root, encoding: "utf8" }).stdout;
  assert.match(first, /^ {2}web_search +built-in +\d+$/m, first);
});

test("the API table of docs/surfaces.md is the one generated from tests/data/api.json", async () => {
  const { apiTable, guideSection } = await import("../../scripts/api-table.mjs");
  const api = JSON.parse(readFileSync(new URL("tests/data/api.json", `file://${root}`), "utf8"));
  const guide = readFileSync(new URL("docs/surfaces.md", `file://${root}`), "utf8");
  assert.equal(guideSection(guide), apiTable(api), "run `node scripts/api-table.mjs --write`");
});

test("the README is a newcomer's first page: at most 250 lines", () => {
  const lines = readme.split("\n").length - 1;
  assert.ok(lines <= 250, `README.md has ${lines} lines; move the rest to a guide`);
});
