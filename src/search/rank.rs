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
//!    points of Recall@1 on the retrieval benchmark (docs/search.md);
//! 3. then the ranker's score, highest first; a candidate scored ≤ 0 is not a hit;
//! 4. ties keep registry order.
//!
//! Only step 3 is pluggable: a server with an embedding model implements [`Ranker`] (or
//! combines its own scores with [`KeywordRanker`]'s) and passes it in a
//! [`SearchCall`](super::SearchCall); the candidate rule, the exact-name
//! rule and the order of ties stay the library's.

use super::index::{KeywordIndex, QueryTerms};
use crate::registry::{Registry, ToolSet};

/// What a [`Ranker`] is asked to order.
#[derive(Debug, Clone, Copy)]
pub struct RankRequest<'a> {
    /// The query text as written (`+` markers included).
    pub query: &'a str,
    /// The tools to order: registry indices, ascending.
    pub candidates: &'a [usize],
    /// How many the search wants at most.
    pub limit: usize,
}

/// A [`Ranker`]'s answer to a [`RankRequest`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ranking {
    /// At most `limit` of the candidates, best first; a candidate left out is not a hit.
    pub best_first: Vec<usize>,
    /// How well the best candidate fits the query on the scale of
    /// [`Ranker::abstention_threshold`] (higher is better; `None`: this ranker cannot tell, so
    /// a search that may abstain is refused, `SearchCall::abstain`).
    pub fit: Option<f64>,
}

/// Orders the candidates of a keyword query.
pub trait Ranker {
    /// Orders the request's candidates and says how well the best fits. The order must
    /// depend only on the registry, the query and the candidates, or results stop being
    /// reproducible.
    fn rank_with_fit(&self, registry: &Registry, request: &RankRequest<'_>) -> Ranking;

    /// The order of [`Ranker::rank_with_fit`] alone, for the best `limit` of `candidates`.
    fn rank(
        &self,
        registry: &Registry,
        query: &str,
        candidates: &[usize],
        limit: usize,
    ) -> Vec<usize> {
        let request = RankRequest {
            query,
            candidates,
            limit,
        };
        self.rank_with_fit(registry, &request).best_first
    }

    /// The fit below which a search that may abstain answers that no tool fits (`None`:
    /// this ranker cannot tell). The built-in rankers' are calibrated on BFCL and MetaTool
    /// (docs/search.md, "Abstention").
    fn abstention_threshold(&self) -> Option<f64> {
        None
    }
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
pub(super) const DIVERSITY_POOL: usize = 10;

impl Ranker for KeywordRanker {
    /// The fit is the best BM25F score over the query's idf: the share of the query the best
    /// tool matches (builds without abstention, the core npm package, give none).
    fn rank_with_fit(&self, registry: &Registry, request: &RankRequest<'_>) -> Ranking {
        let index = KeywordIndex::of(registry);
        let (query, scores) = keyword_scores(&index, request.query);
        let (candidates, limit) = (request.candidates, request.limit);
        let size = limit.max(DIVERSITY_POOL);
        let pool = best_candidates(candidates, size, |i| scores.get(i).copied().unwrap_or(0.0));
        let best_first = diversify(&index, &query.counted, &pool, limit, 1.0, |_| 0.0);
        #[cfg(feature = "abstain")]
        let fit = {
            let best = pool.first().map_or(0.0, |&(s, _)| s);
            Some(if query.most > 0.0 {
                best / query.most
            } else {
                0.0
            })
        };
        #[cfg(not(feature = "abstain"))]
        let fit = None;
        Ranking { best_first, fit }
    }

    #[cfg(feature = "abstain")]
    fn abstention_threshold(&self) -> Option<f64> {
        Some(KEYWORD_ABSTENTION_THRESHOLD)
    }
}

/// [`KeywordRanker`]'s abstention threshold: the fit (best BM25F ÷ the query's idf) under
/// which 2% of the answerable requests of BFCL non-live and of MetaTool fall, whichever is
/// lower, rounded down (docs/search.md, "Abstention").
#[cfg(feature = "abstain")]
pub const KEYWORD_ABSTENTION_THRESHOLD: f64 = 0.02;

/// The ranking of a ranker that fuses the keyword scores with an embedding `similarity` (the
/// hybrid and the model rankers): `w · keyword / query idf + (1 − w) · similarity`, where `w`
/// is `keyword_weight` and the query idf is the most any tool could score for the query; the
/// best [`DIVERSITY_POOL`] by that, then the coverage diversification, which discounts only
/// the keyword half. Both halves are absolute, so a weak keyword match stays weak
/// (`hybrid/mod.rs` has the case that decided it). The fit is the best fused score.
#[cfg(feature = "hybrid")]
pub(super) fn fused_ranking(
    registry: &Registry,
    request: &RankRequest<'_>,
    keyword_weight: f64,
    similarity: impl Fn(usize) -> f64,
) -> Ranking {
    let keywords = KeywordIndex::of(registry);
    let (query, scores) = keyword_scores(&keywords, request.query);
    let (candidates, limit) = (request.candidates, request.limit);
    let keyword_scale = if query.most > 0.0 {
        keyword_weight / query.most
    } else {
        0.0
    };
    let similarity_scale = 1.0 - keyword_weight;
    let similarity = |i: usize| similarity(i) * similarity_scale;
    let fused = |i: usize| scores.get(i).copied().unwrap_or(0.0) * keyword_scale + similarity(i);
    let pool = best_candidates(candidates, limit.max(DIVERSITY_POOL), fused);
    let fit = pool.first().map_or(0.0, |&(s, _)| s);
    let best_first = diversify(
        &keywords,
        &query.counted,
        &pool,
        limit,
        keyword_scale,
        similarity,
    );
    Ranking {
        best_first,
        fit: Some(fit),
    }
}

/// The query's terms (with their counts and, with abstention, its idf) and every tool's
/// BM25F score for them, by registry index.
pub(super) fn keyword_scores(index: &KeywordIndex, query: &str) -> (QueryTerms, Vec<f64>) {
    let mut scores = vec![0.0; index.len()];
    let query = index.query_terms(query);
    index.add_scores(&query.counted, &mut scores);
    (query, scores)
}

/// The best `size` candidates by `score`, best first (score, then registry order), kept by
/// insertion: the pool is small, and a sort would cost the wasm package a sort routine. A
/// candidate scored ≤ 0 (or NaN) is left out.
pub(super) fn best_candidates(
    candidates: &[usize],
    size: usize,
    score: impl Fn(usize) -> f64,
) -> Vec<(f64, usize)> {
    let mut pool: Vec<(f64, usize)> = Vec::with_capacity(size + 1);
    for &i in candidates {
        let s = score(i);
        let full = pool.len() == size && pool.last().is_some_and(|&(w, _)| s <= w);
        if s.is_nan() || s <= 0.0 || full {
            continue;
        }
        // Candidates come in registry order: an equal score ranks after those there.
        let at = pool.iter().position(|&(p, _)| s > p).unwrap_or(pool.len());
        pool.insert(at, (s, i));
        pool.truncate(size);
    }
    pool
}

/// Picks `limit` tools of `pool` (best first) by query-term coverage (see [`KeywordRanker`]):
/// each pick is the tool whose score is highest once every query term an earlier pick has
/// counts [`COVERED_TERM_WEIGHT`] as much. A tool's score is `scale × its keyword terms'
/// parts + extra(tool)`: the keyword ranker's own (`scale` 1, no extra) or the hybrid
/// ranker's fusion, whose embedding part is never discounted.
pub(super) fn diversify(
    index: &KeywordIndex,
    counted: &[(u32, f64)],
    pool: &[(f64, usize)],
    limit: usize,
    scale: f64,
    extra: impl Fn(usize) -> f64,
) -> Vec<usize> {
    // Per pooled tool, each query term's part of its score (one row per tool).
    let width = counted.len();
    let mut parts = Vec::with_capacity(pool.len() * width);
    for &(_, doc) in pool {
        for &(t, n) in counted {
            parts.push(n * index.term_score(t, doc));
        }
    }
    let extras: Vec<f64> = pool.iter().map(|&(_, doc)| extra(doc)).collect();
    let mut discount = vec![1.0; width];
    let mut taken = vec![false; pool.len()];
    let mut hits = Vec::with_capacity(limit.min(pool.len()));
    while hits.len() < limit {
        // The highest discounted score; ties to the better original rank (the pool is sorted
        // best first, so the first maximum wins).
        let mut best: Option<(f64, usize)> = None;
        for k in 0..pool.len() {
            if taken[k] {
                continue;
            }
            // With no term covered yet this is the tool's pooled score, bit for bit (same
            // addends in the same order as `add_scores`; × 1.0 and + 0.0 change no bits).
            let mut s = 0.0;
            for (p, d) in parts[k * width..(k + 1) * width].iter().zip(&discount) {
                s += p * d;
            }
            let s = s * scale + extras[k];
            if best.is_none_or(|(b, _)| s > b) {
                best = Some((s, k));
            }
        }
        let Some((_, k)) = best else { break };
        taken[k] = true;
        hits.push(pool[k].1);
        for (t, d) in discount.iter_mut().enumerate() {
            if parts[k * width + t] > 0.0 {
                *d *= COVERED_TERM_WEIGHT;
            }
        }
    }
    hits
}

/// The `+terms` (markers removed) that no candidate has: deferred, not excluded tools.
pub(super) fn missing_required(
    registry: &Registry,
    deferred: &ToolSet,
    required: &[String],
    excluded: &dyn Fn(usize) -> bool,
) -> Vec<String> {
    let index = KeywordIndex::of(registry);
    let index = &*index;
    required
        .iter()
        .filter(
            |word| match index.required_terms(std::slice::from_ref(*word)) {
                None => true,
                Some(ids) => !deferred
                    .iter()
                    .filter(|&i| !excluded(i))
                    .any(|i| ids.iter().all(|&t| index.term_score(t, i) > 0.0)),
            },
        )
        .cloned()
        .collect()
}

/// The hits of a keyword query (see the module docs).
pub(super) struct Ranked {
    /// Best first, at most the limit.
    pub hits: Vec<usize>,
    /// How many of them the query names (they lead the list).
    pub named: usize,
    /// The ranker's fit of its best candidate ([`Ranker::rank_with_fit`]).
    pub fit: Option<f64>,
}

/// The hits of a keyword query, best first, at most `limit` (see the module docs).
pub(super) fn rank(
    registry: &Registry,
    deferred: &ToolSet,
    text: &str,
    required: &[String],
    limit: usize,
    ranker: &dyn Ranker,
    excluded: &dyn Fn(usize) -> bool,
) -> Ranked {
    let none = Ranked {
        hits: Vec::new(),
        named: 0,
        fit: None,
    };
    let index = KeywordIndex::of(registry);
    let index = &*index;
    let Some(required) = index.required_terms(required) else {
        return none;
    };
    let candidates: Vec<usize> = deferred
        .iter()
        .filter(|&i| !excluded(i))
        .filter(|&i| required.iter().all(|&term| index.term_score(term, i) > 0.0))
        .collect();
    if candidates.is_empty() || limit == 0 {
        return none;
    }
    // Named tools first, longest name match first, then registry order (`named` is in
    // registry order; each round takes the first longest left).
    let mut named: Vec<(usize, usize)> = index
        .name_matches(text)
        .into_iter()
        .filter(|(i, _)| candidates.binary_search(i).is_ok())
        .collect();
    let mut hits: Vec<usize> = Vec::with_capacity(limit);
    while hits.len() < limit {
        let Some(best) = named.iter().map(|m| m.1).max() else {
            break;
        };
        if let Some(k) = named.iter().position(|m| m.1 == best) {
            hits.push(named.remove(k).0);
        }
    }
    let named_count = hits.len();
    let request = RankRequest {
        query: text,
        candidates: &candidates,
        limit,
    };
    let ranking = ranker.rank_with_fit(registry, &request);
    for i in ranking.best_first {
        if hits.len() == limit {
            break;
        }
        // A ranker may only return candidates, each once.
        if candidates.binary_search(&i).is_ok() && !hits.contains(&i) {
            hits.push(i);
        }
    }
    Ranked {
        hits,
        named: named_count,
        fit: ranking.fit,
    }
}
