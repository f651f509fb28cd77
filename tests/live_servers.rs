//! Live MCP servers (issue 23): wire names that never move to another tool, across random
//! sequences of set / replace / remove; registry changes held to the turn boundary.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::json;
use tool_intent::{
    DeferralMode, Provider, Registry, SearchCall, ToolsOverride, TurnRequest, TurnState,
};

/// Server tool names chosen to collide after mapping: dots, capitals, case twins, a name
/// shaped like a hashed wire name, a long one.
const TOOL_NAMES: [&str; 10] = [
    "get_item",
    "get.item",
    "Get_Item",
    "get-item",
    "getItem",
    "getitem",
    "get_item_0a1b2c3d",
    "search",
    "a_very_long_tool_name_that_goes_on_and_on_past_the_limit_of_64",
    "x y",
];
const SERVERS: [&str; 3] = ["s", "t", "s-2"];

#[derive(Debug, Clone)]
enum Op {
    Set(usize, Vec<usize>),
    Remove(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..SERVERS.len(), proptest::collection::vec(0..TOOL_NAMES.len(), 0..6))
            .prop_map(|(s, tools)| Op::Set(s, tools)),
        1 => (0..SERVERS.len()).prop_map(Op::Remove),
    ]
}

fn list(tools: &[usize]) -> String {
    let tools: Vec<_> = tools
        .iter()
        .map(|&k| json!({"name": TOOL_NAMES[k], "description": format!("tool {k}"), "inputSchema": {"type": "object"}}))
        .collect();
    json!({ "tools": tools }).to_string()
}

/// (server, source name) of every MCP tool, by wire name.
fn meanings(r: &Registry) -> BTreeMap<String, (String, String)> {
    r.tools()
        .iter()
        .filter_map(|t| {
            let server = t
                .name
                .strip_prefix("mcp__")?
                .split("__")
                .next()?
                .to_string();
            Some((t.name.clone(), (server, t.source_name().to_string())))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Once a wire name has meant (server, source name), it never means anything else, in any
    /// registry of the sequence; every registry writes back to an equal one.
    #[test]
    fn a_wire_name_keeps_its_meaning_for_good(ops in proptest::collection::vec(op(), 1..12)) {
        let mut r = Registry::embedded();
        let mut seen: BTreeMap<String, (String, String)> = BTreeMap::new();
        for op in &ops {
            let change = match op {
                Op::Set(s, tools) => r.set_mcp_server(SERVERS[*s], &list(tools)),
                Op::Remove(s) => r.remove_mcp_server(SERVERS[*s]),
            };
            let Ok(change) = change else {
                // Removing a server that is not there is the only refusal.
                prop_assert!(matches!(op, Op::Remove(_)));
                continue;
            };
            r = change.registry;
            // Keyed ignoring case: the rule must hold for a provider that compares that way.
            for (wire, meaning) in meanings(&r) {
                let first = seen.entry(wire.to_ascii_lowercase()).or_insert_with(|| meaning.clone());
                prop_assert_eq!(&*first, &meaning, "{} changed meaning", wire);
            }
            let again = Registry::from_json_str(&r.to_json()).unwrap();
            prop_assert_eq!(again.tools(), r.tools());
            prop_assert_eq!(again.fingerprint(), r.fingerprint());
        }
    }

    /// The diff names exactly the wire names that appeared, disappeared or changed.
    #[test]
    fn the_diff_is_the_difference(a in proptest::collection::vec(0..TOOL_NAMES.len(), 0..6), b in proptest::collection::vec(0..TOOL_NAMES.len(), 0..6)) {
        let before = Registry::embedded().set_mcp_server("s", &list(&a)).unwrap().registry;
        let change = before.set_mcp_server("s", &list(&b)).unwrap();
        let (old, new) = (meanings(&before), meanings(&change.registry));
        let added: Vec<&String> = new.keys().filter(|k| !old.contains_key(*k)).collect();
        let removed: Vec<&String> = old.keys().filter(|k| !new.contains_key(*k)).collect();
        let mut diff_added: Vec<&String> = change.diff.added.iter().collect();
        let mut diff_removed: Vec<&String> = change.diff.removed.iter().collect();
        diff_added.sort();
        diff_removed.sort();
        prop_assert_eq!(diff_added, added);
        prop_assert_eq!(diff_removed, removed);
        for name in &change.diff.changed {
            let i = before.index_of(name).unwrap();
            let j = change.registry.index_of(name).unwrap();
            prop_assert_ne!(&before.tools()[i].description, &change.registry.tools()[j].description);
        }
    }
}

fn server(names: &[&str]) -> String {
    let tools: Vec<_> = names
        .iter()
        .map(|n| json!({"name": n, "description": format!("{n} things"), "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}))
        .collect();
    json!({ "tools": tools }).to_string()
}

fn request(state: &TurnState, provider: Provider, mode: DeferralMode) -> TurnRequest {
    TurnRequest {
        tools_override: ToolsOverride::from_json_str(r#"{"toolset":"full"}"#).unwrap(),
        state: state.clone(),
        provider,
        mode,
        ..Default::default()
    }
}

#[test]
fn a_registry_change_mid_turn_waits_for_the_next_turn() {
    let r1 = Registry::embedded()
        .set_mcp_server("gh", &server(&["issue", "pull"]))
        .unwrap()
        .registry;
    for (provider, mode) in [
        (Provider::Anthropic, DeferralMode::Catalog),
        (Provider::Anthropic, DeferralMode::NativeClient),
        (Provider::OpenAiResponses, DeferralMode::Native),
        (Provider::Gemini, DeferralMode::Catalog),
    ] {
        let state = r1.begin_turn(&TurnState::default());
        let first = r1.plan_turn(&request(&state, provider, mode)).unwrap();
        // Mid-turn the server adds one tool and drops another.
        let r2 = r1
            .set_mcp_server("gh", &server(&["issue", "review"]))
            .unwrap()
            .registry;
        let again = r2.plan_turn(&request(&state, provider, mode)).unwrap();
        assert_eq!(
            again.payload, first.payload,
            "{provider:?} {mode:?}: same bytes all turn"
        );
        assert_eq!(again.catalog_text, first.catalog_text);
        // The same warnings, and one saying the turn runs on the version it began on.
        let codes: Vec<&str> = again.warnings.iter().map(|w| w.code.as_str()).collect();
        assert_eq!(codes.last(), Some(&"turn_registry_earlier"));
        assert_eq!(
            again.warnings[..again.warnings.len() - 1],
            first.warnings[..]
        );
        // A search mid-turn finds what this turn declares, not the newcomer.
        let found = r2
            .turn(&request(&state, provider, mode))
            .and_then(|mut turn| turn.search(&SearchCall::new("select:mcp__gh__review")))
            .unwrap();
        assert!(found.result.hits.is_empty(), "{:?}", found.result.hits);
        // Dispatch: the dropped tool is still declared and answers tool_removed.
        let e = r2
            .turn(&request(&state, provider, mode))
            .and_then(|turn| turn.resolve("mcp__gh__pull").cloned())
            .unwrap_err();
        assert_eq!(e.code(), "tool_removed");
        assert!(e.to_string().contains("\"gh\""), "{e}");
        assert_eq!(
            r2.turn(&request(&state, provider, mode))
                .and_then(|turn| turn.resolve("mcp__gh__issue").cloned())
                .unwrap()
                .name,
            "mcp__gh__issue"
        );
        // The next turn runs on the new registry.
        let next = r2.begin_turn(&state);
        let plan = r2.plan_turn(&request(&next, provider, mode)).unwrap();
        let names: Vec<&str> = plan
            .array()
            .iter()
            .chain(&plan.catalog())
            .copied()
            .collect();
        let text = format!("{names:?}{}", plan.payload);
        assert!(text.contains("mcp__gh__review"), "{provider:?} {mode:?}");
        assert!(!text.contains("mcp__gh__pull"), "{provider:?} {mode:?}");
        assert_eq!(
            r2.turn(&request(&next, provider, mode))
                .and_then(|turn| turn.resolve("mcp__gh__pull").cloned())
                .unwrap_err()
                .code(),
            "tool_not_available"
        );
    }
}

#[test]
fn a_turn_on_a_version_no_longer_held_uses_the_current_registry_and_says_so() {
    let mut r = Registry::embedded();
    let state = r.begin_turn(&TurnState::default());
    for k in 0..=tool_intent::registry::KEPT_VERSIONS {
        r = r
            .set_mcp_server("s", &server(&[&format!("t{k}")]))
            .unwrap()
            .registry;
    }
    let plan = r
        .plan_turn(&request(&state, Provider::Anthropic, DeferralMode::Catalog))
        .unwrap();
    let codes: Vec<&str> = plan.warnings.iter().map(|w| w.code.as_str()).collect();
    assert_eq!(codes, ["turn_registry_gone"]);
    // A state stamped by another process that loaded the same lists is recognised.
    let same = Registry::from_json_str(&r.to_json()).unwrap();
    let stamped = same.begin_turn(&TurnState::default());
    let plan = r
        .plan_turn(&request(
            &stamped,
            Provider::Anthropic,
            DeferralMode::Catalog,
        ))
        .unwrap();
    assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
}
