//! Token budget of the tool array: what each tool costs on the wire, half by half.
//!
//! The budget prices exactly what is sent (`docs/contract.md`, "Budget"):
//! - a **resident** tool costs the tokens of its rendered array entry (name + description +
//!   schema + the provider's wrapper) plus [`separator_overhead`] for the separator; the
//!   array adds [`array_overhead`] for its brackets (and Gemini's wrapper);
//! - a **deferred** tool costs its bare name plus a newline, as in the catalog text; the
//!   catalog adds its header line once.
//!
//! Pricing a deferred tool by its description would overstate the catalog by an order of
//! magnitude; pricing a resident tool by its schema alone would understate the array by
//! thousands of tokens. The two errors point in opposite directions and can hide each other
//! in a plausible total, so the tests check each half separately against the exact o200k
//! count of the real rendered bytes.
//!
//! Overheads: rendering the whole array and counting it exactly gives, on every registry we
//! measured, Σ(count of each entry) − (n−1) ± 1 — each entry's leading `{"` merges with the
//! separator `,` into one token (`,{"`), so a separator costs nothing extra and the
//! brackets cost about one token. Where an entry ends `…false}` and the next begins `{"type"`
//! (OpenAI Responses, whose entries end with `"strict":false`), the separator merges one token
//! further, so it costs −1; OpenAI Chat entries end `false}}` and do not. Gemini's wrapper
//! `[{"functionDeclarations":[` … `]}]` costs 7 tokens where the brackets cost 1. These are
//! measured values (o200k); `tests/budget.rs` re-checks them against the real payloads of every
//! provider, to one token.

use std::sync::OnceLock;

use serde::Serialize;

use super::expand::Expansion;
use super::split::{Split, CATALOG_HEADER};
use crate::counter::{CounterKind, TokenCounter};
use crate::error::Result;
use crate::provider::entry;
use crate::provider::{DeferralMode, Provider};
use crate::registry::{tool_entry, Memo, MemoSlot, Registry, TOOL_SEARCH};

/// Tokens each `,` separator adds between two rendered entries (measured with o200k).
pub fn separator_overhead(provider: Provider) -> i64 {
    match provider {
        Provider::OpenAiResponses => -1,
        Provider::Anthropic
        | Provider::OpenAiChat
        | Provider::BedrockConverse
        | Provider::Gemini => 0,
    }
}

/// Tokens the array adds once: `[` and `]`, or Gemini's `[{"functionDeclarations":[` … `]}]`
/// (measured with o200k).
pub fn array_overhead(provider: Provider) -> i64 {
    match provider {
        Provider::Gemini => 7,
        _ => 1,
    }
}

/// Where a tool's tokens go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// In the array every turn.
    Resident,
    /// Loaded by `tool_search`, in the array from the next turn on.
    Promoted,
    /// A name in the catalog.
    Deferred,
}

impl Placement {
    /// The wire name (`resident`, `promoted`, `deferred`).
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
    /// The tool.
    pub name: String,
    /// Where it is this turn.
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
    /// The counter's name (`estimate`, `o200k_base`, `cl100k_base`).
    pub counter: &'static str,
    /// The wrapper the entries were rendered for.
    pub provider: Provider,
    /// Tools in array order, then catalog tools in catalog order.
    pub rows: Vec<BudgetRow>,
    /// The provider array (resident + promoted tools, brackets included).
    pub resident_tokens: usize,
    /// The catalog text (header + one line per deferred tool); 0 when nothing is deferred.
    pub catalog_tokens: usize,
    /// The array if every available tool were resident (no `tool_search`, no catalog).
    pub all_resident_tokens: usize,
    /// `all_resident_tokens − (resident_tokens + catalog_tokens)`: negative when deferral
    /// costs more than it saves (a few small deferred tools outweighed by the catalog and
    /// `tool_search`).
    pub saving_tokens: i64,
    /// With `tool_changes: messages`: the `tools` array the conversation declared, which is
    /// what every request of it sends (on Bedrock Converse every tool the session could be
    /// offered). `resident_tokens` and `catalog_tokens` stay what this turn offers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_tokens: Option<usize>,
    /// With `tool_changes: messages`: this turn's change message (0 when nothing changed);
    /// it stays in the conversation, so every later request carries it too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes_tokens: Option<usize>,
}

impl Budget {
    /// The saving as a percentage of `all_resident_tokens`.
    pub fn saving_percent(&self) -> f64 {
        if self.all_resident_tokens == 0 {
            0.0
        } else {
            100.0 * self.saving_tokens as f64 / self.all_resident_tokens as f64
        }
    }
}

fn with_overhead(sum: usize, count: usize, provider: Provider) -> usize {
    if count == 0 {
        return 0;
    }
    let separators = count as i64 - 1;
    let total = sum as i64 + separator_overhead(provider) * separators + array_overhead(provider);
    total.max(0) as usize
}

/// Token counts of each tool's rendered entry per (counter, provider), filled on first use
/// and kept with the registry (counts of built-in counters are pure).
pub(crate) struct TokenCache(Vec<[[OnceLock<usize>; Provider::ALL.len()]; CounterKind::ALL.len()]>);

impl Memo for TokenCache {
    const SLOT: MemoSlot = MemoSlot::TokenCounts;
}

impl TokenCache {
    fn cell(
        registry: &Registry,
        index: usize,
        kind: CounterKind,
        provider: Provider,
    ) -> Option<&OnceLock<usize>> {
        registry
            .memo(|r| TokenCache((0..r.len()).map(|_| Default::default()).collect()))?
            .0
            .get(index)
            .map(|per_counter| &per_counter[kind.index()][provider.index()])
    }
}

/// Prices what a mode actually sends. `catalog`: the array (resident + promoted tools) and
/// the catalog text. `native` / `native-client`: the providers bill a `defer_loading`
/// definition only once it is loaded, so deferred rows cost 0 and there is no catalog; the
/// resident tools, the loaded (promoted) ones and the search tool that is declared — the
/// provider's own in `native`, ours in `native-client` — are counted.
pub(crate) fn estimate(
    expansion: &Expansion,
    split: &Split,
    provider: Provider,
    mode: DeferralMode,
    counter: &dyn TokenCounter,
) -> Result<Budget> {
    let mut budget = estimate_catalog(expansion, split, provider, counter)?;
    if !mode.declares_deferred() {
        return Ok(budget);
    }
    let mut array_sum = 0usize;
    let mut array_count = 0usize;
    for row in &mut budget.rows {
        if row.placement == Placement::Deferred {
            row.tokens = 0;
            continue;
        }
        if mode == DeferralMode::Native && row.name == TOOL_SEARCH {
            // The provider's search tool is declared instead of ours.
            row.tokens = counter.count(&entry::provider_search(provider, false)?);
        }
        array_sum += row.tokens;
        array_count += 1;
    }
    budget.resident_tokens = with_overhead(array_sum, array_count, provider);
    budget.catalog_tokens = 0;
    budget.saving_tokens = budget.all_resident_tokens as i64 - budget.resident_tokens as i64;
    Ok(budget)
}

fn estimate_catalog(
    expansion: &Expansion,
    split: &Split,
    provider: Provider,
    counter: &dyn TokenCounter,
) -> Result<Budget> {
    let registry = expansion.registry();
    // `split` is the turn's provider split: the tools the provider refuses are not sent, so
    // they cost nothing.
    let price = |i: usize| -> Result<usize> {
        let count = || Ok(counter.count(tool_entry(registry, i, provider)?));
        match counter.kind() {
            Some(kind) => {
                TokenCache::cell(registry, i, kind, provider).map_or_else(count, |cell| match cell
                    .get()
                {
                    Some(n) => Ok(*n),
                    None => {
                        let n = count()?;
                        Ok(*cell.get_or_init(|| n))
                    }
                })
            }
            None => count(),
        }
    };
    let mut rows = Vec::new();
    let mut array_sum = 0usize;
    for &i in &split.array {
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
    let resident_tokens = with_overhead(array_sum, split.array.len(), provider);
    let tool_search = registry.index_of(TOOL_SEARCH);
    let mut all_sum = 0usize;
    let mut all_count = 0usize;
    for row in &rows {
        if tool_search.is_some_and(|ts| registry.tools()[ts].name == row.name) {
            continue;
        }
        all_sum += row.resident_tokens;
        all_count += 1;
    }
    let all_resident_tokens = with_overhead(all_sum, all_count, provider);
    Ok(Budget {
        counter: counter.name(),
        provider,
        rows,
        resident_tokens,
        catalog_tokens,
        all_resident_tokens,
        saving_tokens: all_resident_tokens as i64 - (resident_tokens + catalog_tokens) as i64,
        declared_tokens: None,
        changes_tokens: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::Estimator;
    use crate::intent::ToolsOverride;
    use crate::turn::expand::{expand, ExpandContext};
    use crate::turn::{split, TurnState, View};

    #[test]
    fn deferred_tools_are_priced_by_name_not_description() {
        let r = Registry::embedded();
        let e = expand(&r, &ToolsOverride::Follow, ExpandContext::default()).unwrap();
        let split = split(&e, &TurnState::default(), View::Live);
        let b = estimate(
            &e,
            &split,
            Provider::Anthropic,
            DeferralMode::Catalog,
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
        let again = estimate(
            &e,
            &split,
            Provider::Anthropic,
            DeferralMode::Catalog,
            &Estimator,
        )
        .unwrap();
        assert_eq!(again, b, "cached counts equal fresh ones");
    }
}
