//! Our side of the tool-retrieval benchmark (`benches/retrieval/`, README "Search quality").
//!
//! `cargo run --release --example retrieval -- POOL.json QUERIES.json [--misses]`
//!
//! Merges POOL (an MCP `tools/list` result) into the embedded registry as the server `b`,
//! so every pool tool is deferred, runs each query of QUERIES (`[{"query", "relevant"}]`)
//! through `tool_search` with limit 10, and prints one JSON object: Recall@1, Recall@5,
//! MRR@10 (defined as in `benches/retrieval/bfcl.py`), the first query's time (it builds the
//! keyword index) and the mean time of the others. `--misses` lists, on stderr, each query
//! whose relevant tools are not all in its top 5.

use std::time::Instant;

use serde_json::Value;
use tool_intent::{expand, run_tool_search, ExpandContext, Registry, ToolsOverride, TurnState};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [pool, queries] = [&args.first(), &args.get(1)].map(|a| a.cloned().unwrap_or_default());
    if queries.is_empty() {
        return Err("usage: retrieval POOL.json QUERIES.json".into());
    }
    let registry =
        Registry::embedded().merge_mcp_server_json("b", &std::fs::read_to_string(&pool)?)?;
    let queries: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&queries)?)?;
    let expansion = expand(&registry, &ToolsOverride::Follow, ExpandContext::default())?;
    let state = TurnState::default();
    let show_misses = args.iter().any(|a| a == "--misses");
    let (mut r1, mut r5, mut mrr) = (0.0, 0.0, 0.0);
    let mut first_ms = 0.0;
    let started = Instant::now();
    for (k, q) in queries.iter().enumerate() {
        let text = q["query"].as_str().unwrap_or_default();
        let relevant: Vec<&str> = q["relevant"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let t = Instant::now();
        let (result, _) = run_tool_search(&expansion, &state, text, Some(10))?;
        if k == 0 {
            first_ms = t.elapsed().as_secs_f64() * 1e3;
        }
        // Hits are wire names (mcp__b__…); the answers use the server's own names.
        let ranked: Vec<&str> = result
            .hits
            .iter()
            .map(|h| registry.tool_named(h).map(|t| t.source_name()).unwrap_or(h))
            .collect();
        let found = |k: usize| {
            ranked
                .iter()
                .take(k)
                .filter(|h| relevant.contains(h))
                .count() as f64
        };
        if show_misses
            && relevant
                .iter()
                .any(|r| !ranked.iter().take(5).any(|h| h == r))
        {
            eprintln!(
                "MISS {text:?}\n  relevant {relevant:?}\n  top5     {:?}",
                &ranked[..ranked.len().min(5)]
            );
        }
        let n = relevant.len().max(1);
        r1 += found(1) / n.min(1) as f64;
        r5 += found(5) / n.min(5) as f64;
        if let Some(rank) = ranked.iter().take(10).position(|h| relevant.contains(h)) {
            mrr += 1.0 / (rank + 1) as f64;
        }
    }
    let total = started.elapsed().as_secs_f64() * 1e3;
    let n = queries.len().max(1) as f64;
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
            "queries": queries.len(),
            "recall@1": r1 / n,
            "recall@5": r5 / n,
            "mrr@10": mrr / n,
            "first_query_ms": first_ms,
            "query_us": (total - first_ms) / (n - 1.0).max(1.0) * 1e3,
        })
    );
    Ok(())
}
