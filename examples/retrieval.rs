//! Our side of the tool-retrieval benchmark (`benches/retrieval/`, docs/search.md).
//!
//! `cargo run --release --example retrieval -- POOL.json QUERIES.json [--misses]`
//!
//! Merges POOL (an MCP `tools/list` result) into the embedded registry as the server `b`,
//! so every pool tool is deferred, runs each query of QUERIES (`[{"query", "relevant"}]`)
//! through `tool_search` with limit 10, and prints one JSON object: Recall@1, Recall@5,
//! MRR@10 (defined as in `benches/retrieval/bfcl.py`), the first query's time (it builds the
//! keyword index) and the mean time of the others. `--misses` lists, on stderr, each query
//! whose relevant tools are not all in its top 5.

#[path = "../benches/support/retrieval.rs"]
mod retrieval;

use serde_json::Value;
use tool_intent::Registry;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let files: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let [pool, queries] = files[..] else {
        return Err("usage: retrieval POOL.json QUERIES.json [--misses]".into());
    };
    let registry = Registry::embedded()
        .set_mcp_server("b", &std::fs::read_to_string(pool)?)?
        .registry;
    let queries: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(queries)?)?;
    let f = retrieval::evaluate(&registry, &queries)?;
    if args.iter().any(|a| a == "--misses") {
        for (query, relevant, top5) in &f.misses {
            eprintln!("MISS {query:?}\n  relevant {relevant:?}\n  top 5    {top5:?}");
        }
    }
    let pool_tools = registry
        .tools()
        .iter()
        .filter(|t| t.name.starts_with("mcp__b__"))
        .count();
    println!(
        "{}",
        serde_json::json!({
            "ranking": "tool-intent",
            "tools": pool_tools,
            "queries": f.queries,
            "recall@1": f.recall_at_1,
            "recall@5": f.recall_at_5,
            "mrr@10": f.mrr_at_10,
            "first_query_ms": f.first_query_ms,
            "query_us": f.query_us,
        })
    );
    Ok(())
}
