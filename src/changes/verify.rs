//! A stored conversation record is input: before it shapes a payload, a change block or
//! request fields, every part of it is checked against the registry versions this process
//! holds, and what can be rebuilt is rebuilt rather than believed.
//!
//! A record comes back from storage: restored from a backup, written by an older release,
//! edited by support staff, or carried through a client. Whatever it says, a turn plans
//! either what some valid record leads to, or fails:
//! - **Malformed** (a member that no release writes: a declared
//!   entry two tools claim or none does, a name no provider takes, a definition
//!   that is not a fingerprint) is an error at its JSON path.
//! - **Rebuilt**: how a change block names a tool (`KnownTool::reference`) and the definition
//!   a declared entry stands for are derived again from the entry bytes and the registry,
//!   never read from the record — so no text of the record reaches `tool_choice`, a
//!   `tool_reference` or a removal unchecked.
//! - **Checked**: every declared entry must be exactly what a held registry version renders
//!   for its tool and this provider (with the `defer_loading` and `cache_control` flags the
//!   renderer adds); a declared tool the source's ceiling keeps out today, a record declared
//!   for another provider, and a tool no held version has are redeclared: the turn declares
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

use super::{ConversationTools, KnownTool, KnownTools};
use crate::error::{quoted, Error, JsonPath, Result};
use crate::expand::{Expansion, ToolStatus};
use crate::registry::{is_provider_safe_name, Registry};
use crate::render::{entry_fingerprint, tool_entry, Provider};

const INPUT: &str = "state";

/// What a stored record may be used as.
#[derive(Debug)]
pub(crate) enum Verdict {
    /// Every part checked, references and declared definitions rebuilt.
    Use(ConversationTools),
    /// The record cannot be used as it is; the turn declares again, for this reason.
    Redeclare(String),
}

/// Checks `record` for a turn on `expansion` for `provider`; `held` are the registry versions
/// this process holds (the turn's, the current one and its earlier versions).
pub(crate) fn verify(
    record: ConversationTools,
    expansion: &Expansion,
    held: &[&Registry],
    provider: Provider,
) -> Result<Verdict> {
    let root = JsonPath::root().key("conversation");
    check_shape(&record, &root)?;
    if let Some(declared_for) = record.provider.filter(|p| *p != provider) {
        return Ok(Verdict::Redeclare(format!(
            "the conversation declared its tools for {}, and this turn is for {}",
            declared_for.as_str(),
            provider.as_str()
        )));
    }
    let turn_version = expansion.registry();
    let mut known = KnownTools::default();
    for (name, tool) in record.known.iter() {
        let renders = renders_of(name, held, provider)?;
        if renders.is_empty() {
            return Ok(Verdict::Redeclare(format!(
                "{} is in no registry version this process holds, so what the conversation was told of it cannot be checked",
                quoted(name)
            )));
        }
        let rebuilt = match tool.entry {
            Some(k) => {
                let entry = &record.tools[k];
                let Some((version, index, deferred)) = renders
                    .iter()
                    .find_map(|&(v, i, base)| flags_over(entry, base).map(|d| (v, i, d)))
                else {
                    return Ok(Verdict::Redeclare(format!(
                        "the declared entry of {} is not what any registry version this process holds renders for {}",
                        quoted(name),
                        provider.as_str()
                    )));
                };
                if let Some(i) = turn_version.index_of(name) {
                    if matches!(
                        expansion.status(i),
                        Some(ToolStatus::DeniedBySource | ToolStatus::Unavailable)
                    ) {
                        return Ok(Verdict::Redeclare(format!(
                            "the conversation declared {}, which this request's ceiling keeps out",
                            quoted(name)
                        )));
                    }
                }
                let fingerprint = entry_fingerprint(version, index, provider)?;
                KnownTool {
                    definition: if deferred {
                        format!("{fingerprint}+defer_loading")
                    } else {
                        fingerprint.to_string()
                    },
                    reference: super::reference_of(
                        tool_entry(version, index, provider)?,
                        provider,
                    )?,
                    entry: Some(k),
                }
            }
            // Given by value in a message: its definition is the one the message carried (a
            // fingerprint, checked for shape), its reference the tool's own as rendered.
            None => KnownTool {
                definition: tool.definition.clone(),
                reference: super::reference_of(renders[0].2, provider)?,
                entry: None,
            },
        };
        known.insert(name.clone(), rebuilt);
    }
    Ok(Verdict::Use(ConversationTools {
        provider: Some(provider),
        known,
        ..record
    }))
}

/// The shape no release would write otherwise: errors at their paths.
fn check_shape(record: &ConversationTools, root: &JsonPath) -> Result<()> {
    let mut owner: Vec<Option<&str>> = vec![None; record.tools.len()];
    for (name, tool) in record.known.iter() {
        let at = root.key("known").key(name);
        if !is_provider_safe_name(name) {
            return Err(Error::value(
                INPUT,
                &at,
                format!("{} is not a tool name", quoted(name)),
            ));
        }
        if !is_definition(&tool.definition) {
            return Err(Error::expected(
                INPUT,
                &at.key("definition"),
                "a definition fingerprint (sha256:<64 hex>, +defer_loading when deferred)",
                &serde_json::Value::String(tool.definition.clone()),
            ));
        }
        if let Some(k) = tool.entry {
            // `ConversationTools::from_value` keeps entries within `tools`.
            let slot = owner.get_mut(k).ok_or_else(|| {
                Error::value(
                    INPUT,
                    &at.key("entry"),
                    format!("entry {k} is past the declared tools"),
                )
            })?;
            if let Some(first) = slot.replace(name) {
                return Err(Error::value(
                    INPUT,
                    &at.key("entry"),
                    format!(
                        "entry {k} is declared for both {} and {}",
                        quoted(first),
                        quoted(name)
                    ),
                ));
            }
        }
    }
    if let Some(k) = owner.iter().position(Option::is_none) {
        return Err(Error::value(
            INPUT,
            &root.key("tools").index(k),
            format!("declared entry {k} belongs to no known tool"),
        ));
    }
    if let Some(k) = record
        .catalog
        .iter()
        .position(|n| !is_provider_safe_name(n))
    {
        return Err(Error::value(
            INPUT,
            &root.key("catalog"),
            format!("{} is not a tool name", quoted(&record.catalog[k])),
        ));
    }
    Ok(())
}

/// `sha256:` and 64 lowercase hex digits, with `+defer_loading` for a deferred declaration.
fn is_definition(text: &str) -> bool {
    let digest = text.strip_suffix("+defer_loading").unwrap_or(text);
    digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Every held version's entry for the tool `name` on `provider`, newest first: (version,
/// position, entry).
fn renders_of<'v>(
    name: &str,
    held: &[&'v Registry],
    provider: Provider,
) -> Result<Vec<(&'v Registry, usize, &'v str)>> {
    let mut out = Vec::new();
    for &version in held {
        if let Some(i) = version.index_of(name) {
            out.push((version, i, tool_entry(version, i, provider)?));
        }
    }
    Ok(out)
}

/// Whether `entry` is `base` with the flags the renderer splices in before its final `}`
/// (`crate::render::push_with_flags`): `Some(deferred)` when it is.
fn flags_over(entry: &str, base: &str) -> Option<bool> {
    let body = base.strip_suffix('}')?;
    let rest = entry.strip_prefix(body)?.strip_suffix('}')?;
    let (deferred, rest) = match rest.strip_prefix(crate::render::DEFER_LOADING_FIELD) {
        Some(r) => (true, r),
        None => (false, rest),
    };
    (rest.is_empty() || rest == crate::render::CACHE_CONTROL_FIELD).then_some(deferred)
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
            flags_over(&crate::render::with_cache_control(base), base),
            Some(false)
        );
        assert_eq!(flags_over(r#"{"name":"a","x":1}"#, base), None);
        assert_eq!(flags_over(r#"{"name":"ab"}"#, base), None);
    }

    #[test]
    fn definitions_are_fingerprints() {
        let hex = "0".repeat(64);
        assert!(is_definition(&format!("sha256:{hex}")));
        assert!(is_definition(&format!("sha256:{hex}+defer_loading")));
        assert!(!is_definition("sha256:1"));
        assert!(!is_definition(&format!("sha256:{}", "A".repeat(64))));
    }
}
