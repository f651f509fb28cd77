//! The deferral properties of the contract (`docs/contract.md`, section 4), one named test each,
//! and a simulated session.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use serde_json::json;
use tool_intent::turn::expand::{expand, ExpandContext, Expansion};
use tool_intent::turn::{catalog_text, split, system_prompt_with_catalog, CATALOG_HEADER};
use tool_intent::{
    DeferralMode, Provider, Registry, ToolsOverride, TurnPlan, TurnRequest, TurnState, View,
};

const DEFERRED_DEFAULTS: [&str; 4] = [
    "playwright_browser",
    "enter_plan_mode",
    "exit_plan_mode",
    "send_message",
];

fn catalog_names(r: &Registry, e: &Expansion, s: &TurnState, view: View) -> Vec<String> {
    let split = split(e, s, view);
    split
        .catalog
        .iter()
        .map(|&i| r.tools()[i].name.clone())
        .collect()
}

fn array(r: &Registry, request: &TurnRequest, s: &TurnState, mode: DeferralMode) -> TurnPlan {
    render(
        r,
        request,
        s,
        RenderOptions {
            mode,
            ..Default::default()
        },
    )
    .unwrap()
}

#[test]
fn no_deferred_default_in_new_session_resident_array() {
    let r = Registry::embedded();
    for text in [
        "null",
        r#"{"enabled":true}"#,
        r#"{"enabled":true,"web_search":true}"#,
    ] {
        let req = turn_request(&intent(text), ExpandContext::default());
        let p = array(&r, &req, &TurnState::default(), DeferralMode::Catalog);
        for d in DEFERRED_DEFAULTS {
            assert!(!p.array().contains(&d), "{d} resident for {text}");
            assert!(
                !p.payload.contains(&format!("\"name\":\"{d}\"")),
                "{d} in bytes for {text}"
            );
        }
    }
}

#[test]
fn deferred_defaults_all_in_catalog_and_system_prompt() {
    let r = Registry::embedded();
    let e = expand_json(&r, "null");
    let state = TurnState::default();
    let cat = catalog_names(&r, &e, &state, View::Frozen);
    let split = split(&e, &state, View::Frozen);
    let text = catalog_text(&r, &split.catalog);
    let prompt = system_prompt_with_catalog("You are a coding agent.", &text);
    assert!(prompt.starts_with("You are a coding agent.\n\n"));
    assert!(prompt.contains(CATALOG_HEADER));
    for d in DEFERRED_DEFAULTS {
        assert!(cat.contains(&d.to_string()), "{d} not in catalog");
        assert!(
            prompt.lines().any(|l| l == d),
            "{d} not a catalog line of the system prompt"
        );
    }
    // Names only: no description leaks into the catalog.
    assert!(!text.contains("Playwright"));
}

#[test]
fn tool_search_moves_tool_from_catalog_to_array_at_next_turn_boundary() {
    let r = Registry::embedded();
    let e = expand_json(&r, "null");
    let req = turn_request(&intent("null"), ExpandContext::default());
    let turn1 = r.begin_turn(&TurnState::default());
    let (result, after_search) = search_args(
        &r,
        &req,
        &turn1,
        &json!({"query": "select:enter_plan_mode"}),
    )
    .unwrap();
    assert_eq!(result.hits, ["enter_plan_mode"]);
    // Same turn: still in the catalog, not in the array.
    assert!(
        catalog_names(&r, &e, &after_search, View::Frozen).contains(&"enter_plan_mode".to_string())
    );
    assert!(!array(&r, &req, &after_search, DeferralMode::Catalog)
        .array()
        .contains(&"enter_plan_mode"));
    // Next turn: in the array, out of the catalog.
    let turn2 = r.begin_turn(&after_search);
    let p = array(&r, &req, &turn2, DeferralMode::Catalog);
    assert_eq!(p.array().last().copied(), Some("enter_plan_mode"));
    assert!(!catalog_names(&r, &e, &turn2, View::Frozen).contains(&"enter_plan_mode".to_string()));
    assert!(!p.catalog_text.lines().any(|l| l == "enter_plan_mode"));
}

#[test]
fn tool_search_never_deferred() {
    let r = all_merged();
    for text in [
        "null",
        r#"{"toolset":"full"}"#,
        r#"["memory","mcp__github__create_issue","tool_search"]"#,
    ] {
        let e = expand_json(&r, text);
        let s = e.summary();
        assert!(!s.deferred.contains(&"tool_search".to_string()), "{text}");
        assert_eq!(
            s.resident.contains(&"tool_search".to_string()),
            !s.deferred.is_empty(),
            "{text}"
        );
    }
    // Even a registry that tries to defer it.
    let doc = json!({"tools": [{"name": "tool_search", "parameters": {"type": "object"}, "defer": true}, {"name": "x", "parameters": {"type": "object"}, "defer": true}]});
    let r = Registry::from_value(&doc).unwrap();
    let s = expand_json(&r, "null").summary();
    assert_eq!(s.resident, ["tool_search"]);
    assert_eq!(s.deferred, ["x"]);
}

#[test]
fn deferral_idempotent() {
    let r = all_merged();
    let e1 = expand_json(&r, r#"{"toolset":"full"}"#);
    // Expanding the same intent again, or feeding the expansion's own tools back as a
    // hand-pick of the same available set, classifies every tool the same way.
    let e2 = expand_json(&r, r#"{"toolset":"full"}"#);
    assert_eq!(e1.summary(), e2.summary());
    let picked = ToolsOverride::Picked(names(&e1));
    let e3 = expand(&r, &picked, ExpandContext::default()).unwrap();
    assert_eq!(e3.summary().resident, e1.summary().resident);
    assert_eq!(e3.summary().deferred, e1.summary().deferred);
}

#[test]
fn mid_turn_tool_search_changes_neither_array_nor_catalog() {
    let r = all_merged();
    let req = turn_request(&intent(r#"{"toolset":"full"}"#), ExpandContext::default());
    let mut state = r.begin_turn(&TurnState::default());
    let before = array(&r, &req, &state, DeferralMode::Catalog);
    for q in [
        "select:mcp__github__create_issue",
        "github pull request",
        "+browser screenshot",
        "select:memory,worktree",
    ] {
        let (_, next) = search_args(&r, &req, &state, &json!({"query": q})).unwrap();
        state = next;
        let now = array(&r, &req, &state, DeferralMode::Catalog);
        assert_eq!(now.payload, before.payload, "array moved after {q}");
        assert_eq!(
            now.catalog_text, before.catalog_text,
            "catalog moved after {q}"
        );
        assert_eq!(now.fingerprint, before.fingerprint);
    }
    assert!(state.loaded.len() >= 4);
}

#[test]
fn tool_search_result_carries_full_schema() {
    let r = all_merged();
    let req = turn_request(&intent(r#"{"toolset":"full"}"#), ExpandContext::default());
    let (res, _) = search_args(
        &r,
        &req,
        &TurnState::default(),
        &json!({"query": "select:mcp__github__create_issue,playwright_browser"}),
    )
    .unwrap();
    assert_eq!(
        res.hits,
        ["mcp__github__create_issue", "playwright_browser"]
    );
    assert!(res.text.contains("can be called at once"));
    let defs: Vec<serde_json::Value> = res
        .text
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(defs.len(), 2);
    for (def, name) in defs.iter().zip(&res.hits) {
        let tool = &r.tools()[r.index_of(name).unwrap()];
        assert_eq!(def["name"], json!(tool.name));
        assert_eq!(def["description"], json!(tool.description));
        assert_eq!(&def["parameters"], tool.parameters());
    }
}

#[test]
fn loaded_but_not_promoted_tool_resolves_for_dispatch() {
    let r = Registry::embedded();
    let e = expand_json(&r, "null");
    let req = turn_request(&intent("null"), ExpandContext::default());
    let turn = r.begin_turn(&TurnState::default());
    let (_, state) =
        search_args(&r, &req, &turn, &json!({"query": "select:send_message"})).unwrap();
    assert!(!array(&r, &req, &state, DeferralMode::Catalog)
        .array()
        .contains(&"send_message"));
    assert_eq!(e.resolve("send_message").unwrap().name, "send_message");
    // A deferred tool never loaded resolves too: deferred is not disabled.
    assert!(e.resolve("exit_plan_mode").is_ok());
    // A disabled or unknown tool does not.
    let e = expand_json(&r, r#"{"enabled":true,"disabled":["send_message"]}"#);
    let err = e.resolve("send_message").unwrap_err();
    assert_eq!(err.code(), "tool_not_available");
    assert!(e
        .resolve("no_such_tool")
        .unwrap_err()
        .to_string()
        .contains("no tool of that name"));
}

/// 20 turns, intent unchanged, loads on turns 3, 3 and 9.
#[test]
fn simulated_twenty_turn_session() {
    let r = all_merged();
    let o = intent(r#"{"toolset":"full","web_search":true}"#);
    let loads: [(u64, &str); 3] = [
        (3, "mcp__github__create_issue"),
        (3, "playwright_browser"),
        (9, "mcp__git__git_status"),
    ];
    for mode in DeferralMode::ALL {
        for provider in [
            Provider::Anthropic,
            Provider::OpenAiResponses,
            Provider::OpenAiChat,
        ] {
            if provider == Provider::OpenAiChat && mode.declares_deferred() {
                continue;
            }
            let mut state = TurnState::default();
            let mut previous: Option<TurnPlan> = None;
            let mut changes = Vec::new();
            for turn in 1..=20u64 {
                state = r.begin_turn(&state);
                // Every turn expands the intent afresh against the live registry.
                let req = turn_request(&o, ExpandContext::default());
                let opts = RenderOptions {
                    provider,
                    mode,
                    ..Default::default()
                };
                let at_start = render(&r, &req, &state, opts).unwrap();
                // Several provider calls within the turn, with tool_search calls between them.
                for (t, name) in loads.iter().filter(|(t, _)| *t == turn) {
                    let (_, next) = search_args(
                        &r,
                        &req,
                        &state,
                        &json!({"query": format!("select:{name}")}),
                    )
                    .unwrap();
                    state = next;
                    let mid = render(&r, &req, &state, opts).unwrap();
                    assert_eq!(
                        mid.payload, at_start.payload,
                        "turn {t}: array changed mid-turn"
                    );
                }
                if let Some(prev) = &previous {
                    if prev.payload != at_start.payload {
                        changes.push(turn);
                        assert!(
                            at_start.array().starts_with(&prev.array()),
                            "turn {turn}: new array does not extend the old one"
                        );
                        let old = prev.payload.trim_end_matches(']');
                        assert!(
                            at_start.payload.starts_with(old),
                            "turn {turn}: bytes are not a prefix extension"
                        );
                    }
                }
                previous = Some(at_start);
            }
            match mode {
                DeferralMode::Catalog => assert_eq!(changes, [4, 10], "{provider:?}"),
                DeferralMode::Native | DeferralMode::NativeClient => {
                    assert!(changes.is_empty(), "{provider:?} {mode:?}: {changes:?}")
                }
            }
        }
    }
}
