//! Token budget of the tool array: what each tool costs on the wire, half by half.
//!
//! The budget prices exactly what is sent (SPEC §5, seed §7.5):
//! - a **resident** tool costs the tokens of its rendered array entry (name + description +
//!   schema + the provider's wrapper, [`render::render_tool`]) plus [`PER_TOOL_OVERHEAD`]
//!   for the separator; the array adds [`PER_ARRAY_OVERHEAD`] for its brackets;
//! - a **deferred** tool costs its bare name plus a newline, as in the catalog text; the
//!   catalog adds its header line once.
//!
//! Pricing a deferred tool by its description would overstate the catalog by an order of
//! magnitude; pricing a resident tool by its schema alone would understate the array by
//! thousands of tokens. The two errors point in opposite directions and can hide each other
//! in a plausible total, so the tests check each half separately against the exact o200k
//! count of the real rendered bytes.
//!
//! Two counters implement [`TokenCounter`]:
//! - [`Estimator`]: no vocabulary, a few kilobytes of code, for the small wasm package and
//!   hot paths. It splits text the way o200k's pre-tokenizer does (letter runs split at
//!   case changes, digit triples, punctuation runs, whitespace) and prices each piece with
//!   constants fitted on the embedded registry and the nine MCP servers of `shared/data`;
//! - [`BpeCounter`] (cargo feature `exact-tokens`): the real `o200k_base` / `cl100k_base` BPE
//!   from `tiktoken-rs`, which embeds the vocabularies.
//!
//! Overheads: rendering the whole array and counting it exactly gives, on every registry we
//! measured, Σ(count of each entry) − (n−1) ± 1 — each entry's leading `{"` merges with the
//! separator `,` into one token (`,{"`), so a separator costs nothing extra and the
//! brackets cost about one token. `PER_TOOL_OVERHEAD` = 0 and `PER_ARRAY_OVERHEAD` = 1 are
//! those measured values; the test `budget_halves` re-checks them against real payloads.

use serde::Serialize;

use crate::deferral::{catalog_text, split_for_dispatch, TurnState, View, CATALOG_HEADER};
use crate::error::{Error, Result};
use crate::expand::Expansion;
use crate::preview::{effective_state, PreviewRequest};
use crate::registry::Registry;
use crate::render::{self, Provider};

/// Tokens a resident tool adds beyond its own rendered entry (the `,` separator).
pub const PER_TOOL_OVERHEAD: i64 = 0;
/// Tokens the array adds once (`[` and `]`).
pub const PER_ARRAY_OVERHEAD: i64 = 1;

/// Counts tokens of a text.
pub trait TokenCounter {
    /// `estimate`, `o200k_base`, `cl100k_base`.
    fn name(&self) -> &'static str;
    fn count(&self, text: &str) -> usize;
    /// A stable slot (0..3) when the counter is a pure function of the text, so per-tool
    /// counts can be cached on the registry; `None` disables caching.
    fn cache_slot(&self) -> Option<usize> {
        None
    }
}

/// Which counter to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CounterKind {
    Estimate,
    O200k,
    Cl100k,
}

impl CounterKind {
    pub fn parse(text: &str) -> Result<CounterKind> {
        match text {
            "estimate" => Ok(CounterKind::Estimate),
            "o200k" | "o200k_base" => Ok(CounterKind::O200k),
            "cl100k" | "cl100k_base" => Ok(CounterKind::Cl100k),
            other => Err(Error::argument(
                "counter",
                format!("\"{other}\" is not one of estimate, o200k, cl100k"),
            )),
        }
    }
}

/// Builds a counter; the exact ones need the `exact-tokens` feature.
pub fn counter(kind: CounterKind) -> Result<Box<dyn TokenCounter>> {
    match kind {
        CounterKind::Estimate => Ok(Box::new(Estimator)),
        #[cfg(feature = "exact-tokens")]
        CounterKind::O200k => Ok(Box::new(BpeCounter::o200k()?)),
        #[cfg(feature = "exact-tokens")]
        CounterKind::Cl100k => Ok(Box::new(BpeCounter::cl100k()?)),
        #[cfg(not(feature = "exact-tokens"))]
        _ => Err(Error::argument(
            "counter",
            "exact token counting needs the `exact-tokens` feature (cargo --features exact-tokens, or the tool-intent/exact JS build)",
        )),
    }
}

/// The vocabulary-free estimator.
#[derive(Debug, Clone, Copy, Default)]
pub struct Estimator;

/// Estimator constants, fitted with `examples/calibrate_estimator.rs` against o200k on the
/// embedded registry and the nine MCP servers of `shared/data` (both halves, both wrappers).
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

    fn cache_slot(&self) -> Option<usize> {
        Some(0)
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
            .map_err(|e| Error::argument("counter", format!("cannot build o200k_base: {e}")))?;
        Ok(BpeCounter {
            name: "o200k_base",
            bpe,
        })
    }

    /// `cl100k_base` (GPT-4, GPT-3.5).
    pub fn cl100k() -> Result<Self> {
        let bpe = tiktoken_rs::cl100k_base()
            .map_err(|e| Error::argument("counter", format!("cannot build cl100k_base: {e}")))?;
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

    fn cache_slot(&self) -> Option<usize> {
        Some(if self.name == "o200k_base" { 1 } else { 2 })
    }
}

/// Where a tool's tokens go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    Resident,
    Promoted,
    Deferred,
}

impl Placement {
    pub fn as_str(self) -> &'static str {
        match self {
            Placement::Resident => "resident",
            Placement::Promoted => "promoted",
            Placement::Deferred => "deferred",
        }
    }
}

/// One tool's cost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetRow {
    pub name: String,
    pub placement: Placement,
    /// What the tool costs where it is (array entry, or catalog line).
    pub tokens: usize,
    /// What it would cost resident (its array entry), for the "everything resident" figure.
    pub resident_tokens: usize,
}

/// The budget of one request.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    pub counter: &'static str,
    pub provider: Provider,
    /// Tools in array order, then catalog tools in catalog order.
    pub rows: Vec<BudgetRow>,
    /// The provider array (resident + promoted tools, brackets included).
    pub resident_tokens: usize,
    /// The catalog text (header + one line per deferred tool); 0 when nothing is deferred.
    pub catalog_tokens: usize,
    /// The array if every available tool were resident (no `tool_search`, no catalog).
    pub all_resident_tokens: usize,
    /// `all_resident_tokens − (resident_tokens + catalog_tokens)`.
    pub saving_tokens: i64,
}

impl Budget {
    pub fn saving_percent(&self) -> f64 {
        if self.all_resident_tokens == 0 {
            0.0
        } else {
            100.0 * self.saving_tokens as f64 / self.all_resident_tokens as f64
        }
    }
}

fn with_overhead(sum: usize, count: usize) -> usize {
    if count == 0 {
        return 0;
    }
    let total = sum as i64 + PER_TOOL_OVERHEAD * count as i64 + PER_ARRAY_OVERHEAD;
    total.max(0) as usize
}

/// Prices an expansion in catalog mode for a turn state.
pub fn estimate(
    expansion: &Expansion<'_>,
    state: &TurnState,
    view: View,
    provider: Provider,
    counter: &dyn TokenCounter,
) -> Result<Budget> {
    let registry = expansion.registry();
    let split = split_for_dispatch(expansion, state, view);
    let price = |i: usize| -> Result<usize> {
        let count = || Ok(counter.count(render::tool_entry(registry, i, provider)?));
        match counter.cache_slot() {
            Some(slot) => registry.cached_tokens(i, slot * 3 + provider.slot(), count),
            None => count(),
        }
    };
    let mut rows = Vec::new();
    let mut array_sum = 0usize;
    for &i in &split.provider_tools {
        let tokens = price(i)?;
        array_sum += tokens;
        rows.push(BudgetRow {
            name: registry.name(i).to_string(),
            placement: if split.promoted.contains(&i) {
                Placement::Promoted
            } else {
                Placement::Resident
            },
            tokens,
            resident_tokens: tokens,
        });
    }
    let mut catalog_tokens = 0usize;
    if !split.catalog.is_empty() {
        catalog_tokens += counter.count(&format!("{CATALOG_HEADER}\n"));
    }
    for &i in &split.catalog {
        let name = registry.name(i);
        let tokens = counter.count(&format!("{name}\n"));
        catalog_tokens += tokens;
        rows.push(BudgetRow {
            name: name.to_string(),
            placement: Placement::Deferred,
            tokens,
            resident_tokens: price(i)?,
        });
    }
    let resident_tokens = with_overhead(array_sum, split.provider_tools.len());
    let tool_search = registry.index_of(crate::registry::TOOL_SEARCH);
    let mut all_sum = 0usize;
    let mut all_count = 0usize;
    for row in &rows {
        if tool_search.is_some_and(|ts| registry.tools()[ts].name == row.name) {
            continue;
        }
        all_sum += row.resident_tokens;
        all_count += 1;
    }
    let all_resident_tokens = with_overhead(all_sum, all_count);
    Ok(Budget {
        counter: counter.name(),
        provider,
        rows,
        resident_tokens,
        catalog_tokens,
        all_resident_tokens,
        saving_tokens: all_resident_tokens as i64 - (resident_tokens + catalog_tokens) as i64,
    })
}

/// The budget of a preview request (CLI and wasm convenience).
pub fn budget_for_request(
    registry: &Registry,
    request: &PreviewRequest,
    kind: CounterKind,
) -> Result<Budget> {
    let counter = counter(kind)?;
    budget_with_counter(registry, request, counter.as_ref())
}

/// The budget of a preview request with a counter the caller keeps (built once).
pub fn budget_with_counter(
    registry: &Registry,
    request: &PreviewRequest,
    counter: &dyn TokenCounter,
) -> Result<Budget> {
    let expansion = request.expand(registry)?;
    estimate(
        &expansion,
        &effective_state(request),
        request.view,
        request.provider,
        counter,
    )
}

/// The exact texts a budget prices, for checking it: (provider array JSON, catalog text).
pub fn rendered_halves(
    expansion: &Expansion<'_>,
    state: &TurnState,
    view: View,
    provider: Provider,
) -> Result<(String, String)> {
    let payload = render::render(
        expansion,
        state,
        render::RenderOptions {
            provider,
            view,
            ..Default::default()
        },
    )?;
    let split = split_for_dispatch(expansion, state, view);
    Ok((
        payload.json,
        catalog_text(expansion.registry(), &split.catalog),
    ))
}

/// A readable table of a budget.
pub fn render_table(budget: &Budget) -> String {
    let width = budget
        .rows
        .iter()
        .map(|r| r.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let mut out = format!(
        "counter: {}   provider: {}\n\n",
        budget.counter,
        budget.provider.as_str()
    );
    out.push_str(&format!(
        "  {:<width$}  {:<9}  {:>7}  {:>13}\n",
        "tool", "placement", "tokens", "if resident"
    ));
    out.push_str(&format!(
        "  {:-<width$}  {:-<9}  {:->7}  {:->13}\n",
        "", "", "", ""
    ));
    for r in &budget.rows {
        out.push_str(&format!(
            "  {:<width$}  {:<9}  {:>7}  {:>13}\n",
            r.name,
            r.placement.as_str(),
            r.tokens,
            r.resident_tokens
        ));
    }
    out.push_str(&format!(
        "\nresident array  {:>7} tokens\ncatalog text    {:>7} tokens\ntotal           {:>7} tokens\nall resident    {:>7} tokens   (deferral saves {} tokens, {:.1}%)\n",
        budget.resident_tokens,
        budget.catalog_tokens,
        budget.resident_tokens + budget.catalog_tokens,
        budget.all_resident_tokens,
        budget.saving_tokens,
        budget.saving_percent()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expand::{expand, ExpandContext};
    use crate::intent::ToolsOverride;

    #[test]
    fn estimator_counts_simple_text_plausibly() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("hello"), 1);
        assert_eq!(estimate_tokens("hello world"), 2);
        assert_eq!(estimate_tokens("12345"), 2);
        assert!(estimate_tokens("additionalProperties") >= 2);
    }

    #[test]
    fn deferred_tools_are_priced_by_name_not_description() {
        let r = Registry::embedded();
        let e = expand(&r, &ToolsOverride::Follow, ExpandContext::default()).unwrap();
        let b = estimate(
            &e,
            &TurnState::default(),
            View::Live,
            Provider::Anthropic,
            &Estimator,
        )
        .unwrap();
        let pw = b
            .rows
            .iter()
            .find(|r| r.name == "playwright_browser")
            .unwrap();
        assert_eq!(pw.placement, Placement::Deferred);
        assert!(pw.tokens <= 4, "{pw:?}");
        assert!(pw.resident_tokens > 500, "{pw:?}");
        assert!(b.saving_tokens > 0);
    }

    #[test]
    fn exact_counter_needs_its_feature() {
        let r = counter(CounterKind::O200k);
        if cfg!(feature = "exact-tokens") {
            assert_eq!(r.unwrap().name(), "o200k_base");
        } else {
            assert_eq!(r.err().unwrap().code(), "invalid_argument");
        }
    }
}
