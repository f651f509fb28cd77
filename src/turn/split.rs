//! The turn's split: one expansion's tools by where they go (array, catalog, promoted), and
//! the same split for a provider — the tools it refuses left out and the descriptions it
//! shortens, each with its warning. A [`crate::Turn`] makes its provider split once, when it
//! is made; the plan, the change message, `tool_search` and the budget read that one.

use std::borrow::Cow;
use std::sync::OnceLock;

use super::expand::Expansion;
use super::state::{TurnState, View};
use crate::error::{quoted, Error, Result};
use crate::provider::rules::{refusal, shortened, Refusal, OPENAI_MAX_DESCRIPTION};
use crate::provider::{DeferralMode, Provider};
use crate::registry::{Memo, MemoSlot, Registry, ToolSet};
use crate::warning::{Warning, WarningCode};

/// One turn's tools by where they go, as registry positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// The provider array in catalog mode: resident tools in registry order, then promoted
    /// tools in load order.
    pub array: Vec<usize>,
    /// Deferred tools not promoted, in registry order: the catalog's names.
    pub catalog: Vec<usize>,
    /// The promoted tools (a suffix of `array`), in load order.
    pub promoted: Vec<usize>,
}

/// Splits an expansion into array, catalog and promoted tools for a turn state.
pub fn split(expansion: &Expansion, state: &TurnState, view: View) -> Split {
    let registry = expansion.registry();
    let mut array: Vec<usize> = expansion.resident().collect();
    let mut promoted = Vec::new();
    let mut is_promoted = ToolSet::empty(registry.len());
    for name in state.loaded_for(view) {
        if let Some(i) = registry.index_of(name) {
            if expansion.is_deferred(i) && !is_promoted.contains(i) {
                is_promoted.insert(i);
                promoted.push(i);
            }
        }
    }
    array.extend(promoted.iter().copied());
    let catalog = expansion
        .deferred()
        .filter(|i| !is_promoted.contains(*i))
        .collect();
    Split {
        array,
        catalog,
        promoted,
    }
}

/// The first line of the catalog text.
pub const CATALOG_HEADER: &str = "Deferred tools (not loaded yet). To use one, call tool_search with query \"select:<name>\" to load its schema, then call it:";

/// The catalog text placed in the system prompt: a header, then one bare name per line. The
/// empty string when nothing is deferred. This exact string is what the budget counts.
pub fn catalog_text(registry: &Registry, catalog: &[usize]) -> String {
    if catalog.is_empty() {
        return String::new();
    }
    let mut text = String::with_capacity(CATALOG_HEADER.len() + 2 + catalog.len() * 24);
    text.push_str(CATALOG_HEADER);
    text.push('\n');
    // A run of positions at a time (`Registry::push_name_lines`).
    registry.push_name_lines(catalog, &mut text);
    text.push('\n');
    text
}

/// Assembles a system prompt from the caller's own text and the catalog (for tests and
/// previews; a server normally has its own assembler and calls [`catalog_text`]).
pub fn system_prompt_with_catalog(base: &str, catalog_text: &str) -> String {
    if catalog_text.is_empty() {
        base.to_string()
    } else if base.is_empty() {
        catalog_text.to_string()
    } else {
        format!("{base}\n\n{catalog_text}")
    }
}

/// What a provider makes of one registry tool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Judgement {
    /// Why the provider refuses it, if it does.
    pub(crate) refusal: Option<Refusal>,
    /// Whether its description is shortened for the provider.
    pub(crate) shortened: bool,
}

/// Per registry and provider: every tool's judgement (by registry position).
pub(crate) struct ProviderRules([OnceLock<Vec<Judgement>>; Provider::ALL.len()]);

impl Memo for ProviderRules {
    const SLOT: MemoSlot = MemoSlot::ProviderRules;
}

/// Every registry tool's judgement for a provider, made once per registry and provider (the
/// planned turns, `tool_search` and `check` only read it).
pub(crate) fn judgements(registry: &Registry, provider: Provider) -> Cow<'_, [Judgement]> {
    let judge = || -> Vec<Judgement> {
        registry
            .tools()
            .iter()
            .map(|t| Judgement {
                refusal: refusal(&t.name, t.parameters(), provider),
                shortened: shortened(&t.description, provider),
            })
            .collect()
    };
    match registry.memo(|_| ProviderRules(Default::default())) {
        Some(rules) => Cow::Borrowed(rules.0[provider.index()].get_or_init(judge)),
        None => Cow::Owned(judge()),
    }
}

/// A turn's split for one provider: the tools it refuses left out (their warnings), and the
/// descriptions it gets shortened (their warnings). `refused(i)` tells the renderer and
/// `tool_search` what to leave out.
#[derive(Debug, Clone)]
pub(crate) struct ProviderSplit {
    pub(crate) split: Split,
    pub(crate) warnings: Vec<Warning>,
    refused: ToolSet,
}

impl ProviderSplit {
    /// Whether the provider refuses the tool at a registry position.
    pub(crate) fn refused(&self, index: usize) -> bool {
        self.refused.contains(index)
    }
}

/// Splits a turn for a provider (see [`ProviderSplit`]).
pub(crate) fn split_for(
    expansion: &Expansion,
    state: &TurnState,
    view: View,
    provider: Provider,
    mode: DeferralMode,
) -> Result<ProviderSplit> {
    let registry = expansion.registry();
    let judgements = judgements(registry, provider);
    // One judgement per registry tool, by position (`judgements` maps `registry.tools()`), and
    // every expansion index is a position of that registry: a gap is a bug, not "not refused".
    if judgements.len() != registry.len() {
        return Err(Error::internal(
            "the provider's judgements do not cover the registry",
        ));
    }
    let unjudged = Judgement::default();
    let judged = |i: usize| judgements.get(i).unwrap_or(&unjudged);
    let origin = format!("provider:{}", provider.as_str());
    let mut warnings = Vec::new();
    let mut refused = ToolSet::empty(registry.len());
    for i in expansion.tools() {
        let Some(r) = &judged(i).refusal else {
            continue;
        };
        refused.insert(i);
        if let Some(tool) = registry.tool(i) {
            warnings.push(Warning::new(
                WarningCode::ProviderRefusedTool,
                origin.clone(),
                format!(
                    "{} is left out of the {} payload: {} (rule {})",
                    quoted(&tool.name),
                    provider.as_str(),
                    r.why,
                    r.rule
                ),
            ));
        }
    }
    let keep = |i: &usize| !refused.contains(*i);
    let mut split = split(expansion, state, view);
    split.array.retain(keep);
    split.catalog.retain(keep);
    split.promoted.retain(keep);
    // What the provider reads in full: the array, or every declared tool in native modes.
    let declared: Box<dyn Iterator<Item = usize> + '_> = match mode {
        DeferralMode::Catalog => Box::new(split.array.iter().copied()),
        DeferralMode::Native | DeferralMode::NativeClient => {
            Box::new(expansion.tools().filter(keep))
        }
    };
    for tool in declared
        .filter(|&i| judged(i).shortened)
        .filter_map(|i| registry.tool(i))
    {
        warnings.push(Warning::new(
            WarningCode::DescriptionShortened,
            origin.clone(),
            format!(
                "{}'s description of {} characters is shortened to {OPENAI_MAX_DESCRIPTION} for {} (rule description_length; the full text is in the registry and in tool_search results)",
                quoted(&tool.name),
                // UTF-16 units, as the limit counts them (and JS's `length`).
                tool.description.encode_utf16().count(),
                provider.as_str()
            ),
        ));
    }
    Ok(ProviderSplit {
        split,
        warnings,
        refused,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::record_loaded;

    #[test]
    fn catalog_text_is_empty_without_deferred_tools() {
        let r = Registry::embedded();
        assert_eq!(catalog_text(&r, &[]), "");
        let i = r.index_of("memory").unwrap();
        let text = catalog_text(&r, &[i]);
        assert_eq!(text, format!("{CATALOG_HEADER}\nmemory\n"));
    }

    #[test]
    fn promoted_tools_follow_the_resident_ones_in_load_order() {
        let r = Registry::embedded();
        let e = crate::turn::expand::expand(&r, &Default::default(), Default::default()).unwrap();
        let s = r.begin_turn(
            &record_loaded(&TurnState::default(), &["send_message", "enter_plan_mode"]).unwrap(),
        );
        let split = split(&e, &s, View::Frozen);
        let names: Vec<&str> = split.promoted.iter().map(|&i| r.name(i)).collect();
        assert_eq!(names, ["send_message", "enter_plan_mode"]);
        assert!(split.array.ends_with(&split.promoted));
        assert!(!split.catalog.iter().any(|i| split.promoted.contains(i)));
    }
}
