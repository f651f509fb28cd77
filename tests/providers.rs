//! What each provider is sent: the two providers beyond Anthropic and OpenAI, OpenAI's explicit
//! `strict`, and one named test per provider rule (`src/provider/rules.rs`).

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use serde_json::{json, Value};
use tool_intent::{DeferralMode, Provider, Registry, TurnRequest, WarningCode};

fn plan(r: &Registry, o: &str, provider: Provider) -> (Value, Vec<tool_intent::Warning>) {
    let p = r
        .plan_turn(&TurnRequest {
            tools_override: intent(o),
            provider,
            ..Default::default()
        })
        .unwrap();
    (serde_json::from_str(&p.payload).unwrap(), p.warnings)
}

fn codes(w: &[tool_intent::Warning], code: WarningCode) -> Vec<&str> {
    w.iter()
        .filter(|w| w.code == code)
        .map(|w| w.message.as_str())
        .collect()
}

#[test]
fn every_openai_function_says_strict() {
    let r = all_merged();
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        let (payload, _) = plan(&r, r#"{"toolset":"full"}"#, provider);
        for entry in payload.as_array().unwrap() {
            // OpenAI Responses' own web search (the embedded registry's built-in) is no
            // function and has no `strict`.
            if entry["type"] == json!("web_search") {
                continue;
            }
            let function = entry.get("function").unwrap_or(entry);
            assert_eq!(function["strict"], json!(false), "{provider:?} {entry}");
        }
    }
    // And the functions inside a native-client tool_search_output.
    let outcome = Registry::embedded()
        .turn(&TurnRequest {
            provider: Provider::OpenAiResponses,
            mode: DeferralMode::NativeClient,
            ..Default::default()
        })
        .and_then(|mut turn| turn.search(&tool_intent::SearchCall::new("select:enter_plan_mode")))
        .unwrap();
    let output: Value = serde_json::from_str(outcome.provider_output.as_deref().unwrap()).unwrap();
    assert_eq!(output["tools"][0]["strict"], json!(false));
}

#[test]
fn a_strict_tool_must_meet_openais_rules_and_then_goes_out_strict() {
    let good = json!({"type": "object", "additionalProperties": false, "required": ["q"],
        "properties": {"q": {"type": "string"}}});
    let r = Registry::from_value(&json!([
        {"name": "lookup", "description": "d", "parameters": good, "strict": true},
        {"name": "loose", "description": "d", "parameters": {"type": "object"}}
    ]))
    .unwrap();
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        let (payload, _) = plan(&r, "null", provider);
        let strict: Vec<(String, Value)> = payload
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.get("function").unwrap_or(e))
            .map(|f| (f["name"].as_str().unwrap().to_string(), f["strict"].clone()))
            .collect();
        assert!(
            strict.contains(&("lookup".into(), json!(true))),
            "{strict:?}"
        );
        assert!(
            strict.contains(&("loose".into(), json!(false))),
            "{strict:?}"
        );
    }
    // It round-trips through our format.
    let again = Registry::from_value(&r.to_value()).unwrap();
    assert!(again.tool_named("lookup").unwrap().strict);
    let optional = json!([{"name": "bad", "strict": true, "parameters": {"type": "object",
        "additionalProperties": false, "properties": {"q": {"type": "string"}}}}]);
    let e = Registry::from_value(&optional).unwrap_err();
    assert_eq!(e.path(), Some("$[0].parameters.properties.q"));
    assert!(e.to_string().contains("required"), "{e}");
    let open = json!([{"name": "bad", "strict": true, "parameters": {"type": "object"}}]);
    let e = Registry::from_value(&open).unwrap_err();
    assert_eq!(e.path(), Some("$[0].parameters.additionalProperties"));
}

#[test]
fn a_shortened_description_is_measured_in_the_units_the_limit_counts() {
    // 600 rockets: 600 code points, 1,200 UTF-16 units. The limit counts units, so the
    // warning must say 1,200, not a number under the limit it names.
    let doc = serde_json::json!({
        "tools": [{"name": "rockets", "description": "\u{1F680}".repeat(600),
                   "parameters": {"type": "object"}}],
        "default_tools": ["rockets"]
    });
    let r = Registry::from_json_str(&doc.to_string()).unwrap();
    let (payload, warnings) = plan(&r, "null", Provider::OpenAiChat);
    let shortened = codes(&warnings, WarningCode::DescriptionShortened);
    assert_eq!(shortened.len(), 1, "{warnings:?}");
    assert!(
        shortened[0].contains("description of 1200 characters is shortened to 1024"),
        "{}",
        shortened[0]
    );
    let sent = payload[0]["function"]["description"].as_str().unwrap();
    assert_eq!(sent.encode_utf16().count(), 1023);
}

#[test]
fn openai_descriptions_are_shortened_to_1024_characters_with_a_warning_each() {
    let r = Registry::embedded();
    let (payload, warnings) = plan(&r, "null", Provider::OpenAiChat);
    let entries = payload.as_array().unwrap();
    let mut long = 0;
    for e in entries {
        let d = e["function"]["description"].as_str().unwrap_or("");
        assert!(
            d.encode_utf16().count() <= 1024,
            "{}",
            e["function"]["name"]
        );
        let full = &r
            .tool_named(e["function"]["name"].as_str().unwrap())
            .unwrap()
            .description;
        if full.chars().count() > 1024 {
            long += 1;
            assert!(d.ends_with('…') && full.starts_with(d.trim_end_matches('…')));
        }
    }
    let shortened = codes(&warnings, WarningCode::DescriptionShortened);
    assert_eq!(shortened.len(), long, "{shortened:?}");
    assert_eq!(
        long, 6,
        "the embedded registry has six long resident descriptions"
    );
    // Other providers get the full text; tool_search still returns it for OpenAI.
    let (anthropic, _) = plan(&r, "null", Provider::Anthropic);
    assert!(anthropic
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["description"].as_str().unwrap().chars().count() > 1024));
    let found = r
        .turn(&TurnRequest {
            provider: Provider::OpenAiChat,
            ..Default::default()
        })
        .and_then(|mut turn| turn.search(&tool_intent::SearchCall::new("select:enter_plan_mode")))
        .unwrap();
    assert!(found.result.text.contains(
        &r.tool_named("enter_plan_mode")
            .unwrap()
            .description
            .replace('\n', "\\n")[..200]
    ));
}

#[test]
fn more_tools_than_openai_takes_is_an_error_naming_the_limit() {
    let tools: Vec<Value> = (0..200)
        .map(|i| json!({"name": format!("t{i}"), "parameters": {"type": "object"}}))
        .collect();
    let r = Registry::from_value(&Value::Array(tools)).unwrap();
    let o = r#"{"enabled":true,"disabled":["tool_search"]}"#;
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        let e = r
            .plan_turn(&TurnRequest {
                tools_override: intent(o),
                provider,
                ..Default::default()
            })
            .unwrap_err();
        assert_eq!(
            (e.code(), e.input()),
            ("invalid_argument", Some("provider"))
        );
        assert!(
            e.to_string().contains("at most 128") && e.to_string().contains("200"),
            "{e}"
        );
    }
    // Gemini takes 512, Anthropic and Bedrock state no limit.
    for provider in [
        Provider::Gemini,
        Provider::Anthropic,
        Provider::BedrockConverse,
    ] {
        let (payload, _) = plan(&r, o, provider);
        let n = match provider {
            Provider::Gemini => payload[0]["functionDeclarations"].as_array().unwrap().len(),
            _ => payload.as_array().unwrap().len(),
        };
        assert_eq!(n, 200, "{provider:?}");
    }
    assert!(!r.check(Provider::OpenAiChat).is_clean());
}

#[test]
fn a_top_level_any_of_is_left_out_of_the_anthropic_payload_only() {
    let server = json!({"tools": [
        {"name": "search", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
        {"name": "page", "inputSchema": {"type": "object", "anyOf": [{"required": ["id"]}, {"required": ["url"]}]}}
    ]});
    let r = Registry::embedded()
        .set_mcp_server("notion", &server.to_string())
        .unwrap()
        .registry;
    let o = r#"{"enabled":true,"allowed":["mcp__notion__*"]}"#;
    let names = |payload: &Value| -> Vec<String> {
        payload
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                e["name"]
                    .as_str()
                    .or(e["function"]["name"].as_str())
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    let req = |provider| TurnRequest {
        tools_override: intent(o),
        provider,
        state: r.begin_turn(
            &tool_intent::record_loaded(
                &Default::default(),
                &["mcp__notion__search", "mcp__notion__page"],
            )
            .unwrap(),
        ),
        ..Default::default()
    };
    let p = r.plan_turn(&req(Provider::Anthropic)).unwrap();
    let payload: Value = serde_json::from_str(&p.payload).unwrap();
    assert!(names(&payload).contains(&"mcp__notion__search".to_string()));
    assert!(!names(&payload).contains(&"mcp__notion__page".to_string()));
    let refused = codes(&p.warnings, WarningCode::ProviderRefusedTool);
    assert_eq!(refused.len(), 1);
    assert!(
        refused[0].contains("mcp__notion__page")
            && refused[0].contains("anthropic")
            && refused[0].contains("top_level_combinator")
    );
    // tool_search cannot load it for Anthropic either, but can for OpenAI.
    let find = |provider| {
        r.turn(&TurnRequest {
            tools_override: intent(o),
            provider,
            ..Default::default()
        })
        .and_then(|mut turn| turn.search(&tool_intent::SearchCall::new("select:mcp__notion__page")))
        .unwrap()
        .result
        .hits
    };
    assert!(find(Provider::Anthropic).is_empty());
    assert_eq!(find(Provider::OpenAiResponses), ["mcp__notion__page"]);
    let openai: Value = serde_json::from_str(
        &r.plan_turn(&req(Provider::OpenAiResponses))
            .unwrap()
            .payload,
    )
    .unwrap();
    assert!(names(&openai).contains(&"mcp__notion__page".to_string()));
    let check = r.check(Provider::Anthropic);
    assert_eq!(check.findings.len(), 1);
    assert_eq!(
        (check.findings[0].rule, check.findings[0].refused),
        ("top_level_combinator", true)
    );
}

/// The names of a payload's functions, whatever the provider's shape.
fn declared(payload: &Value) -> Vec<String> {
    let entries = match payload[0].get("functionDeclarations") {
        Some(Value::Array(gemini)) => gemini.clone(),
        _ => payload.as_array().cloned().unwrap_or_default(),
    };
    entries
        .iter()
        .map(|e| {
            let spec = e.get("function").or(e.get("toolSpec")).unwrap_or(e);
            spec["name"].as_str().unwrap_or_default().to_string()
        })
        .collect()
}

#[test]
fn a_schema_that_is_not_json_schema_is_left_out_of_every_payload() {
    // BFCL's data as it stands (a Python type name below the root), a property given as its
    // type's name, and `required` on a property: what providers answer with a 400.
    let r = Registry::from_value(&json!([
        {"name": "ratio", "parameters": {"type": "object", "properties": {"x": {"type": "float"}}}},
        {"name": "point", "parameters": {"type": "object", "properties": {"x": "number"}}},
        {"name": "query", "parameters": {"type": "object", "properties": {"q": {"type": "string", "required": true}}}},
        {"name": "fine", "parameters": {"type": "object", "properties": {"q": {"type": ["string", "null"]}}}}
    ]))
    .unwrap();
    for provider in Provider::ALL {
        let (payload, warnings) = plan(&r, "null", provider);
        assert_eq!(declared(&payload), ["fine"], "{provider:?}");
        let refused = codes(&warnings, WarningCode::ProviderRefusedTool);
        assert_eq!(refused.len(), 3, "{provider:?} {refused:?}");
        for (message, path) in refused.iter().zip([
            "$.properties.x.type",
            "$.properties.x ",
            "$.properties.q.required",
        ]) {
            assert!(
                message.contains("invalid_schema") && message.contains(path),
                "{provider:?}: {message}"
            );
        }
        // tool_search cannot load it either.
        let hits = r
            .turn(&TurnRequest {
                provider,
                ..Default::default()
            })
            .and_then(|mut turn| turn.search(&tool_intent::SearchCall::new("select:ratio")))
            .unwrap()
            .result
            .hits;
        assert!(hits.is_empty(), "{provider:?}");
        let check = r.check(provider);
        assert_eq!(
            check
                .findings
                .iter()
                .filter(|f| f.rule == "invalid_schema" && f.refused)
                .count(),
            3
        );
    }
}

#[test]
fn openai_leaves_out_an_array_schema_without_items() {
    let r = Registry::from_value(&json!([
        {"name": "tags", "parameters": {"type": "object", "properties": {"t": {"type": "array"}}}},
        {"name": "items", "parameters": {"type": "object", "properties": {"t": {"type": "array", "items": {"type": "string"}}}}}
    ]))
    .unwrap();
    for provider in Provider::ALL {
        let (payload, warnings) = plan(&r, "null", provider);
        let openai = matches!(provider, Provider::OpenAiChat | Provider::OpenAiResponses);
        let expected: &[&str] = if openai {
            &["items"]
        } else {
            &["tags", "items"]
        };
        assert_eq!(declared(&payload), expected, "{provider:?}");
        let refused = codes(&warnings, WarningCode::ProviderRefusedTool);
        if openai {
            assert!(
                refused.len() == 1
                    && refused[0].contains("array_items")
                    && refused[0].contains("$.properties.t"),
                "{refused:?}"
            );
        } else {
            assert!(refused.is_empty(), "{provider:?} {refused:?}");
        }
    }
}

#[test]
fn a_strict_schema_must_be_json_schema_too() {
    let e = Registry::from_value(&json!([{"name": "bad", "strict": true, "parameters": {
        "type": "object", "additionalProperties": false, "required": ["q"],
        "properties": {"q": {"type": "text"}}}}]))
    .unwrap_err();
    assert_eq!(e.path(), Some("$[0].parameters.properties.q.type"));
    assert!(e.to_string().contains("not JSON Schema"), "{e}");
}

#[test]
fn gemini_leaves_out_names_that_do_not_start_with_a_letter() {
    let r = Registry::from_value(&json!([
        {"name": "2fa_login", "parameters": {"type": "object"}},
        {"name": "login", "parameters": {"type": "object"}}
    ]))
    .unwrap();
    let (payload, warnings) = plan(&r, "null", Provider::Gemini);
    let declared: Vec<&str> = payload[0]["functionDeclarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(declared, ["login"]);
    assert_eq!(codes(&warnings, WarningCode::ProviderRefusedTool).len(), 1);
    let (anthropic, _) = plan(&r, "null", Provider::Anthropic);
    assert_eq!(anthropic.as_array().unwrap().len(), 2);
}

#[test]
fn bedrock_and_gemini_take_catalog_mode_only_with_their_own_shapes() {
    let r = Registry::embedded();
    for provider in [Provider::BedrockConverse, Provider::Gemini] {
        for mode in [DeferralMode::Native, DeferralMode::NativeClient] {
            let e = r
                .plan_turn(&TurnRequest {
                    provider,
                    mode,
                    ..Default::default()
                })
                .unwrap_err();
            assert_eq!(e.input(), Some("mode"));
            assert!(
                e.to_string().contains(provider.as_str()) && e.to_string().contains("catalog"),
                "{e}"
            );
        }
    }
    let cached = r
        .plan_turn(&TurnRequest {
            provider: Provider::BedrockConverse,
            cache_control: true,
            ..Default::default()
        })
        .unwrap();
    let entries: Vec<Value> = serde_json::from_str(&cached.payload).unwrap();
    assert_eq!(
        entries.last().unwrap(),
        &json!({"cachePoint": {"type": "default"}})
    );
    assert_eq!(
        cached.array().len(),
        entries.len() - 1,
        "the cache point is not a tool"
    );
    for e in &entries[..entries.len() - 1] {
        let spec = &e["toolSpec"];
        assert!(
            spec["name"].is_string() && spec["inputSchema"]["json"].is_object(),
            "{e}"
        );
    }
    let (gemini, _) = plan(&r, "null", Provider::Gemini);
    let functions = gemini[0]["functionDeclarations"].as_array().unwrap();
    assert!(functions
        .iter()
        .all(|f| f["parametersJsonSchema"]["type"] == "object"));
    let (nothing, _) = plan(&r, "[]", Provider::Gemini);
    assert_eq!(nothing, json!([]));
}
