//! Tool changes inside the conversation (`tool_changes: messages`): the `tools` array stays
//! what the session's first turn declared, and every later change of what the model is
//! offered — the intent (toggles, preset, allow/deny, web search), the registry (servers set,
//! replaced, removed) and the loads of `tool_search` — is a message the caller appends to the
//! conversation, right after the turn's newest user message (Anthropic, "Change tools or
//! instructions without failing the prefix check": a system message goes after the latest
//! user message; one directly after the assistant's turn is a 400). The prefix before it stays
//! cached, so a toggle costs its message's tokens instead of a rewrite of everything from the
//! tools on.
//!
//! What the first turn declares, per provider:
//! - **Anthropic**, **OpenAI Responses**: exactly the first turn's array; a tool offered
//!   later is added by reference when the conversation already knows its definition (it was
//!   declared, or added before), else by value (Anthropic `tool_definition` under the
//!   `inline-tools-2026-09-15` beta; Responses `additional_tools`). Nothing is declared for a
//!   "maybe later", so the prefix costs what the first turn offers.
//! - **Bedrock Converse**: every tool the session's ceiling could offer (all registry tools
//!   but those the source denies or the registry quarantines), because a `ToolReference` "must
//!   match the name of a tool declared in the top-level tool configuration" and nothing can be
//!   added by value; the first turn's message removes what it does not offer. Bedrock has no
//!   `defer_loading`, so those definitions are in the prefix (cached once, read every turn).
//!   A tool that joins the registry later cannot be referenced: at the turn boundary where it
//!   is first offered the array gains its entry at the end — a rewrite, which the plan reports
//!   with `tool_changes_rewrite`.
//!
//! `tool_changes: messages-by-reference` declares on every provider as Bedrock does, for a
//! model that takes references but not tools given by value (which models take Anthropic's
//! `inline-tools` beta is the caller's knowledge, not the library's); OpenAI Responses then
//! needs the whole ceiling within its 128 tools per request, or it is an error.
//!
//! A declared tool whose definition changed is replaced in place (a rewrite, reported); a tool
//! added by value whose definition changed keeps the definition it was given
//! (`tool_definition_kept`), since no provider documents replacing one. The array is only ever
//! edited at its end or in place, so every name an earlier change block used stays declared.
//!
//! A removal does not bind the model (the provider treats it as a hint: the model may still
//! call a tool it saw), so [`crate::Turn::resolve`] refuses a withdrawn tool (`tool_removed`) and `tool_search` no
//! longer finds it; the history is never rewritten (design note §4.3). OpenAI Responses has no
//! removal item: what is offered is the `allowed_tools` tool choice (`crate::provider::change_blocks`).
//!
//! ```
//! use tool_intent::provider::ToolChanges;
//! use tool_intent::{Registry, ToolsOverride, TurnRequest, TurnState};
//! let registry = Registry::embedded();
//! let request = |intent: &str, state: TurnState| -> tool_intent::Result<TurnRequest> {
//!     Ok(TurnRequest {
//!         tools_override: ToolsOverride::from_json_str(intent)?,
//!         state: registry.begin_turn(&state),
//!         tool_changes: ToolChanges::Messages,
//!         ..Default::default()
//!     })
//! };
//! // Turn 1: send `payload` as `tools`, append `changes` after the user's message, keep the state.
//! let turn = registry.turn(&request(r#"{"enabled":true}"#, TurnState::default())?)?;
//! let first = turn.plan()?;
//! // Turn 2, web search switched on: the same tools bytes, the change as a message.
//! let turn = registry.turn(&request(r#"{"enabled":true,"web_search":true}"#, turn.state().clone())?)?;
//! let second = turn.plan()?;
//! assert_eq!(second.payload, first.payload);
//! assert!(second.changes.contains(r#""type":"tool_addition""#));
//! assert!(second.betas().contains(&"inline-tools-2026-09-15"));
//! # Ok::<(), tool_intent::Error>(())
//! ```
//!
//! Modes: `catalog` — the catalog's changes go in the same message as text, so the system
//! prompt never changes either (the plan's catalog text is empty); and on Anthropic with
//! `messages`, `native-client` — deferred tools are declared with `defer_loading` (outside the
//! cached prefix), our `tool_search` answers with `tool_reference` blocks, and a deferred tool
//! new to the conversation is added by value with its flag (`BetaTool.defer_loading` is part
//! of the definition a `tool_definition` carries).

use crate::provider::change_blocks::{self, ChangeSet};

use super::payload::Payload;
use super::record::{stored_entry, ConversationTools, DeclaredEntry, KnownTool};
use super::record_check::DEFERRED_MARK;

use super::expand::{Expansion, ToolStatus};
use super::split::CATALOG_HEADER;
use crate::digest::fingerprint;
use crate::error::{quoted, Error, Result};
use crate::provider::entry::BEDROCK_CACHE_POINT;
use crate::provider::rules::max_tools;
use crate::provider::{DeferralMode, Provider, ToolChanges};
use crate::registry::Registry;
use crate::registry::{entry_keys, tool_entry};
use crate::warning::{Warning, WarningCode};

/// The first line of a later turn's catalog changes.
pub const CATALOG_ADDED: &str = "Deferred tools added to the catalog (not loaded yet; call tool_search with query \"select:<name>\" to load one):";
/// The line before the names a later turn takes out of the catalog.
pub const CATALOG_WITHDRAWN: &str =
    "Deferred tools withdrawn from the catalog (no longer available):";

/// The line before the names that left the catalog because they are offered in full now (a
/// `tool_search` load, or an intent that made them resident): they are not gone.
pub const CATALOG_NOW_OFFERED: &str =
    "Deferred tools now in your tools (no longer in the catalog; call them directly):";

/// A turn planned with change messages.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    /// What the turn sends as tools: the declared array with its fingerprint, the names this
    /// turn offers, no catalog text, and the request fields (OpenAI Responses `tool_choice`).
    pub(crate) payload: Payload,
    /// The items to append to the conversation, a JSON array ("" when nothing changed).
    pub(crate) items: String,
    /// The record after this turn's message (the turn moves it into its state).
    pub(crate) record: ConversationTools,
    pub(crate) warnings: Vec<Warning>,
}

/// An error (about `tool_changes`) when the provider or mode cannot take change messages:
/// `catalog` mode everywhere, and Anthropic's `native-client` with `messages` (its deferred
/// tools are declared with `defer_loading`, found by our `tool_search` as `tool_reference`
/// blocks, so a new deferred tool is added by value with its flag; there is no catalog).
pub fn check(provider: Provider, mode: DeferralMode, tool_changes: ToolChanges) -> Result<()> {
    if !matches!(
        provider,
        Provider::Anthropic | Provider::BedrockConverse | Provider::OpenAiResponses
    ) {
        return Err(Error::argument(
            "tool_changes",
            format!(
                "{} takes no tool changes inside the conversation, so {} cannot be used with it (use \"array\", or provider anthropic, bedrock-converse or openai-responses)",
                provider.as_str(),
                quoted(tool_changes.as_str())
            ),
        ));
    }
    let native_client = provider == Provider::Anthropic
        && mode == DeferralMode::NativeClient
        && tool_changes == ToolChanges::Messages;
    if mode != DeferralMode::Catalog && !native_client {
        return Err(Error::argument(
            "tool_changes",
            format!(
                "{} works with mode catalog (and on anthropic, \"messages\" with mode native-client), not mode {} on {} (use mode catalog, or \"array\")",
                quoted(tool_changes.as_str()),
                mode.as_str(),
                provider.as_str()
            ),
        ));
    }
    Ok(())
}

/// One offered tool of this turn: its registry position and name, and its array entry
/// (`render::tool_entry`, with `"defer_loading":true` when deferred, `native-client`).
pub(crate) struct Offer<'a> {
    pub(crate) index: usize,
    pub(crate) name: &'a str,
    pub(crate) entry: DeclaredEntry<'a>,
}

/// The definition a tool's entry stands for: its fingerprint without flags (memoized per
/// registry, so a turn does not hash every offered tool again), marked when the entry is
/// declared deferred (the flag is part of what the provider was given).
fn definition_of(
    registry: &Registry,
    index: usize,
    provider: Provider,
    deferred: bool,
) -> Result<String> {
    let fingerprint = &entry_keys(registry, index, provider)?.fingerprint;
    Ok(if deferred {
        format!("{fingerprint}{DEFERRED_MARK}")
    } else {
        fingerprint.to_string()
    })
}

/// Where and how a conversation's changes are sent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target {
    pub(crate) provider: Provider,
    pub(crate) cache_control: bool,
    /// Whether a change message may give a tool by value (`tool_changes: messages` on
    /// Anthropic and OpenAI Responses); otherwise it only names declared tools.
    pub(crate) by_value: bool,
    /// Whether deferred tools are declared with `defer_loading` (Anthropic `native-client`).
    pub(crate) declares_deferred: bool,
}

impl Target {
    /// The target of a request.
    pub(crate) fn of(
        provider: Provider,
        mode: DeferralMode,
        tool_changes: ToolChanges,
        cache_control: bool,
    ) -> Target {
        Target {
            provider,
            cache_control,
            by_value: tool_changes == ToolChanges::Messages
                && provider != Provider::BedrockConverse,
            declares_deferred: mode.declares_deferred(),
        }
    }
}

/// The first declaration: what the `tools` array holds for the rest of the conversation,
/// the record and the entries.
fn declare<'a>(
    expansion: &'a Expansion,
    offers: &[Offer<'a>],
    refused: &dyn Fn(usize) -> bool,
    target: Target,
) -> Result<(ConversationTools, Vec<DeclaredEntry<'a>>)> {
    let registry = expansion.registry();
    let provider = target.provider;
    let mut declared: Vec<(usize, DeclaredEntry<'a>)> = Vec::new();
    if target.by_value {
        for offer in offers {
            declared.push((offer.index, offer.entry));
        }
    } else {
        // Every tool the session's ceiling lets some intent offer.
        for i in 0..registry.len() {
            let offerable = !matches!(
                expansion.status(i),
                None | Some(ToolStatus::DeniedBySource | ToolStatus::Unavailable)
            );
            if offerable && !refused(i) {
                let base = tool_entry(registry, i, provider)?;
                declared.push((
                    i,
                    DeclaredEntry {
                        base,
                        deferred: false,
                        cache_control: false,
                    },
                ));
            }
        }
        if let Some(max) = max_tools(provider).filter(|&m| declared.len() > m) {
            return Err(Error::argument(
                "tool_changes",
                format!(
                    "{} takes at most {max} tools per request, and naming tools only by reference declares every tool this session could be offered: {} (use \"messages\", which adds tools as they are offered, or narrow the source's ceiling)",
                    provider.as_str(),
                    declared.len()
                ),
            ));
        }
    }
    // Anthropic's breakpoint goes on the last tool not deferred (it refuses one on a
    // deferred tool), as `render_split` puts it.
    if target.cache_control && provider == Provider::Anthropic {
        if let Some((_, last)) = declared.iter_mut().rev().find(|(_, e)| !e.deferred) {
            last.cache_control = true;
        }
    }
    let mut record = ConversationTools {
        provider: Some(provider),
        ..ConversationTools::default()
    };
    let mut entries = Vec::with_capacity(declared.len());
    for (k, (index, entry)) in declared.into_iter().enumerate() {
        let name = registry.name(index).to_string();
        record.tools.push(stored_entry(&name, entry));
        record.known.insert(
            name.clone(),
            KnownTool {
                definition: definition_of(registry, index, provider, entry.deferred)?,
                reference: entry_keys(registry, index, provider)?.reference.clone(),
                entry: Some(k),
            },
        );
        record.offered.push(name);
        entries.push(entry);
    }
    record.offered = crate::sort::sorted_unique(&record.offered);
    Ok((record, entries))
}

/// Plans the turn's change message against the conversation's record (`None` on its first
/// turn in this mode): `offers` are the tools a fresh plan of this turn offers (array order),
/// `catalog` the deferred tools its catalog lists (registry order).
/// The stored record is checked first (`verify.rs`, against the `held` registry versions):
/// one that cannot be used as it is leaves the turn to declare again.
pub(crate) fn plan<'a>(
    expansion: &'a Expansion,
    offers: &[Offer<'a>],
    catalog: &[&str],
    record: Option<ConversationTools>,
    held: &[&'a Registry],
    refused: &dyn Fn(usize) -> bool,
    target: Target,
) -> Result<Outcome> {
    let provider = target.provider;
    // The turn's catalog, sorted: the record's check and the catalog's changes both read it.
    let listed = crate::sort::sorted_unique_refs(catalog);
    let (record, redeclared) = match record {
        None => (None, None),
        Some(stored) => {
            let deferrable = target.declares_deferred;
            match super::record_check::verify(
                stored, expansion, &listed, held, provider, deferrable,
            )? {
                Ok(checked) => (Some(checked), None),
                Err(why) => (None, Some(why)),
            }
        }
    };
    let first = record.is_none();
    let (mut record, mut entries) = match record {
        Some(checked) => checked,
        None => declare(expansion, offers, refused, target)?,
    };
    let mut set = ChangeSet::default();
    let mut rewrites: Vec<String> = Vec::new();
    let mut kept: Vec<&str> = Vec::new();
    // Both name lists sorted (`record.offered` is kept sorted), looked up by binary search.
    let was_offered = std::mem::take(&mut record.offered);
    let mut offered: Vec<&str> = offers.iter().map(|o| o.name).collect();
    crate::sort::sort_names(&mut offered);
    let is_in = |list: &[&str], name: &str| list.binary_search(&name).is_ok();
    let by_reference = provider != Provider::OpenAiResponses;
    for offer in offers {
        let definition = definition_of(
            expansion.registry(),
            offer.index,
            provider,
            offer.entry.deferred,
        )?;
        let newly = was_offered
            .binary_search_by(|n| n.as_str().cmp(offer.name))
            .is_err();
        match record.known.get_mut(offer.name) {
            None => {
                let entry = if !target.by_value {
                    // Not declared, and nothing is added by value (Bedrock cannot; or the
                    // caller said so): the array gains it at its end. A declared tool is
                    // offered until a removal names it, and none has.
                    record.tools.push(stored_entry(offer.name, offer.entry));
                    entries.push(offer.entry);
                    rewrites.push(format!(
                        "{} joined after the first turn",
                        quoted(offer.name)
                    ));
                    Some(record.tools.len() - 1)
                } else {
                    let mut definition = String::new();
                    offer.entry.push_to(&mut definition);
                    set.added_by_value.push(definition);
                    None
                };
                record.known.insert(
                    offer.name.to_string(),
                    KnownTool {
                        definition,
                        reference: entry_keys(expansion.registry(), offer.index, provider)?
                            .reference
                            .clone(),
                        entry,
                    },
                );
            }
            Some(known) => {
                if known.definition != definition {
                    match known.entry {
                        Some(k) => {
                            // The breakpoint stays where the first turn put it, unless the
                            // tool is deferred now: Anthropic refuses `cache_control` on a
                            // deferred tool (a 400), as `declare` knows. (`k` is a position in
                            // the array: a record read back is held to it.)
                            let entry = DeclaredEntry {
                                cache_control: entries[k].cache_control && !offer.entry.deferred,
                                ..offer.entry
                            };
                            entries[k] = entry;
                            record.tools[k] = stored_entry(offer.name, entry);
                            known.definition = definition;
                            rewrites
                                .push(format!("the definition of {} changed", quoted(offer.name)));
                        }
                        None => kept.push(offer.name),
                    }
                }
                if newly && by_reference {
                    set.added_by_reference.push(known.reference.clone());
                }
            }
        }
    }
    if by_reference {
        for name in was_offered.iter().filter(|n| !is_in(&offered, n)) {
            if let Some(known) = record.known.get(name) {
                set.removed.push(known.reference.clone());
            }
        }
    }
    record.offered = crate::sort::owned(&offered);
    // The catalog's changes, as text.
    if first {
        if !catalog.is_empty() {
            set.text = format!("{CATALOG_HEADER}\n{}\n", crate::text::join(catalog, "\n"));
        }
    } else {
        // Both lists sorted: one walk finds what joined and what left (names in order).
        let (mut added, mut withdrawn): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
        let (mut now, mut before) = (listed.iter().peekable(), record.catalog.iter().peekable());
        loop {
            match (now.peek(), before.peek()) {
                (Some(a), Some(b)) if **a < b.as_str() => added.extend(now.next().copied()),
                (Some(a), Some(b)) if **a > b.as_str() => {
                    withdrawn.extend(before.next().map(String::as_str))
                }
                (Some(_), Some(_)) => {
                    now.next();
                    before.next();
                }
                (Some(_), None) => added.extend(now.next().copied()),
                (None, Some(_)) => withdrawn.extend(before.next().map(String::as_str)),
                (None, None) => break,
            }
        }
        if !added.is_empty() {
            set.text = format!("{CATALOG_ADDED}\n{}\n", crate::text::join(&added, "\n"));
        }
        // A name that left the catalog because it is offered now was loaded (or made
        // resident), not withdrawn: its addition block says so, and the text must not call
        // it gone.
        let (now_offered, withdrawn): (Vec<&str>, Vec<&str>) =
            withdrawn.into_iter().partition(|n| is_in(&offered, n));
        if !now_offered.is_empty() {
            set.text.push_str(&format!(
                "{CATALOG_NOW_OFFERED}\n{}\n",
                crate::text::join(&now_offered, "\n")
            ));
        }
        if !withdrawn.is_empty() {
            set.text.push_str(&format!(
                "{CATALOG_WITHDRAWN}\n{}\n",
                crate::text::join(&withdrawn, "\n")
            ));
        }
    }
    record.catalog = crate::sort::owned(&listed);
    if provider == Provider::OpenAiResponses && record.known.len() > record.offered.len() {
        set.allowed = Some(
            record
                .offered
                .iter()
                .filter_map(|n| record.known.get(n).map(|k| k.reference.clone()))
                .collect(),
        );
    }
    let (items, request_fields) = change_blocks::render(provider, &set);
    let mut warnings = Vec::new();
    if let Some(why) = redeclared {
        warnings.push(Warning::new(
            WarningCode::ToolChangesRewrite,
            "state",
            format!(
                "{why}, so the tools array is declared again for {} as on a first turn, rewriting the cache from the tools on (change messages sent before it name the earlier declaration)",
                provider.as_str()
            ),
        ));
    }
    if !rewrites.is_empty() {
        warnings.push(Warning::new(
            WarningCode::ToolChangesRewrite,
            "tool_changes",
            format!(
                "{} cannot be said inside the conversation on {}: the tools array changed at this turn boundary, rewriting the cache from the tools on",
                crate::text::join(&rewrites, "; "),
                provider.as_str()
            ),
        ));
    }
    if !kept.is_empty() {
        warnings.push(Warning::new(
            WarningCode::ToolDefinitionKept,
            "tool_changes",
            format!(
                "the definition of {} changed after the conversation added it by value; the model keeps the one it was given (dispatch resolves the current one)",
                crate::error::some_names(&kept)
            ),
        ));
    }
    let trailer = (target.cache_control && provider == Provider::BedrockConverse)
        .then_some(BEDROCK_CACHE_POINT);
    let tools = declared_array(&entries, trailer);
    Ok(Outcome {
        payload: Payload {
            fingerprint: fingerprint(tools.as_bytes()),
            json: tools,
            catalog: String::new(),
            array: offers.iter().map(|o| o.name.to_string()).collect(),
            request_fields,
        },
        items,
        record,
        warnings,
    })
}

/// The `tools` array the conversation declared, as sent: its entries, then Bedrock's
/// `cachePoint` when asked for.
fn declared_array(entries: &[DeclaredEntry<'_>], trailer: Option<&str>) -> String {
    let mut out = String::from("[");
    for (k, entry) in entries.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        entry.push_to(&mut out);
    }
    if let Some(trailer) = trailer {
        if !entries.is_empty() {
            out.push(',');
        }
        out.push_str(trailer);
    }
    out.push(']');
    out
}
