//! The hybrid ranker: the keyword ranking's scores fused with sentence-embedding similarity,
//! so that a request sharing few words with a tool's description (“convert this to euros” →
//! `ExchangeTool: convert currencies`) still finds it. Behind the `hybrid` feature: the
//! embedding table adds 8 MB that a keyword-only user never downloads.
//!
//! **Embeddings.** A static table distilled from all-MiniLM-L6-v2 (`table.rs`, made by
//! `benches/retrieval/distill.py`: model2vec's method, then fitted to the model's sentence
//! embeddings): a text's embedding is the weighted sum of its WordPiece tokens' vectors
//! (`wordpiece.rs`), compared by cosine. Running the model itself costs ~10 million
//! multiply-adds per token: its numpy reference took 57 s to index 709 tools on two cores,
//! against the table's 50 ms for 1,011 (docs/search.md has the comparison).
//!
//! **Fusion.** For each candidate: `w · keyword / query idf + (1 − w) · cosine`, where
//! `keyword` is the built-in BM25F score (`index.rs`), `query idf` the most any tool could
//! score for the query (the sum of its terms' idf, a term no tool has counting as a term in
//! none), and `cosine` the embedding similarity; then the keyword ranker's coverage
//! diversification (`rank.rs`; only the keyword half is discounted). A candidate scoring ≤ 0
//! is not a hit; ties keep registry order. Both halves are absolute, not divided by the best
//! candidate's: divided so, a query whose only keyword match is a common word ("how many
//! euros do I get for 20 dollars" matching `get_*`) gave that match full weight and buried the
//! currency tool its embedding ranked first (`tests/hybrid.rs`). `w`
//! ([`HybridRanker::keyword_weight`], 0.8) was chosen by MRR@10 on BFCL's non-live categories
//! only, then checked on BFCL's live categories and on MetaTool (docs/search.md lists every
//! fusion tried, on every set).
//!
//! **Requests for several things.** "Find the area of a circle of radius 5, and the
//! factorial of 7" wants two tools, but its one embedding lies between them and near neither;
//! the keyword half finds each by its own words. So a request of several clauses (split after
//! a word ending in `.`, `?`, `!`, `;` or `,` and at "and", "then", "also"; clauses of at
//! least [`MIN_CLAUSE_WORDS`] words, the first [`MAX_CLAUSES`] of them) is embedded clause by
//! clause too, and a tool's cosine is the larger of its cosine to the
//! whole request and [`CLAUSE_WEIGHT`] times its best cosine to a clause. The discount keeps a
//! clause from outranking the request as a whole for the first hit; it was chosen on BFCL's
//! non-live categories (the most MRR@10 with Recall@5 at least the keyword ranking's), where
//! 382 of 1,000 requests need several tools: Recall@5 0.892 → 0.910 (keyword 0.908), with the
//! held-out sets as before (docs/search.md).
//!
//! **Determinism.** A text's embedding is an exact `i64` sum; turning it into a unit vector,
//! the cosines and the fusion are IEEE additions, multiplications, divisions and square roots
//! in a fixed order (no fused multiply-add: Rust never contracts them on its own), so the hits
//! are the same bits on native, wasm and Python. The per-registry index is a memo like the
//! keyword index: built on first use, shared by every later search of that registry.

mod table;
mod wordpiece;

use super::fields::{for_each_field, NAME, PARAMETER_DESCRIPTION, PARAMETER_NAME, SERVER};
use super::rank::{fused_ranking, RankRequest, Ranker, Ranking};
use super::text::name_words;
use crate::registry::{Memo, MemoSlot, Registry, Tool};

/// The WordPiece ids of `text` (the model's tokenizer, `wordpiece.rs`), at most `max` of them,
/// appended to `ids` (for the model ranker, which shares this vocabulary).
#[cfg(feature = "model")]
pub(super) fn word_piece_ids(text: &str, max: usize, ids: &mut Vec<u32>) {
    let Some(table) = table::table() else { return };
    let mut taken = 0;
    wordpiece::tokens(table, text, |id| {
        if taken < max {
            ids.push(id);
            taken += 1;
        }
    });
}

/// The id of a special token (`[CLS]`, `[SEP]`) in the vocabulary.
#[cfg(feature = "model")]
pub(super) fn special_token(token: &str) -> Option<u32> {
    table::table()?.id(token)
}

/// How many tokens the vocabulary has (0 if the embedded table did not parse).
#[cfg(feature = "model")]
pub(super) fn vocabulary_size() -> usize {
    table::table().map_or(0, |t| t.len())
}

/// Whether this build's embedding table parses (`RankerKind::Hybrid.ranker()` asks before any
/// search, so a broken table is an error, not a keyword-only ranking).
pub(crate) fn check_table() -> crate::error::Result<()> {
    table::check()
}

/// Keyword scores fused with embedding similarity (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HybridRanker {
    /// The keyword score's share of the fused score, 0 to 1 (0: embeddings alone; 1: the
    /// keyword ranking, hit for hit). Not finite: the default.
    pub keyword_weight: f64,
}

/// [`HybridRanker::keyword_weight`]'s default, chosen by MRR@10 on BFCL's non-live categories.
pub const DEFAULT_KEYWORD_WEIGHT: f64 = 0.8;

/// A clause's cosine counts at this share against the whole request's (module docs).
const CLAUSE_WEIGHT: f64 = 0.75;
/// The fewest words a clause needs to be embedded by itself.
const MIN_CLAUSE_WORDS: usize = 4;
/// The most clauses embedded by themselves: each costs a cosine per tool, and a 2,000-byte
/// query could hold some 200. BFCL's parameter lists make many (20 at most in its non-live
/// requests, more than 16 in 8 of 1,000; a cap of 16 left its figures as they were, a cap
/// of 8 cost Recall@5 0.003 there).
const MAX_CLAUSES: usize = 16;

impl Default for HybridRanker {
    fn default() -> Self {
        HybridRanker {
            keyword_weight: DEFAULT_KEYWORD_WEIGHT,
        }
    }
}

/// Every tool's embedding, centred on the registry's mean and scaled to unit length, `dims`
/// values per tool in registry order.
///
/// Why centred: a sum of token vectors leans towards the direction every text shares, the
/// more the longer the text, so a tool with a long general description ("Enter plan mode
/// ...") came out close to every request: on MetaTool it sat in the top 5 of 6,404 of 20,544
/// requests. Removing the registry's common component (as SIF does with its first principal
/// component: Arora et al., "A Simple but Tough-to-Beat Baseline for Sentence Embeddings",
/// ICLR 2017) leaves what sets each tool apart; the query is centred on the same mean.
#[derive(Debug, Default)]
struct EmbeddingIndex {
    dims: usize,
    mean: Vec<f64>,
    vectors: Vec<f32>,
}

impl Memo for EmbeddingIndex {
    const SLOT: MemoSlot = MemoSlot::EmbeddingIndex;
}

impl EmbeddingIndex {
    fn build(registry: &Registry) -> EmbeddingIndex {
        let Some(table) = table::table() else {
            return EmbeddingIndex::default();
        };
        let dims = table.dims();
        let tools = registry.tools();
        let mut units = Vec::with_capacity(tools.len() * dims);
        let mut sum = vec![0i64; dims];
        let mut text = String::new();
        for tool in tools {
            sum.fill(0);
            tool_tokens(tool, &mut text, |t| {
                wordpiece::tokens(table, t, |id| table.add(id, &mut sum))
            });
            let at = units.len();
            units.extend(sum.iter().map(|&s| s as f64));
            scale_to_unit(&mut units[at..]);
        }
        // The mean in registry order (a fixed order of additions), then one division.
        let mut mean = vec![0.0f64; dims];
        for row in units.chunks_exact(dims) {
            for (m, &v) in mean.iter_mut().zip(row) {
                *m += v;
            }
        }
        if !tools.is_empty() {
            let n = tools.len() as f64;
            mean.iter_mut().for_each(|m| *m /= n);
        }
        let mut vectors = Vec::with_capacity(units.len());
        let mut centred = vec![0.0f64; dims];
        for row in units.chunks_exact(dims) {
            centred_unit(row, &mean, &mut centred);
            vectors.extend(centred.iter().map(|&v| v as f32));
        }
        EmbeddingIndex {
            dims,
            mean,
            vectors,
        }
    }

    /// Tool `doc`'s embedding. `doc` indexes the registry this index was built from (the ranker
    /// asks the same registry's memo, and candidates are its positions), so the slice is
    /// always `dims` long (`every_tool_of_the_registry_has_an_embedding_of_the_table_width`);
    /// an index past the end is a caller's bug and scores as no similarity (an empty vector).
    fn vector(&self, doc: usize) -> &[f32] {
        self.vectors
            .get(doc * self.dims..(doc + 1) * self.dims)
            .unwrap_or_default()
    }

    /// The query's embedding, centred like the tools' (empty without a table).
    fn embed_query(&self, query: &str) -> Vec<f32> {
        let Some(table) = table::table() else {
            return Vec::new();
        };
        let mut sum = vec![0i64; table.dims()];
        // `+term` markers are syntax, not words.
        let text: String = query
            .chars()
            .map(|c| if c == '+' { ' ' } else { c })
            .collect();
        wordpiece::tokens(table, &text, |id| table.add(id, &mut sum));
        let mut raw: Vec<f64> = sum.iter().map(|&s| s as f64).collect();
        scale_to_unit(&mut raw);
        let mut centred = vec![0.0f64; raw.len()];
        centred_unit(&raw, &self.mean, &mut centred);
        centred.into_iter().map(|v| v as f32).collect()
    }
}

/// The clauses of a request for several things, each embedded by itself (module docs): the
/// request split after every word that ends in `.`, `?`, `!`, `;` or `,` and at every "and",
/// "then" or "also" (which belong to no clause), keeping the clauses of at least
/// [`MIN_CLAUSE_WORDS`] words, at most [`MAX_CLAUSES`]. Empty when fewer than two are kept: the
/// whole request's embedding is the only one then.
fn clauses(query: &str) -> Vec<String> {
    let mut clauses = Vec::new();
    let mut clause = String::new();
    let mut words = 0;
    let mut end_clause = |clause: &mut String, words: &mut usize| {
        if *words >= MIN_CLAUSE_WORDS && clauses.len() < MAX_CLAUSES {
            clauses.push(std::mem::take(clause));
        }
        clause.clear();
        *words = 0;
    };
    for word in query.split_whitespace() {
        if ["and", "then", "also"]
            .iter()
            .any(|joiner| word.eq_ignore_ascii_case(joiner))
        {
            end_clause(&mut clause, &mut words);
            continue;
        }
        clause.push_str(word);
        clause.push(' ');
        words += 1;
        if word.ends_with(['.', '?', '!', ';', ',']) {
            end_clause(&mut clause, &mut words);
        }
    }
    end_clause(&mut clause, &mut words);
    if clauses.len() < 2 {
        clauses.clear();
    }
    clauses
}

/// The text of a tool that is embedded: its name, server and parameter names as the keyword
/// index splits them (`get_weather` and `getWeather` both read "get weather"), and its
/// description.
fn tool_tokens(tool: &Tool, scratch: &mut String, mut each: impl FnMut(&str)) {
    for_each_field(tool, |field, text| match field {
        NAME | SERVER | PARAMETER_NAME => {
            scratch.clear();
            name_words(text, |word| {
                scratch.push_str(word);
                scratch.push(' ');
            });
            each(scratch);
        }
        PARAMETER_DESCRIPTION => {}
        _ => each(text),
    });
}

/// Scales `v` to unit length in place (an all-zero vector stays zero). The sum of squares
/// runs in index order, so the result is the same bits on every target; an `i64` sum turned
/// into `f64` (`as`) rounds to nearest everywhere too.
fn scale_to_unit(v: &mut [f64]) {
    let mut norm = 0.0f64;
    for &x in v.iter() {
        norm += x * x;
    }
    let norm = norm.sqrt();
    for x in v {
        *x = if norm > 0.0 { *x / norm } else { 0.0 };
    }
}

/// `out = v − mean`, scaled to unit length.
fn centred_unit(v: &[f64], mean: &[f64], out: &mut [f64]) {
    for ((o, &x), &m) in out.iter_mut().zip(v).zip(mean) {
        *o = x - m;
    }
    scale_to_unit(out);
}

/// The cosine of a unit query vector and a unit tool vector: four partial sums (positions
/// 0, 4, 8, … in the first, 1, 5, 9, … in the second, and so on), each in index order, then
/// added as `(s0 + s1) + (s2 + s3)` and the tail. A fixed order, so the same bits on every
/// target; four sums rather than one because one sum waits on each previous addition, and a
/// request of several clauses takes several cosines per tool.
pub(super) fn cosine(query: &[f32], tool: &[f32]) -> f64 {
    let mut sums = [0.0f64; 4];
    let query_quads = query.chunks_exact(4);
    let tool_quads = tool.chunks_exact(4);
    let (query_tail, tool_tail) = (query_quads.remainder(), tool_quads.remainder());
    for (q, t) in query_quads.zip(tool_quads) {
        for ((sum, &q), &t) in sums.iter_mut().zip(q).zip(t) {
            *sum += f64::from(q) * f64::from(t);
        }
    }
    let mut tail = 0.0f64;
    for (&q, &t) in query_tail.iter().zip(tool_tail) {
        tail += f64::from(q) * f64::from(t);
    }
    ((sums[0] + sums[1]) + (sums[2] + sums[3])) + tail
}

/// [`HybridRanker`]'s abstention threshold at [`DEFAULT_KEYWORD_WEIGHT`]: the fused score
/// under which 2% of the answerable requests of BFCL non-live and of MetaTool fall,
/// whichever is lower, rounded down (docs/search.md, "Abstention").
pub const HYBRID_ABSTENTION_THRESHOLD: f64 = 0.06;

impl Ranker for HybridRanker {
    /// Calibrated at the default keyword weight only: another weight puts the fused score on
    /// another scale.
    fn abstention_threshold(&self) -> Option<f64> {
        (self.keyword_weight == DEFAULT_KEYWORD_WEIGHT).then_some(HYBRID_ABSTENTION_THRESHOLD)
    }

    fn rank_with_fit(&self, registry: &Registry, request: &RankRequest<'_>) -> Ranking {
        let embeddings = registry.memo_or_build(EmbeddingIndex::build);
        let whole = embeddings.embed_query(request.query);
        let parts: Vec<Vec<f32>> = clauses(request.query)
            .iter()
            .map(|clause| embeddings.embed_query(clause))
            .collect();
        let w = if self.keyword_weight.is_finite() {
            self.keyword_weight.clamp(0.0, 1.0)
        } else {
            DEFAULT_KEYWORD_WEIGHT
        };
        // The whole request's cosine, or a clause's discounted, whichever is larger.
        let similarity = |i: usize| {
            let tool = embeddings.vector(i);
            parts.iter().fold(cosine(&whole, tool), |best, part| {
                best.max(CLAUSE_WEIGHT * cosine(part, tool))
            })
        };
        fused_ranking(registry, request, w, similarity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_of_the_registry_has_an_embedding_of_the_table_width() {
        let registry = Registry::embedded();
        let index = EmbeddingIndex::build(&registry);
        let dims = table::table().expect("the embedded table parses").dims();
        assert!(dims > 0);
        assert_eq!(index.dims, dims);
        for doc in 0..registry.tools().len() {
            assert_eq!(index.vector(doc).len(), dims, "tool {doc}");
        }
        assert!(index.vector(registry.tools().len()).is_empty());
    }

    #[test]
    fn a_request_splits_into_clauses_of_four_words_or_more() {
        assert!(clauses("convert 20 dollars to euros").is_empty());
        assert!(
            clauses("area of a circle, please").is_empty(),
            "one clause of 4+ words"
        );
        assert_eq!(
            clauses("Find the area of a circle of radius 5, and the factorial of 7. Thanks!"),
            [
                "Find the area of a circle of radius 5, ",
                "the factorial of 7. "
            ]
        );
        assert_eq!(
            clauses("Get the weather in Paris and then book a table for two"),
            ["Get the weather in Paris ", "book a table for two "]
        );
        assert!(clauses("salt and pepper and more").is_empty());
        let many = "please find this one tool, ".repeat(40);
        let kept = clauses(&many);
        assert_eq!(kept.len(), MAX_CLAUSES);
        assert!(kept.iter().all(|c| c == "please find this one tool, "));
        assert_eq!(
            clauses("what is the weather in Paris; book a table for two tonight"),
            [
                "what is the weather in Paris; ",
                "book a table for two tonight "
            ]
        );
    }

    #[test]
    fn a_paraphrase_finds_its_tool() {
        let tools = r#"{"tools":[
            {"name":"exchange","description":"Seamlessly convert currencies with our integrated currency conversion tool.","inputSchema":{"type":"object"}},
            {"name":"weather","description":"Forecasts for any city.","inputSchema":{"type":"object"}},
            {"name":"recipes","description":"Find dishes to cook from what is in your fridge.","inputSchema":{"type":"object"}}]}"#;
        let r = Registry::embedded()
            .set_mcp_server("m", tools)
            .unwrap()
            .registry;
        let ids: Vec<usize> = ["mcp__m__exchange", "mcp__m__weather", "mcp__m__recipes"]
            .iter()
            .map(|n| r.index_of(n).unwrap())
            .collect();
        let ranker = HybridRanker::default();
        // No word in common with any description.
        let hits = ranker.rank(&r, "how many euros is 20 dollars", &ids, 3);
        assert_eq!(hits.first(), Some(&ids[0]), "{hits:?}");
        let hits = ranker.rank(&r, "will it rain in Paris tomorrow", &ids, 3);
        assert_eq!(hits.first(), Some(&ids[1]), "{hits:?}");
        // Keyword matches still count: the first hit of an exact description word.
        let hits = ranker.rank(&r, "fridge", &ids, 1);
        assert_eq!(hits, [ids[2]]);
        // The limit holds and results repeat.
        assert_eq!(ranker.rank(&r, "money", &ids, 1).len(), 1);
        assert_eq!(
            ranker.rank(&r, "money", &ids, 3),
            ranker.rank(&r, "money", &ids, 3)
        );
    }
}
