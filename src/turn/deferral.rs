//! Deferral: which available tools are resident (full schema in the provider array every
//! turn) and which are deferred (bare name in a catalog, schema loaded by `tool_search`).
//!
//! - Deferred by default: every available tool outside `default_tools −
//!   deferred_default_tools`, except `tool_search` and overlay tools (overlays are switched
//!   on on purpose, so they are resident whenever present); a tool's own `"defer":
//!   true|false` wins over the rule.
//! - `tool_search` is never deferred and is present exactly when something is deferred; if
//!   the intent disables it (or the source denies it) every deferred tool becomes resident:
//!   deferral never reduces what is available.
//!
//! When a deferred tool joins the array is the turn state's business (`state.rs`).

use crate::registry::{Memo, MemoSlot, Registry, ToolSet, TOOL_SEARCH};

/// Resident and deferred sets of one expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Classified {
    pub(crate) resident: ToolSet,
    pub(crate) deferred: ToolSet,
}

/// Whether a registry tool is deferred when available (before the `tool_search` rule).
pub fn is_deferrable(registry: &Registry, index: usize) -> bool {
    let Some(tool) = registry.tool(index) else {
        return false;
    };
    // A provider-executed tool is not loaded by tool_search (each provider runs its own), so
    // it is resident wherever it is available, whatever its `defer` says.
    if tool.name == TOOL_SEARCH || tool.builtin().is_some() {
        return false;
    }
    if let Some(explicit) = tool.defer {
        return explicit;
    }
    if registry.is_overlay(index) {
        return false;
    }
    !registry.is_default(index) || registry.is_deferred_default(index)
}

/// The registry's deferrable tools ([`is_deferrable`] of each), made once per registry: a
/// turn classifies its tools with two set operations instead of reading every tool (5% of a
/// 1,000-tool plan in wasm, where each tool read is a cache miss).
struct Deferrable(ToolSet);

impl Memo for Deferrable {
    const SLOT: MemoSlot = MemoSlot::Deferrable;
}

fn deferrable_set(registry: &Registry) -> ToolSet {
    let mut set = ToolSet::empty(registry.len());
    for i in (0..registry.len()).filter(|&i| is_deferrable(registry, i)) {
        set.insert(i);
    }
    set
}

/// Splits the chosen tools into resident and deferred, adding or removing `tool_search`.
pub(crate) fn classify(
    registry: &Registry,
    chosen: &ToolSet,
    tool_search_blocked: bool,
) -> Classified {
    let tool_search = registry.index_of(TOOL_SEARCH);
    let mut resident = chosen.clone();
    if let Some(ts) = tool_search {
        resident.remove(ts);
    }
    let deferred = if tool_search_blocked {
        ToolSet::empty(registry.len())
    } else {
        let mut deferred = resident.clone();
        deferred.intersect_with(&registry.memo_or_build(|r| Deferrable(deferrable_set(r))).0);
        resident.subtract(&deferred);
        deferred
    };
    if let Some(ts) = tool_search {
        if !deferred.is_empty() {
            resident.insert(ts);
        }
    }
    Classified { resident, deferred }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_search_appears_only_with_something_deferred() {
        let r = Registry::embedded();
        let ts = r.index_of(TOOL_SEARCH).unwrap();
        let read = r.index_of("read_file").unwrap();
        let pw = r.index_of("playwright_browser").unwrap();
        let mut chosen = ToolSet::empty(r.len());
        chosen.insert(read);
        let c = classify(&r, &chosen, false);
        assert!(!c.resident.contains(ts) && c.deferred.is_empty());
        chosen.insert(pw);
        let c = classify(&r, &chosen, false);
        assert!(c.resident.contains(ts) && c.deferred.contains(pw));
        let c = classify(&r, &chosen, true);
        assert!(c.resident.contains(pw) && !c.resident.contains(ts));
        assert!(!is_deferrable(&r, ts));
    }
}
