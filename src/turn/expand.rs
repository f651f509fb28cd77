//! The expander: intent + live registry → the tools available this request.
//!
//! `expand` is a pure function of the registry, the override, the agent profile and the
//! source. Its result lists tools in registry order, deduplicated, so the same inputs give the
//! same output on every target. All sets are bit masks in registry order (`ToolSet`); no
//! hash-map iteration decides any order.
//!
//! Order of application (`docs/contract.md`, "Expansion"): base → `allowed` → `disabled` → overlays → source ceiling
//! → availability. The base is
//! - `[]` / a hand-picked list: the listed tools (unknown names are warnings);
//! - `enabled: false`: nothing (overlays do not add to it);
//! - `toolset: X`: the preset X (unknown preset ⇒ warning, `default_tools`);
//! - `enabled: true`: `default_tools`;
//! - otherwise (`null`, `{}`, `enabled: null`): the agent profile, then the source's default,
//!   then `default_tools` — each of those levels is itself an override expanded the same way.
//!
//! Deny beats allow: a tool matched by `disabled` is removed even if the `web_search` overlay
//! would add it, and the source ceiling (`sources.<name>.deny`) removes tools whatever the
//! override says. Denies match ignoring ASCII case. The result is then split into resident
//! and deferred tools by `deferral.rs`.

use super::deferral;
pub use super::deferral::is_deferrable;

use serde::Serialize;

use crate::error::{escaped, quoted, some_names, Error, Result};
use crate::glob;
use crate::intent::{Intent, ToolsOverride};
use crate::registry::{Registry, SourcePolicy, Tool, ToolSet, TOOL_SEARCH, WEB_SEARCH_OVERLAY};
use crate::warning::{Warning, WarningCode};

/// What the caller knows besides the override.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExpandContext<'a> {
    /// The agent profile's tools setting (an override itself); `None` = no profile setting.
    pub profile: Option<&'a ToolsOverride>,
    /// The request's source (`webui`, `tui`, a channel); must exist in the registry.
    pub source: Option<&'a str>,
}

/// Why a registry tool is or is not in an expansion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// Available, full schema in the array every turn.
    Resident,
    /// Available, name in the catalog until loaded.
    Deferred,
    /// Not chosen by the intent (disabled, filtered out, or never in the base).
    NotSelected,
    /// Removed by the source ceiling.
    DeniedBySource,
    /// Outside the registry's exposure whitelist (`full`).
    Unavailable,
}

/// The tools available to one request, split into resident and deferred.
#[derive(Debug, Clone)]
pub struct Expansion {
    /// The registry version expanded against (a shared handle: one reference count).
    registry: Registry,
    status: Vec<ToolStatus>,
    source: Option<String>,
    pub(crate) warnings: Vec<Warning>,
}

impl Expansion {
    /// The registry this expansion belongs to.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Registry positions of every available tool, in registry order.
    pub fn tools(&self) -> impl Iterator<Item = usize> + '_ {
        self.positions(|s| matches!(s, ToolStatus::Resident | ToolStatus::Deferred))
    }

    /// Registry positions of resident tools (full schema every turn), in registry order.
    pub fn resident(&self) -> impl Iterator<Item = usize> + '_ {
        self.positions(|s| s == ToolStatus::Resident)
    }

    /// The deferred tools as a set (what `tool_search` searches).
    pub(crate) fn deferred_set(&self) -> ToolSet {
        let mut set = ToolSet::empty(self.status.len());
        for i in self.deferred() {
            set.insert(i);
        }
        set
    }

    /// Registry positions of deferred tools (name in the catalog), in registry order.
    pub fn deferred(&self) -> impl Iterator<Item = usize> + '_ {
        self.positions(|s| s == ToolStatus::Deferred)
    }

    fn positions(
        &self,
        keep: impl Fn(ToolStatus) -> bool + 'static,
    ) -> impl Iterator<Item = usize> + '_ {
        self.status
            .iter()
            .enumerate()
            .filter(move |(_, s)| keep(**s))
            .map(|(i, _)| i)
    }

    /// Status of a registry position.
    pub fn status(&self, index: usize) -> Option<ToolStatus> {
        self.status.get(index).copied()
    }

    /// Whether the tool at a position is deferred (loaded or not).
    pub fn is_deferred(&self, index: usize) -> bool {
        self.status(index) == Some(ToolStatus::Deferred)
    }

    /// Whether the tool at a position is available to this session.
    pub fn is_available(&self, index: usize) -> bool {
        matches!(
            self.status(index),
            Some(ToolStatus::Resident | ToolStatus::Deferred)
        )
    }

    /// Warnings of the expansion, in the order they arose.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// Names of a list of registry positions.
    pub fn names(&self, positions: impl Iterator<Item = usize>) -> Vec<String> {
        positions
            .map(|i| self.registry.name(i).to_string())
            .collect()
    }

    /// Names of a list of registry positions, borrowed from the registry (no allocation per
    /// name: previews of 10,000-tool registries list every name).
    pub fn name_refs(&self, positions: impl Iterator<Item = usize>) -> Vec<&str> {
        let registry = &self.registry;
        positions.map(|i| registry.name(i)).collect()
    }

    /// Dispatch lookup: the tool a call names, searched in the whole available set (resident
    /// and deferred, loaded or not), never in the provider array.
    pub fn resolve(&self, name: &str) -> Result<&Tool> {
        let not_available = |reason: String| Error::ToolNotAvailable {
            name: name.to_string(),
            reason,
        };
        let Some(i) = self.registry.index_of(name) else {
            return Err(not_available(match self.registry.index_of_folded(name) {
                Some(j) => format!(
                    "no tool of that name; names are case-sensitive (did you mean \"{}\"?)",
                    self.registry.tools()[j].name
                ),
                None => "no tool of that name in the registry".to_string(),
            }));
        };
        match self.status[i] {
            ToolStatus::Resident | ToolStatus::Deferred => Ok(&self.registry.tools()[i]),
            ToolStatus::NotSelected => Err(not_available(
                "not enabled for this session (disabled or not selected by its intent)".to_string(),
            )),
            ToolStatus::DeniedBySource => Err(not_available(format!(
                "denied for source \"{}\"",
                self.source.as_deref().unwrap_or("")
            ))),
            ToolStatus::Unavailable => Err(not_available(
                "not exposed by this registry (outside its `full` whitelist)".to_string(),
            )),
        }
    }

    /// Names of available / resident / deferred tools plus warnings, for printing.
    pub fn summary(&self) -> ExpansionSummary {
        ExpansionSummary {
            tools: self.names(self.tools()),
            resident: self.names(self.resident()),
            deferred: self.names(self.deferred()),
            warnings: self.warnings.clone(),
        }
    }
}

/// Owned, serialisable names of an expansion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExpansionSummary {
    /// Every available tool, registry order.
    pub tools: Vec<String>,
    /// Resident tools, registry order.
    pub resident: Vec<String>,
    /// Deferred tools (loaded or not), registry order.
    pub deferred: Vec<String>,
    /// The expansion's warnings.
    pub warnings: Vec<Warning>,
}

/// Expands an override against the live registry.
///
/// Fails only for caller errors (an unknown source); everything a stored session may carry —
/// unknown tools, unknown presets, unknown keys — becomes a warning.
pub fn expand(
    registry: &Registry,
    tools_override: &ToolsOverride,
    context: ExpandContext<'_>,
) -> Result<Expansion> {
    let source = context.source.map(|s| registry.source(s)).transpose()?;
    let mut warnings = Vec::new();
    let mut levels: Vec<(&ToolsOverride, String)> = vec![(tools_override, "override".to_string())];
    if let Some(p) = context.profile {
        levels.push((p, "profile".to_string()));
    }
    if let Some(s) = source {
        levels.push((&s.default, format!("source:{}", escaped(&s.name))));
    }
    let mut selection = Selection::new(registry.len());
    select(registry, &levels, &mut selection, &mut warnings);
    let Selection {
        mut chosen,
        denied,
        picked,
    } = selection;

    let n = registry.len();
    let mut status = vec![ToolStatus::NotSelected; n];
    let ceiling = match source {
        Some(SourcePolicy { deny, .. }) if !deny.is_empty() => {
            registry.match_patterns_ignore_case(deny)
        }
        _ => ToolSet::empty(n),
    };
    let available = registry.available_set();
    for (i, s) in status.iter_mut().enumerate() {
        if ceiling.contains(i) {
            *s = ToolStatus::DeniedBySource;
            chosen.remove(i);
            if picked.contains(i) {
                warnings.push(Warning::new(
                    WarningCode::DeniedBySource,
                    "override",
                    format!(
                        "hand-picked tool {} is denied for source {}; left out",
                        quoted(registry.name(i)),
                        quoted(source.map_or("", |s| s.name.as_str()))
                    ),
                ));
            }
        } else if !available.contains(i) {
            *s = ToolStatus::Unavailable;
            chosen.remove(i);
        }
    }
    // tool_search is infrastructure: it is added when something is deferred unless the
    // intent disabled it or the source denies it (then deferred tools become resident).
    let tool_search = registry.index_of(TOOL_SEARCH);
    let tool_search_blocked = match tool_search {
        Some(i) => denied.contains(i) || ceiling.contains(i),
        None => true,
    };
    let split = deferral::classify(registry, &chosen, tool_search_blocked);
    for (i, s) in status.iter_mut().enumerate() {
        if split.resident.contains(i) {
            *s = ToolStatus::Resident;
        } else if split.deferred.contains(i) {
            *s = ToolStatus::Deferred;
        }
    }
    Ok(Expansion {
        registry: registry.clone(),
        status,
        source: source.map(|s| s.name.clone()),
        warnings,
    })
}

struct Selection {
    chosen: ToolSet,
    /// Everything any level's `disabled` matched (deny beats allow across levels).
    denied: ToolSet,
    /// Tools a hand-picked list named (a ceiling that removes one says so).
    picked: ToolSet,
}

impl Selection {
    fn new(n: usize) -> Self {
        Selection {
            chosen: ToolSet::empty(n),
            denied: ToolSet::empty(n),
            picked: ToolSet::empty(n),
        }
    }
}

/// Resolves the first level; a level that "follows" defers to the next, and the last
/// fallback is `default_tools`.
fn select(
    registry: &Registry,
    levels: &[(&ToolsOverride, String)],
    out: &mut Selection,
    warnings: &mut Vec<Warning>,
) {
    let Some(((level, origin), rest)) = levels.split_first() else {
        out.chosen = registry.default_set().clone();
        return;
    };
    match level {
        ToolsOverride::Follow => select(registry, rest, out, warnings),
        ToolsOverride::Picked(names) => {
            let mut set = ToolSet::empty(registry.len());
            for name in names {
                match registry.index_of(name) {
                    Some(i) => set.insert(i),
                    None => warnings.push(Warning::new(
                        WarningCode::UnknownTool,
                        origin.clone(),
                        format!(
                            "hand-picked tool {} is not in the registry; skipped",
                            quoted(name)
                        ),
                    )),
                }
            }
            out.picked = set.clone();
            out.chosen = set;
        }
        ToolsOverride::Intent(intent) => {
            select_intent(registry, intent, origin, rest, out, warnings)
        }
    }
}

fn select_intent(
    registry: &Registry,
    intent: &Intent,
    origin: &str,
    rest: &[(&ToolsOverride, String)],
    out: &mut Selection,
    warnings: &mut Vec<Warning>,
) {
    let warn = |warnings: &mut Vec<Warning>, code: WarningCode, message: String| {
        warnings.push(Warning::new(code, origin, message))
    };
    intent.unknown_key_warnings(origin, warnings);
    if intent.enabled == Some(false) {
        out.chosen = ToolSet::empty(registry.len());
        if intent.web_search == Some(true) {
            warn(
                warnings,
                WarningCode::IgnoredWhenDisabled,
                "web_search: true is ignored because enabled is false".to_string(),
            );
        }
        return;
    }
    if intent.toolset.as_deref() == Some("") {
        warn(
            warnings,
            WarningCode::EmptyToolset,
            "toolset is the empty string; read as no preset".to_string(),
        );
    }
    let mut base = match intent.toolset.as_deref().filter(|t| !t.is_empty()) {
        Some(name) => match registry.toolset_set(name) {
            Some(set) => set.clone(),
            None => {
                warn(
                    warnings,
                    WarningCode::UnknownToolset,
                    format!(
                        "preset {} is not in the registry (known: {}); using default_tools",
                        quoted(name),
                        some_names(&registry.toolset_names().collect::<Vec<_>>())
                    ),
                );
                registry.default_set().clone()
            }
        },
        None if intent.enabled == Some(true) => registry.default_set().clone(),
        None => {
            select(registry, rest, out, warnings);
            std::mem::replace(&mut out.chosen, ToolSet::empty(registry.len()))
        }
    };
    if let Some(allowed) = &intent.allowed {
        base.intersect_with(&registry.match_patterns(allowed));
        warn_unmatched(registry, allowed, origin, "allowed", warnings);
    }
    let disabled = match &intent.disabled {
        Some(d) => {
            warn_unmatched(registry, d, origin, "disabled", warnings);
            registry.match_patterns_ignore_case(d)
        }
        None => ToolSet::empty(registry.len()),
    };
    base.subtract(&disabled);
    if let Some(on) = intent.web_search {
        let mut overlay = registry.overlay(WEB_SEARCH_OVERLAY);
        if overlay.is_empty() {
            if on {
                warn(
                    warnings,
                    WarningCode::NoWebSearchOverlay,
                    "web_search: true but the registry defines no web_search overlay".to_string(),
                );
            }
        } else if on {
            overlay.subtract(&disabled);
            overlay.subtract(&out.denied);
            base.union_with(&overlay);
        } else {
            base.subtract(&overlay);
        }
    }
    base.subtract(&out.denied);
    out.denied.union_with(&disabled);
    out.chosen = base;
}

fn warn_unmatched(
    registry: &Registry,
    patterns: &[String],
    origin: &str,
    key: &str,
    warnings: &mut Vec<Warning>,
) {
    for p in patterns {
        if crate::registry::Selector::is_selector(p) {
            // An annotation selector (`@read_only`): unknown, or selecting no tool now.
            if !registry.matches_any(p, false) {
                warnings.push(Warning::new(
                    WarningCode::UnknownTool,
                    origin,
                    format!(
                        "{key} selector {} selects no tool in the registry (selectors: {})",
                        quoted(p),
                        crate::registry::ANNOTATION_SELECTORS
                    ),
                ));
            }
            continue;
        }
        if glob::is_glob(p) {
            let fold = key == "disabled";
            if !registry.matches_any(p, fold) {
                warnings.push(Warning::new(
                    WarningCode::UnknownTool,
                    origin,
                    format!(
                        "{key} pattern {} matches no tool in the registry",
                        quoted(p)
                    ),
                ));
            }
            continue;
        }
        if registry.index_of(p).is_some() {
            continue;
        }
        let hint = match registry.index_of_folded(p) {
            Some(j) if key == "disabled" => {
                format!(" (matched \"{}\" ignoring case)", registry.tools()[j].name)
            }
            _ => String::new(),
        };
        warnings.push(Warning::new(
            WarningCode::UnknownTool,
            origin,
            format!(
                "{key} entry {} names no tool in the registry{hint}",
                quoted(p)
            ),
        ));
    }
}
