//! Deferral: which available tools are resident (full schema in the provider array every turn)
//! and which are deferred (bare name in a catalog, schema loaded by `tool_search`), and the
//! per-session turn state that decides when loaded tools join the array.
//!
//! Rules (SPEC §3, seed §7):
//! - deferred by default: every available tool outside `default_tools − deferred_default_tools`,
//!   except `tool_search` and overlay tools (overlays are switched on on purpose, so they are
//!   resident whenever present); a tool's own `"defer": true|false` wins over the rule;
//! - `tool_search` is never deferred and is present exactly when something is deferred; if the
//!   intent disables it (or the source denies it) every deferred tool becomes resident —
//!   deferral never reduces what is available;
//! - the provider array of a turn is fixed at the turn boundary ([`begin_turn`]): a load
//!   recorded mid-turn ([`record_loaded`]) joins the array at the next boundary, after the
//!   resident tools, in load order. The array therefore only grows at its end, which keeps the
//!   longest common prefix for prompt caches.
//!
//! [`TurnState`] is a plain value: callers persist it with the session and pass it in; every
//! function here returns a new value instead of mutating hidden state.

use serde::{Deserialize, Serialize};

use crate::expand::Expansion;
use crate::registry::{Registry, ToolSet, LIMITS, TOOL_SEARCH};

/// Resident and deferred sets of one expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classified {
    pub resident: ToolSet,
    pub deferred: ToolSet,
}

/// Whether a registry tool is deferred when available (before the `tool_search` rule).
pub fn is_deferrable(registry: &Registry, index: usize) -> bool {
    let Some(tool) = registry.tool(index) else {
        return false;
    };
    if tool.name == TOOL_SEARCH {
        return false;
    }
    if let Some(explicit) = tool.defer {
        return explicit;
    }
    if registry.overlay_set().contains(index) {
        return false;
    }
    let resident_default =
        registry.default_set().contains(index) && !registry.deferred_default_set().contains(index);
    !resident_default
}

/// Splits the chosen tools into resident and deferred, adding or removing `tool_search`.
pub fn classify(registry: &Registry, chosen: &ToolSet, tool_search_blocked: bool) -> Classified {
    let n = registry.len();
    let tool_search = registry.index_of(TOOL_SEARCH);
    let mut resident = ToolSet::empty(n);
    let mut deferred = ToolSet::empty(n);
    for i in chosen.iter() {
        if Some(i) == tool_search {
            continue;
        }
        if !tool_search_blocked && is_deferrable(registry, i) {
            deferred.insert(i);
        } else {
            resident.insert(i);
        }
    }
    if let Some(ts) = tool_search {
        if !deferred.is_empty() {
            resident.insert(ts);
        }
    }
    Classified { resident, deferred }
}

/// Per-session deferral state, persisted with the session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TurnState {
    /// Tools loaded by `tool_search`, in load order, each once.
    pub loaded: Vec<String>,
    /// The copy of `loaded` taken at the last turn boundary: what the array shows this turn.
    pub frozen: Vec<String>,
    /// Number of turn boundaries passed.
    pub turn: u64,
}

/// Which loaded set a caller reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum View {
    /// The set frozen at the last turn boundary: what every provider call of a turn uses.
    #[default]
    Frozen,
    /// The live loaded set: for callers outside any turn (budgets, previews, tests).
    Live,
}

/// A turn boundary: what was loaded so far joins the array from now on.
pub fn begin_turn(state: &TurnState) -> TurnState {
    TurnState {
        loaded: state.loaded.clone(),
        frozen: state.loaded.clone(),
        turn: state.turn.saturating_add(1),
    }
}

/// Records loads (from a `tool_search` call). Names already loaded keep their place.
pub fn record_loaded<S: AsRef<str>>(state: &TurnState, names: &[S]) -> TurnState {
    let mut next = state.clone();
    for name in names {
        let name = name.as_ref();
        if next.loaded.len() >= LIMITS.max_tools {
            break;
        }
        if !next.loaded.iter().any(|n| n == name) {
            next.loaded.push(name.to_string());
        }
    }
    next
}

impl TurnState {
    /// The loaded names the given view reads.
    pub fn loaded_for(&self, view: View) -> &[String] {
        match view {
            View::Frozen => &self.frozen,
            View::Live => &self.loaded,
        }
    }
}

/// What goes to the provider and what goes to the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// Resident tools in registry order, then promoted tools in load order.
    pub provider_tools: Vec<usize>,
    /// Deferred tools not promoted, in registry order.
    pub catalog: Vec<usize>,
    /// The promoted tools (a suffix of `provider_tools`), in load order.
    pub promoted: Vec<usize>,
}

/// Splits an expansion for dispatch, given the session's turn state.
pub fn split_for_dispatch(expansion: &Expansion<'_>, state: &TurnState, view: View) -> Split {
    let registry = expansion.registry();
    let mut provider_tools: Vec<usize> = expansion.resident().collect();
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
    provider_tools.extend(promoted.iter().copied());
    let catalog = expansion
        .deferred()
        .filter(|i| !is_promoted.contains(*i))
        .collect();
    Split {
        provider_tools,
        catalog,
        promoted,
    }
}

/// The first line of the catalog text.
pub const CATALOG_HEADER: &str = "Deferred tools (not loaded yet). To use one, call tool_search with query \"select:<name>\" to load its schema, then call it:";

/// The catalog text placed in the system prompt: a header, then one bare name per line. The
/// empty string when nothing is deferred. This exact string is what the budget counts.
// push_str over push(char): measured faster in the size-optimised wasm build.
#[allow(clippy::single_char_add_str)]
pub fn catalog_text(registry: &Registry, catalog: &[usize]) -> String {
    if catalog.is_empty() {
        return String::new();
    }
    let mut text = String::with_capacity(CATALOG_HEADER.len() + 1 + catalog.len() * 24);
    text.push_str(CATALOG_HEADER);
    text.push_str("\n");
    for &i in catalog {
        text.push_str(registry.name(i));
        text.push_str("\n");
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn begin_turn_freezes_the_live_set() {
        let s = record_loaded(&TurnState::default(), &["a", "b", "a"]);
        assert_eq!(s.loaded, ["a", "b"]);
        assert!(s.frozen.is_empty());
        let t = begin_turn(&s);
        assert_eq!(t.frozen, ["a", "b"]);
        assert_eq!(t.turn, 1);
        let u = record_loaded(&t, &["c"]);
        assert_eq!(u.loaded_for(View::Frozen), ["a", "b"]);
        assert_eq!(u.loaded_for(View::Live), ["a", "b", "c"]);
    }

    #[test]
    fn turn_state_reads_rows_without_fields() {
        let s: TurnState = serde_json::from_str("{}").unwrap();
        assert_eq!(s, TurnState::default());
    }

    #[test]
    fn catalog_text_is_empty_without_deferred_tools() {
        let r = Registry::embedded();
        assert_eq!(catalog_text(&r, &[]), "");
        let i = r.index_of("memory").unwrap();
        let text = catalog_text(&r, &[i]);
        assert_eq!(text, format!("{CATALOG_HEADER}\nmemory\n"));
    }
}
