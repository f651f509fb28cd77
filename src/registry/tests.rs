//! Unit tests of the registry: loading, merging servers, writing back, versions.

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
fn one_page_of_a_paginated_tools_list_is_refused() {
    // Set alone, a page would withdraw the other pages' tools from every session.
    let page =
        json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}], "nextCursor": "2"});
    let r = Registry::embedded();
    let e = r.set_mcp_server("s", &page.to_string()).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        ("invalid_value", Some("$.nextCursor"))
    );
    assert!(
        e.to_string().contains("pass every page's tools together"),
        "{e}"
    );
    // The last page (no cursor, or null) is a whole list.
    let last =
        json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}], "nextCursor": null});
    assert!(r.set_mcp_server("s", &last.to_string()).is_ok());
    // A registry document is its author's, read once: a page given as one is read as it is.
    assert_eq!(Registry::from_value(&page).unwrap().len(), 2);
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
fn a_key_given_twice_in_a_schema_is_read_as_providers_read_it_whatever_else_the_schema_holds() {
    // Once a schema with a `\u` escape or an exponent (parsed in full at load) was refused for
    // a key given twice, and the same schema without one was kept. Now both load, and reading
    // them keeps the last value, as `JSON.parse` does.
    for (schema, q) in [
        (
            r#"{"type":"object","properties":{"q":{"type":"string"},"q":{"type":"number"}}}"#,
            json!({"type": "number"}),
        ),
        (
            r#"{"type":"object","properties":{"q":{"type":"string"},"q":{"type":"number","maximum":1e3}}}"#,
            json!({"type": "number", "maximum": 1000.0}),
        ),
        (
            r#"{"type":"object","properties":{"q":{"type":"string"},"q":{"description":"\u00e9"}}}"#,
            json!({"description": "é"}),
        ),
    ] {
        let text = format!(r#"[{{"name":"t","parameters":{schema}}}]"#);
        let r = Registry::from_json_str(&text).unwrap_or_else(|e| panic!("{schema}: {e}"));
        assert_eq!(r.tools()[0].parameters()["properties"]["q"], q, "{schema}");
        // Written back (and sent) as read: the key once.
        let again = Registry::from_json_str(&r.to_json()).unwrap();
        assert_eq!(again.tools()[0].parameters(), r.tools()[0].parameters());
        assert_eq!(r.to_json().matches("\"q\":").count(), 1, "{schema}");
    }
    let tools = r#"{"tools":[{"name":"twice","inputSchema":{"type":"object","required":[],"required":["a"],"x":1e1}}]}"#;
    let change = Registry::embedded().set_mcp_server("s", tools).unwrap();
    let i = change.registry.index_of("mcp__s__twice").unwrap();
    assert_eq!(
        change.registry.tools()[i].parameters()["required"],
        json!(["a"])
    );
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
        .set_mcp_server("time", &json!({"tools": [tool("now")]}).to_string())
        .unwrap()
        .registry;
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
        .set_mcp_server(
            "t",
            &json!([{"name": "x", "parameters": 1}, tool("y")]).to_string(),
        )
        .unwrap()
        .registry;
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
    let e = r.set_mcp_server("a__b", "[]").unwrap_err();
    assert_eq!(e.input(), Some("server"));
    let e = r.set_mcp_server("a_", "[]").unwrap_err();
    assert_eq!(e.input(), Some("server"));
}

fn names_of(r: &Registry, server: &str) -> Vec<String> {
    let prefix = format!("mcp__{server}__");
    r.tools()
        .iter()
        .filter(|t| t.name.starts_with(&prefix))
        .map(|t| t.name.clone())
        .collect()
}

#[test]
fn setting_a_server_again_replaces_its_tools_in_place_with_a_diff() {
    let base = Registry::embedded();
    let two = base
        .set_mcp_servers(&[
            ("a", &json!([tool("x"), tool("y")]).to_string()),
            ("b", &json!([tool("z")]).to_string()),
        ])
        .unwrap();
    assert_eq!(two.diff.added, ["mcp__a__x", "mcp__a__y", "mcp__b__z"]);
    let r = two.registry;
    let b_at = r.index_of("mcp__b__z").unwrap();
    let mut changed_y = tool("y");
    changed_y["description"] = json!("another");
    let change = r
        .set_mcp_server("a", &json!([changed_y, tool("w")]).to_string())
        .unwrap();
    assert_eq!(change.diff.added, ["mcp__a__w"]);
    assert_eq!(change.diff.removed, ["mcp__a__x"]);
    assert_eq!(change.diff.changed, ["mcp__a__y"]);
    let after = &change.registry;
    // Server a's block stays before b's, so b's tools keep their places.
    assert_eq!(names_of(after, "a"), ["mcp__a__y", "mcp__a__w"]);
    assert_eq!(after.index_of("mcp__b__z"), Some(b_at));
    // The same list again changes nothing.
    let same = after
        .set_mcp_server("a", &json!([changed_y_again(), tool("w")]).to_string())
        .unwrap();
    assert!(same.diff.is_empty(), "{:?}", same.diff);
    assert_eq!(same.registry.fingerprint(), after.fingerprint());
    // Removing a server takes its tools, its glob and its warnings away.
    let removed = after.remove_mcp_server("a").unwrap();
    assert_eq!(removed.diff.removed, ["mcp__a__y", "mcp__a__w"]);
    assert!(names_of(&removed.registry, "a").is_empty());
    assert!(!removed.registry.to_json().contains("mcp__a__*"));
    let e = removed.registry.remove_mcp_server("a").unwrap_err();
    assert_eq!(e.input(), Some("server"));
    // Removing it brings the registry back to what it was before the server came.
    let only_b = base
        .set_mcp_server("b", &json!([tool("z")]).to_string())
        .unwrap()
        .registry;
    assert_eq!(removed.registry.fingerprint(), only_b.fingerprint());
}

fn changed_y_again() -> Value {
    let mut y = tool("y");
    y["description"] = json!("another");
    y
}

#[test]
fn a_replaced_server_drops_its_old_warnings() {
    let r = Registry::embedded()
        .set_mcp_server(
            "t",
            &json!([{"name": "x", "parameters": 1}, tool("y")]).to_string(),
        )
        .unwrap()
        .registry;
    assert_eq!(r.warnings().len(), 1);
    let fixed = r
        .set_mcp_server("t", &json!([tool("x"), tool("y")]).to_string())
        .unwrap();
    assert!(
        fixed.registry.warnings().is_empty(),
        "{:?}",
        fixed.registry.warnings()
    );
    assert_eq!(fixed.diff.added, ["mcp__t__x"]);
}

#[test]
fn bulk_setting_equals_setting_one_by_one() {
    let base = Registry::embedded();
    let lists: Vec<(String, String)> = (0..5)
        .map(|k| (format!("s{k}"), json!([tool("a"), tool("b.c")]).to_string()))
        .collect();
    let pairs: Vec<(&str, &str)> = lists
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let bulk = base.set_mcp_servers(&pairs).unwrap().registry;
    let mut one = base.clone();
    for (n, t) in &pairs {
        one = one.set_mcp_server(n, t).unwrap().registry;
    }
    assert_eq!(bulk.to_value(), one.to_value());
    assert_eq!(bulk.fingerprint(), one.fingerprint());
    let e = base
        .set_mcp_servers(&[("ok", "[]"), ("bad", r#"[{"name": 1}]"#), ("Ok", "[]")])
        .unwrap_err();
    assert_eq!(e.input(), Some("server"), "{e}");
    let e = base
        .set_mcp_servers(&[("ok", "[]"), ("bad", "[1,")])
        .unwrap_err();
    assert_eq!(e.code(), "invalid_json");
}

#[test]
fn operator_names_of_tools_a_server_dropped_are_warnings() {
    let doc = json!({
        "tools": [tool("read")],
        "toolsets": {"full": ["read", "mcp__gh__*"], "triage": ["mcp__gh__issue"]},
        "mcp_servers": [{"name": "gh", "tools": [tool("issue")]}]
    });
    let r = Registry::from_value(&doc).unwrap();
    assert!(r.warnings().is_empty());
    let gone = r.set_mcp_server("gh", "[]").unwrap().registry;
    let w = &gone.warnings()[0];
    assert_eq!(w.code, crate::WarningCode::UnknownTool);
    assert!(w.message.contains("mcp__gh__issue"), "{}", w.message);
    // The document it writes loads again, and the name matches the tool when it returns.
    let again = Registry::from_json_str(&gone.to_json()).unwrap();
    let back = again
        .set_mcp_server("gh", &json!([tool("issue")]).to_string())
        .unwrap()
        .registry;
    assert!(back.warnings().is_empty(), "{:?}", back.warnings());
    let i = back.index_of("mcp__gh__issue").unwrap();
    assert!(back.toolset_set("triage").unwrap().contains(i));
    // A name that is not an MCP tool's stays an error.
    let e =
        Registry::from_value(&json!({"tools": [tool("a")], "toolsets": {"t": ["b"]}})).unwrap_err();
    assert_eq!(e.path(), Some("$.toolsets.t[0]"));
}

#[test]
fn a_wire_name_never_moves_to_another_tool() {
    // The issue's sequence: get.item first, then the server adds get_item.
    let r = Registry::embedded()
        .set_mcp_server("s", &json!([tool("get.item")]).to_string())
        .unwrap()
        .registry;
    let dotted = names_of(&r, "s");
    let both = r
        .set_mcp_server(
            "s",
            &json!([tool("get.item"), tool("get_item")]).to_string(),
        )
        .unwrap();
    assert_eq!(both.diff.added, ["mcp__s__get_item"]);
    assert!(both.diff.removed.is_empty() && both.diff.changed.is_empty());
    let i = both.registry.index_of(&dotted[0]).unwrap();
    assert_eq!(both.registry.tools()[i].source_name(), "get.item");
    let j = both.registry.index_of("mcp__s__get_item").unwrap();
    assert_eq!(both.registry.tools()[j].source_name(), "get_item");
}

#[test]
fn a_server_listing_a_name_twice_keeps_the_first() {
    let mut second = tool("x");
    second["description"] = json!("second");
    let r = Registry::embedded()
        .set_mcp_server("s", &json!([tool("x"), second]).to_string())
        .unwrap()
        .registry;
    assert_eq!(names_of(&r, "s"), ["mcp__s__x"]);
    assert_eq!(r.tool_named("mcp__s__x").unwrap().description, "d");
    assert_eq!(r.warnings()[0].code, crate::WarningCode::DuplicateToolName);
    assert!(
        r.warnings()[0].message.contains("twice"),
        "{}",
        r.warnings()[0].message
    );
}

#[test]
fn a_registry_keeps_its_recent_versions() {
    let mut r = Registry::embedded();
    let first = r.fingerprint().to_string();
    for k in 0..KEPT_VERSIONS + 2 {
        r = r
            .set_mcp_server("s", &json!([tool(&format!("t{k}"))]).to_string())
            .unwrap()
            .registry;
    }
    let held: Vec<&Registry> = r.earlier_versions().collect();
    assert_eq!(held.len(), KEPT_VERSIONS);
    assert!(held.iter().all(|v| v.earlier_versions().next().is_none()));
    assert!(!held.iter().any(|v| v.fingerprint() == first));
    assert!(held.iter().all(|v| v.fingerprint() != r.fingerprint()));
}

#[test]
fn merging_equals_loading_the_merged_document() {
    let base = Registry::embedded();
    let server = json!({"tools": [tool("now"), tool("zone")]});
    let merged = base
        .set_mcp_server("time", &server.to_string())
        .unwrap()
        .registry;
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

#[test]
fn a_null_or_missing_server_list_is_an_error_naming_the_server() {
    let base = Registry::embedded()
        .set_mcp_server("s", &json!([tool("x")]).to_string())
        .unwrap()
        .registry;
    // A flaky connection handing over `null` must not withdraw the server's tools.
    for text in ["null", " null "] {
        let e = base.set_mcp_server("s", text).unwrap_err();
        assert_eq!((e.code(), e.path()), ("invalid_value", Some("$")), "{e}");
        assert!(e.to_string().contains("\"s\""), "{e}");
    }
    let e = base
        .set_mcp_servers(&[("t", "[]"), ("s", "null")])
        .unwrap_err();
    assert_eq!(e.path(), Some("$[1].tools"), "{e}");
    let e =
        Registry::from_value(&json!({"mcp_servers": [{"name": "s", "tools": null}]})).unwrap_err();
    assert_eq!(e.path(), Some("$.mcp_servers[0].tools"), "{e}");
    let e = Registry::from_value(&json!({"mcp_servers": [{"name": "s"}]})).unwrap_err();
    assert_eq!(e.path(), Some("$.mcp_servers[0]"), "{e}");
    assert!(e.to_string().contains("\"s\""), "{e}");
    // An empty list is still an empty server, and a registry's own `"tools": null` no tools.
    let empty = base.set_mcp_server("s", "[]").unwrap();
    assert_eq!(empty.diff.removed, ["mcp__s__x"]);
    assert!(Registry::from_value(&json!({"tools": null})).is_ok());
    // Removing stays an explicit call.
    assert!(base.remove_mcp_server("s").is_ok());
}

#[test]
fn a_wire_name_taken_by_a_registry_tool_says_so() {
    let doc = json!({
        "tools": [tool("mcp__s__x")],
        "mcp_servers": [{"name": "s", "tools": [tool("x")]}]
    });
    let r = Registry::from_value(&doc).unwrap();
    let w = &r.warnings()[0];
    assert_eq!(w.code, crate::WarningCode::DuplicateToolName);
    assert!(
        w.message.contains("is the name of a registry tool"),
        "{}",
        w.message
    );
    assert!(!w.message.contains("is already"), "{}", w.message);
}

#[test]
fn a_preset_no_intent_can_name_is_refused() {
    let long = "p".repeat(crate::limits::LIMITS.max_toolset_name_bytes + 1);
    for name in ["", long.as_str()] {
        let mut toolsets = serde_json::Map::new();
        toolsets.insert(name.to_string(), json!(["a"]));
        let e =
            Registry::from_value(&json!({"tools": [tool("a")], "toolsets": toolsets})).unwrap_err();
        assert_eq!(e.code(), "invalid_registry", "{e}");
        assert!(e.path().unwrap().starts_with("$.toolsets"), "{e}");
    }
    let fits = "p".repeat(crate::limits::LIMITS.max_toolset_name_bytes);
    let mut toolsets = serde_json::Map::new();
    toolsets.insert(fits, json!(["a"]));
    assert!(Registry::from_value(&json!({"tools": [tool("a")], "toolsets": toolsets})).is_ok());
}

#[test]
fn a_source_name_is_one_to_256_bytes() {
    let long = "s".repeat(crate::limits::LIMITS.max_toolset_name_bytes + 1);
    for name in ["", long.as_str()] {
        let mut sources = serde_json::Map::new();
        sources.insert(name.to_string(), json!({"deny": ["a"]}));
        let e =
            Registry::from_value(&json!({"tools": [tool("a")], "sources": sources})).unwrap_err();
        assert_eq!(e.code(), "invalid_registry", "{e}");
        assert!(e.path().unwrap().starts_with("$.sources"), "{e}");
        assert!(
            e.to_string().contains("a source name is 1 to 256 bytes"),
            "{e}"
        );
    }
    let fits = "s".repeat(crate::limits::LIMITS.max_toolset_name_bytes);
    let mut sources = serde_json::Map::new();
    sources.insert(fits, json!({"deny": ["a"]}));
    assert!(Registry::from_value(&json!({"tools": [tool("a")], "sources": sources})).is_ok());
}

#[test]
fn a_server_list_as_json_is_read_once_for_every_binding() {
    let base = Registry::embedded();
    let value = json!([
        {"name": "a", "tools": [tool("x")]},
        {"name": "b", "tools": json!([tool("y")]).to_string()}
    ]);
    let both = base.set_mcp_servers_value(&value).unwrap();
    assert_eq!(both.diff.added, ["mcp__a__x", "mcp__b__y"]);
    for (bad, path) in [
        (json!({"name": "a"}), "$"),
        (json!([{"tools": []}]), "$[0].name"),
        (json!([{"name": "a"}]), "$[0].tools"),
        (
            json!([{"name": "a", "tools": []}, {"name": "b", "tools": 5}]),
            "$[1].tools",
        ),
    ] {
        let e = base.set_mcp_servers_value(&bad).unwrap_err();
        assert!(e.path().unwrap().starts_with(path), "{bad}: {e}");
    }
}

#[test]
fn every_tool_has_its_believed_annotations_however_the_registry_was_built() {
    let list = |n: usize| {
        let tools: Vec<Value> = (0..n)
            .map(|i| json!({"name": format!("t{i}"), "inputSchema": {"type": "object"}}))
            .collect();
        Value::Array(tools).to_string()
    };
    let embedded = Registry::embedded();
    let mut built = vec![embedded.clone()];
    // A bulk merge (full build), a one-server change (spliced), a replacement, a removal.
    let many = embedded
        .set_mcp_servers(&[("a", &list(40)), ("b", &list(3))])
        .unwrap()
        .registry;
    built.push(many.clone());
    built.push(many.set_mcp_server("c", &list(1)).unwrap().registry);
    built.push(many.set_mcp_server("b", &list(5)).unwrap().registry);
    built.push(many.remove_mcp_server("a").unwrap().registry);
    for r in built {
        assert_eq!(r.effective_annotations().len(), r.len());
        assert_eq!(r.tool_infos().len(), r.len());
    }
}
