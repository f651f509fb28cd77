//! Presets and ceilings by MCP annotation (`@read_only`, `@destructive`, ...), believed only
//! for servers the registry trusts: the nine real servers' tools, live server changes, and a
//! property test that no intent gets a tool past an annotation preset or ceiling.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeSet;

use common::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use tool_intent::registry::PresetChange;
use tool_intent::turn::expand::{expand, ExpandContext};
use tool_intent::Registry;

/// A registry of one own tool with the `readonly` preset and the `channel` ceiling, trusting
/// the servers `trusted` names, with the nine fixture servers merged in.
fn with_servers(trusted: &[&str]) -> Registry {
    let doc = json!({
        "tools": [{"name": "note", "description": "Write a note.", "parameters": {"type": "object"},
                   "annotations": {"readOnlyHint": false, "destructiveHint": false}}],
        "toolsets": {"readonly": ["@read_only"]},
        "sources": {"channel": {"deny": ["@destructive"]}},
        "trusted_servers": trusted,
    });
    with_fixture_servers(&doc)
}

/// A registry document with the nine fixture servers merged in.
fn with_fixture_servers(doc: &Value) -> Registry {
    let texts: Vec<(String, String)> = mcp_files()
        .into_iter()
        .map(|(name, value)| (name, value.to_string()))
        .collect();
    let servers: Vec<(&str, &str)> = texts
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    Registry::from_value(doc)
        .unwrap()
        .set_mcp_servers(&servers)
        .unwrap()
        .registry
}

/// The wire names of the fixture tools whose own annotations say `readOnlyHint: true`,
/// read from the files (not through the library).
fn annotated_read_only(r: &Registry) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (server, value) in mcp_files() {
        for t in value.as_array().unwrap() {
            if t["annotations"]["readOnlyHint"] == Value::Bool(true) {
                let source = t["name"].as_str().unwrap();
                let tool = r
                    .tools()
                    .iter()
                    .find(|x| {
                        x.source_name() == source && x.name.starts_with(&format!("mcp__{server}__"))
                    })
                    .unwrap_or_else(|| panic!("{server}/{source} not merged"));
                out.insert(tool.name.clone());
            }
        }
    }
    out
}

fn offered(r: &Registry, intent_json: &str, source: Option<&str>) -> BTreeSet<String> {
    let ctx = ExpandContext {
        source,
        ..Default::default()
    };
    let e = expand(r, &intent(intent_json), ctx).unwrap();
    names(&e)
        .into_iter()
        .filter(|n| n != "tool_search")
        .collect()
}

#[test]
fn the_read_only_preset_offers_exactly_the_trusted_read_only_tools() {
    let trusted = with_servers(&["*"]);
    let want = annotated_read_only(&trusted);
    assert_eq!(want.len(), 40, "fixture set changed");
    assert_eq!(offered(&trusted, r#"{"toolset": "readonly"}"#, None), want);
    // Untrusted, the same claims are not believed: none of the servers' tools is read-only,
    // and the registry's own `note` never was.
    let untrusted = with_servers(&[]);
    assert!(offered(&untrusted, r#"{"toolset": "readonly"}"#, None).is_empty());
    // Trusting one server believes that server alone.
    let one = with_servers(&["time"]);
    assert_eq!(
        offered(&one, r#"{"toolset": "readonly"}"#, None),
        ["mcp__time__convert_time", "mcp__time__get_current_time"]
            .map(String::from)
            .into()
    );
}

#[test]
fn a_deny_by_annotation_ceiling_wins_over_the_intent() {
    let r = with_servers(&["*"]);
    let everything = offered(&r, "null", None);
    let in_channel = offered(&r, r#"{"allowed": ["*"]}"#, Some("channel"));
    assert!(
        in_channel.contains("note"),
        "not destructive by its own annotations"
    );
    assert!(!in_channel.is_empty() && in_channel.len() < everything.len());
    for name in &in_channel {
        let tool = r.tools().iter().find(|t| &t.name == name).unwrap();
        let a = tool.annotations.clone().unwrap_or(Value::Null);
        let destructive =
            a["readOnlyHint"] != Value::Bool(true) && a["destructiveHint"] != Value::Bool(false);
        assert!(!destructive, "{name} is destructive: {a}");
    }
    // Untrusted servers' tools are all destructive by the defaults: the channel offers
    // only the registry's own tool.
    let untrusted = with_servers(&[]);
    assert_eq!(
        offered(&untrusted, "null", Some("channel")),
        ["note".to_string()].into()
    );
}

#[test]
fn an_intent_can_deny_by_annotation_and_an_unknown_selector_warns() {
    let r = with_servers(&["*"]);
    let all = offered(&r, "null", None);
    let kept = offered(&r, r#"{"disabled": ["@destructive"]}"#, None);
    assert_eq!(
        kept,
        offered(&r, "null", Some("channel")),
        "the same set as the ceiling"
    );
    assert!(kept.len() < all.len());
    let unknown = r#"{"disabled": ["@destructiv"]}"#;
    assert_eq!(
        offered(&r, unknown, None),
        all,
        "an unknown selector selects nothing"
    );
    let e = expand(&r, &intent(unknown), ExpandContext::default()).unwrap();
    let warned = e
        .warnings()
        .iter()
        .any(|w| w.message.contains("\"@destructiv\" selects no tool"));
    assert!(warned, "{:?}", e.warnings());
}

#[test]
fn a_tool_that_joins_a_trusted_server_enters_the_preset_at_once() {
    let r = with_servers(&["time"]);
    let list = json!([
        {"name": "get_current_time", "description": "Now.", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}},
        {"name": "get_timezones", "description": "Zones.", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}},
        {"name": "convert_time", "description": "Convert.", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": false}},
    ]);
    let change = r.set_mcp_server("time", &list.to_string()).unwrap();
    assert_eq!(
        change.diff.presets,
        [PresetChange {
            preset: "readonly".into(),
            entered: vec!["mcp__time__get_timezones".into()],
            left: vec!["mcp__time__convert_time".into()],
        }]
    );
    let next = change.registry;
    assert_eq!(
        offered(&next, r#"{"toolset": "readonly"}"#, None),
        ["mcp__time__get_current_time", "mcp__time__get_timezones"]
            .map(String::from)
            .into(),
        "the new read-only tool joins, the one that stopped saying so leaves"
    );
}

#[test]
fn selectors_and_trust_round_trip_and_bad_ones_name_their_path() {
    let doc = json!({
        "tools": [{"name": "a", "description": "", "parameters": {"type": "object"}}],
        "toolsets": {"safe": ["@!destructive", "@!open_world"]},
        "trusted_servers": ["git*", "time"],
    });
    let r = Registry::from_value(&doc).unwrap();
    let again = Registry::from_value(&r.to_value()).unwrap();
    assert_eq!(again.to_value(), r.to_value());
    assert_eq!(r.to_value()["trusted_servers"], json!(["git*", "time"]));
    let bad = json!({"tools": doc["tools"], "toolsets": {"x": ["a", "@readOnly"]}});
    let e = Registry::from_value(&bad).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        ("invalid_registry", Some("$.toolsets.x[1]"))
    );
    assert!(e.to_string().contains("@read_only"), "{e}");
    let bad = json!({"tools": doc["tools"], "history": [{"toolsets": {"old": ["gone_tool", "@read-only"]}}]});
    let e = Registry::from_value(&bad).unwrap_err();
    assert_eq!(e.path(), Some("$.history[0].toolsets.old[1]"), "{e}");
    let bad = json!({"tools": [], "trusted_servers": ["bad server"]});
    let e = Registry::from_value(&bad).unwrap_err();
    assert_eq!(e.path(), Some("$.trusted_servers[0]"), "{e}");
}

/// One tool of the random registries: (name, annotations as `[readOnly, destructive,
/// idempotent, openWorld]`, each a hint or absent).
fn tool_strategy() -> impl Strategy<Value = [Option<bool>; 4]> {
    proptest::array::uniform4(proptest::option::of(any::<bool>()))
}

fn annotations_value(hints: &[Option<bool>; 4]) -> Value {
    let mut o = serde_json::Map::new();
    for (key, hint) in [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ]
    .iter()
    .zip(hints)
    {
        if let Some(b) = hint {
            o.insert(key.to_string(), Value::Bool(*b));
        }
    }
    Value::Object(o)
}

/// Whether a tool is read-only / destructive as the test reads the specification.
fn believed(hints: &[Option<bool>; 4], trusted: bool) -> (bool, bool) {
    if !trusted {
        return (false, true);
    }
    let read_only = hints[0].unwrap_or(false);
    (read_only, !read_only && hints[1].unwrap_or(true))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn no_intent_gets_past_an_annotation_preset_or_ceiling(
        own in proptest::collection::vec(tool_strategy(), 1..5),
        server in proptest::collection::vec(tool_strategy(), 0..6),
        trust in any::<bool>(),
        disabled in proptest::collection::vec(proptest::sample::select(vec!["t0", "mcp__s__u1", "mcp__s__*", "*", "nothing"]), 0..3),
        allowed in proptest::option::of(proptest::collection::vec(proptest::sample::select(vec!["t1", "mcp__s__u0", "*"]), 0..3)),
        web_search in proptest::option::of(any::<bool>()),
    ) {
        let tools: Vec<Value> = own.iter().enumerate().map(|(i, h)| json!({
            "name": format!("t{i}"), "description": "", "parameters": {"type": "object"}, "annotations": annotations_value(h),
        })).collect();
        let doc = json!({
            "tools": tools,
            "toolsets": {"readonly": ["@read_only"]},
            "sources": {"channel": {"deny": ["@destructive"]}},
            "trusted_servers": if trust { json!(["s"]) } else { json!([]) },
        });
        let mut r = Registry::from_value(&doc).unwrap();
        let list: Vec<Value> = server.iter().enumerate().map(|(i, h)| json!({
            "name": format!("u{i}"), "description": "", "inputSchema": {"type": "object"}, "annotations": annotations_value(h),
        })).collect();
        r = r.set_mcp_server("s", &Value::Array(list).to_string()).unwrap().registry;
        let hints = |name: &str| -> (bool, bool) {
            match name.strip_prefix("mcp__s__u") {
                Some(i) => believed(&server[i.parse::<usize>().unwrap()], trust),
                None => believed(&own[name[1..].parse::<usize>().unwrap()], true),
            }
        };
        let mut o = serde_json::Map::new();
        o.insert("disabled".into(), json!(disabled));
        if let Some(a) = &allowed { o.insert("allowed".into(), json!(a)); }
        if let Some(w) = web_search { o.insert("web_search".into(), json!(w)); }
        let free = Value::Object(o.clone()).to_string();
        o.insert("toolset".into(), json!("readonly"));
        let read_only = Value::Object(o).to_string();
        for name in offered(&r, &read_only, None) {
            prop_assert!(hints(&name).0, "{} offered under the read-only preset", name);
        }
        for intent_json in [&free, &read_only] {
            for name in offered(&r, intent_json, Some("channel")) {
                prop_assert!(!hints(&name).1, "{} is destructive but offered in the channel", name);
            }
        }
    }
}

/// The embedded registry with the nine servers merged, trusting them or not.
fn embedded_with_servers(trusted: bool) -> Registry {
    let mut doc = Registry::embedded().to_value();
    doc["trusted_servers"] = if trusted { json!(["*"]) } else { json!([]) };
    with_fixture_servers(&doc)
}

#[test]
fn the_embedded_read_only_preset_selects_by_annotation() {
    // The embedded tools that read only (their annotations say so; `tool_search` is offered
    // whenever something is deferred and is left out of `offered`).
    let own = [
        "browser",
        "enter_plan_mode",
        "glob",
        "grep",
        "list_sessions",
        "read_file",
        "web_search",
    ];
    let servers = [
        "mcp__everything__echo",
        "mcp__everything__get-annotated-message",
        "mcp__everything__get-env",
        "mcp__everything__get-resource-links",
        "mcp__everything__get-resource-reference",
        "mcp__everything__get-structured-content",
        "mcp__everything__get-sum",
        "mcp__everything__get-tiny-image",
        "mcp__everything__trigger-long-running-operation",
        "mcp__fetch__fetch",
        "mcp__filesystem__directory_tree",
        "mcp__filesystem__get_file_info",
        "mcp__filesystem__list_allowed_directories",
        "mcp__filesystem__list_directory",
        "mcp__filesystem__list_directory_with_sizes",
        "mcp__filesystem__read_file",
        "mcp__filesystem__read_media_file",
        "mcp__filesystem__read_multiple_files",
        "mcp__filesystem__read_text_file",
        "mcp__filesystem__search_files",
        "mcp__git__git_branch",
        "mcp__git__git_diff",
        "mcp__git__git_diff_staged",
        "mcp__git__git_diff_unstaged",
        "mcp__git__git_log",
        "mcp__git__git_show",
        "mcp__git__git_status",
        "mcp__memory__open_nodes",
        "mcp__memory__read_graph",
        "mcp__memory__search_nodes",
        "mcp__playwright__browser_console_messages",
        "mcp__playwright__browser_find",
        "mcp__playwright__browser_network_request",
        "mcp__playwright__browser_network_requests",
        "mcp__playwright__browser_snapshot",
        "mcp__playwright__browser_take_screenshot",
        "mcp__playwright__browser_wait_for",
        "mcp__seqthink__sequentialthinking",
        "mcp__time__convert_time",
        "mcp__time__get_current_time",
    ];
    let readonly = r#"{"toolset": "readonly"}"#;
    let trusted = embedded_with_servers(true);
    let want: BTreeSet<String> = own.iter().chain(&servers).map(|s| s.to_string()).collect();
    assert_eq!(offered(&trusted, readonly, None), want);
    // The same list, read from the fixtures' own annotations.
    let from_files: BTreeSet<String> = servers.iter().map(|s| s.to_string()).collect();
    assert_eq!(annotated_read_only(&trusted), from_files);
    let untrusted = embedded_with_servers(false);
    let own: BTreeSet<String> = own.iter().map(|s| s.to_string()).collect();
    assert_eq!(offered(&untrusted, readonly, None), own);
    // tool_search looks only among what the preset offers.
    let request = tool_intent::TurnRequest {
        tools_override: intent(readonly),
        ..Default::default()
    };
    let search = |query: &str| {
        let mut turn = trusted.turn(&request).unwrap();
        turn.search(&tool_intent::SearchCall::new(query))
            .unwrap()
            .result
            .hits
    };
    assert_eq!(
        search("select:mcp__filesystem__read_file"),
        ["mcp__filesystem__read_file"]
    );
    assert!(search("select:mcp__filesystem__write_file").is_empty());
    let hits = search("write a file to disk");
    assert!(hits.iter().all(|h| want.contains(h)), "{hits:?}");
}

/// The session row of the design note: the intent as stored, and the turn state.
#[test]
fn a_read_only_tool_a_server_adds_mid_session_joins_at_the_next_turn_with_no_row_written() {
    use tool_intent::{ToolsOverride, TurnRequest, TurnState};
    let stored_intent = r#"{"toolset":"readonly"}"#;
    let request = |state: &TurnState| TurnRequest {
        tools_override: ToolsOverride::from_json_str(stored_intent).unwrap(),
        state: state.clone(),
        ..Default::default()
    };
    let offered_by = |plan: &tool_intent::TurnPlan| -> Vec<String> {
        plan.array()
            .iter()
            .chain(plan.catalog().iter())
            .map(|s| s.to_string())
            .collect()
    };
    let r1 = embedded_with_servers(true);
    let state1 = r1.begin_turn(&TurnState::default());
    let first = r1.plan_turn(&request(&state1)).unwrap();
    assert!(!offered_by(&first).contains(&"mcp__time__get_timezones".to_string()));
    // Mid-turn the time server adds a read-only tool: this turn's bytes stay as they were.
    let mut list: Vec<Value> =
        serde_json::from_str(&read_repo_file("tests/data/mcp/time.json")).unwrap();
    list.push(
        json!({"name": "get_timezones", "description": "Every IANA zone.",
                     "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}),
    );
    let r2 = r1
        .set_mcp_server("time", &Value::Array(list).to_string())
        .unwrap()
        .registry;
    assert_eq!(
        r2.plan_turn(&request(&state1)).unwrap().payload,
        first.payload
    );
    // The next turn offers it: the stored intent is the same text, the state names no tool.
    let state2 = r2.begin_turn(&state1);
    assert!(state2.loaded.is_empty() && state2.frozen.is_empty());
    let next = r2.plan_turn(&request(&state2)).unwrap();
    assert!(
        offered_by(&next).contains(&"mcp__time__get_timezones".to_string()),
        "{:?}",
        offered_by(&next)
    );
    assert_eq!(
        request(&state2).tools_override.to_canonical_json(),
        stored_intent
    );
}

/// Every preset and ceiling the round-trip test compares, as (intent, source).
const DECISIONS: [(&str, Option<&str>); 5] = [
    (r#"{"toolset": "readonly"}"#, None),
    (r#"{"toolset": "readonly"}"#, Some("channel")),
    (r#"{"enabled": true}"#, Some("channel")),
    (r#"{"enabled": true}"#, None),
    (r#"{"toolset": "full"}"#, Some("channel")),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    /// Trust is a property of the server name on every path: a registry written with
    /// `to_value` and read back (what `Registry.fromJson(r.toJson())` does on every surface,
    /// and what the CLI does to add `--trust`) has the same fingerprint and offers the same
    /// tools under every preset and ceiling, whoever it trusts.
    #[test]
    fn a_written_registry_decides_as_the_original(
        own in proptest::collection::vec(tool_strategy(), 1..4),
        servers in proptest::collection::vec(proptest::collection::vec(tool_strategy(), 0..5), 1..4),
        trusted in proptest::collection::vec(proptest::sample::select(vec!["s0", "s1", "s*", "x", "s2"]), 0..3),
        in_document in any::<bool>(),
        cli_trust in proptest::option::of(proptest::sample::select(vec!["s1", "unrelated"])),
    ) {
        let tools: Vec<Value> = own.iter().enumerate().map(|(i, h)| json!({
            "name": format!("t{i}"), "description": "", "parameters": {"type": "object"}, "annotations": annotations_value(h),
        })).collect();
        let lists: Vec<Value> = servers.iter().map(|tools| Value::Array(tools.iter().enumerate().map(|(i, h)| json!({
            "name": format!("u.{i}"), "description": "", "inputSchema": {"type": "object"}, "annotations": annotations_value(h),
        })).collect())).collect();
        let mut doc = json!({
            "tools": tools,
            "toolsets": {"readonly": ["@read_only"]},
            "sources": {"channel": {"deny": ["@destructive"]}},
            "trusted_servers": trusted,
        });
        // Servers given in the document's `mcp_servers`, or merged later by `set_mcp_server`.
        let r = if in_document {
            doc["mcp_servers"] = Value::Array(lists.iter().enumerate().map(|(k, l)| json!({"name": format!("s{k}"), "tools": l})).collect());
            Registry::from_value(&doc).unwrap()
        } else {
            let mut r = Registry::from_value(&doc).unwrap();
            for (k, l) in lists.iter().enumerate() {
                r = r.set_mcp_server(&format!("s{k}"), &l.to_string()).unwrap().registry;
            }
            r
        };
        let again = Registry::from_json_str(&r.to_json()).unwrap();
        prop_assert_eq!(again.fingerprint(), r.fingerprint());
        prop_assert_eq!(again.to_value(), r.to_value());
        for (intent_json, source) in DECISIONS {
            prop_assert_eq!(offered(&again, intent_json, source), offered(&r, intent_json, source), "{} {:?}", intent_json, source);
        }
        // The CLI's `--trust`: the written document gains a trusted server and loads again;
        // it decides as a registry loaded with that trust from the start.
        if let Some(extra) = cli_trust {
            let mut written = r.to_value();
            written["trusted_servers"].as_array_mut().map(|a| a.push(json!(extra)))
                .unwrap_or_else(|| written["trusted_servers"] = json!([extra]));
            let widened = Registry::from_value(&written).unwrap();
            doc["trusted_servers"].as_array_mut().unwrap().push(json!(extra));
            let direct = if in_document {
                Registry::from_value(&doc).unwrap()
            } else {
                let mut d = Registry::from_value(&doc).unwrap();
                for (k, l) in lists.iter().enumerate() {
                    d = d.set_mcp_server(&format!("s{k}"), &l.to_string()).unwrap().registry;
                }
                d
            };
            for (intent_json, source) in DECISIONS {
                prop_assert_eq!(offered(&widened, intent_json, source), offered(&direct, intent_json, source), "--trust {}: {} {:?}", extra, intent_json, source);
            }
        }
    }
}
