//! The properties of the contract (`docs/contract.md`, sections 1 and 3), one named test each.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use serde_json::{json, Value};
use tool_intent::turn::expand::{expand, ExpandContext};
use tool_intent::{build_intent, Registry, SessionRunConfig, Toggles, ToolsOverride, TurnRequest};

/// The embedded registry with `extra` added to `default_tools` (a tool shipped later).
fn registry_with_new_default_tool(extra: &str) -> Registry {
    let mut doc = Registry::embedded().to_value();
    let o = doc.as_object_mut().unwrap();
    o["tools"].as_array_mut().unwrap().push(json!({
        "name": extra, "description": "A tool added after the sessions were written.",
        "parameters": {"type": "object", "properties": {}}
    }));
    o["default_tools"]
        .as_array_mut()
        .unwrap()
        .push(json!(extra));
    o["toolsets"]["full"]
        .as_array_mut()
        .unwrap()
        .push(json!(extra));
    o["toolsets"]["research"]
        .as_array_mut()
        .unwrap()
        .push(json!(extra));
    Registry::from_value(&doc).unwrap()
}

#[test]
fn deterministic_expansion() {
    let r = all_merged();
    for text in [
        r#"null"#,
        r#"{"enabled":true,"web_search":true}"#,
        r#"{"toolset":"full","disabled":["mcp__git*"]}"#,
    ] {
        let req = TurnRequest {
            tools_override: intent(text),
            ..Default::default()
        };
        let a = r.plan_turn(&req).unwrap();
        let b = r.plan_turn(&req).unwrap();
        assert_eq!(a.payload.as_bytes(), b.payload.as_bytes());
        assert_eq!(a.fingerprint, b.fingerprint);
        // Independent registry loads give the same bytes too (no per-process state).
        let other = all_merged();
        let c = other.plan_turn(&req).unwrap();
        assert_eq!(a.payload, c.payload);
    }
}

#[test]
fn intent_round_trip_web_search_true_reads_back_true() {
    let intent = build_intent(&Toggles {
        web_search: Some(true),
        ..Default::default()
    });
    let row = SessionRunConfig::from_override(&intent);
    let stored = row.to_value().to_string();
    let loaded = SessionRunConfig::from_json_str(&stored).unwrap();
    assert_eq!(loaded.web_search, Some(true));
    assert_eq!(
        loaded.to_override().to_canonical_json(),
        r#"{"web_search":true}"#
    );
}

#[test]
fn intent_round_trip_row_without_field_reads_back_null() {
    // A row written before web_search / toolset existed.
    let old_row = json!({"tools_enabled": true, "tools_override": null});
    let loaded = SessionRunConfig::from_value(&old_row).unwrap();
    assert_eq!(loaded.web_search, None);
    assert_eq!(loaded.toolset, None);
    let empty = SessionRunConfig::from_value(&json!({})).unwrap();
    assert_eq!(empty, SessionRunConfig::default());
}

#[test]
fn dict_output_of_tools_override_from_config() {
    let off = SessionRunConfig {
        tools_enabled: Some(false),
        web_search: Some(true),
        ..Default::default()
    };
    assert_eq!(off.to_override(), ToolsOverride::Picked(vec![]));

    let on = SessionRunConfig {
        tools_enabled: Some(true),
        web_search: Some(true),
        ..Default::default()
    };
    let o = on.to_override();
    let v = o.to_canonical_value();
    assert_eq!(v, json!({"enabled": true, "web_search": true}));
    let r = Registry::embedded();
    let e = expand(&r, &o, ExpandContext::default()).unwrap();
    assert!(names(&e).contains(&"web_search".to_string()));
}

#[test]
fn writes_never_materialise() {
    let r = Registry::embedded();
    let writers = [
        Toggles {
            web_search: Some(true),
            ..Default::default()
        },
        Toggles {
            tools_enabled: Some(true),
            web_search: Some(true),
            ..Default::default()
        },
        Toggles {
            toolset: Some("research".into()),
            ..Default::default()
        },
        Toggles {
            toolset: Some("research".into()),
            web_search: Some(true),
            disabled: vec!["memory".into()],
            ..Default::default()
        },
        Toggles {
            tools_enabled: None,
            web_search: Some(true),
            ..Default::default()
        },
    ];
    for toggles in writers {
        let row = SessionRunConfig::from_override(&build_intent(&toggles));
        let stored = row.to_value();
        match &stored["tools_override"] {
            Value::Null | Value::Object(_) => {}
            other => panic!("{toggles:?} stored a list: {other}"),
        }
        // And the row, read back, expands to something non-empty that is not stored.
        let o = SessionRunConfig::from_value(&stored).unwrap().to_override();
        assert!(!matches!(o, ToolsOverride::Picked(_)), "{toggles:?}");
        assert!(
            expand(&r, &o, ExpandContext::default())
                .unwrap()
                .tools()
                .count()
                > 3
        );
    }
}

#[test]
fn new_default_tool_appears_in_every_intent_form_expansion() {
    let new = registry_with_new_default_tool("summarize_diff");
    let intents = [
        "null",
        "{}",
        r#"{"enabled":true}"#,
        r#"{"enabled":true,"web_search":true}"#,
        r#"{"web_search":true}"#,
        r#"{"disabled":["shell"]}"#,
        r#"{"toolset":"research"}"#,
    ];
    for text in intents {
        let e = expand_json(&new, text);
        assert!(
            names(&e).contains(&"summarize_diff".to_string()),
            "{text}: {:?}",
            names(&e)
        );
        // ... and it is in the provider array, not hidden: a new default is resident.
        assert!(
            e.summary().resident.contains(&"summarize_diff".to_string()),
            "{text}"
        );
    }
    // Unless the intent disables it.
    let e = expand_json(&new, r#"{"enabled":true,"disabled":["summarize_*"]}"#);
    assert!(!names(&e).contains(&"summarize_diff".to_string()));
}

#[test]
fn hand_picked_lists_pass_through_unchanged() {
    let picked = ToolsOverride::Picked(vec![
        "web_search".into(),
        "read_file".into(),
        "gone_tool".into(),
    ]);
    let row = SessionRunConfig::from_override(&picked);
    let loaded = SessionRunConfig::from_json_str(&row.to_value().to_string()).unwrap();
    let o = loaded.to_override();
    assert_eq!(
        o,
        ToolsOverride::Picked(vec![
            "gone_tool".into(),
            "read_file".into(),
            "web_search".into()
        ])
    );
    // Expanded in registry order, unknown names as warnings, nothing added.
    let r = Registry::embedded();
    let e = expand(&r, &o, ExpandContext::default()).unwrap();
    assert_eq!(names(&e), ["read_file", "web_search"]);
    assert_eq!(e.warnings().len(), 1);
    assert_eq!(e.warnings()[0].code.as_str(), "unknown_tool");
    // A stored list is returned as it was stored (order included).
    let raw = SessionRunConfig::from_value(
        &json!({"tools_enabled": true, "tools_override": "[\"b_tool\",\"a_tool\"]"}),
    )
    .unwrap();
    assert_eq!(
        raw.to_override(),
        ToolsOverride::Picked(vec!["b_tool".into(), "a_tool".into()])
    );
}

#[test]
fn cache_stable_for_unchanged_intent_across_turns() {
    // Five turns of one session: each turn the server reads the registry again and the row's
    // intent arrives with its keys in another order, and turn 2 loads a deferred tool.
    let mut state = tool_intent::TurnState::default();
    let mut fingerprints = Vec::new();
    for turn in 1..=5 {
        let r = Registry::from_json_str(&Registry::embedded().to_json()).unwrap();
        // A registry read again has the same fingerprint: the stamp still names it.
        state = r.begin_turn(&state);
        let text = if turn % 2 == 0 {
            r#"{"enabled":true,"web_search":true}"#
        } else {
            r#"{"web_search":true,"enabled":true}"#
        };
        let req = TurnRequest {
            tools_override: intent(text),
            state: state.clone(),
            ..Default::default()
        };
        let at_start = r.plan_turn(&req).unwrap().fingerprint;
        if turn == 2 {
            // Mid-turn: the load is recorded, this turn's array does not move.
            let call = tool_intent::SearchCall::new("select:enter_plan_mode");
            state = r
                .turn(&req)
                .and_then(|mut turn| turn.search(&call))
                .unwrap()
                .state;
            let mid = r
                .plan_turn(&TurnRequest {
                    state: state.clone(),
                    ..req.clone()
                })
                .unwrap();
            assert_eq!(mid.fingerprint, at_start, "turn 2: array moved mid-turn");
        }
        fingerprints.push(at_start);
    }
    // Equal bytes while nothing changes; one change at the boundary after the load; equal
    // again after it.
    assert!(fingerprints[..2].iter().all(|f| *f == fingerprints[0]));
    assert_ne!(
        fingerprints[2], fingerprints[1],
        "the load never reached the array"
    );
    assert!(fingerprints[2..].iter().all(|f| *f == fingerprints[2]));
}

#[test]
fn every_writer_builds_intent_not_list() {
    // Every combination of the toggles a UI offers, except an explicit hand-pick.
    let r = Registry::embedded();
    for enabled in [None, Some(true), Some(false)] {
        for web in [None, Some(true), Some(false)] {
            for toolset in [None, Some("research"), Some("full")] {
                let t = Toggles {
                    tools_enabled: enabled,
                    web_search: web,
                    toolset: toolset.map(String::from),
                    ..Default::default()
                };
                let o = build_intent(&t);
                if let ToolsOverride::Picked(list) = &o {
                    assert!(list.is_empty() && enabled == Some(false), "{t:?} -> {o:?}")
                }
                expand(&r, &o, ExpandContext::default()).unwrap();
            }
        }
    }
}
