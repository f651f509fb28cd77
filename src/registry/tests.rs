use super::*;
use serde_json::{json, Value};

fn tool(name: &str) -> Value {
    json!({"name": name, "description": "d", "parameters": {"type": "object"}})
}

#[test]
fn embedded_registry_loads_and_round_trips() {
    let r = Registry::from_json_str(EMBEDDED_REGISTRY_JSON).unwrap();
    assert!(r.index_of("read_file").is_some());
    assert!(r.index_of(TOOL_SEARCH).is_some());
    let again = Registry::from_value(&r.to_value()).unwrap();
    assert_eq!(again.to_value(), r.to_value());
    assert_eq!(again.tools(), r.tools());
}

#[test]
fn bare_array_and_mcp_result_load() {
    let arr = json!([{"name": "a-b", "inputSchema": {"type": "object"}, "title": "A", "outputSchema": {}}]);
    let r = Registry::from_value(&arr).unwrap();
    assert_eq!(r.tools()[0].name, "a-b");
    assert_eq!(r.tools()[0].title.as_deref(), Some("A"));
    assert!(r.tools()[0].extra.contains_key("outputSchema"));
    let res = json!({"tools": arr, "nextCursor": null});
    assert_eq!(Registry::from_value(&res).unwrap().len(), 2);
}

#[test]
fn schemas_are_parsed_on_first_use_and_equal_to_the_input() {
    let text = r#"[{"name": "t", "parameters": {"type": "object", "properties": {"b": {"x": 1.50}, "a": {}}}}]"#;
    let r = Registry::from_json_str(text).unwrap();
    assert_eq!(
        r.tools()[0].parameters(),
        &json!({"type": "object", "properties": {"b": {"x": 1.5}, "a": {}}})
    );
}

#[test]
fn rejects_duplicates_and_unsafe_names_with_path() {
    let e = Registry::from_value(&json!([tool("a"), tool("b"), tool("a")])).unwrap_err();
    assert_eq!(e.path(), Some("$[2].name"));
    assert_eq!(e.code(), "invalid_registry");
    let e = Registry::from_value(&json!({"tools": [tool("x"), tool("X")]})).unwrap_err();
    assert_eq!(e.path(), Some("$.tools[1].name"));
    let e = Registry::from_value(&json!({"tools": [tool("has space")]})).unwrap_err();
    assert!(e.to_string().contains("provider-safe"), "{e}");
    let long = "a".repeat(65);
    assert!(Registry::from_value(&json!([tool(&long)])).is_err());
    let e = Registry::from_value(&json!([tool("Tool_Search")])).unwrap_err();
    assert_eq!(e.path(), Some("$[0].name"));
}

#[test]
fn duplicate_keys_in_a_tool_or_the_document_are_errors() {
    let e = Registry::from_json_str(r#"[{"name":"a","name":"b","parameters":{}}]"#).unwrap_err();
    assert_eq!(e.path(), Some("$[0].name"));
    let e = Registry::from_json_str(r#"{"tools":[],"tools":[]}"#).unwrap_err();
    assert_eq!(e.path(), Some("$.tools"));
}

#[test]
fn rejects_non_object_parameters() {
    let e = Registry::from_value(&json!([{"name": "a", "parameters": [1]}])).unwrap_err();
    assert_eq!(e.path(), Some("$[0].parameters"));
    let e = Registry::from_value(&json!([{"name": "a", "inputSchema": "x"}])).unwrap_err();
    assert_eq!(e.path(), Some("$[0].inputSchema"));
}

#[test]
fn references_must_be_known_or_globs() {
    let e = Registry::from_value(&json!({"tools": [tool("a")], "toolsets": {"r": ["a", "nope"]}}))
        .unwrap_err();
    assert_eq!(e.path(), Some("$.toolsets.r[1]"));
    let ok = Registry::from_value(&json!({"tools": [tool("a")], "default_tools": ["a*"]}));
    assert!(ok.is_ok());
    let e =
        Registry::from_value(&json!({"tools": [tool("a")], "sources": {"s": {"deny": ["zz"]}}}))
            .unwrap_err();
    assert_eq!(e.path(), Some("$.sources.s.deny[0]"));
    let e = Registry::from_value(&json!({"tools": [tool("a")], "defaults": []})).unwrap_err();
    assert_eq!(e.path(), Some("$.defaults"));
}

#[test]
fn mcp_servers_are_namespaced_and_available() {
    let doc = json!({
        "tools": [tool("read_file")],
        "toolsets": {"full": ["read_file"]},
        "mcp_servers": [{"name": "github", "tools": [tool("create_issue")]}]
    });
    let r = Registry::from_value(&doc).unwrap();
    let i = r.index_of("mcp__github__create_issue").unwrap();
    assert!(r.available_set().contains(i));
    let merged = r
        .merge_mcp_server("time", &json!({"tools": [tool("now")]}))
        .unwrap();
    assert!(merged.index_of("mcp__time__now").is_some());
    assert!(merged.index_of("mcp__github__create_issue").is_some());
    assert!(merged
        .available_set()
        .contains(merged.index_of("mcp__time__now").unwrap()));
    let e =
        Registry::from_value(&json!({"mcp_servers": [{"name": "a__b", "tools": []}]})).unwrap_err();
    assert_eq!(e.path(), Some("$.mcp_servers[0].name"));
    // One unusable tool of a server is left out with a warning naming it; the rest loads.
    let m = r
        .merge_mcp_server("t", &json!([{"name": "x", "parameters": 1}, tool("y")]))
        .unwrap();
    assert!(m.index_of("mcp__t__y").is_some() && m.index_of("mcp__t__x").is_none());
    let w = &m.warnings()[0];
    assert_eq!(w.code, crate::WarningCode::QuarantinedTool);
    assert!(
        w.message.contains("\"x\"") && w.message.contains("$[0].parameters"),
        "{}",
        w.message
    );
    // Our own format stays strict.
    let e = Registry::from_value(&json!([{"name": "x", "parameters": 1}])).unwrap_err();
    assert_eq!(e.path(), Some("$[0].parameters"));
    let e = r
        .merge_mcp_server("github", &json!([tool("again")]))
        .unwrap_err();
    assert_eq!(e.input(), Some("server"));
}

#[test]
fn merging_equals_loading_the_merged_document() {
    let base = Registry::embedded();
    let server = json!({"tools": [tool("now"), tool("zone")]});
    let merged = base.merge_mcp_server("time", &server).unwrap();
    let mut doc = base.to_value();
    doc["mcp_servers"] = json!([{"name": "time", "tools": server["tools"]}]);
    let loaded = Registry::from_value(&doc).unwrap();
    assert_eq!(merged.to_value(), loaded.to_value());
    assert_eq!(merged.tools(), loaded.tools());
}

#[test]
fn limits_are_enforced() {
    let mut deep = json!({"type": "object"});
    for _ in 0..40 {
        deep = json!({"type": "object", "properties": {"x": deep}});
    }
    let e = Registry::from_value(&json!([{"name": "a", "parameters": deep}])).unwrap_err();
    assert_eq!(e.code(), "limit_exceeded");
    let many: Vec<Value> = (0..10_001).map(|i| tool(&format!("t{i}"))).collect();
    let e = Registry::from_value(&Value::Array(many)).unwrap_err();
    assert_eq!(e.code(), "limit_exceeded");
}

#[test]
fn toolset_masks_follow_registry_order() {
    let r = Registry::from_value(
        &json!({"tools": [tool("b"), tool("a"), tool("c")], "default_tools": ["c", "b"]}),
    )
    .unwrap();
    let names: Vec<&str> = r.default_set().iter().map(|i| r.name(i)).collect();
    assert_eq!(names, ["b", "c"]);
}

#[test]
fn values_the_first_pass_accepts_but_cannot_be_read_are_refused_at_load() {
    let cases = [
        (
            r#"[{"name":"a","parameters":{"x":"\ud800"}}]"#,
            "$[0].parameters",
        ),
        (
            r#"[{"name":"a","parameters":{"maximum":1e999}}]"#,
            "$[0].parameters",
        ),
        (
            r#"[{"name":"a","description":"\udc00","parameters":{}}]"#,
            "$[0].description",
        ),
        (
            r#"[{"name":"a","parameters":{},"_meta":{"k":"\ud800"}}]"#,
            "$[0]._meta",
        ),
    ];
    for (text, path) in cases {
        let e = Registry::from_json_str(text).unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            ("invalid_value", Some(path)),
            "{text}: {e}"
        );
    }
    // Escapes that are fine still load, and parse on first use.
    let r = Registry::from_json_str(
        r#"[{"name":"a","parameters":{"d":"\u00e9\ud83d\ude80","m":1e3}}]"#,
    )
    .unwrap();
    assert_eq!(r.tools()[0].parameters()["d"], "é🚀");
}
