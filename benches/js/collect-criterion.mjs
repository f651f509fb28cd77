// Collects criterion's estimates (target/criterion/<group>/<size>/new/estimates.json) into a
// table with growth per size and bench-results/native.json.
import { readFileSync, readdirSync, existsSync, writeFileSync, mkdirSync } from "node:fs";

const root = "target/criterion";
const groups = ["load", "expand", "split", "payload", "tool_search", "budget", "preview"];
const sizes = [50, 1000, 10000];
const fmt = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} µs`);
const out = {};
console.log("native (criterion median per call)\n");
console.log(`  ${"step".padEnd(12)} ${sizes.map((s) => String(s).padStart(11)).join(" ")}   growth 50→1k   growth 1k→10k`);
for (const g of groups) {
  if (!existsSync(`${root}/${g}`)) continue;
  const row = {};
  for (const s of sizes) {
    const f = `${root}/${g}/${s}/new/estimates.json`;
    if (existsSync(f)) row[s] = JSON.parse(readFileSync(f, "utf8")).median.point_estimate;
  }
  out[g] = row;
  const growth = (a, b) => (row[a] && row[b] ? `×${(row[b] / row[a]).toFixed(1)}` : "");
  console.log(`  ${g.padEnd(12)} ${sizes.map((s) => (row[s] ? fmt(row[s]) : "-").padStart(11)).join(" ")}   ${growth(50, 1000).padStart(12)}   ${growth(1000, 10000).padStart(13)}`);
}
mkdirSync("bench-results", { recursive: true });
writeFileSync("bench-results/native.json", JSON.stringify({ unit: "ns per call (median)", groups: out }, null, 2) + "\n");
console.log("\nwrote bench-results/native.json");
