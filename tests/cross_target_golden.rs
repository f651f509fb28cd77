//! The cross-target golden test, native half and the one place cases are resolved.
//!
//! It expands every case of `tests/golden/cross-target-cases.json` (registry recipes ×
//! overrides × option variants) into fully resolved rows — registry recipe, override, options
//! (with `loadFirstDeferred` replaced by the actual name) — with the payload's fingerprint,
//! byte length and catalog fingerprint, and compares them with `tests/golden/cross-target.json`
//! (regenerate with `UPDATE_GOLDEN=1`). The wasm runners (`tests/js/golden.test.mjs` in Node,
//! `tests/wasm_suite` in Node and Chrome) loop over those rows and call `payload` with each
//! row's own override and options, so a pass on every target means equal bytes everywhere.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use serde_json::{json, Value};
use tool_intent::{expand, plan_turn, Call, ExpandContext, ToolsOverride, TurnRequest};

#[test]
fn cross_target_fingerprints() {
    let cases: Value =
        serde_json::from_str(&read_repo_file("tests/golden/cross-target-cases.json")).unwrap();
    let mut rows = Vec::new();
    for (recipe, r) in golden_registries() {
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
                let (req, _) = TurnRequest::from_values(o, &options, Call::Turn).unwrap();
                let p = plan_turn(&r, &req).unwrap();
                rows.push(json!({
                    "case": format!("{recipe}|o{oi}|v{vi}"),
                    "registry": recipe,
                    "override": o,
                    "options": options,
                    "fingerprint": p.fingerprint,
                    "bytes": p.payload.len(),
                    "catalog": tool_intent::fingerprint(p.catalog_text.as_bytes()),
                }));
            }
        }
    }
    let text = serde_json::to_string_pretty(&rows).unwrap() + "\n";
    let path = repo_path("tests/golden/cross-target.json");
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
