// Prints the retrieval benchmark's tables from bench-results/retrieval.json (written by
// scripts/retrieval-bench.sh).
import { readFileSync } from "node:fs";

const sets = JSON.parse(readFileSync(process.argv[2] ?? "bench-results/retrieval.json", "utf8"));
const f = (x) => x.toFixed(3);
const names = {
  default: "BFCL simple_python + multiple + parallel + parallel_multiple (weights chosen here)",
  "live_simple,live_multiple": "BFCL live_simple + live_multiple (held out)",
  metatool: "MetaTool ToolE (held out, never tuned on)",
};
for (const s of sets) {
  console.log(`\n${names[s.set] ?? s.set}: ${s.keyword.tools} tools, ${s.keyword.queries} queries`);
  console.log("  ranking                                  | Recall@1 | Recall@5 | MRR@10 | per query");
  console.log("  -----------------------------------------+----------+----------+--------+-------------------");
  const row = (label, r, time) =>
    r && console.log(`  ${label.padEnd(41)}| ${f(r["recall@1"]).padStart(8)} | ${f(r["recall@5"]).padStart(8)} | ${f(r["mrr@10"]).padStart(6)} | ${time}`);
  const rust = (r) => `${r.query_us.toFixed(0)} µs (Rust)`;
  row("tool-intent keyword (BM25F + rules)", s.keyword, rust(s.keyword));
  row("tool-intent static embeddings alone", s.embedding, rust(s.embedding));
  row("tool-intent hybrid", s.hybrid, rust(s.hybrid));
  row("tool-intent model alone (MiniLM in Rust)", s.model_alone, s.model_alone && rust(s.model_alone));
  row("tool-intent model (keywords + MiniLM)", s.model, s.model && rust(s.model));
  row(s.bm25.ranking, s.bm25, `${s.bm25.query_us.toFixed(0)} µs (Python)`);
  if (s.minilm) row("all-MiniLM-L6-v2 alone (numpy)", s.minilm, `${s.minilm.query_ms} ms (numpy)`);
  const signed = (x) => (x >= 0 ? "+" : "") + f(x);
  console.log(`  hybrid Recall@5 − keyword's: ${signed(s.hybrid["recall@5"] - s.keyword["recall@5"])} (the target: ≥ 0 on every set)`);
  if (s.model) console.log(`  model Recall@5 − keyword's: ${signed(s.model["recall@5"] - s.keyword["recall@5"])}${s.minilm ? `; − the model alone's (numpy): ${signed(s.model["recall@5"] - s.minilm["recall@5"])}` : ""}`);
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  for (const ranker of ["keyword", "hybrid", "model"]) {
    const a = s[`abstain_${ranker}`];
    if (!a) continue;
    if (ranker === "keyword") console.log("  tool_search with abstain (each ranker's threshold): abstains on requests whose tools are in the pool / removed / of another set");
    const foreign = a.abstained_foreign == null ? "not run" : pct(a.abstained_foreign);
    console.log(`    ${ranker.padEnd(8)} below ${a.threshold}: ${pct(a.abstained_in)} (target ≤ 2%) / ${pct(a.abstained_out)} (target ≥ 80%) / ${foreign}; fit AUC ${f(a.auc)}, at this set's own 2% point ${pct(a.abstained_out_at_2pct_here)} removed`);
  }
  if (s.abstention) {
    console.log("  can the best score tell \"no tool fits\"? (right tools removed; benches/retrieval/abstention.py)");
    for (const [label, key] of [["BM25 best score", "bm25"], ["BM25 best ÷ query idf", "bm25_share_of_query_idf"], ["all-MiniLM-L6-v2 best cosine", "minilm_cosine"]]) {
      const a = s.abstention[key];
      if (a) console.log(`    ${label.padEnd(30)} AUC ${f(a.auc)}; abstaining on 2% with the tool, on ${(a["abstain_out@2%"] * 100).toFixed(1)}% without (target ≥ 80%)`);
    }
  }
  const best = Math.max(s.keyword["recall@5"], s.embedding["recall@5"]);
  console.log(`  hybrid Recall@5 − the better of keyword and embeddings: ${(s.hybrid["recall@5"] - best >= 0 ? "+" : "") + f(s.hybrid["recall@5"] - best)}; peak memory keyword ${s.keyword.peak_rss_mib?.toFixed(0)} MiB, hybrid ${s.hybrid.peak_rss_mib?.toFixed(0)} MiB`);
}
console.log("\nwritten: bench-results/retrieval.json");
