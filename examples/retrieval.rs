//! Our side of the tool-retrieval benchmark (`benches/retrieval/`, docs/search.md).
//!
//! `cargo run --release --features hybrid --example retrieval -- POOL.json QUERIES.json
//! [--ranker keyword|hybrid|embedding] [--keyword-weight W] [--misses]`
//!
//! Merges POOL (an MCP `tools/list` result) into the embedded registry as the server `b`,
//! so every pool tool is deferred, runs each query of QUERIES (`[{"query", "relevant"}]`)
//! through `tool_search` with limit 10, and prints one JSON object: Recall@1, Recall@5,
//! MRR@10 (defined as in `benches/retrieval/bfcl.py`), the first query's time (it builds the
//! index), the mean time of the others and the process's peak resident memory. `--ranker`: `keyword` (default), `hybrid`, or
//! `embedding` (the hybrid ranker with keyword weight 0: the static embeddings alone);
//! the last two need the `hybrid` feature. `--misses` lists, on stderr, each query whose
//! relevant tools are not all in its top 5.

#[path = "../benches/support/retrieval.rs"]
mod retrieval;

use serde_json::Value;
use tool_intent::search::KeywordRanker;
use tool_intent::{Ranker, Registry};

/// The process's peak resident memory (Linux `VmHWM`), `None` elsewhere.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--ranker" | "--keyword-weight" | "--model" | "--foreign" => i += 1,
            a if a.starts_with("--") => {}
            _ => files.push(&args[i]),
        }
        i += 1;
    }
    let [pool, queries] = files[..] else {
        return Err("usage: retrieval POOL.json QUERIES.json [--ranker keyword|hybrid|embedding|model|model-alone] [--model FILE] [--keyword-weight W] [--misses] [--abstention [--foreign QUERIES.json]]".into());
    };
    let ranking = flag("--ranker").map_or("keyword", String::as_str);
    let ranker: Box<dyn Ranker> = match ranking {
        "keyword" => Box::new(KeywordRanker),
        #[cfg(feature = "hybrid")]
        "hybrid" | "embedding" => Box::new(tool_intent::search::HybridRanker {
            keyword_weight: match (ranking, flag("--keyword-weight")) {
                ("embedding", _) => 0.0,
                (_, Some(w)) => w.parse()?,
                _ => tool_intent::search::DEFAULT_KEYWORD_WEIGHT,
            },
        }),
        #[cfg(feature = "model")]
        "model" | "model-alone" => {
            let path =
                flag("--model").ok_or("--ranker model needs --model PATH/model.safetensors")?;
            let ranker = tool_intent::search::ModelRanker::from_safetensors(&std::fs::read(path)?)?;
            Box::new(match (ranking, flag("--keyword-weight")) {
                ("model-alone", _) => ranker.with_keyword_weight(0.0),
                (_, Some(w)) => ranker.with_keyword_weight(w.parse()?),
                _ => ranker,
            })
        }
        other => {
            return Err(format!(
            "--ranker {other}: keyword, hybrid or embedding (the last two need --features hybrid)"
        )
            .into())
        }
    };
    let registry = Registry::embedded()
        .set_mcp_server("b", &std::fs::read_to_string(pool)?)?
        .registry;
    let queries: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(queries)?)?;
    if args.iter().any(|a| a == "--abstention") {
        let foreign: Vec<Value> = match flag("--foreign") {
            Some(path) => serde_json::from_str(&std::fs::read_to_string(path)?)?,
            None => Vec::new(),
        };
        println!(
            "{}",
            abstention_figures(&registry, &queries, &foreign, &*ranker, ranking)?
        );
        return Ok(());
    }
    let f = retrieval::evaluate(&registry, &queries, &*ranker)?;
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
            "ranking": format!("tool-intent {ranking}"),
            "tools": pool_tools,
            "queries": f.queries,
            "recall@1": f.recall_at_1,
            "recall@5": f.recall_at_5,
            "mrr@10": f.mrr_at_10,
            "first_query_ms": f.first_query_ms,
            "query_us": f.query_us,
            "peak_rss_mib": peak_rss_mib(),
        })
    );
    Ok(())
}

/// `--abstention`: what `tool_search` with `abstain` does on the set (`retrieval::abstention`)
/// and, for the ranker's fit, the AUC (the chance a request whose tool is in the pool fits
/// better than one whose tool was removed) and the threshold this set itself would need to
/// abstain on only 2% of the first kind (with how many of the second it then catches).
/// `foreign`: requests of another set, whose tools are none of this pool's.
fn abstention_figures(
    registry: &Registry,
    queries: &[Value],
    foreign: &[Value],
    ranker: &dyn Ranker,
    ranking: &str,
) -> Result<Value, tool_intent::Error> {
    let a = retrieval::abstention(registry, queries, ranker)?;
    let n = a.queries.max(1) as f64;
    let mut ins = a.fits_in.clone();
    ins.sort_by(f64::total_cmp);
    let outs = &a.fits_out;
    let mut wins = 0.0;
    for &i in &ins {
        for &o in outs {
            wins += if i > o {
                1.0
            } else if i == o {
                0.5
            } else {
                0.0
            };
        }
    }
    let auc = wins / (ins.len() * outs.len()).max(1) as f64;
    let at_2 = ins.get(ins.len() / 50).copied().unwrap_or(f64::NAN);
    let caught = outs.iter().filter(|&&o| o < at_2).count() as f64 / n;
    let can_abstain = ranker.abstention_threshold().is_some();
    let foreign_abstained = if foreign.is_empty() || !can_abstain {
        None
    } else {
        let f = retrieval::abstention(registry, foreign, ranker)?;
        Some(f.abstained_in as f64 / f.queries.max(1) as f64)
    };
    Ok(serde_json::json!({
        "ranking": format!("tool-intent {ranking}"),
        "queries": a.queries,
        "threshold": ranker.abstention_threshold(),
        "abstained_in": can_abstain.then(|| a.abstained_in as f64 / n),
        "abstained_out": can_abstain.then(|| a.abstained_out as f64 / n),
        "abstained_foreign": foreign_abstained,
        "auc": auc,
        "threshold_2pct_here": at_2,
        "abstained_out_at_2pct_here": caught,
    }))
}
