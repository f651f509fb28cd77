//! MCP servers in a registry, kept in step with each server's `tools/list`.
//!
//! A server's tools are named by [`super::names`] (`mcp__<server>__<tool>`, a function of the
//! two names alone), exposed (added to an explicit `full`) and deferred by default (added to
//! explicit `default_tools` and `deferred_default_tools`): available to every session, their
//! schemas cost nothing until the model loads them.
//!
//! Servers change their lists while sessions run (`notifications/tools/list_changed`, MCP
//! specification, "Tools › List Changed Notification"), so a registry can set (add or
//! replace) one server's tools, remove a server, or set many servers in one build. Each call
//! returns a new registry and a [`RegistryDiff`]; the registry it was called on is unchanged
//! and becomes the new one's earlier version (see `version.rs`). A replaced server's tools take
//! the place of its old ones, so the registry order — and with it the array — of every other
//! tool stays put.

use std::rc::Rc;

use serde::Serialize;

use super::annotation::Selector;
use super::load::{check_input_size, parse_tool_list, LocatedTool, ToolOrigin};
use super::names::{
    belongs_to, check_server_name, namespaced, server_glob, server_name_rule, server_of,
};
use super::tool::Tool;
use super::{LoadWarnings, Registry, Reuse, Settings};
use crate::error::{quoted, Error, JsonPath, Result};
use crate::json::read_tool_list;

/// What a change to a registry's servers did, by wire name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RegistryDiff {
    /// Tools that are new, in registry order.
    pub added: Vec<String>,
    /// Tools that are gone, in the earlier registry's order.
    pub removed: Vec<String>,
    /// Tools whose definition changed (description, schema, title, annotations, other
    /// fields), in registry order.
    pub changed: Vec<String>,
    /// Presets that select by annotation (`@read_only`, ...) whose tools changed with it, in
    /// the registry's preset order.
    pub presets: Vec<PresetChange>,
}

/// The tools of the changed servers that entered or left a preset selecting by annotation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PresetChange {
    /// The preset's name.
    pub preset: String,
    /// Tools now in it (new ones, or ones whose annotations now select them), registry order.
    pub entered: Vec<String>,
    /// Tools still in the registry that are no longer in it, registry order.
    pub left: Vec<String>,
}

impl RegistryDiff {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
            && self.presets.is_empty()
    }
}

/// A registry after a change to its servers, and what changed.
#[derive(Debug, Clone)]
pub struct RegistryChange {
    /// The new registry (the one the call was made on is unchanged).
    pub registry: Registry,
    /// Tools added, removed and changed.
    pub diff: RegistryDiff,
}

impl Settings {
    /// The merged server a registry name belongs to (`mcp__<server>__…` of a server this
    /// registry merged): the one attribution trust (`build.rs`) and writing back (`write.rs`)
    /// both read.
    pub(crate) fn merged_server_of<'n>(&self, name: &'n str) -> Option<&'n str> {
        server_of(name).filter(|server| self.servers.iter().any(|m| m == server))
    }

    /// Makes a server's tools exposed and deferred by default.
    /// A list that already holds the server's glob keeps it where it is: a written-back
    /// registry lists the globs its servers added, and loading it adds none again.
    pub(crate) fn add_server(&mut self, server: &str) {
        self.servers.push(server.to_string());
        let glob = server_glob(server);
        let add = |list: &mut Vec<String>| {
            if !list.contains(&glob) {
                list.push(glob.clone());
            }
        };
        if let Some((_, full)) = self.toolsets.iter_mut().find(|(n, _)| n == "full") {
            add(full);
        }
        if let Some(defaults) = &mut self.default_tools {
            add(defaults);
            add(&mut self.deferred_default_tools);
        }
    }

    /// Undoes [`Settings::add_server`]: the server's own glob leaves the lists it was added
    /// to (names of its tools written by the operator stay, as names of tools that are gone).
    fn drop_server(&mut self, server: &str) {
        self.servers.retain(|s| s != server);
        let glob = server_glob(server);
        if let Some((_, full)) = self.toolsets.iter_mut().find(|(n, _)| n == "full") {
            full.retain(|p| *p != glob);
        }
        if let Some(defaults) = &mut self.default_tools {
            defaults.retain(|p| *p != glob);
        }
        self.deferred_default_tools.retain(|p| *p != glob);
    }
}

impl Registry {
    /// Sets one MCP server's tools from its `tools/list` result (`{"tools": [...]}` or an
    /// array, as JSON text): adds the server, or replaces every tool it had. Errors name paths
    /// inside `tools_list`; a tool that cannot be used is left out with a warning.
    pub fn set_mcp_server(&self, server: &str, tools_list: &str) -> Result<RegistryChange> {
        check_server_argument(server)?;
        let list = read_list(server, tools_list, &JsonPath::root())?;
        self.with_servers(vec![(server.to_string(), list)], &[])
    }

    /// Sets many servers in one build (what a gateway with hundreds of servers, or the CLI's
    /// repeated `--mcp`, calls): `servers` is (name, `tools/list` JSON text) pairs. Errors name
    /// paths as if the servers were the array `[{"name", "tools"}, ...]`.
    pub fn set_mcp_servers(&self, servers: &[(&str, &str)]) -> Result<RegistryChange> {
        let mut lists = Vec::with_capacity(servers.len());
        for (k, &(server, text)) in servers.iter().enumerate() {
            let at = JsonPath::root().index(k);
            check_server_name(server, &at.key("name")).map_err(|_| {
                Error::argument("server", format!("{} (at {at})", server_name_rule(server)))
            })?;
            if lists
                .iter()
                .any(|(s, _): &(String, _)| s.eq_ignore_ascii_case(server))
            {
                return Err(Error::argument(
                    "server",
                    format!("server {} is given twice (at {at})", quoted(server)),
                ));
            }
            lists.push((
                server.to_string(),
                read_list(server, text, &at.key("tools"))?,
            ));
        }
        self.with_servers(lists, &[])
    }

    /// [`Registry::set_mcp_servers`] for the list as the bindings receive it, a JSON value
    /// `[{"name", "tools"}]` (each `tools` a `tools/list` result, or its JSON text). Errors
    /// name the input `servers` and the item's path (`$[1].name`); a list's own errors are
    /// rooted at `$[k].tools`. The one reader of this shape for JS and Python.
    pub fn set_mcp_servers_value(&self, servers: &serde_json::Value) -> Result<RegistryChange> {
        use serde_json::Value;
        let items = servers.as_array().ok_or_else(|| {
            Error::expected(
                "servers",
                &JsonPath::root(),
                "an array of {name, tools}",
                servers,
            )
        })?;
        let mut lists: Vec<(&str, std::borrow::Cow<'_, str>)> = Vec::with_capacity(items.len());
        for (k, item) in items.iter().enumerate() {
            let at = JsonPath::root().index(k);
            let name = item.get("name").and_then(Value::as_str).ok_or_else(|| {
                Error::expected("servers", &at.key("name"), "a server name", item)
            })?;
            let tools = match item.get("tools") {
                Some(Value::String(text)) => std::borrow::Cow::Borrowed(text.as_str()),
                Some(v) => std::borrow::Cow::Owned(crate::json_text::text(v)),
                None => {
                    return Err(Error::expected(
                        "servers",
                        &at.key("tools"),
                        "a tools/list result",
                        item,
                    ))
                }
            };
            lists.push((name, tools));
        }
        let pairs: Vec<(&str, &str)> = lists.iter().map(|(n, t)| (*n, t.as_ref())).collect();
        self.set_mcp_servers(&pairs)
    }

    /// Removes a server and all its tools.
    pub fn remove_mcp_server(&self, server: &str) -> Result<RegistryChange> {
        check_server_argument(server)?;
        if !self.data.settings.servers.iter().any(|s| s == server) && !self.has_server_tools(server)
        {
            return Err(Error::argument(
                "server",
                format!("no server {} in this registry", quoted(server)),
            ));
        }
        self.with_servers(Vec::new(), &[server])
    }

    /// Whether any tool belongs to `server` (one range of the sorted name index).
    fn has_server_tools(&self, server: &str) -> bool {
        self.data
            .index
            .with_folded_prefix(&self.data.names, &namespaced(server, ""))
            .any(|i| belongs_to(self.data.names.get(i), server))
    }

    /// The new registry: `set` servers' tools in place of their old ones (new servers at the
    /// end, in the order given), `removed` servers gone.
    fn with_servers(
        &self,
        set: Vec<(String, ParsedList)>,
        removed: &[&str],
    ) -> Result<RegistryChange> {
        let set_names: Vec<String> = set.iter().map(|(s, _)| s.clone()).collect();
        // The servers changing, sorted for lookups by a name's server.
        let mut sorted: Vec<&str> = set_names
            .iter()
            .map(String::as_str)
            .chain(removed.iter().copied())
            .collect();
        crate::sort::sort_names(&mut sorted);
        let changing =
            |name: &str| server_of(name).is_some_and(|s| sorted.binary_search(&s).is_ok());
        let mut settings = Settings::clone(&self.data.settings);
        let mut warnings = LoadWarnings {
            document: self.data.load_warnings.document.clone(),
            servers: self
                .data
                .load_warnings
                .servers
                .iter()
                .filter(|(s, _)| sorted.binary_search(&s.as_str()).is_err())
                .cloned()
                .collect(),
        };
        for server in removed {
            settings.drop_server(server);
        }
        // The old tools, with each set server's new list where its first tool was.
        let old = self.own_tools();
        let mut new_lists: Vec<Option<Vec<LocatedTool>>> = Vec::with_capacity(set.len());
        // Servers listed without tools (sorted once, only if a server has no tools here).
        let mut listed: Option<Vec<&str>> = None;
        for (server, list) in set {
            if !self.has_server_tools(&server) {
                let listed = listed.get_or_insert_with(|| {
                    let mut v: Vec<&str> = self
                        .data
                        .settings
                        .servers
                        .iter()
                        .map(String::as_str)
                        .collect();
                    crate::sort::sort_names(&mut v);
                    v
                });
                if listed.binary_search(&server.as_str()).is_err() {
                    settings.add_server(&server);
                }
            }
            warnings.servers.push((server, list.warnings));
            new_lists.push(Some(list.tools));
        }
        let tools_path = Rc::new(JsonPath::root().key("tools"));
        let mut tools: Vec<LocatedTool> = Vec::with_capacity(old.len() + 16);
        // Each tool's position in this registry, or `None` for a new one.
        let mut from: Vec<Option<usize>> = Vec::with_capacity(old.len() + 16);
        for (i, t) in old.iter().enumerate() {
            if changing(&t.name) {
                let server = server_of(&t.name).and_then(|s| set_names.iter().position(|n| n == s));
                if let Some(list) = server.and_then(|k| new_lists[k].take()) {
                    from.extend(std::iter::repeat_n(None, list.len()));
                    tools.extend(list);
                }
                continue;
            }
            let lenient = t.source.is_some();
            tools.push((t.clone(), ToolOrigin::new(tools_path.clone(), i, lenient)));
            from.push(Some(i));
        }
        for list in new_lists.into_iter().flatten() {
            from.extend(std::iter::repeat_n(None, list.len()));
            tools.extend(list);
        }
        let reuse = Reuse {
            previous: self,
            from,
        };
        let registry = Registry::build(settings, tools, warnings, Some(reuse))?.after(self);
        let diff = diff(self, &registry, &changing);
        Ok(RegistryChange { registry, diff })
    }
}

/// A server's tools as read, with what reading them said.
struct ParsedList {
    tools: Vec<LocatedTool>,
    warnings: Vec<crate::warning::Warning>,
}

fn check_server_argument(server: &str) -> Result<()> {
    check_server_name(server, &JsonPath::root())
        .map_err(|_| Error::argument("server", server_name_rule(server)))
}

/// Reads one `tools/list` result as the tools of `server`.
fn read_list(server: &str, text: &str, path: &JsonPath) -> Result<ParsedList> {
    check_input_size("tools list", path, text)?;
    let list = read_tool_list("tools list", text)?;
    let mut warnings = Vec::new();
    let tools = parse_tool_list(list, path, Some(server), &mut warnings)?;
    Ok(ParsedList { tools, warnings })
}

/// Tools of the changed servers added, removed or changed between two registries.
fn diff(before: &Registry, after: &Registry, changing: &dyn Fn(&str) -> bool) -> RegistryDiff {
    let mut d = RegistryDiff::default();
    for t in after.own_tools().iter().filter(|t| changing(&t.name)) {
        match before.index_of(&t.name).and_then(|i| before.tool(i)) {
            None => d.added.push(t.name.clone()),
            Some(old) if !same_definition(old, t) => d.changed.push(t.name.clone()),
            Some(_) => {}
        }
    }
    for t in before.own_tools().iter().filter(|t| changing(&t.name)) {
        if after.index_of(&t.name).is_none() {
            d.removed.push(t.name.clone());
        }
    }
    d.presets = preset_changes(before, after, changing);
    d
}

/// Membership changes of the presets that select by annotation, among the changed servers'
/// tools (a glob preset follows its names, which the added and removed lists already say).
fn preset_changes(
    before: &Registry,
    after: &Registry,
    changing: &dyn Fn(&str) -> bool,
) -> Vec<PresetChange> {
    let mut out = Vec::new();
    let presets = after
        .data
        .settings
        .toolsets
        .iter()
        .zip(&after.data.toolset_masks);
    for ((name, list), (_, now)) in presets {
        if !list.iter().any(|p| Selector::is_selector(p)) {
            continue;
        }
        let was = before
            .data
            .toolset_masks
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, mask)| mask);
        let was_in = |tool: &str| {
            before
                .index_of(tool)
                .is_some_and(|i| was.is_some_and(|m| m.contains(i)))
        };
        let mut change = PresetChange {
            preset: name.clone(),
            ..PresetChange::default()
        };
        for (i, t) in after.tools().iter().enumerate() {
            if !changing(&t.name) {
                continue;
            }
            match (now.contains(i), was_in(&t.name)) {
                (true, false) => change.entered.push(t.name.clone()),
                (false, true) => change.left.push(t.name.clone()),
                _ => {}
            }
        }
        if !change.entered.is_empty() || !change.left.is_empty() {
            out.push(change);
        }
    }
    out
}

/// Equal definitions, comparing schema texts before parsing them.
fn same_definition(a: &Tool, b: &Tool) -> bool {
    a.name == b.name
        && a.description == b.description
        && a.title == b.title
        && a.annotations == b.annotations
        && a.defer == b.defer
        && a.strict == b.strict
        && a.extra == b.extra
        && a.source == b.source
        && a.builtin == b.builtin
        && (a.schema_text() == b.schema_text() || a.parameters() == b.parameters())
}
