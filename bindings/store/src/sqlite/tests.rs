//! What only the SQLite store's tests measure: the file a hundred versions of a thousand tools
//! make. The contract every store keeps (shared tools, refused conflicts, schemas and edited
//! rows, retention) runs on SQLite and PostgreSQL alike in `tests/stores.rs`.

use super::*;
use crate::split;

fn temp(name: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!(
        "tool-intent-store-{}-{name}.sqlite",
        std::process::id()
    ));
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", p.display()));
    }
    p
}

/// A thousand-tool registry published a hundred times, one description changed each
/// time: the store holds each version's skeleton and the tools that changed, not a hundred
/// copies of every tool.
#[test]
fn many_versions_share_their_unchanged_tools() {
    let path = temp("many");
    let mut store = SqliteStore::open(&path).unwrap();
    let tool = |i: usize, v: usize| {
        serde_json::json!({
            "name": format!("tool_{i}"),
            "description": format!("Tool {i}, revision {}", if i == v { v } else { 0 }),
            "parameters": {"type": "object", "properties": {"q": {"type": "string", "description": "what to look for"}}},
        })
    };
    let (tools, versions) = (1000, 100);
    for v in 0..versions {
        let doc = serde_json::json!({"tools": (0..tools).map(|i| tool(i, v)).collect::<Vec<_>>()});
        let r = Registry::from_value(&doc).unwrap();
        store.publish(&split(&r), Expect::Anything).unwrap();
    }
    let rows: i64 = store
        .db
        .query_row("SELECT count(*) FROM tool_intent_tools", [], |r| r.get(0))
        .unwrap();
    // tool_search is the library's own (not stored); each version changes one tool and
    // puts back the one the previous version changed.
    assert!(rows <= (tools + versions) as i64, "{rows} tool rows");
    assert_eq!(store.versions().unwrap().len(), versions);
    let size = store.size_bytes().unwrap();
    println!("{versions} versions of {tools} tools: {rows} tool rows, {size} bytes");
    assert!(size < 40_000_000, "{size} bytes");
}
