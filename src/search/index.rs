//! The keyword index: BM25F over five fields of every tool, built once per registry.
//!
//! Fields and weights: the tool's own name (3), its MCP server's name (1.5), its description
//! (1), its parameters' names (1.5) and their descriptions (0.5). A term's weight in a tool is
//! BM25F's saturated, length-normalised term frequency, `tf / (K1 + tf)` with
//! `tf = Σ weight·count / (1 − b + b·length/average length)` over the fields, times the
//! term's inverse document frequency `ln(1 + (N − df + 0.5) / (df + 0.5))` over the whole
//! registry (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond",
//! 2009, §3.2, with Lucene's non-negative idf). The weights were chosen on the retrieval
//! benchmark in `benches/retrieval/` and checked on a held-out category (docs/search.md).
//!
//! Determinism: every score is made of IEEE additions, multiplications and divisions in a
//! fixed order, and the logarithm is computed here ([`ln`]) rather than by the platform's
//! libm, so scores are the same bits on native and wasm. Tables are only looked up, never
//! iterated, so their order cannot reach a result.
//!
//! The index also keeps each tool's name as a word sequence (its full name and, for an MCP
//! tool, its name at the server) for the exact-name rule in `rank.rs`.

use super::fields::{for_each_field, own_name_and_server, FIELDS};
use super::table::WordTable;
use super::text::{is_stop_word, name_words, stem, terms, words_with};
use crate::registry::{Memo, MemoRef, MemoSlot, Registry, Tool};

/// Per field (in `fields.rs` order: name, server, description, parameter names, parameter
/// descriptions): how much one occurrence counts, and how strongly a long field is discounted
/// (BM25's `b`).
const WEIGHT: [f64; FIELDS] = [3.0, 1.5, 1.0, 1.5, 0.5];
const B: [f64; FIELDS] = [0.5, 0.0, 0.75, 0.5, 0.75];
/// BM25's term-frequency saturation.
const K1: f64 = 1.2;

/// Stands for "no term" where a word is a stop word.
const NO_TERM: u32 = u32::MAX;

/// One tool's weight for one term.
#[derive(Debug, Clone, Copy, Default)]
struct Posting {
    doc: u32,
    weight: f32,
}

/// A tool's name as a sequence of word ids, for the exact-name rule.
#[derive(Debug, Clone, Copy, Default)]
struct NameSequence {
    doc: u32,
    start: u32,
    len: u32,
}

/// A keyword query read against one index ([`KeywordIndex::query_terms`]).
pub(crate) struct QueryTerms {
    /// Each distinct term id a tool has, in order of first appearance, with how often the
    /// query has it.
    pub(crate) counted: Vec<(u32, f64)>,
    /// The highest score any tool could have for the query: the sum of its terms' idf (a
    /// term's weight in a tool is below 1), a term no tool has counting at the idf of a term
    /// in no tool. A score over it is the share of the query a tool matches, comparable
    /// between queries (the hybrid ranker fuses it with a cosine; a search that may abstain
    /// compares it with a threshold).
    #[cfg(feature = "abstain")]
    pub(crate) most: f64,
}

/// The index of one registry (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct KeywordIndex {
    terms: WordTable,
    /// Every term's postings, grouped by term id, each term's in registry order.
    postings: Grouped<Posting>,
    idf: Vec<f64>,
    docs: usize,
    /// Name words (lower-cased, not stemmed, stop words kept) → id.
    words: WordTable,
    /// Word ids of every name sequence, back to back.
    sequence_words: Vec<u32>,
    /// Every name sequence grouped by first word id, registry order within.
    sequences: Grouped<NameSequence>,
}

impl Memo for KeywordIndex {
    const SLOT: MemoSlot = MemoSlot::KeywordIndex;
}

impl KeywordIndex {
    /// The registry's index, built on first use and kept with it (built uncached only if the
    /// memo slot were taken, which a unit test rules out).
    pub(crate) fn of(registry: &Registry) -> MemoRef<'_, KeywordIndex> {
        registry.memo_or_build(KeywordIndex::build)
    }

    /// Indexes every tool of the registry (built through the registry's memo, once).
    pub(crate) fn build(registry: &Registry) -> KeywordIndex {
        let tools = registry.tools();
        let mut index = KeywordIndex {
            docs: tools.len(),
            ..KeywordIndex::default()
        };
        // Pass 1: each tool's (term, field) counts and field lengths. `counts` is indexed by
        // term id and reset after each tool through `seen` (no per-tool map or sort).
        // (tool, term, counts packed as `unpack_counts` reads them), in registry order.
        let mut entries: Vec<(u32, u32, u32)> = Vec::with_capacity(tools.len() * 32);
        let mut lengths: Vec<[u32; FIELDS]> = Vec::with_capacity(tools.len());
        // Per term id: this tool's counts, packed as `unpack_counts` reads them.
        let mut counts: Vec<u32> = Vec::new();
        let mut seen: Vec<u32> = Vec::new();
        // (first word id, name sequence) of every tool, grouped at the end.
        let mut names: Vec<(u32, NameSequence)> = Vec::new();
        // Each distinct word's term id (or NO_TERM for a stop word), so that the stop-word
        // test, the stemmer and the term lookup run once per distinct word, not per word.
        let mut word_terms = WordTable::default();
        let mut scratch = String::new();
        for (doc, tool) in tools.iter().enumerate() {
            let mut len = [0u32; FIELDS];
            for_each_field(tool, |field, text| {
                words_with(text, &mut scratch, |word| {
                    let id = word_terms.get_or_insert(word, || index.word_term(word));
                    if id == NO_TERM {
                        return;
                    }
                    if counts.len() <= id as usize {
                        counts.resize(id as usize + 1, 0);
                    }
                    let c = &mut counts[id as usize];
                    if *c == 0 {
                        seen.push(id);
                    }
                    let shift = 6 * field;
                    if (*c >> shift) & 63 < 63 {
                        *c += 1 << shift;
                    }
                    len[field] += 1;
                });
            });
            lengths.push(len);
            for id in seen.drain(..) {
                entries.push((doc as u32, id, std::mem::take(&mut counts[id as usize])));
            }
            index.add_names(doc as u32, tool, &mut names);
        }
        // Pass 2: weights, now that the average field lengths are known.
        let mut average = [0f64; FIELDS];
        for len in &lengths {
            for f in 0..FIELDS {
                average[f] += f64::from(len[f]);
            }
        }
        for a in &mut average {
            *a = if tools.is_empty() {
                0.0
            } else {
                *a / tools.len() as f64
            };
        }
        // Per tool and field, what one occurrence is worth: weight / length normalisation.
        let worth: Vec<[f64; FIELDS]> = lengths
            .iter()
            .map(|len| {
                let mut w = [0.0; FIELDS];
                for f in 0..FIELDS {
                    if len[f] > 0 {
                        w[f] = WEIGHT[f] / (1.0 - B[f] + B[f] * f64::from(len[f]) / average[f]);
                    }
                }
                w
            })
            .collect();
        // Postings grouped by term; entries are in registry order, and grouping keeps it.
        index.postings = Grouped::by_key(
            entries.len(),
            index.terms.len(),
            |i| entries[i].1 as usize,
            |i| {
                let (doc, _, packed) = entries[i];
                let worth = &worth[doc as usize];
                let mut tf = 0.0;
                for (f, count) in unpack_counts(packed).into_iter().enumerate() {
                    tf += f64::from(count) * worth[f];
                }
                Posting {
                    doc,
                    weight: (tf / (K1 + tf)) as f32,
                }
            },
        );
        index.sequences = Grouped::by_key(
            names.len(),
            index.words.len(),
            |i| names[i].0 as usize,
            |i| names[i].1,
        );
        let n = tools.len() as f64;
        index.idf = (0..index.terms.len())
            .map(|t| {
                let df = index.postings.group(t).len() as f64;
                // libm's pure-Rust log: the same bits on native and wasm.
                libm::log(1.0 + (n - df + 0.5) / (df + 0.5))
            })
            .collect();
        index
    }

    fn postings_of(&self, term: u32) -> &[Posting] {
        self.postings.group(term as usize)
    }

    /// A word's term id, or NO_TERM for a stop word.
    fn word_term(&mut self, word: &str) -> u32 {
        if is_stop_word(word) {
            NO_TERM
        } else {
            self.term_id(stem(word))
        }
    }

    fn term_id(&mut self, term: &str) -> u32 {
        let next = self.terms.len() as u32;
        self.terms.get_or_insert(term, || next)
    }

    fn word_id(&mut self, word: &str) -> u32 {
        let next = self.words.len() as u32;
        self.words.get_or_insert(word, || next)
    }

    /// Records the tool's full name and, if different, its name at its server.
    fn add_names(&mut self, doc: u32, tool: &Tool, names: &mut Vec<(u32, NameSequence)>) {
        let (own, _) = own_name_and_server(tool);
        for (k, name) in [tool.name.as_str(), own].into_iter().enumerate() {
            if k == 1 && name == tool.name {
                break;
            }
            let start = self.sequence_words.len();
            name_words(name, |w| {
                let id = self.word_id(w);
                self.sequence_words.push(id);
            });
            let len = self.sequence_words.len() - start;
            if len > 0 {
                let first = self.sequence_words[start];
                names.push((
                    first,
                    NameSequence {
                        doc,
                        start: start as u32,
                        len: len as u32,
                    },
                ));
            }
        }
    }

    /// The query's terms: each distinct term id once, in order of first appearance, with how
    /// often the query has it (BM25 counts a repeated term once per occurrence). Terms no tool
    /// has are left out. (A linear search per term: queries are short, and a sort would cost
    /// the wasm package a sort routine.) One pass over the text also sums the query's idf
    /// ([`QueryTerms::most`]).
    pub(crate) fn query_terms(&self, text: &str) -> QueryTerms {
        let mut counted: Vec<(u32, f64)> = Vec::new();
        #[cfg(feature = "abstain")]
        let unseen = libm::log(1.0 + (self.docs as f64 + 0.5) / 0.5);
        #[cfg(feature = "abstain")]
        let mut most = 0.0;
        terms(text, |t| {
            let id = self.terms.get(t);
            #[cfg(feature = "abstain")]
            {
                most += match id {
                    Some(id) => self.idf[id as usize],
                    None => unseen,
                };
            }
            if let Some(id) = id {
                match counted.iter_mut().find(|(seen, _)| *seen == id) {
                    Some((_, n)) => *n += 1.0,
                    None => counted.push((id, 1.0)),
                }
            }
        });
        QueryTerms {
            counted,
            #[cfg(feature = "abstain")]
            most,
        }
    }

    /// Adds each tool's BM25F score for `query` (term ids, each with how often the query
    /// has it) into `scores` (one per tool). Each addend is `count * term_score(term, tool)`,
    /// bit for bit.
    pub(crate) fn add_scores(&self, query: &[(u32, f64)], scores: &mut [f64]) {
        for &(term, count) in query {
            let idf = self.idf[term as usize];
            for p in self.postings_of(term) {
                if let Some(s) = scores.get_mut(p.doc as usize) {
                    *s += count * (idf * f64::from(p.weight));
                }
            }
        }
    }

    /// One term's contribution to one tool's score: 0 when the tool lacks it, above 0 when it
    /// has it (weights and idf are positive), so it also answers "has the term?".
    pub(crate) fn term_score(&self, term: u32, doc: usize) -> f64 {
        let postings = self.postings_of(term);
        match postings.binary_search_by_key(&(doc as u32), |p| p.doc) {
            Ok(at) => self.idf[term as usize] * f64::from(postings[at].weight),
            Err(_) => 0.0,
        }
    }

    /// The term ids of `+term` words (a word may hold several terms: `+create_issue`), or
    /// `None` when one of them is in no tool (then no tool qualifies). A `+term` made only of
    /// stop words asks nothing.
    pub(crate) fn required_terms(&self, words: &[String]) -> Option<Vec<u32>> {
        let mut ids = Vec::new();
        let mut known = true;
        for word in words {
            terms(word, |t| match self.terms.get(t) {
                Some(id) => ids.push(id),
                None => known = false,
            });
        }
        known.then_some(ids)
    }

    /// For every tool whose name occurs in the query as consecutive words (its full name,
    /// or its name at its MCP server), the number of words matched, longest match kept:
    /// `(tool, words)`, in registry order. A one-word name matches only a one-word query.
    pub(crate) fn name_matches(&self, text: &str) -> Vec<(usize, usize)> {
        let mut query = Vec::new();
        name_words(text, |w| query.push(self.words.get(w)));
        let shortest = if query.len() == 1 { 1 } else { 2 };
        let mut matches: Vec<(usize, usize)> = Vec::new();
        for (at, first) in query.iter().enumerate() {
            let Some(first) = *first else { continue };
            for s in self
                .sequences
                .group(first as usize)
                .iter()
                .filter(|s| s.len >= shortest)
            {
                let (start, len) = (s.start as usize, s.len as usize);
                let name = &self.sequence_words[start..start + len];
                let here = query.get(at..at + len);
                if here.is_some_and(|q| q.iter().zip(name).all(|(q, n)| *q == Some(*n))) {
                    // One entry per tool, in registry order, its longest match.
                    let doc = s.doc as usize;
                    match matches.binary_search_by_key(&doc, |m| m.0) {
                        Ok(k) => matches[k].1 = matches[k].1.max(len),
                        Err(k) => matches.insert(k, (doc, len)),
                    }
                }
            }
        }
        matches
    }

    /// The number of tools indexed.
    pub(crate) fn len(&self) -> usize {
        self.docs
    }
}

/// Items grouped by a dense key, back to back in one allocation: key `k`'s items are
/// `items[starts[k]..starts[k + 1]]`, in the order they were given.
#[derive(Debug, Default)]
struct Grouped<T> {
    items: Vec<T>,
    starts: Vec<u32>,
}

impl<T: Copy + Default> Grouped<T> {
    /// Groups `len` items by a key below `keys`, keeping their order within a key (a counting
    /// sort: one allocation per vector, sized once).
    fn by_key(
        len: usize,
        keys: usize,
        key: impl Fn(usize) -> usize,
        mut item: impl FnMut(usize) -> T,
    ) -> Grouped<T> {
        let mut starts = vec![0u32; keys + 1];
        for i in 0..len {
            starts[key(i) + 1] += 1;
        }
        for k in 0..keys {
            starts[k + 1] += starts[k];
        }
        let mut next = starts.clone();
        let mut items = vec![T::default(); len];
        for i in 0..len {
            let at = &mut next[key(i)];
            items[*at as usize] = item(i);
            *at += 1;
        }
        Grouped { items, starts }
    }

    /// Key `k`'s items (none for a key out of range).
    fn group(&self, k: usize) -> &[T] {
        match (self.starts.get(k), self.starts.get(k + 1)) {
            (Some(&a), Some(&b)) => self.items.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// A term's counts in the five fields, packed into one `u32` six bits each (field `f` at bits
/// `6f..6f+6`) while the build counts them. A count stops at 63: BM25's saturation makes the
/// difference negligible, and it keeps the build's largest buffer at 12 bytes per (tool,
/// term).
fn unpack_counts(packed: u32) -> [u16; FIELDS] {
    let mut counts = [0; FIELDS];
    for (f, c) in counts.iter_mut().enumerate() {
        *c = ((packed >> (6 * f)) & 63) as u16;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn grouping_keeps_the_order_within_a_key() {
        let pairs = [(2, 'a'), (0, 'b'), (2, 'c'), (0, 'd')];
        let g = Grouped::by_key(pairs.len(), 4, |i| pairs[i].0, |i| pairs[i].1);
        assert_eq!(g.group(0), ['b', 'd']);
        assert_eq!(g.group(1), [] as [char; 0]);
        assert_eq!(g.group(2), ['a', 'c']);
        assert_eq!(g.group(3), [] as [char; 0]);
        assert_eq!(g.group(99), [] as [char; 0]);
    }

    #[test]
    fn counts_unpack_six_bits_each() {
        let packed = 1 | (63 << 12) | (7 << 18) | (2 << 24);
        assert_eq!(unpack_counts(packed), [1, 0, 63, 7, 2]);
    }

    #[test]
    fn idf_log_is_within_an_ulp_or_two_of_the_platform() {
        // libm replaces the platform's ln so the bits are the same on every target; it is the
        // same function to its last bits or so.
        for x in [
            1.0,
            1.5,
            2.0,
            std::f64::consts::E,
            10.0,
            763.5,
            1e-300,
            1e300,
            0.3,
        ] {
            let (ours, std) = (libm::log(x), x.ln());
            assert!(
                (ours - std).abs() <= 2.0 * f64::EPSILON * std.abs().max(1.0),
                "{x}: {ours} vs {std}"
            );
        }
    }

    fn registry() -> Registry {
        Registry::from_value(&json!({"tools": [
            {"name": "read_file", "description": "Read a file from disk.",
             "parameters": {"type": "object", "properties": {"path": {"type": "string", "description": "Absolute path"}}}},
            {"name": "send_email", "description": "Send an email message.",
             "parameters": {"type": "object", "properties": {"to": {"type": "string"}}}},
        ]}))
        .unwrap()
    }

    #[test]
    fn scores_rank_the_tool_that_has_the_terms() {
        let r = registry();
        let index = KeywordIndex::build(&r);
        let q = index.query_terms("reading files").counted;
        let mut scores = vec![0.0; index.len()];
        index.add_scores(&q, &mut scores);
        assert!(scores[0] > 0.0 && scores[1] == 0.0, "{scores:?}");
        // A parameter's description is indexed too.
        let absolute = index.required_terms(&["Absolute".to_string()]).unwrap();
        assert!(index.term_score(absolute[0], 0) > 0.0 && index.term_score(absolute[0], 1) == 0.0);
        assert_eq!(index.required_terms(&["zebra".to_string()]), None);
        assert_eq!(index.required_terms(&["the".to_string()]), Some(vec![]));
        assert!(index.query_terms("zebra").counted.is_empty());
    }

    #[test]
    fn names_match_as_consecutive_words() {
        let r = registry()
            .set_mcp_server(
                "github",
                &json!([{"name": "create_issue", "inputSchema": {"type": "object"}}]).to_string(),
            )
            .unwrap()
            .registry;
        let index = KeywordIndex::build(&r);
        let issue = r.index_of("mcp__github__create_issue").unwrap();
        assert_eq!(index.name_matches("please create issue now"), [(issue, 2)]);
        assert_eq!(
            index.name_matches("call mcp__github__create_issue"),
            [(issue, 4)]
        );
        assert_eq!(index.name_matches("send the email"), []);
        assert_eq!(
            index.name_matches("send email, read file"),
            [(0, 2), (1, 2)]
        );
        let one = r
            .set_mcp_server(
                "exa",
                &json!([{"name": "search", "inputSchema": {"type": "object"}}]).to_string(),
            )
            .unwrap()
            .registry;
        let index = KeywordIndex::build(&one);
        let search = one.index_of("mcp__exa__search").unwrap();
        assert_eq!(index.name_matches("search"), [(search, 1)]);
        assert_eq!(index.name_matches("search the web"), []);
        assert_eq!(index.name_matches("exa search"), []);
        assert_eq!(index.name_matches("mcp__exa__search"), [(search, 3)]);
    }
}
