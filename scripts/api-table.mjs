// The README's API table, generated from the one API table (tests/data/api.json), so the
// README cannot name a call, a parameter or an option a surface does not have.
//   node scripts/api-table.mjs          prints the table
//   node scripts/api-table.mjs --write  writes it into docs/surfaces.md between its markers
// tests/js/readme.test.mjs fails when README.md differs from what this prints.
import { readFileSync, writeFileSync } from "node:fs";

const root = new URL("../", import.meta.url);
export const BEGIN = "<!-- api-table: generated from tests/data/api.json by scripts/api-table.mjs -->";
export const END = "<!-- /api-table -->";

const camel = (name) => name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const RECEIVER = { Registry: "Registry.", registry: "r.", turn: "turn.", module: "", SessionRunConfig: "SessionRunConfig.", SharedRegistry: "SharedRegistry.", shared: "shared." };

function jsForm(call) {
  if (call.js === null) return "—";
  const name = RECEIVER[call.on] + camel(call.name);
  if (call.kind === "getter") return `\`${name}\``;
  const params = call.params.map((p) => camel(p.name));
  if (call.options) params.push("options");
  return `\`${name}(${params.join(", ")})\``;
}

function pyForm(call) {
  if (call.py === null) return "—";
  if (call.py_form) return `\`${call.py_form}\``;
  const name = RECEIVER[call.on] + call.name;
  if (call.kind === "getter") return `\`${name}\``;
  const params = call.params.map((p) => p.name);
  if (call.options) params.push("**options");
  return `\`${name}(${params.join(", ")})\``;
}

/** The markdown table: one row per call with a `what`; a call without one joins the row above. */
export function apiTable(api) {
  const rows = [];
  for (const call of api.calls) {
    const cells = [call.rust ? `\`${call.rust}\`` : "—", jsForm(call), pyForm(call), call.options ? `\`${call.options}\`` : "—"];
    if (call.what) {
      rows.push([call.what, ...cells]);
    } else {
      const last = rows[rows.length - 1];
      cells.forEach((cell, i) => {
        if (cell !== "—") last[i + 1] = last[i + 1] === "—" ? cell : `${last[i + 1]}, ${cell}`;
      });
    }
  }
  const inJs = new Set(api.calls.filter((c) => c.js !== null && c.options).map((c) => c.options));
  const key = (set, k) => (camel(k) === k || !inJs.has(set) ? `\`${k}\`` : `\`${k}\` (\`${camel(k)}\`)`);
  const options = Object.entries(api.options)
    .map(([set, keys]) => `- \`${set}\`: ${Object.keys(keys).map((k) => key(set, k)).join(", ")}`);
  return [
    "| what | Rust | JS | Python | options |",
    "|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.join(" | ")} |`),
    "",
    "Options (a JS options object after the parameters; Python keyword-only arguments; Rust",
    "`TurnRequest`, `SearchCall` and the call's own arguments), by the set each call takes:",
    ...options,
  ].join("\n");
}

/** The table as docs/surfaces.md holds it, between the markers. */
export function guideSection(guide) {
  const start = guide.indexOf(BEGIN);
  const end = guide.indexOf(END);
  if (start < 0 || end < start) throw new Error("docs/surfaces.md has no api-table markers");
  return guide.slice(start + BEGIN.length + 1, end - 1);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const api = JSON.parse(readFileSync(new URL("tests/data/api.json", root), "utf8"));
  const table = apiTable(api);
  if (process.argv.includes("--write")) {
    const file = new URL("docs/surfaces.md", root);
    const guide = readFileSync(file, "utf8");
    const start = guide.indexOf(BEGIN);
    const end = guide.indexOf(END);
    if (start < 0 || end < start) throw new Error("docs/surfaces.md has no api-table markers");
    writeFileSync(file, `${guide.slice(0, start + BEGIN.length)}\n${table}\n${guide.slice(end)}`);
  } else {
    console.log(table);
  }
}
