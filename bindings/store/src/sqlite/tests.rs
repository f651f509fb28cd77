//! The SQLite store's tests: versions sharing tools, refused conflicts and schemas, retention.

use super::*;
use crate::{split, SharedRegistry};

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

/// A fresh store file `name` holding the embedded registry as its first version.
fn holding_the_embedded_registry(name: &str) -> (std::path::PathBuf, SqliteStore, Registry) {
    let path = temp(name);
    let mut store = SqliteStore::open(&path).unwrap();
    let base = Registry::embedded();
    store.publish(&split(&base), Expect::Newest(None)).unwrap();
    (path, store, base)
}

#[test]
fn versions_share_tools_and_rebuild_from_the_file() {
    let path = temp("share");
    let mut store = SqliteStore::open(&path).unwrap();
    let base = Registry::embedded();
    let github = include_str!("../../../../tests/data/mcp/github.json");
    let next = base.set_mcp_server("github", github).unwrap().registry;
    for r in [&base, &next, &base] {
        store.publish(&split(r), Expect::Anything).unwrap();
    }
    let rows = store.versions().unwrap();
    assert_eq!(
        rows.iter().map(|r| r.sequence).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    let tools: i64 = store
        .db
        .query_row("SELECT count(*) FROM tool_intent_tools", [], |r| r.get(0))
        .unwrap();
    assert_eq!(tools as usize, split(&next).tools.len(), "each tool once");
    // Another connection (another process) rebuilds the same registry.
    let mut other = SqliteStore::open(&path).unwrap();
    let back = other.load(next.fingerprint()).unwrap().unwrap();
    assert_eq!(back.fingerprint(), next.fingerprint());
    assert_eq!(other.find(base.fingerprint()).unwrap().unwrap().sequence, 3);
    // A publication through the first connection is noticed by the second.
    other.changed().unwrap();
    assert!(!other.changed().unwrap());
    store.publish(&split(&next), Expect::Anything).unwrap();
    assert!(other.changed().unwrap());
}

#[test]
fn a_conflicting_change_and_a_newer_schema_are_refused() {
    let (path, mut store, base) = holding_the_embedded_registry("faults");
    let github = include_str!("../../../../tests/data/mcp/github.json");
    let next = base.set_mcp_server("github", github).unwrap().registry;
    let p = store.publish(&split(&next), Expect::Newest(None)).unwrap();
    assert!(
        matches!(p, Publication::Conflict { newest: Some(_) }),
        "{p:?}"
    );
    // A row edited by hand.
    store
        .db
        .execute(
            "UPDATE tool_intent_tools SET body = replace(body, 'Read', 'Rread')",
            [],
        )
        .unwrap();
    let e = store.load(base.fingerprint()).unwrap_err();
    assert_eq!(e.code(), "corrupt_version");
    // A schema from a newer release.
    store
        .db
        .execute(
            "UPDATE tool_intent_store_meta SET value = '99' WHERE key = 'schema'",
            [],
        )
        .unwrap();
    let e = SqliteStore::open(&path).err().unwrap();
    assert_eq!(e.code(), "store_schema_newer");
    assert!(e.to_string().contains("99"), "{e}");
}

/// A version row whose registry the store lost (a table restored in part, a row edited): a
/// process joining or following the store says the store is corrupt, not that some turn
/// state named an unknown version.
#[test]
fn a_listed_version_without_its_registry_is_corrupt() {
    let (path, store, base) = holding_the_embedded_registry("listed");
    // A well-formed fingerprint of no registry the store holds.
    let absent = format!("sha256:{}", "0".repeat(64));
    store
        .db
        .execute(
            "UPDATE tool_intent_versions SET fingerprint = ?1",
            [&absent],
        )
        .unwrap();
    let e = SharedRegistry::open(Box::new(SqliteStore::open(&path).unwrap()), &base)
        .err()
        .unwrap();
    assert_eq!(e.code(), "corrupt_version", "{e}");
    assert!(
        e.to_string()
            .contains(&format!("lists version 1 as {absent}")),
        "{e}"
    );
}

/// Rows and a schema mark edited by hand are refused by every reader of the store (publish,
/// newest, find, versions, gc), naming the row.
#[test]
fn an_edited_row_or_schema_mark_is_corrupt() {
    for (n, edit) in [
        "UPDATE tool_intent_versions SET seq = 9223372036854775807",
        "UPDATE tool_intent_versions SET seq = -2",
        "UPDATE tool_intent_versions SET fingerprint = char(27) || '[2J'",
        "UPDATE tool_intent_versions SET published_ms = -5",
        "UPDATE tool_intent_documents SET tools = -3",
    ]
    .into_iter()
    .enumerate()
    {
        let (_, mut store, base) = holding_the_embedded_registry(&format!("edited-{n}"));
        store.db.execute(edit, []).unwrap();
        let fp = base.fingerprint();
        let results = [
            store.newest().map(|_| ()),
            store.find(fp).map(|_| ()),
            store.versions().map(|_| ()),
            store.publish(&split(&base), Expect::Anything).map(|_| ()),
            store
                .gc(&Retention::default(), crate::now_ms(), &[])
                .map(|_| ()),
        ];
        for r in results {
            // `find` by the old fingerprint finds nothing once the fingerprint is edited.
            if edit.contains("char(27)") && r.is_ok() {
                continue;
            }
            let e = r.unwrap_err();
            assert_eq!(e.code(), "corrupt_version", "{edit}: {e}");
            assert!(e.to_string().contains("version row"), "{edit}: {e}");
            assert!(!e.to_string().contains('\u{1b}'), "{edit}: {e}");
        }
    }
    let path = temp("schema-mark");
    SqliteStore::open(&path).unwrap();
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute(
        "UPDATE tool_intent_store_meta SET value = 'abc' WHERE key = 'schema'",
        [],
    )
    .unwrap();
    let e = SqliteStore::open(&path).err().unwrap();
    assert_eq!(e.code(), "corrupt_version", "{e}");
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

#[test]
fn gc_keeps_what_retention_says_and_drops_unshared_tools() {
    let path = temp("gc");
    let store = SqliteStore::open(&path).unwrap();
    let mut shared = SharedRegistry::open(Box::new(store), &Registry::embedded()).unwrap();
    let github = include_str!("../../../../tests/data/mcp/github.json");
    shared
        .change(|r| Ok(r.set_mcp_server("github", github)?.registry))
        .unwrap();
    shared
        .change(|r| Ok(r.remove_mcp_server("github")?.registry))
        .unwrap();
    let report = crate::gc_to_newest(shared.store(), &[]);
    // Versions 1 and 3 are the same registry: kept by the newest row; 2 goes, and with it
    // the github tools.
    assert_eq!(report.removed.len(), 1);
    assert!(report.tools_removed >= 20, "{report:?}");
    let rows = shared.store().versions().unwrap();
    assert_eq!(rows.iter().filter(|r| r.removed).count(), 1);
}
