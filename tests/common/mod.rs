//! Shared helpers for integration tests: the one MCP fixture loader and the golden
//! registry recipes (`embedded`, `mcp:<file>`, `embedded+<file>`, `all`).
#![allow(dead_code)]

mod fixtures;

use std::path::PathBuf;

pub use fixtures::mcp_texts;

use serde_json::Value;
use tool_intent::{expand, ExpandContext, Expansion, Registry, ToolsOverride};

/// A path inside the repository.
pub fn repo_path(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// A repository file as text.
pub fn read_repo_file(relative: &str) -> String {
    std::fs::read_to_string(repo_path(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// Compares `actual` with the golden file `tests/golden/<name>`, or rewrites the file when
/// `UPDATE_GOLDEN` is set (a change of golden bytes must be deliberate: review the diff).
pub fn check_golden(name: &str, actual: &str) {
    let path = repo_path("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "missing golden file {}; run with UPDATE_GOLDEN=1",
            path.display()
        )
    });
    assert!(
        expected == actual,
        "{name} differs from its golden file (run with UPDATE_GOLDEN=1 and review the diff)"
    );
}

/// The MCP fixtures parsed.
pub fn mcp_files() -> Vec<(String, Value)> {
    mcp_texts()
        .into_iter()
        .map(|(n, t)| (n, serde_json::from_str(&t).unwrap()))
        .collect()
}

/// The embedded registry with every MCP fixture merged in.
pub fn all_merged() -> Registry {
    let mut r = Registry::embedded();
    for (name, text) in mcp_texts() {
        r = r.merge_mcp_server_json(&name, &text).unwrap();
    }
    r
}

/// The registries of the cross-target golden cases, by recipe name, in case order.
pub fn golden_registries() -> Vec<(String, Registry)> {
    let mut out = vec![("embedded".to_string(), Registry::embedded())];
    for (name, text) in mcp_texts() {
        out.push((
            format!("mcp:{name}"),
            Registry::from_json_str(&text).unwrap(),
        ));
    }
    for (name, text) in mcp_texts() {
        out.push((
            format!("embedded+{name}"),
            Registry::embedded()
                .merge_mcp_server_json(&name, &text)
                .unwrap(),
        ));
    }
    out.push(("all".to_string(), all_merged()));
    out
}

/// Parses an override or panics.
pub fn intent(json: &str) -> ToolsOverride {
    ToolsOverride::from_json_str(json).unwrap()
}

/// Expands an override with no profile or source.
pub fn expand_json<'r>(r: &'r Registry, json: &str) -> Expansion<'r> {
    expand(r, &intent(json), ExpandContext::default()).unwrap()
}

/// Every available tool's name.
pub fn names(e: &Expansion<'_>) -> Vec<String> {
    e.names(e.tools())
}
