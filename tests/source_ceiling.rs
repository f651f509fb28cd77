//! Hostile overrides from a restricted source: every way an override might re-enable a tool
//! the source denies. None may reach the array, the catalog, tool_search or dispatch.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{render, search_args, turn_request, RenderOptions};
use serde_json::{json, Value};
use tool_intent::turn::expand::{expand, ExpandContext};
use tool_intent::turn::split;
use tool_intent::{
    record_loaded, DeferralMode, Provider, Registry, ToolsOverride, TurnState, View,
};

/// The embedded tools plus a deferred MCP server, with a source that denies the shell, the
/// file writers, web search (an overlay), a deferred default and a whole MCP namespace.
fn registry() -> Registry {
    let mut doc = Registry::embedded().to_value();
    doc["sources"]["locked"] = json!({
        "default": {"enabled": true},
        "deny": ["shell", "write_*", "edit_file", "web_search", "playwright_browser", "mcp__danger__*"]
    });
    doc["mcp_servers"] = json!([{"name": "danger", "tools": [
        {"name": "drop_database", "description": "Drop a database.", "inputSchema": {"type": "object"}},
        {"name": "exec", "description": "Run a command on the server.", "inputSchema": {"type": "object"}}
    ]}]);
    Registry::from_value(&doc).unwrap()
}

const DENIED: [&str; 7] = [
    "shell",
    "write_file",
    "edit_file",
    "web_search",
    "playwright_browser",
    "mcp__danger__drop_database",
    "mcp__danger__exec",
];

fn hostile_overrides() -> Vec<Value> {
    vec![
        json!(null),
        json!({}),
        json!({"enabled": true}),
        json!({"toolset": "full"}),
        json!({"toolset": "full", "allowed": ["*"]}),
        json!({"enabled": true, "allowed": ["shell", "write_file", "mcp__danger__*"]}),
        json!({"toolset": "full", "web_search": true}),
        json!({"enabled": true, "web_search": true, "allowed": ["web_search"]}),
        // globs
        json!(["*"]),
        json!({"toolset": "full", "allowed": ["s*", "?hell", "*_file", "mcp__*", "*danger*"]}),
        // case
        json!([
            "SHELL",
            "Shell",
            "WRITE_FILE",
            "Web_Search",
            "MCP__DANGER__EXEC"
        ]),
        json!({"enabled": true, "allowed": ["SHELL"]}),
        // Unicode look-alikes (Cyrillic ѕ/е, fullwidth, zero-width joiner)
        json!([
            "ѕhell",
            "shеll",
            "ｓｈｅｌｌ",
            "sh\u{200d}ell",
            "web_searсh"
        ]),
        json!({"toolset": "full", "allowed": ["ѕhell", "ｗｅｂ_search"]}),
        // duplicates and hand-picks
        json!([
            "shell",
            "shell",
            "write_file",
            "write_file",
            "web_search",
            "mcp__danger__exec"
        ]),
        json!([
            "playwright_browser",
            "mcp__danger__drop_database",
            "tool_search"
        ]),
        // unknown keys that look like escalations
        json!({"enabled": true, "force": ["shell"], "ceiling": null, "sources": {"locked": {}}, "deny": []}),
        // trying to knock out the ceiling with empty or null lists
        json!({"toolset": "full", "disabled": [], "allowed": null}),
        // enabling tool_search explicitly to get at deferred denied tools
        json!({"toolset": "full", "allowed": ["tool_search", "mcp__danger__*", "playwright_browser"]}),
    ]
}

#[test]
fn no_hostile_override_lifts_the_source_ceiling() {
    let r = registry();
    let ctx = ExpandContext {
        profile: None,
        source: Some("locked"),
    };
    // A profile that tries the same.
    let hostile_profile = ToolsOverride::from_value(
        &json!({"toolset": "full", "web_search": true, "allowed": ["*"]}),
    )
    .unwrap();
    let mut checked = 0;
    for value in hostile_overrides() {
        let o = ToolsOverride::from_value(&value).unwrap();
        for profile in [None, Some(&hostile_profile)] {
            let e = expand(&r, &o, ExpandContext { profile, ..ctx }).unwrap();
            let request = turn_request(&o, ExpandContext { profile, ..ctx });
            // A session that somehow recorded denied tools as loaded.
            let state = r.begin_turn(&record_loaded(&TurnState::default(), &DENIED).unwrap());
            let frozen = split(&e, &state, View::Frozen);
            let live = split(&e, &state, View::Live);
            let select_all = format!("select:{}", DENIED.join(","));
            let (selected, after) =
                search_args(&r, &request, &state, &json!({"query": select_all})).unwrap();
            let (keyword, _) = search_args(&r, &request, &state, &json!({"query": "shell write edit web search browser drop database exec danger", "limit": 50})).unwrap();
            for provider in Provider::ALL {
                for mode in [DeferralMode::Catalog, DeferralMode::Native] {
                    let Ok(p) = render(
                        &r,
                        &request,
                        &after,
                        RenderOptions {
                            provider,
                            mode,
                            cache_control: true,
                            view: View::Live,
                        },
                    ) else {
                        continue;
                    };
                    let arr: Value = serde_json::from_str(&p.payload).unwrap();
                    let names: Vec<String> = arr
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|t| {
                            t["name"]
                                .as_str()
                                .or(t["function"]["name"].as_str())
                                .unwrap_or("")
                                .to_string()
                        })
                        .collect();
                    for d in DENIED {
                        assert!(
                            !names.iter().any(|n| n.eq_ignore_ascii_case(d)),
                            "{value}: {d} in the {provider:?}/{mode:?} array"
                        );
                        assert!(
                            !p.catalog_text.lines().any(|l| l == d),
                            "{value}: {d} in the catalog"
                        );
                    }
                }
            }
            for d in DENIED {
                let i = r.index_of(d).unwrap();
                assert!(!e.is_available(i), "{value}: {d} available");
                assert!(
                    !frozen.array.contains(&i) && !frozen.catalog.contains(&i),
                    "{value}: {d} in split"
                );
                assert!(!live.array.contains(&i) && !live.catalog.contains(&i));
                assert!(
                    !selected.hits.iter().any(|h| h == d),
                    "{value}: select found {d}"
                );
                assert!(
                    !keyword.hits.iter().any(|h| h == d),
                    "{value}: keyword search found {d}"
                );
                let err = e.resolve(d).unwrap_err();
                assert_eq!(err.code(), "tool_not_available");
                assert!(
                    err.to_string().contains("denied for source \"locked\""),
                    "{err}"
                );
                // Any spelling of it fails to dispatch too.
                for spelled in [d.to_uppercase(), format!("{d} "), d.replace('s', "ѕ")] {
                    assert!(e.resolve(&spelled).is_err(), "{spelled} resolved");
                }
            }
            checked += 1;
        }
    }
    assert_eq!(checked, hostile_overrides().len() * 2);
}

#[test]
fn allowed_tools_still_work_under_the_ceiling() {
    // The ceiling removes only what it denies: the same hostile intents keep the rest.
    let r = registry();
    let e = expand(
        &r,
        &ToolsOverride::from_value(&json!({"toolset": "full"})).unwrap(),
        ExpandContext {
            profile: None,
            source: Some("locked"),
        },
    )
    .unwrap();
    let s = e.summary();
    assert!(s.resident.contains(&"read_file".to_string()));
    assert!(s.deferred.contains(&"memory".to_string()));
    assert!(e.resolve("grep").is_ok());
}

#[test]
fn hostile_sizes_are_refused_with_clear_errors() {
    let long = "a".repeat(300);
    let e = ToolsOverride::from_value(&json!({"disabled": [long]})).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        ("limit_exceeded", Some("$.disabled[0]"))
    );
    let many: Vec<String> = (0..1001).map(|i| format!("t{i}")).collect();
    let e = ToolsOverride::from_value(&json!({"allowed": many})).unwrap_err();
    assert_eq!((e.code(), e.path()), ("limit_exceeded", Some("$.allowed")));
    let e = tool_intent::search::Query::parse(&"x ".repeat(1500)).unwrap_err();
    assert_eq!(e.code(), "limit_exceeded");
    // Deep JSON is refused by the parser's recursion limit, not by a stack overflow.
    let deep = "[".repeat(100_000) + &"]".repeat(100_000);
    assert_eq!(
        ToolsOverride::from_json_str(&deep).unwrap_err().code(),
        "invalid_json"
    );
    // The registry reader looks one level deep, so it refuses the first element as a tool.
    let e = Registry::from_json_str(&deep).unwrap_err();
    assert_eq!((e.code(), e.path()), ("invalid_value", Some("$[0]")));
    let big_desc =
        json!([{"name": "a", "description": "x".repeat(20_000), "parameters": {"type": "object"}}]);
    assert_eq!(
        Registry::from_value(&big_desc).unwrap_err().path(),
        Some("$[0].description")
    );
    let mut props = serde_json::Map::new();
    for i in 0..3000 {
        props.insert(
            format!("p{i}"),
            json!({"type": "string", "description": "a property with a long description text"}),
        );
    }
    let big_schema = json!([{"name": "a", "parameters": {"type": "object", "properties": props}}]);
    assert_eq!(
        Registry::from_value(&big_schema).unwrap_err().path(),
        Some("$[0].parameters")
    );
}

#[test]
fn pathological_globs_cost_bounded_time() {
    // 10,000 tools and the worst pattern the limits allow: linear-time matching keeps this
    // fast (a backtracking matcher would not finish). Correctness is what is asserted.
    let tools: Vec<Value> = (0..10_000)
        .map(
            |i| json!({"name": format!("{}{i}", "a".repeat(40)), "parameters": {"type": "object"}}),
        )
        .collect();
    let r = Registry::from_value(&Value::Array(tools)).unwrap();
    let pattern = "*a".repeat(120) + "b";
    let o = ToolsOverride::from_value(
        &json!({"enabled": true, "disabled": [pattern], "allowed": ["*a*a*a*a*a*a*a*a*9"]}),
    )
    .unwrap();
    let e = expand(&r, &o, ExpandContext::default()).unwrap();
    assert_eq!(e.tools().count(), 1000);
}
