//! Every real MCP `tools/list` result loads as it is, alone and all merged.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use tool_intent::{DeferralMode, Provider, Registry, TurnRequest};

#[test]
fn every_mcp_file_loads_alone() {
    let files = mcp_files();
    assert_eq!(files.len(), 9, "fixture set changed");
    let mut total = 0;
    for (name, value) in &files {
        let count = value.as_array().map(Vec::len).unwrap();
        let r = Registry::from_value(value).unwrap_or_else(|e| panic!("{name}: {e}"));
        // The library's tool_search is appended; every server tool is there in order.
        assert_eq!(r.len(), count + 1, "{name}");
        for (i, t) in value.as_array().unwrap().iter().enumerate() {
            assert_eq!(r.tools()[i].name, t["name"].as_str().unwrap());
            assert_eq!(
                r.tools()[i].parameters(),
                &t["inputSchema"],
                "{name}: schema kept as sent"
            );
        }
        total += count;
        // Alone, a bare list is its own default set: all resident, nothing deferred.
        let s = expand_json(&r, "null").summary();
        assert_eq!(s.resident.len(), count, "{name}");
        assert!(s.deferred.is_empty());
    }
    assert_eq!(total, 103);
}

#[test]
fn mcp_fields_survive_round_trip() {
    for (name, value) in mcp_files() {
        let r = Registry::from_value(&value).unwrap();
        let again = Registry::from_value(&r.to_value()).unwrap();
        assert_eq!(again.tools(), r.tools(), "{name}");
        for (t, raw) in r.tools().iter().zip(value.as_array().unwrap()) {
            assert_eq!(
                t.title.as_deref(),
                raw.get("title").and_then(|v| v.as_str()),
                "{name}"
            );
            assert_eq!(t.annotations.as_ref(), raw.get("annotations"), "{name}");
            for key in ["outputSchema", "execution"] {
                assert_eq!(t.extra.get(key), raw.get(key), "{name}.{key}");
            }
        }
    }
}

#[test]
fn all_mcp_files_merge_into_one_namespaced_registry() {
    let r = all_merged();
    assert_eq!(r.len(), 17 + 103);
    for (name, value) in mcp_files() {
        for t in value.as_array().unwrap() {
            let full = format!("mcp__{name}__{}", t["name"].as_str().unwrap());
            assert!(r.index_of(&full).is_some(), "{full}");
        }
    }
    // Globs over namespaces work, and merged servers are deferred (outside default_tools).
    let e = expand_json(
        &r,
        r#"{"toolset":"full","disabled":["mcp__playwright__*"]}"#,
    );
    let s = e.summary();
    assert!(s.deferred.iter().any(|n| n.starts_with("mcp__github__")));
    assert!(!s.tools.iter().any(|n| n.starts_with("mcp__playwright__")));
    for provider in Provider::ALL {
        let req = TurnRequest {
            tools_override: intent(r#"{"toolset":"full"}"#),
            provider,
            ..Default::default()
        };
        let p = r.plan_turn(&req).unwrap();
        assert_eq!(p.array.len() + p.catalog.len(), 17 + 103);
        if provider != Provider::OpenAiChat {
            let native = r
                .plan_turn(&TurnRequest {
                    mode: DeferralMode::Native,
                    ..req
                })
                .unwrap();
            let v: serde_json::Value = serde_json::from_str(&native.payload).unwrap();
            // every available tool except our tool_search, plus the provider's search tool
            assert_eq!(v.as_array().unwrap().len(), 17 + 103 - 1 + 1);
        }
    }
}

#[test]
fn registry_from_shared_data_when_present() {
    // The copies in tests/data must match the shared originals when shared/ is there.
    let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/mcp");
    if !shared.exists() {
        return;
    }
    for (name, value) in mcp_files() {
        let original: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(shared.join(format!("{name}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(original, value, "{name} drifted from shared/data");
    }
}
