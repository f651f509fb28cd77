//! The tool registry: the live list of tools an agent server offers, plus the presets and
//! policies that intents refer to.
//!
//! A registry is loaded once from JSON and is then immutable; expansions borrow it. It accepts
//! three shapes (see `registry/load.rs`): our format (`{"tools", "default_tools",
//! "deferred_default_tools", "toolsets", "overlays", "sources", "history", "trusted_servers",
//! "mcp_servers"}`),
//! an MCP `tools/list` result object, or a bare array of tools. Tools may use our field names
//! (`parameters`) or MCP's (`inputSchema`, `title`, `annotations`; every other field is kept).
//!
//! Rules the loader enforces (each error names the JSON path):
//! - tool names match `^[a-zA-Z0-9_-]{1,64}$` and are unique, also ignoring ASCII case (so a
//!   case-folded deny can never hit two tools);
//! - a tool's schema is a JSON object within [`crate::limits::Limits`];
//! - every entry of `default_tools`, `deferred_default_tools`, `toolsets`, `overlays` and
//!   `sources.*.deny` names a known tool or is a glob; `history` may name tools that are gone.
//!
//! Defaults when a key is absent: `default_tools` = every tool; `full` = every tool. The
//! library's own `tool_search` is appended when the registry does not define it, and it is
//! always available (only an intent's `disabled` or a source ceiling can remove it).

mod annotation;
mod build;
mod document_keys;
mod library_tools;
mod load;
mod mcp;
mod memo;
mod names;
mod policy;
mod rendered;
mod schema;
mod strict;
mod tool;
mod toolset;
mod version;
mod write;

pub use crate::digest::is_fingerprint;
pub use annotation::EffectiveAnnotations;
pub(crate) use annotation::{Selector, SELECTORS as ANNOTATION_SELECTORS};
pub(crate) use library_tools::EMBEDDED_REGISTRY_JSON;
pub use library_tools::{DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, TOOL_SEARCH, WEB_SEARCH_OVERLAY};
pub use mcp::{PresetChange, RegistryChange, RegistryDiff};
pub(crate) use names::server_of;
#[cfg(test)]
pub(crate) use rendered::RenderCache;
pub(crate) use rendered::{entry_keys, goes_beside, tool_entry};
pub use tool::{HistoryVersion, SourcePolicy, Tool};
pub(crate) use toolset::ToolSet;
pub use version::KEPT_VERSIONS;

use std::sync::Arc;

use crate::error::{some_names, Error, Result};
use crate::glob;
use crate::warning::Warning;
pub(crate) use build::Reuse;
use memo::Memos;
pub(crate) use memo::{Memo, MemoRef, MemoSlot};
use toolset::{NameIndex, NameTable};

/// The document-level settings of a registry: everything but the tools.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settings {
    /// `None` when the document does not say (then every tool is a default).
    pub(crate) default_tools: Option<Vec<String>>,
    pub(crate) deferred_default_tools: Vec<String>,
    pub(crate) toolsets: Vec<(String, Vec<String>)>,
    pub(crate) overlays: Vec<(String, Vec<String>)>,
    pub(crate) sources: Vec<SourcePolicy>,
    pub(crate) history: Vec<HistoryVersion>,
    /// MCP servers merged in, in order.
    pub(crate) servers: Vec<String>,
    /// Server names or globs whose tools' annotations are believed (`annotation.rs`).
    pub(crate) trusted_servers: Vec<String>,
}

/// What loading said, by where it came from: a server's warnings go when the server is
/// replaced or removed.
#[derive(Debug, Clone, Default)]
pub(crate) struct LoadWarnings {
    /// About the document's own tools and settings.
    pub(crate) document: Vec<Warning>,
    /// About each MCP server's list, in server order.
    pub(crate) servers: Vec<(String, Vec<Warning>)>,
}

/// A loaded, validated registry.
///
/// Cloning is cheap (one reference count): a registry is immutable once built, so clones,
/// the turns made from it ([`Registry::turn`]) and the registries a server change makes from
/// it share its data.
#[derive(Debug, Clone)]
pub struct Registry {
    data: Arc<Data>,
}

/// A registry's content; written only while [`Registry::build`] makes it.
#[derive(Debug, Clone)]
struct Data {
    settings: Arc<Settings>,
    tools: Arc<Vec<Arc<Tool>>>,
    /// Whether the last tool is the library's own `tool_search` (not written back).
    builtin_tool_search: bool,
    /// The warnings by source, as loaded (kept so a server's replacement drops its own).
    load_warnings: Arc<LoadWarnings>,
    /// What loading left out or changed (quarantined MCP tools, normalised schemas), all
    /// sources in order, then the wire-name clashes found when the registry was built.
    warnings: Vec<Warning>,
    /// Positions sorted by case-folded name, for exact and folded lookups (never iterated to
    /// decide an output order).
    index: NameIndex,
    names: NameTable,
    masks: Masks,
    /// Each preset's tools, matched once at load time.
    toolset_masks: Vec<(String, ToolSet)>,
    /// Each tool's annotations as believed (`@` selectors read them), in registry order.
    effective: Vec<annotation::Effective>,
    /// Shared by clones: memos are pure functions of the registry's content.
    memos: Arc<Memos>,
    /// Earlier versions, newest first, kept for turns that began on them (see `version.rs`);
    /// each holds no earlier versions of its own.
    earlier: Vec<Registry>,
    /// The model `ranker: "model"` searches with ([`Registry::with_model`]); not content:
    /// registries made from this one keep it, and nothing writes it out.
    #[cfg(feature = "model")]
    model: Option<crate::model_ranker::ModelRanker>,
}

/// Sets derived once at load time so expansion is a few passes over bit masks.
#[derive(Debug, Clone, Default)]
struct Masks {
    default: ToolSet,
    deferred_default: ToolSet,
    available: ToolSet,
    overlay: ToolSet,
}

impl Registry {
    /// Builds a registry from a parsed JSON value.
    pub fn from_value(value: &serde_json::Value) -> Result<Self> {
        Self::from_json_str(&crate::json_text::text(value))
    }

    /// The registry compiled into the library (`src/default_registry.json`).
    pub fn embedded() -> Self {
        // No fallback: the document is this crate's own, checked by `build.rs` when the crate
        // is built and loaded by the unit test `embedded_registry_loads_and_round_trips`, so
        // this cannot fail on any build that passed its tests.
        // A static message, not the error's: formatting it would link `Error`'s `Debug` into
        // the wasm module for a case that cannot happen.
        match Self::from_json_str(EMBEDDED_REGISTRY_JSON) {
            Ok(registry) => registry,
            Err(_) => panic!("the embedded registry does not load: build.rs and the unit test embedded_registry_loads_and_round_trips check it"),
        }
    }

    fn empty() -> Registry {
        Registry {
            data: Arc::new(Data::empty()),
        }
    }

    /// This registry with `model` for `ranker: "model"` searches (feature `model`); the
    /// registries made from it by MCP changes keep it. The content, fingerprint and written
    /// form do not change.
    #[cfg(feature = "model")]
    pub fn with_model(mut self, model: crate::model_ranker::ModelRanker) -> Registry {
        self.data_mut().model = Some(model);
        self
    }

    /// The model attached by [`Registry::with_model`].
    #[cfg(feature = "model")]
    pub fn model(&self) -> Option<&crate::model_ranker::ModelRanker> {
        self.data.model.as_ref()
    }

    /// Whether two handles are the same registry value (clones of one load or change).
    pub(crate) fn same_version(&self, other: &Registry) -> bool {
        Arc::ptr_eq(&self.data, &other.data)
    }

    /// The content, to write while building (the data is not shared yet, so nothing is
    /// copied).
    fn data_mut(&mut self) -> &mut Data {
        Arc::make_mut(&mut self.data)
    }
}

impl Data {
    fn empty() -> Data {
        Data {
            settings: Arc::default(),
            tools: Arc::new(Vec::new()),
            builtin_tool_search: false,
            load_warnings: Arc::default(),
            warnings: Vec::new(),
            index: NameIndex::default(),
            names: NameTable::default(),
            masks: Masks::default(),
            toolset_masks: Vec::new(),
            effective: Vec::new(),
            memos: Arc::new(Memos::default()),
            earlier: Vec::new(),
            #[cfg(feature = "model")]
            model: None,
        }
    }
}

impl Registry {
    /// All tools, in registry order (shared with the registries made from this one).
    pub fn tools(&self) -> &[Arc<Tool>] {
        &self.data.tools
    }

    /// The tools the document defined (without the built-in `tool_search`).
    fn own_tools(&self) -> &[Arc<Tool>] {
        let n = self.data.tools.len() - usize::from(self.data.builtin_tool_search);
        &self.data.tools[..n]
    }

    /// The tool at a registry position.
    pub fn tool(&self, index: usize) -> Option<&Tool> {
        self.data.tools.get(index).map(|t| &**t)
    }

    /// The name of the tool at a registry position ("" when out of range), read from one
    /// contiguous buffer.
    pub fn name(&self, index: usize) -> &str {
        self.data.names.get(index)
    }

    /// Appends the names at `positions` (ascending) to `out`, joined by newlines: what
    /// `text::join` of their names with "\n" gives, copied a run of positions at a time.
    pub(crate) fn push_name_lines(&self, positions: &[usize], out: &mut String) {
        self.data.names.push_lines(positions, out)
    }

    /// A tool by exact name, or a `tool_not_available` error.
    pub fn tool_named(&self, name: &str) -> Result<&Tool> {
        self.index_of(name)
            .and_then(|i| self.tool(i))
            .ok_or_else(|| Error::ToolNotAvailable {
                name: name.to_string(),
                reason: "no tool of that name in the registry".to_string(),
            })
    }

    /// Registry position of a tool by exact name.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.data.index.find(&self.data.names, name)
    }

    /// A registry tool whose name equals `name` ignoring ASCII case.
    pub fn index_of_folded(&self, name: &str) -> Option<usize> {
        self.data.index.find_folded(&self.data.names, name)
    }

    /// One tool's full definition in our format (`{name, description, parameters, ...}`), by
    /// name.
    pub fn tool_definition(&self, name: &str) -> Result<serde_json::Value> {
        self.tool_named(name).map(Tool::to_value)
    }

    /// The registry document in our format as JSON text; loading it gives an equal registry.
    pub fn to_json(&self) -> String {
        crate::json_text::text(&self.to_value())
    }

    /// Number of tools (the built-in `tool_search` included).
    pub fn len(&self) -> usize {
        self.data.tools.len()
    }

    /// Whether the registry has no tools at all.
    pub fn is_empty(&self) -> bool {
        self.data.tools.is_empty()
    }

    /// Tools matching any of the patterns (exact names or globs), case-sensitively.
    pub(crate) fn match_patterns(&self, patterns: &[String]) -> ToolSet {
        self.match_with(patterns, false)
    }

    /// Tools matching any of the patterns ignoring ASCII case (for denies).
    pub(crate) fn match_patterns_ignore_case(&self, patterns: &[String]) -> ToolSet {
        self.match_with(patterns, true)
    }

    fn match_with(&self, patterns: &[String], fold: bool) -> ToolSet {
        let mut set = ToolSet::empty(self.data.tools.len());
        for p in patterns {
            if Selector::is_selector(p) {
                // An unknown selector in a registry was refused when it was built; in an
                // intent it matches nothing (and the expansion warns that it matched nothing).
                if let Some(selector) = Selector::parse(p) {
                    for (i, effective) in self.data.effective.iter().enumerate() {
                        if selector.selects(effective) {
                            set.insert(i);
                        }
                    }
                }
            } else if let Some(prefix) = glob::literal_prefix(p) {
                for i in self.data.index.with_folded_prefix(&self.data.names, prefix) {
                    if fold || self.data.names.get(i).starts_with(prefix) {
                        set.insert(i);
                    }
                }
            } else if glob::is_glob(p) {
                for (i, name) in self.data.names.iter() {
                    let hit = if fold {
                        glob::matches_ignore_case(p, name)
                    } else {
                        glob::matches(p, name)
                    };
                    if hit {
                        set.insert(i);
                    }
                }
            } else if let Some(i) = if fold {
                self.index_of_folded(p)
            } else {
                self.index_of(p)
            } {
                set.insert(i);
            }
        }
        set
    }

    /// Whether a pattern (name or glob) matches at least one tool.
    pub(crate) fn matches_any(&self, pattern: &str, fold: bool) -> bool {
        if Selector::is_selector(pattern) {
            return Selector::parse(pattern)
                .is_some_and(|s| self.data.effective.iter().any(|e| s.selects(e)));
        }
        if !glob::is_glob(pattern) {
            return if fold {
                self.index_of_folded(pattern).is_some()
            } else {
                self.index_of(pattern).is_some()
            };
        }
        // A `prefix*` glob is a range of the sorted index, as in `match_with`: no scan.
        if let Some(prefix) = glob::literal_prefix(pattern) {
            return self
                .data
                .index
                .with_folded_prefix(&self.data.names, prefix)
                .any(|i| fold || self.data.names.get(i).starts_with(prefix));
        }
        self.data.names.iter().any(|(_, name)| {
            if fold {
                glob::matches_ignore_case(pattern, name)
            } else {
                glob::matches(pattern, name)
            }
        })
    }

    /// Each tool's annotations as believed (see `annotation.rs`), in registry order: one per
    /// tool, whichever way the registry was built (`tests.rs` checks each way).
    pub(crate) fn effective_annotations(&self) -> &[EffectiveAnnotations] {
        &self.data.effective
    }

    /// `default_tools` as a set.
    pub(crate) fn default_set(&self) -> &ToolSet {
        &self.data.masks.default
    }

    /// Tools that may be exposed at all: `full` (or every tool), overlay tools, `tool_search`.
    pub(crate) fn available_set(&self) -> &ToolSet {
        &self.data.masks.available
    }

    /// Tools of one overlay key (e.g. `web_search`), empty when the registry has none.
    pub(crate) fn overlay(&self, key: &str) -> ToolSet {
        match self.data.settings.overlays.iter().find(|(k, _)| k == key) {
            Some((_, list)) => self.match_patterns(list),
            None => ToolSet::empty(self.data.tools.len()),
        }
    }

    /// Whether a tool is in `default_tools`.
    pub fn is_default(&self, index: usize) -> bool {
        self.data.masks.default.contains(index)
    }

    /// Whether a tool belongs to an overlay (switched by `web_search`).
    pub fn is_overlay(&self, index: usize) -> bool {
        self.data.masks.overlay.contains(index)
    }

    /// Whether a tool is in `deferred_default_tools`.
    pub fn is_deferred_default(&self, index: usize) -> bool {
        self.data.masks.deferred_default.contains(index)
    }

    /// The `default_tools` list as written (names and globs); `None` when absent.
    pub fn default_tools(&self) -> Option<&[String]> {
        self.data.settings.default_tools.as_deref()
    }

    /// Preset names, in key order.
    pub fn toolset_names(&self) -> impl Iterator<Item = &str> {
        self.data.settings.toolsets.iter().map(|(n, _)| n.as_str())
    }

    /// The patterns of a preset.
    pub fn toolset(&self, name: &str) -> Option<&[String]> {
        self.data
            .settings
            .toolsets
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, l)| l.as_slice())
    }

    /// The names a registry list selects today — names, globs and annotation selectors
    /// (`@read_only`), as the registry's own lists are matched — in registry order.
    pub fn names_matching(&self, patterns: &[String]) -> Vec<&str> {
        self.match_with(patterns, false)
            .iter()
            .map(|i| self.data.names.get(i))
            .collect()
    }

    /// The tools of a preset, matched at load time.
    pub(crate) fn toolset_set(&self, name: &str) -> Option<&ToolSet> {
        self.data
            .toolset_masks
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s)
    }

    /// The policy of a source.
    pub fn source(&self, name: &str) -> Result<&SourcePolicy> {
        let sources = &self.data.settings.sources;
        sources
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| Error::UnknownSource {
                name: name.to_string(),
                known: if sources.is_empty() {
                    "none defined".to_string()
                } else {
                    some_names(&self.source_names().collect::<Vec<_>>())
                },
            })
    }

    /// Source names, in key order.
    pub fn source_names(&self) -> impl Iterator<Item = &str> {
        self.data.settings.sources.iter().map(|s| s.name.as_str())
    }

    /// Earlier versions of the defaults, oldest first.
    pub fn history(&self) -> &[HistoryVersion] {
        &self.data.settings.history
    }

    /// What loading left out or changed: quarantined MCP tools, normalised schemas.
    pub fn warnings(&self) -> &[Warning] {
        &self.data.warnings
    }

    /// A value derived from this registry, built on first use and kept with it (see
    /// [`memo`]). The deriving module owns `T`.
    pub(crate) fn memo<T: Memo>(&self, build: impl FnOnce(&Registry) -> T) -> Option<&T> {
        self.data.memos.get_or_build(|| build(self))
    }

    /// [`Registry::memo`], or the value built for this call alone when the memo cannot be
    /// kept: what a caller that needs the whole value reads.
    pub(crate) fn memo_or_build<T: Memo>(&self, build: impl Fn(&Registry) -> T) -> MemoRef<'_, T> {
        match self.memo(&build) {
            Some(memo) => MemoRef::Kept(memo),
            None => MemoRef::Built(build(self)),
        }
    }
}

#[cfg(test)]
mod tests;
