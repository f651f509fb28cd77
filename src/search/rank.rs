//! Ordering the hits of a keyword query, and the [`Ranker`] trait that scores them.
//!
//! Which tools a keyword query can return, and in what order:
//! 1. candidates are this session's deferred tools that have every `+term` (in any indexed
//!    field, after stemming);
//! 2. **exact names first**: a candidate whose name occurs in the query as consecutive words
//!    — its full name (`mcp__github__create_issue`) or its name at its MCP server
//!    (`create_issue`, written "create issue" or `createIssue` too) — ranks above every tool
//!    that only scores; a longer name match ranks above a shorter one. A one-word name
//!    (`search`, `fetch`, `memory`) counts only when it is the whole query: inside a
//!    sentence it is an ordinary word, and putting every tool called `search` first cost 1.1
//!    points of Recall@1 on the retrieval benchmark (README, "Search quality");
//! 3. then the ranker's score, highest first; a candidate scored ≤ 0 is not a hit;
//! 4. ties keep registry order.
//!
//! Only step 3 is pluggable: a server with an embedding model implements [`Ranker`] (or
//! combines its own scores with [`KeywordRanker`]'s) and calls
//! [`run_tool_search_with`](crate::run_tool_search_with); the candidate rule, the exact-name
//! rule and the order of ties stay the library's.

use super::index::KeywordIndex;
use crate::expand::Expansion;
use crate::registry::Registry;

/// Orders the candidates of a keyword query.
pub trait Ranker {
    /// The best `limit` candidates, best first (`candidates` are registry indices, ascending;
    /// a candidate left out is not a hit). `query` is the query text with its `+` markers
    /// removed. The order must depend only on the registry, the query and the candidates, or
    /// results stop being reproducible.
    fn rank(
        &self,
        registry: &Registry,
        query: &str,
        candidates: &[usize],
        limit: usize,
    ) -> Vec<usize>;
}

/// The built-in ranker: BM25F over name, server, description and parameters, with stop
/// words removed and light stemming (the index is built once per registry and shared).
///
/// The list is diversified by query-term coverage: the first hit is the best-scoring tool;
/// each next one is the tool whose score is highest once every query term already matched
/// by an earlier hit counts 0.8 as much. "Book a flight and a hotel"
/// then brings a flight tool among the hotel tools instead of five hotel tools — a query
/// asking for several tools is the common case where the top 5 miss one.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeywordRanker;

/// How much a query term counts once an earlier hit has it (see [`KeywordRanker`]).
const COVERED_TERM_WEIGHT: f64 = 0.8;

/// How many of the best-scoring tools the diversified list is picked from (at least as many
/// as the hits asked for). Fixed, so that the first 5 hits of a limit-10 query are the hits
/// of the same query with limit 5.
const DIVERSITY_POOL: usize = 10;

impl Ranker for KeywordRanker {
    fn rank(
        &self,
        registry: &Registry,
        query: &str,
        candidates: &[usize],
        limit: usize,
    ) -> Vec<usize> {
        let index = registry.memo(KeywordIndex::build);
        let mut scores = vec![0.0; index.len()];
        let counted = index.query_terms(query);
        index.add_scores(&counted, &mut scores);
        let mut pool: Vec<(f64, usize)> = candidates
            .iter()
            .filter_map(|&i| scores.get(i).map(|&s| (s, i)))
            .filter(|(s, _)| *s > 0.0)
            .collect();
        let best_first =
            |a: &(f64, usize), b: &(f64, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        let size = limit.max(DIVERSITY_POOL);
        if pool.len() > size {
            pool.select_nth_unstable_by(size - 1, best_first);
            pool.truncate(size);
        }
        pool.sort_unstable_by(best_first);
        // Per pooled tool, each query term's part of its score.
        let parts: Vec<Vec<f64>> = pool
            .iter()
            .map(|&(_, doc)| {
                counted
                    .iter()
                    .map(|&(t, n)| n * index.term_score(t, doc))
                    .collect()
            })
            .collect();
        let mut discount = vec![1.0; counted.len()];
        let mut taken = vec![false; pool.len()];
        let mut hits = Vec::with_capacity(limit.min(pool.len()));
        while hits.len() < limit {
            // The highest discounted score; ties to the better original rank (the pool is
            // sorted best first, so the first maximum wins).
            let mut best: Option<(f64, usize)> = None;
            for (k, part) in parts.iter().enumerate() {
                if taken[k] {
                    continue;
                }
                // With no term covered yet this is the tool's score, bit for bit (same addends
                // in the same order as `add_scores`).
                let mut s = 0.0;
                for (p, d) in part.iter().zip(&discount) {
                    s += p * d;
                }
                if best.is_none_or(|(b, _)| s > b) {
                    best = Some((s, k));
                }
            }
            let Some((_, k)) = best else { break };
            taken[k] = true;
            hits.push(pool[k].1);
            for (d, p) in discount.iter_mut().zip(&parts[k]) {
                if *p > 0.0 {
                    *d *= COVERED_TERM_WEIGHT;
                }
            }
        }
        hits
    }
}

/// The hits of a keyword query, best first, at most `limit` (see the module docs).
pub(super) fn rank(
    expansion: &Expansion<'_>,
    text: &str,
    required: &[String],
    limit: usize,
    ranker: &dyn Ranker,
) -> Vec<usize> {
    let registry = expansion.registry();
    let index = registry.memo(KeywordIndex::build);
    let Some(required) = index.required_terms(required) else {
        return Vec::new();
    };
    let candidates: Vec<usize> = expansion
        .deferred()
        .filter(|&i| required.iter().all(|&term| index.has_term(i, term)))
        .collect();
    if candidates.is_empty() || limit == 0 {
        return Vec::new();
    }
    // Named tools first, longest name match first, then registry order.
    let mut named: Vec<(usize, usize)> = index
        .name_matches(text)
        .into_iter()
        .filter(|(i, _)| candidates.binary_search(i).is_ok())
        .collect();
    named.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut hits: Vec<usize> = named.iter().map(|&(i, _)| i).take(limit).collect();
    let ranked = ranker.rank(registry, text, &candidates, limit);
    for i in ranked {
        if hits.len() == limit {
            break;
        }
        // A ranker may only return candidates, each once.
        if candidates.binary_search(&i).is_ok() && !hits.contains(&i) {
            hits.push(i);
        }
    }
    hits
}
