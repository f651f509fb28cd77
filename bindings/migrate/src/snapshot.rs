//! Recognising legacy snapshots: a stored list that equals, as a set, a known expansion of
//! the registry (any `history` version or the current version of `default_tools` or of a
//! preset, with or without web search) stands for an intent; any other list is a hand-pick.

use std::collections::BTreeMap;

use serde_json::Value;

use tool_intent::intent::{Intent, ToolsOverride};
use tool_intent::registry::{Registry, WEB_SEARCH_OVERLAY};
use tool_intent::turn::expand::{expand, ExpandContext};

/// What a stored `tools_override` value is.
#[derive(Debug, Clone, PartialEq)]
pub enum StoredKind {
    /// NULL / JSON null: follows the profile.
    Null,
    /// An intent object (already the new form).
    Intent,
    /// A real hand-pick: left alone.
    HandPick,
    /// A legacy snapshot and the intent it stands for.
    Snapshot {
        /// Which known expansion it equals (`default_tools@v1`, `toolset:research@current`).
        matched: String,
        /// The intent to store instead.
        intent: ToolsOverride,
    },
    /// Not JSON, or not an override shape.
    Unreadable {
        /// Why it could not be read.
        reason: String,
    },
}

/// The known expansions of a registry, by their sorted, deduplicated name sets.
pub struct SnapshotIndex {
    known: BTreeMap<Vec<String>, (String, ToolsOverride)>,
}

fn sorted(names: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = names.into_iter().collect();
    v.sort();
    v.dedup();
    v
}

impl SnapshotIndex {
    /// Every version of `default_tools` and of each toolset, with and without web_search.
    pub fn new(registry: &Registry) -> SnapshotIndex {
        let mut bases: Vec<(String, Vec<String>, Intent)> = Vec::new();
        let resolve = |patterns: &[String]| -> Vec<String> {
            // History may name tools that no longer exist: keep literal names as they are,
            // resolve globs and annotation selectors (`@read_only`) against today's registry
            // as the registry resolves its own lists.
            let (literal, matched): (Vec<String>, Vec<String>) = patterns
                .iter()
                .cloned()
                .partition(|p| !tool_intent::glob::is_glob(p) && !p.starts_with('@'));
            let mut out = literal;
            out.extend(
                registry
                    .names_matching(&matched)
                    .into_iter()
                    .map(String::from),
            );
            sorted(out)
        };
        let enabled = Intent {
            enabled: Some(true),
            ..Default::default()
        };
        for h in registry.history() {
            if let Some(d) = &h.default_tools {
                bases.push((
                    format!("default_tools@{}", h.version),
                    resolve(d),
                    enabled.clone(),
                ));
            }
            for (name, list) in &h.toolsets {
                bases.push((
                    format!("toolset:{name}@{}", h.version),
                    resolve(list),
                    Intent {
                        toolset: Some(name.clone()),
                        ..Default::default()
                    },
                ));
            }
        }
        // The current version: what the expander gives today (only available tools).
        let expand_names = |o: &ToolsOverride| -> Vec<String> {
            match expand(registry, o, ExpandContext::default()) {
                Ok(e) => sorted(e.names(e.tools())),
                Err(_) => Vec::new(),
            }
        };
        bases.push((
            "default_tools@current".to_string(),
            resolve(registry.default_tools().unwrap_or(&[])),
            enabled.clone(),
        ));
        bases.push((
            "default_tools@current".to_string(),
            expand_names(&ToolsOverride::Intent(enabled.clone())),
            enabled,
        ));
        let names: Vec<String> = registry.toolset_names().map(String::from).collect();
        for name in names {
            let intent = Intent {
                toolset: Some(name.clone()),
                ..Default::default()
            };
            if let Some(list) = registry.toolset(&name) {
                bases.push((
                    format!("toolset:{name}@current"),
                    resolve(list),
                    intent.clone(),
                ));
            }
            bases.push((
                format!("toolset:{name}@current"),
                expand_names(&ToolsOverride::Intent(intent.clone())),
                intent,
            ));
        }
        let mut known = BTreeMap::new();
        for (label, set, intent) in bases {
            if set.is_empty() {
                continue;
            }
            // First match wins: older history before newer, defaults before toolsets.
            known
                .entry(set.clone())
                .or_insert_with(|| (label.clone(), ToolsOverride::Intent(intent.clone())));
            if !set.iter().any(|n| n == WEB_SEARCH_OVERLAY) {
                let mut with = set;
                with.push(WEB_SEARCH_OVERLAY.to_string());
                let with = sorted(with);
                let mut i = intent;
                i.web_search = Some(true);
                known
                    .entry(with)
                    .or_insert_with(|| (format!("{label}+web_search"), ToolsOverride::Intent(i)));
            }
        }
        SnapshotIndex { known }
    }

    /// Classifies a stored `tools_override` column value (JSON text or NULL).
    pub fn classify_text(&self, text: Option<&str>) -> StoredKind {
        let Some(text) = text else {
            return StoredKind::Null;
        };
        // Read as every override is read: a key given twice is unreadable here too, as
        // `plan_turn` refuses it (keeping either copy could turn a deny into an allow).
        match tool_intent::json::parse("override", text) {
            Ok(v) => self.classify(&v),
            Err(e) => StoredKind::Unreadable {
                reason: e.to_string(),
            },
        }
    }

    /// Classifies a parsed `tools_override` value.
    pub fn classify(&self, value: &Value) -> StoredKind {
        match ToolsOverride::from_value(value) {
            Err(e) => StoredKind::Unreadable {
                reason: e.to_string(),
            },
            Ok(ToolsOverride::Follow) => StoredKind::Null,
            Ok(ToolsOverride::Intent(_)) => StoredKind::Intent,
            Ok(ToolsOverride::Picked(list)) => match self.known.get(&sorted(list)) {
                Some((label, intent)) => StoredKind::Snapshot {
                    matched: label.clone(),
                    intent: intent.clone(),
                },
                None => StoredKind::HandPick,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_stored_text_with_a_key_twice_is_unreadable_not_an_intent() {
        let idx = SnapshotIndex::new(&Registry::embedded());
        match idx.classify_text(Some(r#"{"enabled":true,"enabled":false}"#)) {
            StoredKind::Unreadable { reason } => assert!(reason.contains("twice"), "{reason}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            idx.classify_text(Some(r#"{"enabled":true}"#)),
            StoredKind::Intent
        ));
    }

    #[test]
    fn a_history_preset_by_annotation_is_resolved_against_todays_tools() {
        let tool = |name: &str, read_only: bool| {
            json!({"name": name, "description": "", "parameters": {"type": "object"},
                   "annotations": {"readOnlyHint": read_only}})
        };
        let r = Registry::from_value(&json!({
            "tools": [tool("a", false), tool("b", true), tool("c", true)],
            "toolsets": {"safe": ["a"]},
            "history": [{"version": "v1", "toolsets": {"safe": ["@read_only"]}}],
        }))
        .unwrap();
        match SnapshotIndex::new(&r).classify(&json!(["c", "b"])) {
            StoredKind::Snapshot { matched, intent } => {
                assert_eq!(matched, "toolset:safe@v1");
                assert_eq!(intent.to_canonical_json(), r#"{"toolset":"safe"}"#);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn classifies_snapshots_of_history_and_current() {
        let r = Registry::embedded();
        let idx = SnapshotIndex::new(&r);
        let v1 = json!([
            "read_file",
            "write_file",
            "edit_file",
            "shell",
            "grep",
            "glob",
            "tool_search",
            "playwright_browser",
            "enter_plan_mode",
            "exit_plan_mode"
        ]);
        match idx.classify(&v1) {
            StoredKind::Snapshot { matched, intent } => {
                assert_eq!(matched, "default_tools@2025-03");
                assert_eq!(intent.to_canonical_json(), r#"{"enabled":true}"#);
            }
            other => panic!("{other:?}"),
        }
        let mut with_web = v1.as_array().unwrap().clone();
        with_web.insert(3, json!("web_search"));
        match idx.classify(&Value::Array(with_web)) {
            StoredKind::Snapshot { intent, .. } => assert_eq!(
                intent.to_canonical_json(),
                r#"{"enabled":true,"web_search":true}"#
            ),
            other => panic!("{other:?}"),
        }
        let research = json!(["read_file", "grep", "glob", "web_search", "browser"]);
        match idx.classify(&research) {
            StoredKind::Snapshot { intent, .. } => {
                assert_eq!(intent.to_canonical_json(), r#"{"toolset":"research"}"#)
            }
            other => panic!("{other:?}"),
        }
        // The embedded `readonly` preset selects by annotation (`@read_only`): a legacy list
        // equal to what it selects is that preset (web search reads only, so it is in it; two
        // of its tools are deferred, so `tool_search` is too).
        for (list, want) in [
            (
                json!([
                    "browser",
                    "enter_plan_mode",
                    "glob",
                    "grep",
                    "list_sessions",
                    "read_file",
                    "tool_search",
                    "web_search"
                ]),
                r#"{"toolset":"readonly"}"#,
            ),
            (
                json!([
                    "read_file",
                    "web_search",
                    "grep",
                    "glob",
                    "list_sessions",
                    "browser",
                    "enter_plan_mode",
                    "tool_search"
                ]),
                r#"{"toolset":"readonly"}"#,
            ),
        ] {
            match idx.classify(&list) {
                StoredKind::Snapshot { intent, matched } => {
                    assert_eq!(intent.to_canonical_json(), want, "{matched}")
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(idx.classify(&json!(["web_search"])), StoredKind::HandPick);
        assert_eq!(idx.classify(&json!([])), StoredKind::HandPick);
        assert_eq!(idx.classify(&json!({"enabled": true})), StoredKind::Intent);
        assert_eq!(idx.classify_text(None), StoredKind::Null);
        assert!(matches!(
            idx.classify_text(Some("[oops")),
            StoredKind::Unreadable { .. }
        ));
        assert!(matches!(
            idx.classify_text(Some("42")),
            StoredKind::Unreadable { .. }
        ));
    }
}
