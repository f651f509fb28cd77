//! A stored conversation record is input: before it shapes a payload, a change block or
//! request fields, every part of it is checked against the registry versions this process
//! holds, and what can be rebuilt is rebuilt rather than believed.
//!
//! A record comes back from storage: restored from a backup, written by an older release,
//! edited by support staff, or carried through a client. Whatever it says, a turn plans
//! either what some valid record leads to, or fails (a member of the wrong type is an error
//! at its path, `ConversationTools::from_value`):
//! - **Rebuilt**: a declared entry stored by name is rendered again by the held version whose
//!   rendering of that tool has the recorded definition, and how a change block names a tool
//!   (`KnownTool::reference`) is derived again from the registry, never read from the record —
//!   so no text of the record reaches the `tools` array, `tool_choice`, a `tool_reference` or
//!   a removal.
//! - **Checked**: every declared entry is owned by exactly one known tool and is its tool's, by
//!   name or, stored as bytes, exactly what a held registry version renders for it and this
//!   provider (the definition is then derived from the bytes); flags only where the renderer
//!   puts them (Anthropic's `cache_control`, and `defer_loading` on a turn that declares
//!   deferred tools); every catalog name must be a tool of a held version. A declared tool the source's ceiling keeps out today, a record declared
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
use super::record::{holds_bytes, stored_entry, ConversationTools, DeclaredEntry};
use crate::error::{quoted, Result};
use crate::provider::entry::{CACHE_CONTROL_FIELD, DEFER_LOADING_FIELD};
use crate::provider::Provider;
use crate::registry::Registry;
use crate::registry::{entry_keys, tool_entry};

/// How a known tool's definition says its declared entry carries `defer_loading`.
pub(crate) const DEFERRED_MARK: &str = "+defer_loading";

/// A checked record and its declared entries, rendered (what the `tools` array sends).
pub(crate) type Checked<'r> = (ConversationTools, Vec<DeclaredEntry<'r>>);

/// Checks `record` for a turn on `expansion` for `provider`; `listed` is the turn's catalog,
/// sorted; `held` are the registry versions this process holds (the current one and its earlier
/// versions, the turn's among them); `deferrable` whether this turn declares deferred tools
/// with `defer_loading` (Anthropic native-client). Returns the record, its declared entries
/// stored by name where they can be (`record::stored_entry`), with the entries' bytes;
/// `Ok(Err(why))` when the record cannot be used as it is and the turn declares again.
pub(crate) fn verify<'r>(
    mut record: ConversationTools,
    expansion: &Expansion,
    listed: &[&str],
    held: &[&'r Registry],
    provider: Provider,
    deferrable: bool,
) -> Result<std::result::Result<Checked<'r>, String>> {
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
    // Every declared entry has one owner: each owner's entry is checked below to be that
    // owner's tool (by name, or by the bytes its tool renders), and a second owner of an
    // entry (so one left without) fails there.
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
    // Only Anthropic's entries carry flags: the `cache_control` breakpoint, and
    // `defer_loading` where the turn declares deferred tools (native-client, which
    // `tool_changes::check` allows on Anthropic alone; a catalog turn lists them by name
    // instead, `crate::provider`, *Deferral modes*). On another provider a flag is a field its
    // API refuses.
    let flagged = provider == Provider::Anthropic;
    // No rendered entry is empty: an empty base marks a slot no owner has filled yet.
    let unfilled = DeclaredEntry {
        base: "",
        deferred: false,
        cache_control: false,
    };
    let mut entries = vec![unfilled; record.tools.len()];
    let tools = &mut record.tools;
    for (name, tool) in record.known.iter_mut() {
        // The newest held version that renders what the record says the conversation got,
        // with the tool's position there and the entry's flags (deferred, cache_control).
        let mut found = None;
        for &version in held {
            let Some(i) = version.index_of(name) else {
                continue;
            };
            let flags = match tool.entry {
                // Stored by name: the version whose rendering has the recorded definition.
                Some(k) if !holds_bytes(&tools[k]) => {
                    let fingerprint = tool.definition.strip_suffix(DEFERRED_MARK);
                    let wanted = fingerprint.unwrap_or(&tool.definition);
                    (tools[k] == *name && entry_keys(version, i, provider)?.fingerprint == wanted)
                        .then_some((fingerprint.is_some(), false))
                }
                // Stored as bytes: the version whose rendering they are, flags aside.
                Some(k) => flags_over(&tools[k], tool_entry(version, i, provider)?),
                None => Some((false, false)),
            };
            // Never both: Anthropic refuses `cache_control` on a deferred tool.
            if let Some(flags) =
                flags.filter(|&(d, c)| (deferrable || !d) && (flagged || !c) && !(d && c))
            {
                found = Some((version, i, flags));
                break;
            }
        }
        let Some((version, i, (deferred, cache_control))) = found else {
            return unverifiable(name);
        };
        let keys = entry_keys(version, i, provider)?;
        if let Some(k) = tool.entry {
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
            let entry = DeclaredEntry {
                base: tool_entry(version, i, provider)?,
                deferred,
                cache_control,
            };
            if !entries[k].base.is_empty() {
                return unverifiable(name);
            }
            entries[k] = entry;
            // Stored as bytes (the `cache_control` entry, or an earlier release's), the
            // definition is derived from them, and they are stored by name from now on where
            // they can be; stored by name, it is the definition just matched. (Given by value
            // in a message, a tool keeps the definition the message carried: only ever
            // compared with the current one, never sent.)
            if holds_bytes(&tools[k]) {
                tool.definition = keys.fingerprint.clone();
                if deferred {
                    tool.definition.push_str(DEFERRED_MARK);
                }
                tools[k] = stored_entry(name, entry);
            }
        }
        tool.reference = keys.reference.clone();
    }
    record.provider = Some(provider);
    Ok(Ok((record, entries)))
}

/// Whether `entry` is `base` with the flags the renderer splices in before its final `}`
/// (`crate::provider::entry::push_with_flags`): `Some((deferred, cache_control))` when it is.
fn flags_over(entry: &str, base: &str) -> Option<(bool, bool)> {
    let body = base.strip_suffix('}')?;
    let rest = entry.strip_prefix(body)?.strip_suffix('}')?;
    let (deferred, rest) = match rest.strip_prefix(DEFER_LOADING_FIELD) {
        Some(r) => (true, r),
        None => (false, rest),
    };
    match rest {
        "" => Some((deferred, false)),
        CACHE_CONTROL_FIELD => Some((deferred, true)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_recognised_only_where_the_renderer_puts_them() {
        let base = r#"{"name":"a"}"#;
        assert_eq!(flags_over(base, base), Some((false, false)));
        let deferred = r#"{"name":"a","defer_loading":true}"#;
        assert_eq!(flags_over(deferred, base), Some((true, false)));
        let both = r#"{"name":"a","defer_loading":true,"cache_control":{"type":"ephemeral"}}"#;
        assert_eq!(flags_over(both, base), Some((true, true)));
        let mut cached = String::new();
        crate::provider::entry::push_with_flags(&mut cached, base, false, true);
        assert_eq!(flags_over(&cached, base), Some((false, true)));
        assert_eq!(flags_over(r#"{"name":"a","x":1}"#, base), None);
        assert_eq!(flags_over(r#"{"name":"ab"}"#, base), None);
    }
}
