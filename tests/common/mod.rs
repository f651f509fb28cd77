//! Shared helpers for integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::Value;
use tool_intent::{expand, ExpandContext, Expansion, Registry, ToolsOverride};

/// The MCP fixtures (copied from shared/data/mcp), sorted by file name.
pub fn mcp_files() -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/mcp");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/data/mcp")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            let value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (name, value)
        })
        .collect()
}

/// The embedded registry with every MCP fixture merged in.
pub fn all_merged() -> Registry {
    let mut r = Registry::embedded();
    for (name, v) in mcp_files() {
        r = r.merge_mcp_server(&name, &v).unwrap();
    }
    r
}

pub fn intent(json: &str) -> ToolsOverride {
    ToolsOverride::from_json_str(json).unwrap()
}

pub fn expand_json<'r>(r: &'r Registry, json: &str) -> Expansion<'r> {
    expand(r, &intent(json), ExpandContext::default()).unwrap()
}

pub fn names(e: &Expansion<'_>) -> Vec<String> {
    e.names(e.tools())
}
