//! Token counters behind one trait: a vocabulary-free estimator for the small wasm package
//! and hot paths, and the exact BPE vocabularies behind the `exact-tokens` feature.
//!
//! - [`Estimator`]: no vocabulary, a few kilobytes of code. It splits text the way o200k's
//!   pre-tokenizer does (letter runs split at case changes, digit triples, punctuation runs,
//!   whitespace) and prices each piece with constants fitted on the embedded registry and the
//!   nine MCP servers of `tests/data/mcp`;
//! - [`BpeCounter`] (cargo feature `exact-tokens`): the real `o200k_base` / `cl100k_base`
//!   BPE from `tiktoken-rs`, which embeds the vocabularies.
//!
//! [`shared_counter`] hands out one instance per kind for the whole process, so the CLI,
//! the wasm build and servers build an exact vocabulary once.

#[cfg(feature = "exact-tokens")]
use std::sync::OnceLock;

use serde::Serialize;

use crate::error::{quoted, Error, Result};

/// Counts tokens of a text.
pub trait TokenCounter {
    /// `estimate`, `o200k_base`, `cl100k_base`.
    fn name(&self) -> &'static str;
    /// Tokens of a text.
    fn count(&self, text: &str) -> usize;
    /// The built-in counter this is, when it is one: its counts are a pure function of the
    /// text, so per-tool counts can be kept with the registry. `None` disables that.
    fn kind(&self) -> Option<CounterKind> {
        None
    }
}

/// The built-in counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CounterKind {
    /// The vocabulary-free [`Estimator`] (the default on every surface).
    #[default]
    Estimate,
    /// Exact `o200k_base` (feature `exact-tokens`).
    O200k,
    /// Exact `cl100k_base` (feature `exact-tokens`).
    Cl100k,
}

impl CounterKind {
    /// Every counter, in declaration order.
    pub const ALL: [CounterKind; 3] = [
        CounterKind::Estimate,
        CounterKind::O200k,
        CounterKind::Cl100k,
    ];

    /// Index in per-counter tables sized `CounterKind::ALL.len()`.
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// Parses `estimate`, `o200k` (or `o200k_base`), `cl100k` (or `cl100k_base`).
    pub fn parse(text: &str) -> Result<CounterKind> {
        match text {
            "estimate" => Ok(CounterKind::Estimate),
            "o200k" | "o200k_base" => Ok(CounterKind::O200k),
            "cl100k" | "cl100k_base" => Ok(CounterKind::Cl100k),
            other => Err(Error::argument(
                "counter",
                format!("{} is not one of estimate, o200k, cl100k", quoted(other)),
            )),
        }
    }
}

/// The process-wide counter of a kind. The exact ones (feature `exact-tokens`) are built on
/// first use and kept: building a BPE takes hundreds of milliseconds.
pub fn shared_counter(kind: CounterKind) -> Result<&'static dyn TokenCounter> {
    match kind {
        CounterKind::Estimate => Ok(&Estimator),
        #[cfg(feature = "exact-tokens")]
        CounterKind::O200k => {
            static O200K: OnceLock<BpeCounter> = OnceLock::new();
            shared_bpe(&O200K, BpeCounter::o200k)
        }
        #[cfg(feature = "exact-tokens")]
        CounterKind::Cl100k => {
            static CL100K: OnceLock<BpeCounter> = OnceLock::new();
            shared_bpe(&CL100K, BpeCounter::cl100k)
        }
        #[cfg(not(feature = "exact-tokens"))]
        _ => Err(Error::argument(
            "counter",
            "not in this build: cargo feature exact-tokens, npm tool-intent-exact",
        )),
    }
}

#[cfg(feature = "exact-tokens")]
fn shared_bpe(
    cell: &'static OnceLock<BpeCounter>,
    build: fn() -> Result<BpeCounter>,
) -> Result<&'static dyn TokenCounter> {
    if let Some(c) = cell.get() {
        return Ok(c);
    }
    let built = build()?;
    Ok(cell.get_or_init(|| built))
}

/// The vocabulary-free estimator.
#[derive(Debug, Clone, Copy, Default)]
pub struct Estimator;

/// Estimator constants, fitted with `examples/calibrate_estimator.rs` against o200k on the
/// embedded registry and the nine MCP servers of `tests/data/mcp` (both halves, both wrappers).
#[derive(Debug, Clone, Copy)]
pub struct EstimatorParams {
    /// Letters a word piece holds in its first token.
    pub word_first: usize,
    /// Letters per further token of a long word piece.
    pub word_rest: usize,
    /// Characters per token of a punctuation piece.
    pub punct: usize,
}

/// The fitted constants.
pub const ESTIMATOR_PARAMS: EstimatorParams = EstimatorParams {
    word_first: 7,
    word_rest: 6,
    punct: 5,
};

impl TokenCounter for Estimator {
    fn name(&self) -> &'static str {
        "estimate"
    }

    fn count(&self, text: &str) -> usize {
        estimate_tokens(text)
    }

    fn kind(&self) -> Option<CounterKind> {
        Some(CounterKind::Estimate)
    }
}

/// The estimate for one text with the fitted constants.
pub fn estimate_tokens(text: &str) -> usize {
    estimate_tokens_with(text, ESTIMATOR_PARAMS)
}

fn is_newline(c: char) -> bool {
    c == '\n' || c == '\r'
}

// ASCII classes only: tool registries are overwhelmingly ASCII, and Unicode class tables
// would cost the small wasm package kilobytes. A non-ASCII character counts as a letter
// (priced one token per character below), except the common non-ASCII spaces.
fn is_space(c: char) -> bool {
    c.is_ascii_whitespace() || matches!(c, '\u{a0}' | '\u{2000}'..='\u{200b}' | '\u{3000}')
}

fn is_letter(c: char) -> bool {
    c.is_ascii_alphabetic() || (!c.is_ascii() && !is_space(c))
}

fn is_punct(c: char) -> bool {
    !is_space(c) && !is_letter(c) && !c.is_ascii_digit()
}

/// Splits text into the pieces o200k's pre-tokenizer would make and prices each piece:
/// - a word: one optional leading space or punctuation character, then letters, split where
///   lower case turns to upper case (`additionalProperties` → `additional` `Properties`);
/// - up to three digits;
/// - a run of punctuation, with one optional leading space;
/// - a run of whitespace.
///
/// Linear in the text, no allocation, no vocabulary.
pub fn estimate_tokens_with(text: &str, params: EstimatorParams) -> usize {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len();
    let mut i = 0usize;
    let mut tokens = 0usize;
    let letters_at = |j: usize| j < n && is_letter(chars[j]);
    while i < n {
        let c = chars[i];
        // Word piece (with an optional one-character prefix that is not a letter/digit/newline).
        let prefix = !is_letter(c) && !c.is_ascii_digit() && !is_newline(c) && letters_at(i + 1);
        if is_letter(c) || prefix {
            let mut j = if prefix { i + 1 } else { i };
            let start = j;
            // Upper* Lower+  |  Upper+ Lower*
            while j < n && chars[j].is_ascii_uppercase() {
                j += 1;
            }
            while j < n && is_letter(chars[j]) && !chars[j].is_ascii_uppercase() {
                j += 1;
            }
            let len = j - start;
            let ascii = chars[start..j].iter().all(char::is_ascii);
            tokens += if !ascii {
                // Scripts without spaces between words: about one token per character.
                len
            } else if len <= params.word_first {
                1
            } else {
                1 + (len - params.word_first).div_ceil(params.word_rest.max(1))
            };
            i = j;
            continue;
        }
        if c.is_ascii_digit() {
            let mut j = i;
            while j < n && j - i < 3 && chars[j].is_ascii_digit() {
                j += 1;
            }
            tokens += 1;
            i = j;
            continue;
        }
        if is_punct(c) || (c == ' ' && i + 1 < n && is_punct(chars[i + 1])) {
            let mut j = if c == ' ' { i + 1 } else { i };
            let start = j;
            while j < n && is_punct(chars[j]) {
                j += 1;
            }
            while j < n && is_newline(chars[j]) {
                j += 1;
            }
            tokens += (j - start).div_ceil(params.punct.max(1));
            i = j;
            continue;
        }
        // Whitespace run.
        let mut j = i;
        while j < n
            && is_space(chars[j])
            && !(chars[j] == ' ' && j + 1 < n && !is_space(chars[j + 1]) && j > i)
        {
            j += 1;
        }
        tokens += 1;
        i = j.max(i + 1);
    }
    tokens
}

/// The exact BPE counter.
#[cfg(feature = "exact-tokens")]
pub struct BpeCounter {
    name: &'static str,
    bpe: tiktoken_rs::CoreBPE,
}

#[cfg(feature = "exact-tokens")]
impl BpeCounter {
    /// `o200k_base` (GPT-4o and later; the closest public proxy for current tokenizers).
    pub fn o200k() -> Result<Self> {
        let bpe = tiktoken_rs::o200k_base()
            .map_err(|e| Error::internal(format!("cannot build o200k_base: {e}")))?;
        Ok(BpeCounter {
            name: "o200k_base",
            bpe,
        })
    }

    /// `cl100k_base` (GPT-4, GPT-3.5).
    pub fn cl100k() -> Result<Self> {
        let bpe = tiktoken_rs::cl100k_base()
            .map_err(|e| Error::internal(format!("cannot build cl100k_base: {e}")))?;
        Ok(BpeCounter {
            name: "cl100k_base",
            bpe,
        })
    }
}

#[cfg(feature = "exact-tokens")]
impl TokenCounter for BpeCounter {
    fn name(&self) -> &'static str {
        self.name
    }

    fn count(&self, text: &str) -> usize {
        self.bpe.encode_ordinary(text).len()
    }

    fn kind(&self) -> Option<CounterKind> {
        Some(if self.name == "o200k_base" {
            CounterKind::O200k
        } else {
            CounterKind::Cl100k
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimator_counts_simple_text_plausibly() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("hello"), 1);
        assert_eq!(estimate_tokens("hello world"), 2);
        assert_eq!(estimate_tokens("12345"), 2);
        assert!(estimate_tokens("additionalProperties") >= 2);
    }

    #[test]
    fn exact_counter_needs_its_feature() {
        let r = shared_counter(CounterKind::O200k);
        if cfg!(feature = "exact-tokens") {
            assert_eq!(r.unwrap().name(), "o200k_base");
        } else {
            assert_eq!(r.err().unwrap().code(), "invalid_argument");
        }
        assert_eq!(
            CounterKind::parse("o200k_base").unwrap(),
            CounterKind::O200k
        );
        assert!(CounterKind::parse("o200").is_err());
    }
}
