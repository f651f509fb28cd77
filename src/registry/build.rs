//! Building a registry from its settings and tools: naming clashes of MCP tools, the sorted
//! name index, the settings' names checked, and the masks expansion reads. A registry made
//! from another by a server change ([`Reuse`]) merges the old index and splices the old masks
//! instead of sorting and matching everything again.

use std::sync::Arc;

use super::annotation::{Effective, Selector, SELECTORS};
use super::load::{self, LocatedTool};
use super::toolset::{self, NameIndex, NameTable, ToolSet};
use super::{library_tools, names, LoadWarnings, Masks, Registry, Settings, Tool, TOOL_SEARCH};
use crate::error::{quoted, Error, JsonPath, Result};
use crate::glob;
use crate::limits::LIMITS;
use crate::warning::{Warning, WarningCode};

impl Registry {
    /// Indexes the tools, checks every name the settings mention and derives the masks.
    pub(crate) fn build(
        settings: Settings,
        located: Vec<LocatedTool>,
        load_warnings: LoadWarnings,
        reuse: Option<Reuse<'_>>,
    ) -> Result<Registry> {
        let root = JsonPath::root();
        if located.len() > LIMITS.max_tools {
            return Err(Error::limit(
                "document",
                &root.key("tools"),
                format!(
                    "{} tools, at most {} are accepted",
                    located.len(),
                    LIMITS.max_tools
                ),
            ));
        }
        let mut r = Registry::empty();
        r.data_mut().warnings = load_warnings.document.clone();
        for (_, list) in &load_warnings.servers {
            r.data_mut().warnings.extend(list.iter().cloned());
        }
        r.data_mut().load_warnings = Arc::new(load_warnings);
        let mut tools: Vec<Arc<Tool>> = Vec::with_capacity(located.len() + 1);
        let mut paths: Vec<load::ToolOrigin> = Vec::with_capacity(located.len());
        for (tool, path) in located {
            tools.push(tool);
            paths.push(path);
        }
        // A registry made from another reuses its index and masks unless a new tool's name
        // clashes (then the full build below sorts the clash out).
        let mut reuse =
            reuse.filter(|ru| ru.from.len() == tools.len() && !ru.new_tools_clash(&tools));
        // An MCP tool whose wire name is taken (its server lists the name twice, a registry
        // tool already has it, or 32 bits of SHA-256 collide) is left out: a wire name means
        // one tool, and the one already there keeps it.
        if reuse.is_none() && paths.iter().any(|p| p.lenient) {
            let clashes = clashing_lenient_tools(&tools, &paths);
            for &(at, holder) in &clashes {
                let (tool, kept) = (&tools[at], &tools[holder]);
                let server = names::server_of(&tool.name).unwrap_or("");
                let why = if paths[holder].lenient && kept.source_name() == tool.source_name() {
                    format!("the server lists {} twice", quoted(tool.source_name()))
                } else if paths[holder].lenient {
                    format!(
                        "its wire name {} is also the wire name of tool {} of MCP server {}",
                        quoted(&tool.name),
                        quoted(kept.source_name()),
                        quoted(names::server_of(&kept.name).unwrap_or(""))
                    )
                } else {
                    format!(
                        "its wire name {} is the name of a registry tool",
                        quoted(&tool.name)
                    )
                };
                r.data_mut().warnings.push(Warning::new(
                    WarningCode::DuplicateToolName,
                    "registry",
                    format!(
                        "tool {} of MCP server {} left out: {why}",
                        quoted(tool.source_name()),
                        quoted(server)
                    ),
                ));
            }
            if !clashes.is_empty() {
                let mut dropped = vec![false; tools.len()];
                for &(at, _) in &clashes {
                    dropped[at] = true;
                }
                let mut k = 0;
                tools.retain(|_| {
                    k += 1;
                    !dropped[k - 1]
                });
                let mut k = 0;
                paths.retain(|_| {
                    k += 1;
                    !dropped[k - 1]
                });
            }
        }
        if !tools.iter().any(|t| t.name == TOOL_SEARCH) {
            tools.push(Arc::new(library_tools::tool_search_definition()));
            r.data_mut().builtin_tool_search = true;
            if let Some(ru) = &mut reuse {
                let same = ru
                    .previous
                    .data
                    .builtin_tool_search
                    .then(|| ru.previous.len() - 1);
                ru.from.push(same);
            }
        }
        r.data_mut().tools = Arc::new(tools);
        r.data_mut().names = NameTable::new(r.data.tools.iter().map(|t| t.name.as_str()));
        let index = match &reuse {
            Some(ru) => Ok(NameIndex::merged(
                &ru.previous.data.index,
                &ru.from,
                &r.data.names,
            )),
            None => NameIndex::new(&r.data.names),
        };
        r.data_mut().index = match index {
            Ok(index) => index,
            Err((earlier, later)) => {
                // The built-in tool_search is last: a clash with it is the other tool's.
                let (other, at) = if later == paths.len() {
                    (later, earlier)
                } else {
                    (earlier, later)
                };
                let (name, other) = (&r.data.tools[at].name, &r.data.tools[other].name);
                let what = if name == other {
                    format!("duplicate tool name \"{name}\"")
                } else {
                    format!("tool name \"{name}\" differs from \"{other}\" only in case")
                };
                return Err(Error::registry(&paths[at].path().key("name"), what));
            }
        };
        r.data_mut().settings = Arc::new(settings);
        let gone = r.check_settings()?;
        r.data_mut().warnings.extend(gone);
        r.data_mut().effective = r.believe_annotations();
        r.derive_masks(reuse.as_ref());
        Ok(r)
    }

    /// Checks every name the settings mention. Names of MCP tools that are gone (a server
    /// stopped listing them, or was removed) are warnings, not errors: servers change their
    /// lists while the operator's document stays as written.
    fn check_settings(&self) -> Result<Vec<Warning>> {
        let root = JsonPath::root();
        let s = &self.data.settings;
        let mut gone = Vec::new();
        if let Some(d) = &s.default_tools {
            self.check_names(d, &root.key("default_tools"), false, &mut gone)?;
        }
        self.check_names(
            &s.deferred_default_tools,
            &root.key("deferred_default_tools"),
            false,
            &mut gone,
        )?;
        for (name, list) in &s.toolsets {
            self.check_names(list, &root.key("toolsets").key(name), false, &mut gone)?;
        }
        for (key, list) in &s.overlays {
            self.check_names(list, &root.key("overlays").key(key), false, &mut gone)?;
        }
        for source in &s.sources {
            // Denies match ignoring case at run time, so they load that way too.
            let path = root.key("sources").key(&source.name).key("deny");
            self.check_names(&source.deny, &path, true, &mut gone)?;
        }
        // History names tools that may be gone (that is its point); its selectors must still
        // be selectors the matcher knows.
        for (v, h) in s.history.iter().enumerate() {
            let at = root.key("history").index(v);
            let lists = h.default_tools.iter().map(|l| (at.key("default_tools"), l));
            let presets = h
                .toolsets
                .iter()
                .map(|(n, l)| (at.key("toolsets").key(n), l));
            for (path, list) in lists.chain(presets) {
                for (i, p) in list.iter().enumerate() {
                    if Selector::is_selector(p) {
                        check_selector(p, &path.index(i))?;
                    }
                }
            }
        }
        if gone.is_empty() {
            return Ok(Vec::new());
        }
        Ok(vec![Warning::new(
            WarningCode::UnknownTool,
            "registry",
            format!(
                "names in the registry's lists of MCP tools that no server lists now are kept, matching nothing ({}): {}",
                gone.len(),
                crate::error::some_names(&gone)
            ),
        )])
    }

    /// Each tool's annotations as believed: a merged server's only when `trusted_servers`
    /// names the server, the registry's own always (see `annotation.rs`).
    fn believe_annotations(&self) -> Vec<Effective> {
        let s = &self.data.settings;
        // Trust is a property of a server: decided once per server, not per tool.
        let trusted: Vec<&str> = s
            .servers
            .iter()
            .filter(|server| s.trusted_servers.iter().any(|p| glob::matches(p, server)))
            .map(String::as_str)
            .collect();
        self.data
            .tools
            .iter()
            .map(|t| {
                let believed = match s.merged_server_of(&t.name) {
                    Some(server) => trusted.contains(&server),
                    None => true,
                };
                Effective::of(t.annotations.as_ref(), believed)
            })
            .collect()
    }

    /// Every entry is a glob, an annotation selector, or names a tool (exactly, or ignoring
    /// case with `fold`); an unknown MCP tool name goes to `gone`.
    fn check_names<'p>(
        &self,
        patterns: &'p [String],
        path: &JsonPath,
        fold: bool,
        gone: &mut Vec<&'p String>,
    ) -> Result<()> {
        for (i, p) in patterns.iter().enumerate() {
            if Selector::is_selector(p) {
                check_selector(p, &path.index(i))?;
                continue;
            }
            if glob::is_glob(p) {
                continue;
            }
            let known = if fold {
                self.index_of_folded(p).is_some()
            } else {
                self.index_of(p).is_some()
            };
            if known {
                continue;
            }
            if names::server_of(p).is_some() {
                if !gone.contains(&p) {
                    gone.push(p);
                }
                continue;
            }
            return Err(Error::registry(
                &path.index(i),
                format!(
                    "unknown tool {} (not in `tools`, and not a glob)",
                    quoted(p)
                ),
            ));
        }
        Ok(())
    }

    fn derive_masks(&mut self, reuse: Option<&Reuse<'_>>) {
        // Splicing matches each new tool against every pattern: worth it while new tools are
        // few (a server replaced), not when most of the registry is new (a bulk merge).
        if let Some(reuse) =
            reuse.filter(|ru| ru.from.iter().filter(|f| f.is_none()).count() <= ru.from.len() / 16)
        {
            let same_toolsets = reuse.previous.data.toolset_masks.len()
                == self.data.settings.toolsets.len()
                && reuse
                    .previous
                    .data
                    .toolset_masks
                    .iter()
                    .zip(&self.data.settings.toolsets)
                    .all(|((a, _), (b, _))| a == b);
            if same_toolsets {
                self.splice_masks(reuse);
                return;
            }
        }
        let n = self.data.tools.len();
        let s = &self.data.settings;
        let default = match &s.default_tools {
            Some(list) => self.match_patterns(list),
            None => ToolSet::full(n),
        };
        let deferred_default = self.match_patterns(&s.deferred_default_tools);
        let mut overlay = ToolSet::empty(n);
        for (_, list) in &s.overlays {
            overlay.union_with(&self.match_patterns(list));
        }
        let toolset_masks: Vec<(String, ToolSet)> = s
            .toolsets
            .iter()
            .map(|(name, list)| (name.clone(), self.match_patterns(list)))
            .collect();
        let mut available = match toolset_masks.iter().find(|(name, _)| name == "full") {
            Some((_, set)) => set.clone(),
            None => ToolSet::full(n),
        };
        available.union_with(&overlay);
        if let Some(i) = self.index_of(TOOL_SEARCH) {
            available.insert(i);
        }
        let data = self.data_mut();
        data.toolset_masks = toolset_masks;
        data.masks = Masks {
            default,
            deferred_default,
            available,
            overlay,
        };
    }

    /// The masks of a registry made from `reuse.previous` by changing some servers: a kept
    /// tool's bits are its old ones (the lists changed only by the changing servers' own
    /// globs, which match only those servers' tools), a new tool's are matched by name. This
    /// is what makes replacing one server in a large registry cost its own tools, not a glob
    /// scan per server.
    fn splice_masks(&mut self, reuse: &Reuse<'_>) {
        let s = &self.data.settings;
        let names = &self.data.names;
        let effective = &self.data.effective;
        let listed = |list: &[String], i: usize| {
            let name = names.get(i);
            list.iter().any(|p| {
                if Selector::is_selector(p) {
                    Selector::parse(p)
                        .is_some_and(|s| effective.get(i).is_some_and(|e| s.selects(e)))
                } else if glob::is_glob(p) {
                    glob::matches(p, name)
                } else {
                    p == name
                }
            })
        };
        let in_overlay = |i: usize| s.overlays.iter().any(|(_, l)| listed(l, i));
        let splice = |old: &ToolSet, fresh: &dyn Fn(usize) -> bool| {
            let mut set = ToolSet::empty(reuse.from.len());
            for (i, from) in reuse.from.iter().enumerate() {
                let hit = match *from {
                    Some(o) => old.contains(o),
                    None => fresh(i),
                };
                if hit {
                    set.insert(i);
                }
            }
            set
        };
        let previous = &reuse.previous.data.masks;
        let default = splice(&previous.default, &|i| {
            s.default_tools.as_deref().is_none_or(|l| listed(l, i))
        });
        let deferred_default = splice(&previous.deferred_default, &|i| {
            listed(&s.deferred_default_tools, i)
        });
        let overlay = splice(&previous.overlay, &in_overlay);
        let full = s.toolsets.iter().find(|(n, _)| n == "full");
        let available = splice(&previous.available, &|i| {
            full.is_none_or(|(_, l)| listed(l, i)) || in_overlay(i) || names.get(i) == TOOL_SEARCH
        });
        let toolset_masks = s
            .toolsets
            .iter()
            .zip(&reuse.previous.data.toolset_masks)
            .map(|((name, list), (_, old))| (name.clone(), splice(old, &|i| listed(list, i))))
            .collect();
        let data = self.data_mut();
        data.toolset_masks = toolset_masks;
        data.masks = Masks {
            default,
            deferred_default,
            available,
            overlay,
        };
    }
}

/// How a registry made from another maps onto it (built by `mcp.rs`).
pub(crate) struct Reuse<'a> {
    /// The registry changed.
    pub(crate) previous: &'a Registry,
    /// For each tool of the new registry, in order: its position in `previous` when it is the
    /// same tool (kept as it was), `None` when it is new.
    pub(crate) from: Vec<Option<usize>>,
}

impl Reuse<'_> {
    /// Whether a new tool's name equals, ignoring case, a kept tool's or another new one's.
    fn new_tools_clash(&self, tools: &[Arc<Tool>]) -> bool {
        let mut kept = ToolSet::empty(self.previous.len());
        for o in self.from.iter().flatten() {
            kept.insert(*o);
        }
        let mut fresh: Vec<&str> = Vec::new();
        for (t, from) in tools.iter().zip(&self.from) {
            if from.is_none() {
                if self
                    .previous
                    .index_of_folded(&t.name)
                    .is_some_and(|j| kept.contains(j))
                {
                    return true;
                }
                fresh.push(&t.name);
            }
        }
        NameIndex::new(&NameTable::new(fresh.into_iter())).is_err()
    }
}

/// MCP tools whose name equals (ignoring case) an earlier or a registry tool's, as
/// (position, holder) in position order. Registry tools clashing with each other are left to
/// the index (an error in the operator's document).
fn clashing_lenient_tools(
    tools: &[Arc<Tool>],
    origins: &[load::ToolOrigin],
) -> Vec<(usize, usize)> {
    let names = NameTable::new(tools.iter().map(|t| t.name.as_str()));
    let mut order: Vec<u32> = (0..tools.len() as u32).collect();
    toolset::sort_by_folded_name(&mut order, &names);
    // Each later member of a run of equal names, with the run's holder: its first registry
    // tool if it has one, else its first (earliest) member.
    let mut holder_of: Vec<Option<usize>> = vec![None; tools.len()];
    for run in order.chunk_by(|&a, &b| {
        toolset::cmp_folded(names.get(a as usize), names.get(b as usize)).is_eq()
    }) {
        let holder = run
            .iter()
            .map(|&i| i as usize)
            .find(|&i| !origins[i].lenient)
            .unwrap_or(run[0] as usize);
        for &i in run {
            let i = i as usize;
            if i != holder && origins[i].lenient {
                holder_of[i] = Some(holder);
            }
        }
    }
    holder_of
        .into_iter()
        .enumerate()
        .filter_map(|(i, h)| h.map(|h| (i, h)))
        .collect()
}

/// An `@` entry is a selector the matcher knows.
fn check_selector(pattern: &str, at: &JsonPath) -> Result<()> {
    if Selector::parse(pattern).is_some() {
        return Ok(());
    }
    Err(Error::registry(
        at,
        format!(
            "unknown annotation selector {} (expected {SELECTORS})",
            quoted(pattern)
        ),
    ))
}
