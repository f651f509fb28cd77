//! The bad-input gaps a hostile pass over real MCP servers found, one test each: per-tool
//! quarantine, schema roots, reserved names, bounded cost, duplicate keys, and the smaller
//! gaps (toggles, denies, warnings, readable errors).

#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use tool_intent::limits::LIMITS;
use tool_intent::turn::expand::{expand, ExpandContext};
use tool_intent::{
    build_intent, Registry, Toggles, ToolsOverride, TurnRequest, TurnState, WarningCode,
};

fn tool(name: &str) -> Value {
    json!({"name": name, "description": "d", "inputSchema": {"type": "object"}})
}

fn codes(warnings: &[tool_intent::Warning]) -> Vec<WarningCode> {
    warnings.iter().map(|w| w.code).collect()
}

#[test]
fn unusable_mcp_tools_are_quarantined_with_name_path_and_reason() {
    let deep = (0..40).fold(
        json!({"type": "object"}),
        |d, _| json!({"type": "object", "properties": {"x": d}}),
    );
    let list = json!({"tools": [
        {"description": "no name", "inputSchema": {"type": "object"}},
        {"name": "deep", "inputSchema": deep},
        {"name": "text_root", "inputSchema": {"type": "string"}},
        {"name": "typed_list", "inputSchema": {"type": ["object", "null"]}},
        tool("fine"),
    ]});
    let r = Registry::embedded()
        .set_mcp_server("s", &list.to_string())
        .unwrap()
        .registry;
    assert!(r.index_of("mcp__s__fine").is_some());
    assert_eq!(
        r.tools()
            .iter()
            .filter(|t| t.name.starts_with("mcp__s__"))
            .count(),
        1
    );
    let messages: Vec<&str> = r.warnings().iter().map(|w| w.message.as_str()).collect();
    assert_eq!(
        codes(r.warnings()),
        [WarningCode::QuarantinedTool; 4],
        "{messages:?}"
    );
    assert!(
        messages[0].contains("(no name)") && messages[0].contains("$.tools[0]"),
        "{}",
        messages[0]
    );
    assert!(
        messages[1].contains("\"deep\"") && messages[1].contains("levels deep"),
        "{}",
        messages[1]
    );
    assert!(
        messages[2].contains("\"text_root\"") && messages[2].contains("\"string\""),
        "{}",
        messages[2]
    );
    assert!(messages[3].contains("not a type name"), "{}", messages[3]);
}

#[test]
fn dict_and_missing_root_types_become_object_with_one_warning() {
    let list = json!([
        {"name": "a", "inputSchema": {"type": "dict", "properties": {"n": {"type": "integer"}}}},
        {"name": "b", "inputSchema": {"properties": {"q": {"type": "string"}}}},
        {"name": "c", "inputSchema": {}},
        {"name": "d", "inputSchema": {"type": "object"}},
    ]);
    let r = Registry::embedded()
        .set_mcp_server("s", &list.to_string())
        .unwrap()
        .registry;
    assert_eq!(codes(r.warnings()), [WarningCode::NormalisedSchema]);
    assert!(
        r.warnings()[0]
            .message
            .contains("are sent with \"type\": \"object\" (3): "),
        "{}",
        r.warnings()[0].message
    );
    for name in ["a", "b", "c", "d"] {
        let t = &r.tools()[r.index_of(&format!("mcp__s__{name}")).unwrap()];
        assert_eq!(t.parameters()["type"], "object", "{name}");
    }
    assert_eq!(
        r.tools()[r.index_of("mcp__s__a").unwrap()].parameters()["properties"]["n"]["type"],
        "integer"
    );
    // Our own format: a root providers refuse is an error with its path.
    let e =
        Registry::from_value(&json!([{"name": "x", "parameters": {"type": "array"}}])).unwrap_err();
    assert_eq!(e.path(), Some("$[0].parameters.type"));
}

#[test]
fn provider_search_tool_names_are_reserved() {
    for name in ["tool_search_tool_regex", "tool_search_tool_bm25"] {
        let e = Registry::from_value(&json!([{"name": name, "parameters": {"type": "object"}}]))
            .unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            ("invalid_registry", Some("$[0].name")),
            "{name}"
        );
    }
    // As an MCP tool the name is namespaced, so it cannot clash.
    let r = Registry::embedded()
        .set_mcp_server("s", &json!([tool("tool_search_tool_regex")]).to_string())
        .unwrap()
        .registry;
    assert!(r.index_of("mcp__s__tool_search_tool_regex").is_some());
}

#[test]
fn input_over_the_size_limit_is_refused_before_parsing() {
    // Not even JSON: the length alone decides.
    let text = " ".repeat(LIMITS.max_input_bytes + 1);
    let e = Registry::from_json_str(&text).unwrap_err();
    assert_eq!((e.code(), e.path()), ("limit_exceeded", Some("$")));
    let e = Registry::embedded().set_mcp_server("s", &text).unwrap_err();
    assert_eq!(e.input(), Some("tools list"));
}

#[test]
fn turn_states_are_bounded_and_stale_names_give_one_warning() {
    let many: Vec<String> = (0..LIMITS.max_tools + 1).map(|i| format!("t{i}")).collect();
    let e = TurnState::from_value(&json!({"loaded": many})).unwrap_err();
    assert_eq!((e.code(), e.path()), ("limit_exceeded", Some("$.loaded")));
    let stale: Vec<String> = (0..5_000).map(|i| format!("gone_{i}")).collect();
    let state = TurnState {
        loaded: stale.clone(),
        frozen: stale,
        turn: 3,
        ..Default::default()
    };
    let r = Registry::embedded();
    let req = TurnRequest {
        state,
        ..Default::default()
    };
    let p = r.plan_turn(&req).unwrap();
    assert_eq!(codes(&p.warnings), [WarningCode::UnknownLoadedTool]);
    assert!(
        p.warnings[0].message.starts_with(
            "loaded names that are not deferred tools of this expansion are ignored (5000): "
        ),
        "{}",
        p.warnings[0].message
    );
    let found = r
        .turn(&req)
        .and_then(|mut turn| turn.search(&tool_intent::SearchCall::new("select:memory")))
        .unwrap();
    assert!(
        found.state.loaded.len() <= 1 && found.state.frozen.is_empty(),
        "the returned state is pruned"
    );
}

#[test]
fn a_turn_state_stamp_is_only_what_begin_turn_writes() {
    let written = Registry::embedded().fingerprint().to_string();
    let state = TurnState::from_value(&json!({ "registry": written })).unwrap();
    assert_eq!(state.registry.as_deref(), Some(written.as_str()));
    let upper = format!("sha256:{}", written["sha256:".len()..].to_uppercase());
    for edited in [upper.as_str(), &written[..40], "sha256:\u{202e}"] {
        let e = TurnState::from_value(&json!({ "registry": edited })).unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            ("invalid_value", Some("$.registry")),
            "{edited}"
        );
        assert_eq!(e.input(), Some("state"));
    }
}

#[test]
fn a_key_given_twice_is_an_error_in_every_input() {
    let e = ToolsOverride::from_json_str(r#"{"disabled":["shell"],"disabled":[]}"#).unwrap_err();
    assert_eq!(e.path(), Some("$.disabled"));
    let e = Registry::from_json_str(
        r#"{"tools":[], "sources": {"channel": {"deny": ["shell"], "deny": []}}}"#,
    )
    .unwrap_err();
    assert!(e.to_string().contains("given twice"), "{e}");
    let e = Toggles::from_json_str(r#"{"toolset":"a","toolset":"b"}"#).unwrap_err();
    assert_eq!(e.path(), Some("$.toolset"));
    let e = TurnState::from_json_str(r#"{"turn":1,"turn":2}"#).unwrap_err();
    assert_eq!(e.path(), Some("$.turn"));
    let e = tool_intent::SessionRunConfig::from_json_str(r#"{"toolset":"a","toolset":null}"#)
        .unwrap_err();
    assert_eq!(e.path(), Some("$.toolset"));
}

#[test]
fn a_hand_pick_with_other_toggles_is_refused() {
    let e = Toggles::from_json_str(r#"{"picked":["grep"],"disabled":["shell"]}"#).unwrap_err();
    assert_eq!((e.input(), e.path()), (Some("toggles"), Some("$.picked")));
    assert!(e.to_string().contains("disabled"), "{e}");
    let t = Toggles::from_json_str(r#"{"picked":["grep"]}"#).unwrap();
    assert_eq!(build_intent(&t).to_canonical_json(), r#"["grep"]"#);
}

#[test]
fn denies_load_ignoring_case_as_they_match() {
    let r = Registry::from_value(&json!({
        "tools": [{"name": "web_search", "parameters": {"type": "object"}}],
        "sources": {"channel": {"deny": ["WEB_SEARCH"]}}
    }))
    .unwrap();
    let e = expand(
        &r,
        &ToolsOverride::Follow,
        ExpandContext {
            source: Some("channel"),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(e.tools().count(), 0);
}

#[test]
fn silent_no_ops_now_warn() {
    let r = Registry::embedded();
    let channel = ExpandContext {
        source: Some("channel"),
        ..Default::default()
    };
    let e = expand(
        &r,
        &ToolsOverride::from_json_str(r#"["shell","grep"]"#).unwrap(),
        channel,
    )
    .unwrap();
    assert_eq!(codes(e.warnings()), [WarningCode::DeniedBySource]);
    assert!(e.warnings()[0].message.contains("\"shell\""));
    let e = expand(
        &r,
        &ToolsOverride::from_json_str(r#"{"toolset":""}"#).unwrap(),
        Default::default(),
    )
    .unwrap();
    assert_eq!(codes(e.warnings()), [WarningCode::EmptyToolset]);
    let e = expand(
        &r,
        &ToolsOverride::from_json_str(r#"{"disabled":["nosuch*"]}"#).unwrap(),
        Default::default(),
    )
    .unwrap();
    assert_eq!(codes(e.warnings()), [WarningCode::UnknownTool]);
    assert!(e.warnings()[0].message.contains("\"nosuch*\""));
}

#[test]
fn errors_escape_control_characters_and_cut_long_names() {
    let hostile = format!("a\u{1b}[2J\u{202e}{}", "x".repeat(10_000));
    let e = Registry::from_value(&json!([{"name": hostile, "parameters": {"type": "object"}}]))
        .unwrap_err();
    let text = e.to_string();
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{202e}'),
        "{text:?}"
    );
    assert!(text.len() < 300, "{} bytes", text.len());
    assert!(
        text.contains("\\u{001b}") && text.contains("bytes)"),
        "{text}"
    );
}

#[test]
fn a_byte_order_mark_is_read_as_whitespace() {
    assert_eq!(
        ToolsOverride::from_json_str("\u{feff}null").unwrap(),
        ToolsOverride::Follow
    );
    assert!(Registry::from_json_str(&format!("\u{feff}{}", json!([tool("a")]))).is_ok());
}

/// Hostile text in every input that reaches a message: each error's text (and path) shows it
/// escaped, as `errors_escape_control_characters_and_cut_long_names` requires of tool names.
#[test]
fn every_error_shows_hostile_text_escaped() {
    use tool_intent::provider::ToolChanges;
    use tool_intent::search::RankerKind;
    use tool_intent::{CounterKind, DeferralMode, Provider, SessionRunConfig};
    const HOSTILE: &str = "x\u{1b}[2J\u{202e}\u{7}\u{2028}\u{61c}";
    let key = serde_json::to_string(HOSTILE).unwrap();
    let tool_with =
        |extra: &str| format!(r#"[{{"name":"a","parameters":{{"type":"object"}}{extra}}}]"#);
    let errors: Vec<(&str, tool_intent::Error)> = vec![
        ("provider", Provider::parse(HOSTILE).unwrap_err()),
        ("mode", DeferralMode::parse(HOSTILE).unwrap_err()),
        ("tool_changes", ToolChanges::parse(HOSTILE).unwrap_err()),
        ("ranker", RankerKind::parse(HOSTILE).unwrap_err()),
        ("counter", CounterKind::parse(HOSTILE).unwrap_err()),
        (
            "a tool's key twice",
            Registry::from_json_str(&tool_with(&format!(",{key}:1,{key}:2"))).unwrap_err(),
        ),
        (
            "a document's key twice",
            Registry::from_json_str(&format!(r#"{{"tools":[],{key}:1,{key}:2}}"#)).unwrap_err(),
        ),
        (
            "a schema's type",
            Registry::from_json_str(&format!(
                r#"[{{"name":"a","parameters":{{"type":{key}}}}}]"#
            ))
            .unwrap_err(),
        ),
        (
            "an override's value",
            ToolsOverride::from_json_str(&format!(r#"{{"enabled":{key}}}"#)).unwrap_err(),
        ),
        (
            "a turn state's value",
            TurnState::from_json_str(&format!(r#"{{"turn":{key}}}"#)).unwrap_err(),
        ),
        (
            "a run config's value",
            SessionRunConfig::from_json_str(&format!(r#"{{"tools_enabled":{key}}}"#)).unwrap_err(),
        ),
    ];
    let registry = Registry::from_json_str(&format!(
        r#"{{"tools":{},"toolsets":{{{key}:["a"]}},"sources":{{{key}:{{"default":{{"toolset":"nosuch"}}}}}}}}"#,
        tool_with("")
    ))
    .unwrap();
    let errors = errors
        .into_iter()
        .chain([("a source's name", registry.source("nosuch").unwrap_err())]);
    let warned = |o: &str, source: Option<&str>| {
        let request = TurnRequest {
            tools_override: ToolsOverride::from_json_str(o).unwrap(),
            source: source.map(String::from),
            ..Default::default()
        };
        let plan = registry.turn(&request).unwrap().plan().unwrap();
        let w = plan.warnings.first().expect("a warning").clone();
        format!("{} {}", w.message, w.origin)
    };
    let shown = [
        ("a preset's name", warned(r#"{"toolset":"nosuch"}"#, None)),
        ("an intent's key", warned(&format!("{{{key}:1}}"), None)),
        ("a source's name", warned("null", Some(HOSTILE))),
    ];
    let raw: Vec<String> = errors
        .map(|(input, e)| (input, format!("{e} {}", e.path().unwrap_or(""))))
        .chain(shown)
        .filter(|(_, shown)| {
            shown
                .chars()
                .any(|c| c.is_control() || matches!(c, '\u{61c}' | '\u{2028}'..='\u{202e}'))
        })
        .map(|(input, shown)| format!("{input}: {shown:?}"))
        .collect();
    assert!(raw.is_empty(), "shown raw:\n{}", raw.join("\n"));
}

/// However large the input, a message stays a line a person can read: a long key's path and
/// name are cut, a long list of known names gives five and a count.
#[test]
fn messages_stay_short_whatever_the_input_size() {
    let long_key = "k".repeat(100_000);
    let twice = format!(
        r#"[{{"name":"a","parameters":{{"type":"object"}},"{long_key}":1,"{long_key}":2}}]"#
    );
    let e = Registry::from_json_str(&twice).unwrap_err();
    assert_eq!(
        e.path().map(str::len),
        Some(100_005),
        "the path itself is whole"
    );
    let names: Vec<String> = (0..5000).map(|i| format!("name{i:05}")).collect();
    let many = |key: &str, value: Value| {
        let members: serde_json::Map<String, Value> =
            names.iter().map(|n| (n.clone(), value.clone())).collect();
        let mut document = json!({"tools": [tool("a")]});
        document[key] = Value::Object(members);
        Registry::from_value(&document).unwrap()
    };
    let sources = many("sources", json!({}));
    let unknown_source = sources.source("nosuch").unwrap_err();
    let presets = many("toolsets", json!(["a"]));
    let request = TurnRequest {
        tools_override: ToolsOverride::from_json_str(r#"{"toolset":"nosuch"}"#).unwrap(),
        ..Default::default()
    };
    let plan = presets.turn(&request).unwrap().plan().unwrap();
    for shown in [
        e.to_string(),
        unknown_source.to_string(),
        plan.warnings[0].message.clone(),
    ] {
        assert!(shown.len() < 600, "{} bytes: {shown}", shown.len());
    }
    assert!(unknown_source.to_string().ends_with("and 4995 more)"));
}
