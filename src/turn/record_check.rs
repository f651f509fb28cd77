//! A stored conversation record is input: before it shapes a payload, a change block or
//! request fields, every part of it is checked against the registry versions this process
//! holds, and what can be rebuilt is rebuilt rather than believed.
//!
//! A record comes back from storage: restored from a backup, written by an older release,
//! edited by support staff, or carried through a client. Whatever it says, a turn plans
//! either what some valid record leads to, or fails (a member of the wrong type is an error
//! at its path, `ConversationTools::from_value`):
//! - **Rebuilt**: how a change block names a tool (`KnownTool::reference`) and the definition
//!   a declared entry stands for are derived again from the entry bytes and the registry,
//!   never read from the record — so no text of the record reaches `tool_choice`, a
//!   `tool_reference` or a removal unchecked.
//! - **Checked**: every declared entry must be exactly what a held registry version renders
//!   for its tool and this provider (with the `defer_loading` and `cache_control` flags the
//!   renderer adds), owned by exactly one known tool; every catalog name must be a tool of a
//!   held version. A declared tool the source's ceiling keeps out today, a record declared
//!   for another provider, and anything no held version renders are redeclared: the turn declares
//!   its tools as a first turn does (the array is rewritten, which a provider switch does to
//!   the cache anyway) and says why with `tool_changes_rewrite`. That is the plan a new
//!   session would get, so a forged or stale record never widens what is offered, never puts
//!   bytes the library did not render into a request, and never fails a session whose record
//!   is merely old.
//!
//! What the record says of the conversation's *history* (which tools were offered after the
//! last message, which the catalog listed) cannot be checked without the history: it only
//! decides which additions and removals the next message repeats or omits. Dispatch does not
//! read it ([`crate::Turn::resolve`] refuses any tool this turn does not offer), so an edit
//! there changes what a message says, never what the model may run.

use super::expand::{Expansion, ToolStatus};
use super::record::ConversationTools;
use crate::error::{quoted, Result};
use crate::provider::entry::{CACHE_CONTROL_FIELD, DEFER_LOADING_FIELD};
use crate::provider::Provider;
use crate::registry::Registry;
use crate::registry::{entry_keys, tool_entry};

/// Checks `record` for a turn on `expansion` for `provider`; `listed` is the turn's catalog,
/// sorted; `held` are the registry versions this process holds (the current one and its earlier
/// versions, the turn's among them). `Ok(Err(why))` when the record cannot be used as it is
/// and the turn declares again.
pub(crate) fn verify(
    mut record: ConversationTools,
    expansion: &Expansion,
    listed: &[&str],
    held: &[&Registry],
    provider: Provider,
) -> Result<std::result::Result<ConversationTools, String>> {
    if let Some(declared_for) = record.provider.filter(|p| *p != provider) {
        return Ok(Err(format!(
            "the conversation declared its tools for {}",
            declared_for.as_str()
        )));
    }
    let unverifiable = |name: &str| {
        Ok(Err(format!(
            "what the conversation was told of {} is not what any registry version this process holds renders",
            quoted(name)
        )))
    };
    // Every declared entry has one owner: each owner's entry is checked below to render that
    // owner's tool, so two owners of one entry fail there, and an entry nobody owns here.
    let owned = record
        .known
        .iter()
        .filter(|(_, t)| t.entry.is_some())
        .count();
    if owned != record.tools.len() {
        return unverifiable("the declared tools");
    }
    // A catalog name is a tool some held version has: the text of a change message lists it.
    // A name the turn's own catalog lists is one (the turn's version is held): a plain binary
    // search of the sorted names spares the registries' case-folded lookups, most of a
    // request's check at 1,000 tools.
    if let Some(name) = record.catalog.iter().find(|n| {
        listed.binary_search(&n.as_str()).is_err() && !held.iter().any(|v| v.index_of(n).is_some())
    }) {
        return unverifiable(name);
    }
    let tools = &record.tools;
    for (name, tool) in record.known.iter_mut() {
        // The newest held version that renders what the record says the conversation got.
        let mut found = None;
        for &version in held {
            let Some(i) = version.index_of(name) else {
                continue;
            };
            let base = tool_entry(version, i, provider)?;
            let deferred = match tool.entry {
                Some(k) => flags_over(&tools[k], base),
                None => Some(false),
            };
            if let Some(deferred) = deferred {
                found = Some((version, i, deferred));
                break;
            }
        }
        let Some((version, i, deferred)) = found else {
            return unverifiable(name);
        };
        if tool.entry.is_some() {
            let denied = expansion.registry().index_of(name).is_some_and(|i| {
                matches!(
                    expansion.status(i),
                    Some(ToolStatus::DeniedBySource | ToolStatus::Unavailable)
                )
            });
            if denied {
                return Ok(Err(format!(
                    "the conversation declared {}, which this request's ceiling keeps out",
                    quoted(name)
                )));
            }
            // Given by value in a message, a tool keeps the definition the message carried
            // (only ever compared with the current one, never sent).
            tool.definition = entry_keys(version, i, provider)?.fingerprint.clone();
            if deferred {
                tool.definition.push_str("+defer_loading");
            }
        }
        tool.reference = entry_keys(version, i, provider)?.reference.clone();
    }
    record.provider = Some(provider);
    Ok(Ok(record))
}

/// Whether `entry` is `base` with the flags the renderer splices in before its final `}`
/// (`crate::provider::entry::push_with_flags`): `Some(deferred)` when it is.
fn flags_over(entry: &str, base: &str) -> Option<bool> {
    let body = base.strip_suffix('}')?;
    let rest = entry.strip_prefix(body)?.strip_suffix('}')?;
    let (deferred, rest) = match rest.strip_prefix(DEFER_LOADING_FIELD) {
        Some(r) => (true, r),
        None => (false, rest),
    };
    (rest.is_empty() || rest == CACHE_CONTROL_FIELD).then_some(deferred)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_recognised_only_where_the_renderer_puts_them() {
        let base = r#"{"name":"a"}"#;
        assert_eq!(flags_over(base, base), Some(false));
        let deferred = r#"{"name":"a","defer_loading":true}"#;
        assert_eq!(flags_over(deferred, base), Some(true));
        let both = r#"{"name":"a","defer_loading":true,"cache_control":{"type":"ephemeral"}}"#;
        assert_eq!(flags_over(both, base), Some(true));
        assert_eq!(
            flags_over(&crate::provider::entry::with_cache_control(base), base),
            Some(false)
        );
        assert_eq!(flags_over(r#"{"name":"a","x":1}"#, base), None);
        assert_eq!(flags_over(r#"{"name":"ab"}"#, base), None);
    }
}
