//! Retrieval figures of `tool_search` over a pool of deferred tools: Recall@1, Recall@5 and
//! MRR@10, defined as in `benches/retrieval/bfcl.py` (which computes the BM25 baseline's).
//! Shared by `examples/retrieval.rs` (the benchmark) and `tests/search.rs` (the
//! fixture test), so both measure the same way.
#![allow(dead_code)]

use std::time::Instant;

use serde_json::Value;
use tool_intent::search::RankRequest;
use tool_intent::{Ranker, Registry, SearchCall, TurnRequest};

/// What one run over a query set measured.
#[derive(Debug, Default)]
pub struct Figures {
    pub queries: usize,
    pub recall_at_1: f64,
    pub recall_at_5: f64,
    pub mrr_at_10: f64,
    /// The first query's time: it builds the index (keyword, and the embeddings for hybrid).
    pub first_query_ms: f64,
    /// The mean time of the other queries.
    pub query_us: f64,
    /// Queries whose relevant tools are not all in their top 5: (query, relevant, top 5).
    pub misses: Vec<(String, Vec<String>, Vec<String>)>,
}

/// Runs every query (`{"query": text, "relevant": [names at the server]}`) through
/// `tool_search` with limit 10 against the registry's deferred tools, ranked by `ranker`.
pub fn evaluate(
    registry: &Registry,
    queries: &[Value],
    ranker: &dyn Ranker,
) -> Result<Figures, tool_intent::Error> {
    let request = TurnRequest::default();
    let mut f = Figures {
        queries: queries.len(),
        ..Figures::default()
    };
    let started = Instant::now();
    for (k, q) in queries.iter().enumerate() {
        let text = q["query"].as_str().unwrap_or_default();
        let relevant: Vec<&str> = q["relevant"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let t = Instant::now();
        let result = registry
            .turn(&request)
            .and_then(|mut turn| {
                turn.search(&SearchCall::new(text).with_limit(10).with_ranker(ranker))
            })?
            .result;
        if k == 0 {
            f.first_query_ms = t.elapsed().as_secs_f64() * 1e3;
        }
        // Hits are wire names (mcp__<server>__…); the answers use the server's own names.
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
        let n = relevant.len().max(1);
        f.recall_at_1 += found(1) / n.min(1) as f64;
        f.recall_at_5 += found(5) / n.min(5) as f64;
        if let Some(rank) = ranked.iter().take(10).position(|h| relevant.contains(h)) {
            f.mrr_at_10 += 1.0 / (rank + 1) as f64;
        }
        if relevant
            .iter()
            .any(|r| !ranked.iter().take(5).any(|h| h == r))
        {
            f.misses.push((
                text.to_string(),
                relevant.iter().map(|s| s.to_string()).collect(),
                ranked.iter().take(5).map(|s| s.to_string()).collect(),
            ));
        }
    }
    let total_ms = started.elapsed().as_secs_f64() * 1e3;
    let n = queries.len().max(1) as f64;
    f.recall_at_1 /= n;
    f.recall_at_5 /= n;
    f.mrr_at_10 /= n;
    f.query_us = (total_ms - f.first_query_ms) / (n - 1.0).max(1.0) * 1e3;
    Ok(f)
}

/// What a search that may abstain does on a query set: with each request's tools in the
/// pool, and with them removed (disabled in the turn, so they are not deferred).
#[derive(Debug, Default)]
pub struct Abstention {
    pub queries: usize,
    /// Requests answered "no tool fits" although their tools are in the pool.
    pub abstained_in: usize,
    /// Requests answered "no tool fits" with their tools removed.
    pub abstained_out: usize,
    /// Per request, the ranker's fit of its best candidate over the pool's tools, with the
    /// request's tools and without them.
    pub fits_in: Vec<f64>,
    pub fits_out: Vec<f64>,
}

/// Runs every query twice through `tool_search` with `abstain` (limit 10): once as is, once
/// with its relevant tools disabled, counting `search_abstained` answers (none for a ranker
/// without a threshold); and reads the ranker's fit of each (the pool's tools are the server
/// `b`'s).
pub fn abstention(
    registry: &Registry,
    queries: &[Value],
    ranker: &dyn Ranker,
) -> Result<Abstention, tool_intent::Error> {
    let pool: Vec<usize> = (0..registry.tools().len())
        .filter(|&i| registry.tools()[i].name.starts_with("mcp__b__"))
        .collect();
    let mut a = Abstention {
        queries: queries.len(),
        ..Abstention::default()
    };
    for q in queries {
        let text = q["query"].as_str().unwrap_or_default();
        let relevant: Vec<String> = q["relevant"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(|n| format!("mcp__b__{n}"))
                    .collect()
            })
            .unwrap_or_default();
        let abstains = |disabled: &[String]| -> Result<bool, tool_intent::Error> {
            let request = TurnRequest::from_values(
                &serde_json::json!({ "disabled": disabled }),
                &Value::Null,
            )?;
            let call = SearchCall::new(text)
                .with_limit(10)
                .with_ranker(ranker)
                .with_abstain(true);
            let outcome = registry.turn(&request).and_then(|mut t| t.search(&call))?;
            Ok(outcome
                .result
                .warnings
                .iter()
                .any(|w| w.code == tool_intent::WarningCode::SearchAbstained))
        };
        // A ranker without a threshold (another keyword weight) has fits but cannot abstain.
        if ranker.abstention_threshold().is_some() {
            a.abstained_in += usize::from(abstains(&[])?);
            a.abstained_out += usize::from(abstains(&relevant)?);
        }
        let kept: Vec<usize> = pool
            .iter()
            .copied()
            .filter(|&i| !relevant.contains(&registry.tools()[i].name))
            .collect();
        let fit = |candidates: &[usize]| {
            let request = RankRequest {
                query: text,
                candidates,
                limit: 10,
            };
            ranker
                .rank_with_fit(registry, &request)
                .fit
                .unwrap_or(f64::NAN)
        };
        a.fits_in.push(fit(&pool));
        a.fits_out.push(fit(&kept));
    }
    Ok(a)
}
