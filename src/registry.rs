//! The tool registry: the live list of tools an agent server offers, plus the presets and
//! policies that intents refer to.
//!
//! A registry is loaded once from JSON and is then immutable; expansions borrow it. It accepts
//! three shapes:
//! - our format (SPEC §2): `{"tools": [...], "default_tools": [...], "deferred_default_tools":
//!   [...], "toolsets": {...}, "overlays": {...}, "sources": {...}, "history": [...],
//!   "mcp_servers": [{"name": "github", "tools": [...]}]}`;
//! - an MCP `tools/list` result object (`{"tools": [...], "nextCursor": ...}`);
//! - a bare array of tools.
//!
//! Tools may use our field names (`parameters`) or MCP's (`inputSchema`, `title`,
//! `annotations`; everything else such as `outputSchema` or `execution` is kept as it is).
//! Tools of `mcp_servers` entries (and of [`Registry::merge_mcp_server`]) are namespaced as
//! `mcp__<server>__<tool>`, appended in the order given, made available (added to the `full`
//! whitelist) and added to `default_tools` as deferred defaults (when the document lists
//! `default_tools`): available to every session, schemas loaded on demand.
//!
//! Rules the loader enforces (each error names the JSON path):
//! - tool names match `^[a-zA-Z0-9_-]{1,64}$` (the strictest provider rule) and are unique,
//!   also ignoring ASCII case (so a case-folded deny can never hit two tools);
//! - `parameters` is a JSON object;
//! - every entry of `default_tools`, `deferred_default_tools`, `toolsets`, `overlays` and
//!   `sources.*.deny` names a known tool or is a glob; `history` may name tools that are gone;
//! - size limits ([`Limits`]) so hostile input costs bounded time and memory.
//!
//! Defaults when a key is absent: `default_tools` = every tool; `full` = every tool. The
//! library's own `tool_search` is appended when the registry does not define it, and it is
//! always available (only an intent's `disabled` or a source ceiling can remove it).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::error::{describe, Error, JsonPath, Result};
use crate::glob;
use crate::intent::ToolsOverride;
use crate::search;

/// The name of the tool that loads deferred tools.
pub const TOOL_SEARCH: &str = "tool_search";
/// The overlay key an intent's `web_search` switches.
pub const WEB_SEARCH_OVERLAY: &str = "web_search";

/// Size limits applied while loading. They are generous for real registries (the largest MCP
/// schema in `shared/data` is under 4 KB) and keep hostile input bounded.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_tools: usize,
    pub max_schema_bytes: usize,
    pub max_schema_depth: usize,
    pub max_description_bytes: usize,
    pub max_patterns: usize,
}

/// The limits every loader uses.
pub const LIMITS: Limits = Limits {
    max_tools: 10_000,
    max_schema_bytes: 64 * 1024,
    max_schema_depth: 32,
    max_description_bytes: 16 * 1024,
    max_patterns: 1_000,
};

/// One tool definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments (always an object).
    pub parameters: Value,
    /// MCP `title`, kept for round trips and display.
    pub title: Option<String>,
    /// MCP `annotations`, kept for round trips.
    pub annotations: Option<Value>,
    /// Explicit deferral override (`"defer": true|false`); `None` follows the registry rule.
    pub defer: Option<bool>,
    /// Every other field of the input (`outputSchema`, `execution`, `_meta`, ...), kept.
    pub extra: Map<String, Value>,
}

/// Per-source policy: the default intent of requests from that source and a ceiling.
#[derive(Debug, Clone, PartialEq)]
pub struct SourcePolicy {
    pub name: String,
    /// Used when both the override and the agent profile say "follow".
    pub default: ToolsOverride,
    /// Name patterns no override can lift (matched ignoring ASCII case).
    pub deny: Vec<String>,
}

/// An earlier version of `default_tools` and toolsets, used to recognise legacy snapshots.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryVersion {
    pub version: String,
    pub default_tools: Option<Vec<String>>,
    pub toolsets: Vec<(String, Vec<String>)>,
}

/// A set of tools as a mask in registry order; iteration order is registry order by design.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolSet(Vec<bool>);

impl ToolSet {
    pub fn empty(len: usize) -> Self {
        ToolSet(vec![false; len])
    }
    pub fn full(len: usize) -> Self {
        ToolSet(vec![true; len])
    }
    pub fn contains(&self, i: usize) -> bool {
        self.0.get(i).copied().unwrap_or(false)
    }
    pub fn insert(&mut self, i: usize) {
        if let Some(b) = self.0.get_mut(i) {
            *b = true;
        }
    }
    pub fn remove(&mut self, i: usize) {
        if let Some(b) = self.0.get_mut(i) {
            *b = false;
        }
    }
    pub fn union_with(&mut self, other: &ToolSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= *b;
        }
    }
    pub fn intersect_with(&mut self, other: &ToolSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= *b;
        }
    }
    pub fn subtract(&mut self, other: &ToolSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= !*b;
        }
    }
    pub fn is_empty(&self) -> bool {
        !self.0.iter().any(|b| *b)
    }
    pub fn len(&self) -> usize {
        self.0.iter().filter(|b| **b).count()
    }
    /// Members in registry order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0
            .iter()
            .enumerate()
            .filter(|(_, b)| **b)
            .map(|(i, _)| i)
    }
}

/// A loaded, validated registry.
#[derive(Debug, Clone)]
pub struct Registry {
    tools: Vec<Tool>,
    /// Name → position; used for lookups only, never iterated to decide an order.
    by_name: BTreeMap<String, usize>,
    /// Lower-cased name → position, for case-folded deny checks and look-alike reporting.
    by_folded: BTreeMap<String, usize>,
    default_tools: Vec<String>,
    deferred_default_tools: Vec<String>,
    toolsets: Vec<(String, Vec<String>)>,
    overlays: Vec<(String, Vec<String>)>,
    sources: Vec<SourcePolicy>,
    history: Vec<HistoryVersion>,
    explicit_defaults: bool,
    builtin_tool_search: bool,
    masks: Masks,
    /// All names in one buffer, so glob scans over 10,000 tools read contiguous memory.
    names: NameTable,
    /// Each preset's tools, matched once at load time.
    toolset_masks: Vec<(String, ToolSet)>,
    /// Each tool's rendered array entry per provider, filled on first use. Rendering is a
    /// pure function of the immutable tool, so caching cannot change any byte.
    render_cache: Vec<[OnceLock<String>; 3]>,
    /// Keyword-search documents, built on the first keyword query (also pure per tool).
    search_docs: OnceLock<Vec<search::Document>>,
    /// Token counts of rendered entries per (counter, provider) slot, filled on first use.
    token_cache: Vec<[OnceLock<usize>; 9]>,
}

#[derive(Debug, Clone, Default)]
struct NameTable {
    blob: String,
    ends: Vec<usize>,
}

impl NameTable {
    fn new<'a>(names: impl Iterator<Item = &'a str>) -> Self {
        let mut t = NameTable::default();
        for n in names {
            t.blob.push_str(n);
            t.ends.push(t.blob.len());
        }
        t
    }
    fn iter(&self) -> impl Iterator<Item = (usize, &str)> + '_ {
        let mut start = 0;
        self.ends.iter().enumerate().map(move |(i, &end)| {
            let s = &self.blob[start..end];
            start = end;
            (i, s)
        })
    }
}

/// Sets derived once at load time so expansion is a few passes over bit masks.
#[derive(Debug, Clone, Default)]
struct Masks {
    default: ToolSet,
    deferred_default: ToolSet,
    available: ToolSet,
    overlay: ToolSet,
}

const TOP_LEVEL_KEYS: &[&str] = &[
    "tools",
    "default_tools",
    "deferred_default_tools",
    "toolsets",
    "overlays",
    "sources",
    "history",
    "mcp_servers",
    // Fields of an MCP `tools/list` result, accepted and ignored.
    "nextCursor",
    "_meta",
];

impl Registry {
    /// Parses a registry from JSON text.
    pub fn from_json_str(text: &str) -> Result<Self> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| Error::invalid_json("registry", &e))?;
        Self::from_owned_value(value)
    }

    /// Builds a registry from a parsed JSON value.
    pub fn from_value(value: &Value) -> Result<Self> {
        Self::from_owned_value(value.clone())
    }

    /// Builds a registry from a JSON value it may take apart: schemas move into the tools
    /// instead of being copied (about half the work of loading a 10,000-tool registry).
    pub fn from_owned_value(value: Value) -> Result<Self> {
        let root = JsonPath::root();
        let (mut doc, tools_value, tools_path) = match value {
            Value::Array(items) => (Map::new(), Value::Array(items), root.clone()),
            Value::Object(mut map) => {
                for key in map.keys() {
                    if !TOP_LEVEL_KEYS.contains(&key.as_str()) {
                        return Err(Error::registry(
                            &root.key(key),
                            format!(
                                "unknown registry key \"{key}\" (expected one of: {})",
                                TOP_LEVEL_KEYS[..8].join(", ")
                            ),
                        ));
                    }
                }
                let tools = match map.remove("tools") {
                    None | Some(Value::Null) if map.contains_key("mcp_servers") => {
                        Value::Array(Vec::new())
                    }
                    None => Value::Null,
                    Some(t) => t,
                };
                (map, tools, root.key("tools"))
            }
            other => {
                return Err(Error::value(
                    "registry",
                    &root,
                    format!(
                        "expected an object or an array of tools, found {}",
                        describe(&other)
                    ),
                ))
            }
        };
        let mut tools = parse_tools(tools_value, &tools_path, None)?;

        let mut servers: Vec<String> = Vec::new();
        if let Some(list) = doc.remove("mcp_servers") {
            let path = root.key("mcp_servers");
            let Value::Array(items) = list else {
                return Err(Error::value(
                    "registry",
                    &path,
                    format!("expected an array of servers, found {}", describe(&list)),
                ));
            };
            for (i, item) in items.into_iter().enumerate() {
                let p = path.index(i);
                let Value::Object(mut obj) = item else {
                    return Err(Error::value(
                        "registry",
                        &p,
                        format!(
                            "expected {{\"name\", \"tools\"}}, found {}",
                            describe(&item)
                        ),
                    ));
                };
                let name = obj
                    .get("name")
                    .and_then(Value::as_str)
                    .map(String::from)
                    .ok_or_else(|| {
                        Error::value(
                            "registry",
                            &p.key("name"),
                            "expected the server name as a string",
                        )
                    })?;
                let server_tools = obj.remove("tools").unwrap_or(Value::Null);
                tools.extend(parse_tools(
                    server_tools,
                    &p.key("tools"),
                    Some((&name, &p.key("name"))),
                )?);
                servers.push(name);
            }
        }

        let string_list = |key: &str| -> Result<Option<Vec<String>>> {
            match doc.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => parse_pattern_list(v, &root.key(key), "registry").map(Some),
            }
        };
        let default_tools = string_list("default_tools")?;
        let deferred_default_tools = string_list("deferred_default_tools")?.unwrap_or_default();
        let toolsets = match doc.get("toolsets") {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => parse_named_lists(v, &root.key("toolsets"))?,
        };
        let overlays = match doc.get("overlays") {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => parse_overlays(v, &root.key("overlays"))?,
        };
        let history = match doc.get("history") {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => parse_history(v, &root.key("history"))?,
        };
        let sources_value = doc.get("sources").cloned();

        let mut registry = Registry {
            explicit_defaults: default_tools.is_some(),
            default_tools: default_tools.unwrap_or_default(),
            deferred_default_tools,
            toolsets,
            overlays,
            sources: Vec::new(),
            history,
            tools: Vec::new(),
            by_name: BTreeMap::new(),
            by_folded: BTreeMap::new(),
            builtin_tool_search: false,
            masks: Masks::default(),
            names: NameTable::default(),
            toolset_masks: Vec::new(),
            render_cache: Vec::new(),
            search_docs: OnceLock::new(),
            token_cache: Vec::new(),
        };
        // Namespaced MCP tools are exposed (added to an explicit `full`) and available by
        // default but deferred (added to explicit `default_tools` and
        // `deferred_default_tools`): a server's schemas cost nothing until the model loads them.
        if !servers.is_empty() {
            let added: Vec<String> = servers.iter().map(|s| format!("mcp__{s}__*")).collect();
            if let Some((_, full)) = registry.toolsets.iter_mut().find(|(n, _)| n == "full") {
                full.extend(added.iter().cloned());
            }
            if registry.explicit_defaults {
                registry.default_tools.extend(added.iter().cloned());
                registry.deferred_default_tools.extend(added);
            }
        }
        registry.finish(tools, sources_value.as_ref())?;
        Ok(registry)
    }

    /// The registry compiled into the library (see `src/default_registry.json`).
    pub fn embedded() -> Self {
        // The embedded document is tested to load; failing here would be a build defect.
        Self::from_json_str(EMBEDDED_REGISTRY_JSON)
            .unwrap_or_else(|e| panic!("embedded registry is invalid: {e}"))
    }

    /// A new registry with the tools of one MCP server appended as `mcp__<server>__<tool>`.
    /// `tools_list` is the server's `tools/list` result (array or `{"tools": [...]}`).
    pub fn merge_mcp_server(&self, server: &str, tools_list: &Value) -> Result<Registry> {
        let mut doc = self.to_value();
        let servers = doc
            .as_object_mut()
            .and_then(|o| {
                o.entry("mcp_servers")
                    .or_insert_with(|| Value::Array(Vec::new()))
                    .as_array_mut()
            })
            .ok_or_else(|| Error::argument("mcp_servers", "registry document is not an object"))?;
        servers.push(serde_json::json!({"name": server, "tools": tools_list}));
        Registry::from_owned_value(doc)
    }

    fn finish(
        &mut self,
        tools: Vec<(Tool, JsonPath)>,
        sources_value: Option<&Value>,
    ) -> Result<()> {
        let root = JsonPath::root();
        let (tools, mut paths): (Vec<Tool>, Vec<JsonPath>) = tools.into_iter().unzip();
        self.tools = tools;
        // The limit counts the registry's own tools; the built-in tool_search is extra.
        if self.tools.len() > LIMITS.max_tools {
            return Err(Error::limit(
                &root.key("tools"),
                format!(
                    "{} tools, at most {} are accepted",
                    self.tools.len(),
                    LIMITS.max_tools
                ),
            ));
        }
        if !self.tools.iter().any(|t| t.name == TOOL_SEARCH) {
            self.tools.push(search::tool_search_definition());
            paths.push(JsonPath::from_raw("(built-in tool_search)"));
            self.builtin_tool_search = true;
        }
        for (i, tool) in self.tools.iter().enumerate() {
            let folded = tool.name.to_ascii_lowercase();
            if let Some(&j) = self.by_folded.get(&folded) {
                let other = &self.tools[j].name;
                let what = if *other == tool.name {
                    format!("duplicate tool name \"{}\"", tool.name)
                } else {
                    format!(
                        "tool name \"{}\" differs from \"{}\" only in case",
                        tool.name, other
                    )
                };
                return Err(Error::registry(&paths[i].key("name"), what));
            }
            self.by_folded.insert(folded, i);
            self.by_name.insert(tool.name.clone(), i);
        }
        let n = self.tools.len();
        self.names = NameTable::new(self.tools.iter().map(|t| t.name.as_str()));
        self.render_cache = (0..n).map(|_| Default::default()).collect();
        self.token_cache = (0..n).map(|_| Default::default()).collect();
        self.check_patterns(&self.default_tools, &root.key("default_tools"))?;
        self.check_patterns(
            &self.deferred_default_tools,
            &root.key("deferred_default_tools"),
        )?;
        for (name, list) in &self.toolsets {
            self.check_patterns(list, &root.key("toolsets").key(name))?;
        }
        for (key, list) in &self.overlays {
            self.check_patterns(list, &root.key("overlays").key(key))?;
        }
        if let Some(v) = sources_value {
            self.sources = parse_sources(v, &root.key("sources"))?;
        }
        for source in &self.sources {
            self.check_patterns(
                &source.deny,
                &root.key("sources").key(&source.name).key("deny"),
            )?;
        }

        let default = if self.explicit_defaults {
            self.match_patterns(&self.default_tools)
        } else {
            ToolSet::full(n)
        };
        let deferred_default = self.match_patterns(&self.deferred_default_tools);
        let mut overlay = ToolSet::empty(n);
        for (_, list) in &self.overlays {
            overlay.union_with(&self.match_patterns(list));
        }
        let mut available = match self.toolsets.iter().find(|(name, _)| name == "full") {
            Some((_, list)) => self.match_patterns(list),
            None => ToolSet::full(n),
        };
        available.union_with(&overlay);
        if let Some(i) = self.index_of(TOOL_SEARCH) {
            available.insert(i);
        }
        self.masks = Masks {
            default,
            deferred_default,
            available,
            overlay,
        };
        self.toolset_masks = self
            .toolsets
            .iter()
            .map(|(name, list)| (name.clone(), self.match_patterns(list)))
            .collect();
        Ok(())
    }

    fn check_patterns(&self, patterns: &[String], path: &JsonPath) -> Result<()> {
        for (i, p) in patterns.iter().enumerate() {
            if !glob::is_glob(p) && !self.by_name.contains_key(p) {
                return Err(Error::registry(
                    &path.index(i),
                    format!("unknown tool \"{p}\" (not in `tools`, and not a glob)"),
                ));
            }
        }
        Ok(())
    }

    /// All tools, in registry order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tool at a registry position.
    pub fn tool(&self, index: usize) -> Option<&Tool> {
        self.tools.get(index)
    }

    /// The name of the tool at a registry position ("" when out of range), read from one
    /// contiguous buffer.
    pub fn name(&self, index: usize) -> &str {
        let end = match self.names.ends.get(index) {
            Some(&e) => e,
            None => return "",
        };
        let start = if index == 0 {
            0
        } else {
            self.names.ends[index - 1]
        };
        &self.names.blob[start..end]
    }

    /// Registry position of a tool by exact name.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// A registry tool whose name equals `name` ignoring ASCII case.
    pub fn index_of_folded(&self, name: &str) -> Option<usize> {
        self.by_folded.get(&name.to_ascii_lowercase()).copied()
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Tools matching any of the patterns (exact names or globs), case-sensitively.
    pub fn match_patterns(&self, patterns: &[String]) -> ToolSet {
        let mut set = ToolSet::empty(self.tools.len());
        for p in patterns {
            if glob::is_glob(p) {
                for (i, name) in self.names.iter() {
                    if glob::matches(p, name) {
                        set.insert(i);
                    }
                }
            } else if let Some(i) = self.index_of(p) {
                set.insert(i);
            }
        }
        set
    }

    /// Tools matching any of the patterns ignoring ASCII case (for denies).
    pub fn match_patterns_ignore_case(&self, patterns: &[String]) -> ToolSet {
        let mut set = ToolSet::empty(self.tools.len());
        for p in patterns {
            if glob::is_glob(p) {
                for (i, name) in self.names.iter() {
                    if glob::matches_ignore_case(p, name) {
                        set.insert(i);
                    }
                }
            } else if let Some(i) = self.index_of_folded(p) {
                set.insert(i);
            }
        }
        set
    }

    /// `default_tools` as a set.
    pub fn default_set(&self) -> &ToolSet {
        &self.masks.default
    }

    /// `deferred_default_tools` as a set.
    pub fn deferred_default_set(&self) -> &ToolSet {
        &self.masks.deferred_default
    }

    /// Tools that may be exposed at all: `full` (or every tool), overlay tools, `tool_search`.
    pub fn available_set(&self) -> &ToolSet {
        &self.masks.available
    }

    /// Tools of every overlay.
    pub fn overlay_set(&self) -> &ToolSet {
        &self.masks.overlay
    }

    /// Tools of one overlay key (e.g. `web_search`), empty when the registry has none.
    pub fn overlay(&self, key: &str) -> ToolSet {
        match self.overlays.iter().find(|(k, _)| k == key) {
            Some((_, list)) => self.match_patterns(list),
            None => ToolSet::empty(self.tools.len()),
        }
    }

    /// The `default_tools` list as written (names and globs).
    pub fn default_tools(&self) -> &[String] {
        &self.default_tools
    }

    /// Preset names in document order (sorted, as JSON objects carry no order here).
    pub fn toolset_names(&self) -> impl Iterator<Item = &str> {
        self.toolsets.iter().map(|(n, _)| n.as_str())
    }

    /// The patterns of a preset.
    pub fn toolset(&self, name: &str) -> Option<&[String]> {
        self.toolsets
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, l)| l.as_slice())
    }

    /// The tools of a preset, matched at load time.
    pub fn toolset_set(&self, name: &str) -> Option<&ToolSet> {
        self.toolset_masks
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s)
    }

    /// A tool's rendered entry for a provider slot, computed once per registry.
    pub(crate) fn cached_render(
        &self,
        index: usize,
        slot: usize,
        render: impl FnOnce() -> Result<String>,
    ) -> Result<&str> {
        let Some(cell) = self.render_cache.get(index).and_then(|c| c.get(slot)) else {
            return Err(Error::argument(
                "tool",
                format!("no tool at position {index}"),
            ));
        };
        if let Some(s) = cell.get() {
            return Ok(s);
        }
        let rendered = render()?;
        Ok(cell.get_or_init(|| rendered))
    }

    /// A token count for a tool's rendered entry, computed once per (counter, provider) slot.
    pub(crate) fn cached_tokens(
        &self,
        index: usize,
        slot: usize,
        count: impl FnOnce() -> Result<usize>,
    ) -> Result<usize> {
        match self.token_cache.get(index).and_then(|c| c.get(slot)) {
            Some(cell) => match cell.get() {
                Some(n) => Ok(*n),
                None => {
                    let n = count()?;
                    Ok(*cell.get_or_init(|| n))
                }
            },
            None => count(),
        }
    }

    /// Every tool prepared for keyword search, in registry order.
    pub(crate) fn search_documents(&self) -> &[search::Document] {
        self.search_docs
            .get_or_init(|| self.tools.iter().map(search::Document::new).collect())
    }

    /// The policy of a source.
    pub fn source(&self, name: &str) -> Result<&SourcePolicy> {
        self.sources
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| Error::UnknownSource {
                name: name.to_string(),
                known: if self.sources.is_empty() {
                    "none defined".to_string()
                } else {
                    self.source_names().collect::<Vec<_>>().join(", ")
                },
            })
    }

    pub fn source_names(&self) -> impl Iterator<Item = &str> {
        self.sources.iter().map(|s| s.name.as_str())
    }

    /// Earlier versions of the defaults, oldest first.
    pub fn history(&self) -> &[HistoryVersion] {
        &self.history
    }

    /// The registry as JSON in our format; loading it again gives an equal registry.
    pub fn to_value(&self) -> Value {
        let mut doc = Map::new();
        let tools: Vec<Value> = self
            .tools
            .iter()
            .enumerate()
            .filter(|(i, _)| !(self.builtin_tool_search && *i == self.tools.len() - 1))
            .map(|(_, t)| tool_to_value(t))
            .collect();
        doc.insert("tools".into(), Value::Array(tools));
        let list = |l: &[String]| Value::Array(l.iter().cloned().map(Value::String).collect());
        if self.explicit_defaults {
            doc.insert("default_tools".into(), list(&self.default_tools));
        }
        if !self.deferred_default_tools.is_empty() {
            doc.insert(
                "deferred_default_tools".into(),
                list(&self.deferred_default_tools),
            );
        }
        let named = |items: &[(String, Vec<String>)]| {
            Value::Object(items.iter().map(|(k, l)| (k.clone(), list(l))).collect())
        };
        if !self.toolsets.is_empty() {
            doc.insert("toolsets".into(), named(&self.toolsets));
        }
        if !self.overlays.is_empty() {
            doc.insert("overlays".into(), named(&self.overlays));
        }
        if !self.sources.is_empty() {
            let sources = self
                .sources
                .iter()
                .map(|s| {
                    let mut o = Map::new();
                    if !matches!(s.default, ToolsOverride::Follow) {
                        o.insert("default".into(), s.default.to_canonical_value());
                    }
                    if !s.deny.is_empty() {
                        o.insert("deny".into(), list(&s.deny));
                    }
                    (s.name.clone(), Value::Object(o))
                })
                .collect();
            doc.insert("sources".into(), Value::Object(sources));
        }
        if !self.history.is_empty() {
            let history = self
                .history
                .iter()
                .map(|h| {
                    let mut o = Map::new();
                    o.insert("version".into(), Value::String(h.version.clone()));
                    if let Some(d) = &h.default_tools {
                        o.insert("default_tools".into(), list(d));
                    }
                    if !h.toolsets.is_empty() {
                        o.insert("toolsets".into(), named(&h.toolsets));
                    }
                    Value::Object(o)
                })
                .collect();
            doc.insert("history".into(), Value::Array(history));
        }
        Value::Object(doc)
    }
}

/// The embedded registry document.
pub const EMBEDDED_REGISTRY_JSON: &str = include_str!("default_registry.json");

/// A tool as JSON in our format (`parameters`, MCP fields kept).
pub fn tool_to_value(t: &Tool) -> Value {
    let mut o = t.extra.clone();
    o.insert("name".into(), Value::String(t.name.clone()));
    o.insert("description".into(), Value::String(t.description.clone()));
    o.insert("parameters".into(), t.parameters.clone());
    if let Some(title) = &t.title {
        o.insert("title".into(), Value::String(title.clone()));
    }
    if let Some(a) = &t.annotations {
        o.insert("annotations".into(), a.clone());
    }
    if let Some(d) = t.defer {
        o.insert("defer".into(), Value::Bool(d));
    }
    Value::Object(o)
}

/// Whether a name satisfies `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_provider_safe_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Parses a tool array; each tool comes with the path it was read from (for later errors).
fn parse_tools(
    value: Value,
    path: &JsonPath,
    server: Option<(&str, &JsonPath)>,
) -> Result<Vec<(Tool, JsonPath)>> {
    // An MCP `tools/list` result object may stand where the array is expected.
    let (items, path) = match value {
        Value::Array(items) => (items, path.clone()),
        Value::Object(mut o) if o.get("tools").is_some_and(Value::is_array) => {
            match o.remove("tools") {
                Some(Value::Array(items)) => (items, path.key("tools")),
                _ => (Vec::new(), path.key("tools")),
            }
        }
        Value::Null => return Ok(Vec::new()),
        other => {
            return Err(Error::value(
                "registry",
                path,
                format!("expected an array of tools, found {}", describe(&other)),
            ))
        }
    };
    if items.len() > LIMITS.max_tools {
        return Err(Error::limit(
            &path,
            format!(
                "{} tools, at most {} are accepted",
                items.len(),
                LIMITS.max_tools
            ),
        ));
    }
    if let Some((server, server_path)) = server {
        let ok = !server.is_empty()
            && server
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            && !server.contains("__");
        if !ok {
            return Err(Error::registry(
                server_path,
                format!("server name \"{server}\" must be letters, digits, '-' or '_' (no \"__\")"),
            ));
        }
    }
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let p = path.index(i);
            parse_tool(item, &p, server.map(|s| s.0)).map(|t| (t, p))
        })
        .collect()
}

fn parse_tool(value: Value, path: &JsonPath, server: Option<&str>) -> Result<Tool> {
    let Value::Object(mut obj) = value else {
        return Err(Error::value(
            "registry",
            path,
            format!("expected a tool object, found {}", describe(&value)),
        ));
    };
    let raw_name = match obj.get("name") {
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err(Error::value(
                "registry",
                &path.key("name"),
                format!("expected a string, found {}", describe(other)),
            ))
        }
        None => return Err(Error::value("registry", path, "tool has no \"name\"")),
    };
    let name = match server {
        Some(s) => format!("mcp__{s}__{raw_name}"),
        None => raw_name.to_string(),
    };
    if !is_provider_safe_name(&name) {
        return Err(Error::registry(
            &path.key("name"),
            format!(
                "tool name \"{name}\" is not provider-safe (must match ^[a-zA-Z0-9_-]{{1,64}}$)"
            ),
        ));
    }
    let description = match obj.get("description") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(Error::value(
                "registry",
                &path.key("description"),
                format!("expected a string, found {}", describe(other)),
            ))
        }
    };
    if description.len() > LIMITS.max_description_bytes {
        return Err(Error::limit(
            &path.key("description"),
            format!(
                "description of {} bytes, at most {} are accepted",
                description.len(),
                LIMITS.max_description_bytes
            ),
        ));
    }
    let schema_keys = ["parameters", "inputSchema", "input_schema"];
    let present: Vec<&str> = schema_keys
        .iter()
        .copied()
        .filter(|k| obj.contains_key(*k))
        .collect();
    if present.len() > 1 {
        return Err(Error::value(
            "registry",
            &path.key(present[1]),
            format!(
                "both \"{}\" and \"{}\" given; use one",
                present[0], present[1]
            ),
        ));
    }
    let schema_key = present.first().copied().unwrap_or("parameters");
    let schema_path = path.key(schema_key);
    let parameters = match obj.remove(schema_key) {
        Some(v @ Value::Object(_)) => v,
        Some(other) => {
            return Err(Error::value(
                "registry",
                &schema_path,
                format!("expected a JSON Schema object, found {}", describe(&other)),
            ))
        }
        None => {
            return Err(Error::value(
                "registry",
                path,
                "tool has no \"parameters\" (or MCP \"inputSchema\")",
            ))
        }
    };
    check_schema_size(&parameters, &schema_path)?;
    let title = match obj.get("title") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err(Error::value(
                "registry",
                &path.key("title"),
                format!("expected a string, found {}", describe(other)),
            ))
        }
    };
    let defer = match obj.get("defer") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => {
            return Err(Error::value(
                "registry",
                &path.key("defer"),
                format!("expected true or false, found {}", describe(other)),
            ))
        }
    };
    let annotations = obj.remove("annotations").filter(|v| !v.is_null());
    let mut extra = Map::new();
    for (k, v) in obj {
        let known = matches!(k.as_str(), "name" | "description" | "title" | "defer")
            || schema_keys.contains(&k.as_str());
        if !known {
            extra.insert(k, v);
        }
    }
    Ok(Tool {
        name,
        description,
        parameters,
        title,
        annotations,
        defer,
        extra,
    })
}

/// (nesting depth, compact JSON length) of a value in one walk, without serialising.
fn measure_schema(v: &Value) -> (usize, usize) {
    fn measure(v: &Value) -> (usize, usize) {
        match v {
            Value::Null => (0, 4),
            Value::Bool(b) => (0, if *b { 4 } else { 5 }),
            Value::Number(n) => (0, n.to_string().len()),
            Value::String(s) => (0, json_string_len(s)),
            Value::Array(a) => {
                let (mut depth, mut len) = (0, 2 + a.len().saturating_sub(1));
                for x in a {
                    let (d, l) = measure(x);
                    depth = depth.max(d);
                    len += l;
                }
                (depth + 1, len)
            }
            Value::Object(o) => {
                let (mut depth, mut len) = (0, 2 + o.len().saturating_sub(1));
                for (k, x) in o {
                    let (d, l) = measure(x);
                    depth = depth.max(d);
                    len += json_string_len(k) + 1 + l;
                }
                (depth + 1, len)
            }
        }
    }
    measure(v)
}

fn check_schema_size(schema: &Value, path: &JsonPath) -> Result<()> {
    let (d, bytes) = measure_schema(schema);
    if d > LIMITS.max_schema_depth {
        return Err(Error::limit(
            path,
            format!(
                "schema nests {d} levels deep, at most {} are accepted",
                LIMITS.max_schema_depth
            ),
        ));
    }
    if bytes > LIMITS.max_schema_bytes {
        return Err(Error::limit(
            path,
            format!(
                "schema of {bytes} bytes, at most {} are accepted",
                LIMITS.max_schema_bytes
            ),
        ));
    }
    Ok(())
}

/// Length of a string as serde_json writes it (quotes and escapes included).
fn json_string_len(s: &str) -> usize {
    2 + s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum::<usize>()
}

/// Parses an array of name/glob strings.
pub(crate) fn parse_pattern_list(
    value: &Value,
    path: &JsonPath,
    what: &'static str,
) -> Result<Vec<String>> {
    let items = value.as_array().ok_or_else(|| {
        Error::value(
            what,
            path,
            format!(
                "expected an array of tool names or globs, found {}",
                describe(value)
            ),
        )
    })?;
    if items.len() > LIMITS.max_patterns {
        return Err(Error::limit(
            path,
            format!(
                "{} entries, at most {} are accepted",
                items.len(),
                LIMITS.max_patterns
            ),
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::String(s) if s.len() > glob::MAX_PATTERN_LEN => Err(Error::limit(
                &path.index(i),
                format!(
                    "pattern of {} bytes, at most {} are accepted",
                    s.len(),
                    glob::MAX_PATTERN_LEN
                ),
            )),
            Value::String(s) if s.is_empty() => {
                Err(Error::value(what, &path.index(i), "empty tool name"))
            }
            Value::String(s) => Ok(s.clone()),
            other => Err(Error::value(
                what,
                &path.index(i),
                format!(
                    "expected a tool name or glob string, found {}",
                    describe(other)
                ),
            )),
        })
        .collect()
}

fn parse_named_lists(value: &Value, path: &JsonPath) -> Result<Vec<(String, Vec<String>)>> {
    let obj = value.as_object().ok_or_else(|| {
        Error::value(
            "registry",
            path,
            format!(
                "expected an object of name → list, found {}",
                describe(value)
            ),
        )
    })?;
    obj.iter()
        .map(|(k, v)| Ok((k.clone(), parse_pattern_list(v, &path.key(k), "registry")?)))
        .collect()
}

fn parse_overlays(value: &Value, path: &JsonPath) -> Result<Vec<(String, Vec<String>)>> {
    let obj = value.as_object().ok_or_else(|| {
        Error::value(
            "registry",
            path,
            format!(
                "expected an object of overlay → tools, found {}",
                describe(value)
            ),
        )
    })?;
    obj.iter()
        .map(|(k, v)| {
            let p = path.key(k);
            if k != WEB_SEARCH_OVERLAY {
                return Err(Error::registry(
                    &p,
                    format!("unknown overlay \"{k}\" (intents can switch only \"web_search\")"),
                ));
            }
            let list = match v {
                Value::String(s) => vec![s.clone()],
                other => parse_pattern_list(other, &p, "registry")?,
            };
            Ok((k.clone(), list))
        })
        .collect()
}

fn parse_sources(value: &Value, path: &JsonPath) -> Result<Vec<SourcePolicy>> {
    let obj = value.as_object().ok_or_else(|| {
        Error::value(
            "registry",
            path,
            format!(
                "expected an object of source → policy, found {}",
                describe(value)
            ),
        )
    })?;
    obj.iter()
        .map(|(name, v)| {
            let p = path.key(name);
            let policy = v.as_object().ok_or_else(|| {
                Error::value(
                    "registry",
                    &p,
                    format!("expected {{\"default\", \"deny\"}}, found {}", describe(v)),
                )
            })?;
            for key in policy.keys() {
                if key != "default" && key != "deny" {
                    return Err(Error::registry(
                        &p.key(key),
                        format!("unknown source key \"{key}\" (expected \"default\" or \"deny\")"),
                    ));
                }
            }
            let default = match policy.get("default") {
                None => ToolsOverride::Follow,
                Some(d) => ToolsOverride::from_value_at(d, &p.key("default"))?,
            };
            let deny = match policy.get("deny") {
                None | Some(Value::Null) => Vec::new(),
                Some(d) => parse_pattern_list(d, &p.key("deny"), "registry")?,
            };
            Ok(SourcePolicy {
                name: name.clone(),
                default,
                deny,
            })
        })
        .collect()
}

fn parse_history(value: &Value, path: &JsonPath) -> Result<Vec<HistoryVersion>> {
    let items = value.as_array().ok_or_else(|| {
        Error::value(
            "registry",
            path,
            format!("expected an array of versions, found {}", describe(value)),
        )
    })?;
    items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let p = path.index(i);
            let o = v.as_object().ok_or_else(|| {
                Error::value(
                    "registry",
                    &p,
                    format!("expected an object, found {}", describe(v)),
                )
            })?;
            let version = match o.get("version") {
                Some(Value::String(s)) => s.clone(),
                None => format!("#{i}"),
                Some(other) => {
                    return Err(Error::value(
                        "registry",
                        &p.key("version"),
                        format!("expected a string, found {}", describe(other)),
                    ))
                }
            };
            let default_tools = match o.get("default_tools") {
                None | Some(Value::Null) => None,
                Some(d) => Some(parse_pattern_list(d, &p.key("default_tools"), "registry")?),
            };
            let toolsets = match o.get("toolsets") {
                None | Some(Value::Null) => Vec::new(),
                Some(t) => parse_named_lists(t, &p.key("toolsets"))?,
            };
            Ok(HistoryVersion {
                version,
                default_tools,
                toolsets,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str) -> Value {
        json!({"name": name, "description": "d", "parameters": {"type": "object"}})
    }

    #[test]
    fn embedded_registry_loads_and_round_trips() {
        let r = Registry::embedded();
        assert!(r.index_of("read_file").is_some());
        assert!(r.index_of(TOOL_SEARCH).is_some());
        let again = Registry::from_value(&r.to_value()).unwrap();
        assert_eq!(again.to_value(), r.to_value());
        assert_eq!(again.tools(), r.tools());
    }

    #[test]
    fn bare_array_and_mcp_result_load() {
        let arr = json!([{"name": "a-b", "inputSchema": {"type": "object"}, "title": "A", "outputSchema": {}}]);
        let r = Registry::from_value(&arr).unwrap();
        assert_eq!(r.tools()[0].name, "a-b");
        assert_eq!(r.tools()[0].title.as_deref(), Some("A"));
        assert!(r.tools()[0].extra.contains_key("outputSchema"));
        let res = json!({"tools": arr, "nextCursor": null});
        assert_eq!(Registry::from_value(&res).unwrap().len(), 2);
    }

    #[test]
    fn rejects_duplicates_and_unsafe_names_with_path() {
        let e = Registry::from_value(&json!([tool("a"), tool("b"), tool("a")])).unwrap_err();
        assert_eq!(e.path(), Some("$[2].name"));
        assert_eq!(e.code(), "invalid_registry");
        let e = Registry::from_value(&json!({"tools": [tool("x"), tool("X")]})).unwrap_err();
        assert_eq!(e.path(), Some("$.tools[1].name"));
        let e = Registry::from_value(&json!({"tools": [tool("has space")]})).unwrap_err();
        assert!(e.to_string().contains("provider-safe"), "{e}");
        let long = "a".repeat(65);
        assert!(Registry::from_value(&json!([tool(&long)])).is_err());
    }

    #[test]
    fn rejects_non_object_parameters() {
        let e = Registry::from_value(&json!([{"name": "a", "parameters": [1]}])).unwrap_err();
        assert_eq!(e.path(), Some("$[0].parameters"));
        let e = Registry::from_value(&json!([{"name": "a", "inputSchema": "x"}])).unwrap_err();
        assert_eq!(e.path(), Some("$[0].inputSchema"));
    }

    #[test]
    fn references_must_be_known_or_globs() {
        let e =
            Registry::from_value(&json!({"tools": [tool("a")], "toolsets": {"r": ["a", "nope"]}}))
                .unwrap_err();
        assert_eq!(e.path(), Some("$.toolsets.r[1]"));
        let ok = Registry::from_value(&json!({"tools": [tool("a")], "default_tools": ["a*"]}));
        assert!(ok.is_ok());
        let e = Registry::from_value(
            &json!({"tools": [tool("a")], "sources": {"s": {"deny": ["zz"]}}}),
        )
        .unwrap_err();
        assert_eq!(e.path(), Some("$.sources.s.deny[0]"));
        let e = Registry::from_value(&json!({"tools": [tool("a")], "defaults": []})).unwrap_err();
        assert_eq!(e.path(), Some("$.defaults"));
    }

    #[test]
    fn mcp_servers_are_namespaced_and_available() {
        let doc = json!({
            "tools": [tool("read_file")],
            "toolsets": {"full": ["read_file"]},
            "mcp_servers": [{"name": "github", "tools": [tool("create_issue")]}]
        });
        let r = Registry::from_value(&doc).unwrap();
        let i = r.index_of("mcp__github__create_issue").unwrap();
        assert!(r.available_set().contains(i));
        let merged = r
            .merge_mcp_server("time", &json!({"tools": [tool("now")]}))
            .unwrap();
        assert!(merged.index_of("mcp__time__now").is_some());
        assert!(merged.index_of("mcp__github__create_issue").is_some());
        let e = Registry::from_value(&json!({"mcp_servers": [{"name": "a__b", "tools": []}]}))
            .unwrap_err();
        assert_eq!(e.path(), Some("$.mcp_servers[0].name"));
    }

    #[test]
    fn schema_length_walk_matches_serialisation() {
        let samples = [
            json!({"a": [1, -2.5, null, true, false, "x\"y\\z\n\u{1}\u{7f}é\t"], "b": {}, "": [], "c": 12345678901u64}),
            json!({}),
            json!({"type": "object", "properties": {"q": {"type": "string", "description": "line\r\nbreak \u{8}\u{c}"}}}),
        ];
        for v in samples {
            assert_eq!(
                measure_schema(&v).1,
                serde_json::to_string(&v).unwrap().len(),
                "{v}"
            );
        }
        assert_eq!(measure_schema(&json!({"a": {"b": [1]}})).0, 3);
    }

    #[test]
    fn limits_are_enforced() {
        let mut deep = json!({"type": "object"});
        for _ in 0..40 {
            deep = json!({"type": "object", "properties": {"x": deep}});
        }
        let e = Registry::from_value(&json!([{"name": "a", "parameters": deep}])).unwrap_err();
        assert_eq!(e.code(), "limit_exceeded");
        let many: Vec<Value> = (0..10_001).map(|i| tool(&format!("t{i}"))).collect();
        let e = Registry::from_value(&Value::Array(many)).unwrap_err();
        assert_eq!(e.code(), "limit_exceeded");
    }

    #[test]
    fn toolset_masks_follow_registry_order() {
        let r = Registry::from_value(
            &json!({"tools": [tool("b"), tool("a"), tool("c")], "default_tools": ["c", "b"]}),
        )
        .unwrap();
        let names: Vec<&str> = r
            .default_set()
            .iter()
            .map(|i| r.tools()[i].name.as_str())
            .collect();
        assert_eq!(names, ["b", "c"]);
    }
}
