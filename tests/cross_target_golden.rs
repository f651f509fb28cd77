//! Native half of the cross-target golden test: computes the fingerprint of every case of
//! `tests/golden/cross-target-cases.json` and compares it with `tests/golden/cross-target.json`
//! (regenerate with `UPDATE_GOLDEN=1`). The wasm builds check the same file in Node
//! (`tests/js/golden.test.mjs`) and Chrome (`tests/web.rs`), so a pass on all three means the
//! native and wasm payload bytes are equal.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::path::PathBuf;

use common::*;
use serde_json::{json, Value};
use tool_intent::preview::PreviewRequest;
use tool_intent::{expand, preview, ExpandContext, Registry, ToolsOverride};

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

fn registries() -> Vec<(String, Registry)> {
    let mut out = vec![("embedded".to_string(), Registry::embedded())];
    for (name, v) in mcp_files() {
        out.push((
            format!("mcp:{name}"),
            Registry::from_json_str(&v.to_string()).unwrap(),
        ));
    }
    for (name, v) in mcp_files() {
        out.push((
            format!("embedded+{name}"),
            Registry::embedded().merge_mcp_server(&name, &v).unwrap(),
        ));
    }
    out.push(("all".to_string(), all_merged()));
    out
}

#[test]
fn cross_target_fingerprints() {
    let cases: Value =
        serde_json::from_str(&std::fs::read_to_string(golden("cross-target-cases.json")).unwrap())
            .unwrap();
    let mut rows = Vec::new();
    for (rname, r) in registries() {
        for (oi, o) in cases["overrides"].as_array().unwrap().iter().enumerate() {
            for (vi, variant) in cases["variants"].as_array().unwrap().iter().enumerate() {
                let mut options = variant.clone();
                let load_first = options
                    .as_object_mut()
                    .unwrap()
                    .remove("loadFirstDeferred")
                    .is_some();
                if load_first {
                    let e = expand(
                        &r,
                        &ToolsOverride::from_value(o).unwrap(),
                        ExpandContext::default(),
                    )
                    .unwrap();
                    let first: Vec<String> = e.names(e.deferred()).into_iter().take(1).collect();
                    options["loaded"] = json!(first);
                }
                let req = PreviewRequest::from_values(o, &options).unwrap();
                let p = preview(&r, &req).unwrap();
                rows.push(json!({
                    "case": format!("{rname}|o{oi}|v{vi}"),
                    "fingerprint": p.fingerprint,
                    "bytes": p.payload.len(),
                    "catalog": tool_intent::fingerprint(p.catalog.as_bytes()),
                }));
            }
        }
    }
    let text = serde_json::to_string_pretty(&rows).unwrap() + "\n";
    let path = golden("cross-target.json");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let expected =
        std::fs::read_to_string(&path).expect("cross-target.json; run with UPDATE_GOLDEN=1");
    assert!(
        expected == text,
        "native fingerprints differ from tests/golden/cross-target.json"
    );
    assert_eq!(rows.len(), 20 * 7 * 6);
}
