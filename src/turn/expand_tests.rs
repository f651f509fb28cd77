//! Unit tests of the expander: intents against a small registry, case by case.

use super::expand::*;
use crate::intent::ToolsOverride;
use crate::registry::Registry;
use crate::warning::WarningCode;
use serde_json::json;

fn registry() -> Registry {
    let tool = |n: &str| json!({"name": n, "description": n, "parameters": {"type": "object"}});
    Registry::from_value(&json!({
        "tools": [tool("read"), tool("write"), tool("shell"), tool("web_search"), tool("big"), tool("memory"), tool("tool_search")],
        "default_tools": ["read", "write", "shell", "big", "tool_search"],
        "deferred_default_tools": ["big"],
        "toolsets": {"full": ["read", "write", "shell", "big", "memory", "web_search", "tool_search"], "research": ["read", "web_search", "memory"]},
        "overlays": {"web_search": ["web_search"]},
        "sources": {"channel": {"deny": ["shell", "write"]}, "webui": {"default": {"toolset": "research"}}}
    }))
    .unwrap()
}

fn names(r: &Registry, o: serde_json::Value, ctx: ExpandContext) -> (Vec<String>, Vec<String>) {
    let o = ToolsOverride::from_value(&o).unwrap();
    let e = expand(r, &o, ctx).unwrap();
    let s = e.summary();
    (s.resident, s.deferred)
}

#[test]
fn null_follows_defaults_and_defers() {
    let r = registry();
    let (res, def) = names(&r, json!(null), ExpandContext::default());
    assert_eq!(res, ["read", "write", "shell", "tool_search"]);
    assert_eq!(def, ["big"]);
}

#[test]
fn empty_list_means_no_tools() {
    let r = registry();
    let (res, def) = names(&r, json!([]), ExpandContext::default());
    assert!(res.is_empty() && def.is_empty());
}

#[test]
fn deny_beats_allow_for_overlay() {
    let r = registry();
    let (res, _) = names(
        &r,
        json!({"enabled": true, "web_search": true, "disabled": ["web_search"]}),
        ExpandContext::default(),
    );
    assert!(!res.contains(&"web_search".to_string()));
    let (res, _) = names(
        &r,
        json!({"enabled": true, "web_search": true}),
        ExpandContext::default(),
    );
    assert!(res.contains(&"web_search".to_string()));
}

#[test]
fn allowed_filters_and_never_adds() {
    let r = registry();
    let (res, def) = names(
        &r,
        json!({"enabled": true, "allowed": ["read", "memory"]}),
        ExpandContext::default(),
    );
    assert_eq!(res, ["read"]);
    assert!(def.is_empty());
}

#[test]
fn source_default_and_ceiling() {
    let r = registry();
    let webui = ExpandContext {
        source: Some("webui"),
        ..Default::default()
    };
    let (res, def) = names(&r, json!(null), webui);
    assert_eq!(res, ["read", "web_search", "tool_search"]);
    assert_eq!(def, ["memory"]);
    let channel = ExpandContext {
        source: Some("channel"),
        ..Default::default()
    };
    let (res, _) = names(&r, json!(["shell", "read", "SHELL"]), channel);
    assert_eq!(res, ["read"]);
    let o = ToolsOverride::from_value(&json!(["shell"])).unwrap();
    let e = expand(&r, &o, channel).unwrap();
    assert_eq!(e.resolve("shell").unwrap_err().code(), "tool_not_available");
    assert!(e
        .resolve("shell")
        .unwrap_err()
        .to_string()
        .contains("channel"));
    let err = expand(
        &r,
        &o,
        ExpandContext {
            source: Some("nope"),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.code(), "unknown_source");
}

#[test]
fn profile_is_consulted_before_defaults() {
    let r = registry();
    let profile = ToolsOverride::from_value(&json!({"toolset": "research"})).unwrap();
    let ctx = ExpandContext {
        profile: Some(&profile),
        ..Default::default()
    };
    let (res, _) = names(&r, json!({"disabled": ["web_search"]}), ctx);
    assert_eq!(res, ["read", "tool_search"]);
}

#[test]
fn unknown_preset_warns_and_falls_back() {
    let r = registry();
    let o = ToolsOverride::from_value(&json!({"toolset": "nope", "x": 1})).unwrap();
    let e = expand(&r, &o, ExpandContext::default()).unwrap();
    let codes: Vec<WarningCode> = e.warnings().iter().map(|w| w.code).collect();
    assert_eq!(
        codes,
        [WarningCode::UnknownIntentKey, WarningCode::UnknownToolset]
    );
    assert_eq!(
        e.summary().resident,
        ["read", "write", "shell", "tool_search"]
    );
}

#[test]
fn disabling_tool_search_makes_deferred_resident() {
    let r = registry();
    let (res, def) = names(
        &r,
        json!({"enabled": true, "disabled": ["tool_search"]}),
        ExpandContext::default(),
    );
    assert_eq!(res, ["read", "write", "shell", "big"]);
    assert!(def.is_empty());
}

#[test]
fn enabled_false_is_nothing_even_with_overlay() {
    let r = registry();
    let o = ToolsOverride::from_value(&json!({"enabled": false, "web_search": true})).unwrap();
    let e = expand(&r, &o, ExpandContext::default()).unwrap();
    assert_eq!(e.tools().count(), 0);
    assert_eq!(e.warnings()[0].code, WarningCode::IgnoredWhenDisabled);
}
