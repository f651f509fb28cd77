// Prints the retrieval benchmark's table from bench-results/retrieval.json (written by
// scripts/retrieval-bench.sh).
import { readFileSync } from "node:fs";

const sets = JSON.parse(readFileSync(process.argv[2] ?? "bench-results/retrieval.json", "utf8"));
const f = (x) => x.toFixed(3);
for (const s of sets) {
  const name = s.set === "default"
    ? "simple_python + multiple + parallel + parallel_multiple"
    : `${s.set.replace(",", " + ")} (held out)`;
  console.log(`\n${name}: ${s.ours.tools} tools, ${s.ours.queries} queries`);
  console.log("  ranking                          | Recall@1 | Recall@5 | MRR@10 | per query");
  console.log("  ---------------------------------+----------+----------+--------+-----------------");
  const row = (label, r, time) =>
    console.log(`  ${label.padEnd(33)}| ${f(r["recall@1"]).padStart(8)} | ${f(r["recall@5"]).padStart(8)} | ${f(r["mrr@10"]).padStart(6)} | ${time}`);
  row("tool-intent (BM25F + rules)", s.ours, `${s.ours.query_us.toFixed(0)} µs (Rust)`);
  row(s.bm25.ranking, s.bm25, `${s.bm25.query_us.toFixed(0)} µs (Python)`);
}
console.log("\nwritten: bench-results/retrieval.json");
