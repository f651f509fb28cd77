//! Provider-executed tools: the embedded `web_search` goes out as each provider's own tool (or
//! the documented fallback), a domain allow-list is sent or refused — never dropped —, other
//! options are dropped with a warning, and dispatch, deferral, the budget and `check` know it.
//! The option table in docs/providers.md is the code's.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use serde_json::{json, Value};
use tool_intent::provider::ProviderTool;
use tool_intent::{
    DeferralMode, Provider, Registry, ToolsOverride, TurnPlan, TurnRequest, WarningCode,
};

const WEB: &str = r#"{"enabled":true,"web_search":true}"#;

fn plan(r: &Registry, provider: Provider, mode: DeferralMode) -> TurnPlan {
    r.plan_turn(&TurnRequest {
        tools_override: ToolsOverride::from_json_str(WEB).unwrap(),
        provider,
        mode,
        ..Default::default()
    })
    .unwrap()
}

/// The payload's entries that are no function (the provider's own tools).
fn own_tools(p: &TurnPlan) -> Vec<Value> {
    let payload: Value = serde_json::from_str(&p.payload).unwrap();
    let mut entries: Vec<Value> = payload.as_array().unwrap().clone();
    if p.provider == Provider::Gemini {
        entries.retain(|e| e.get("functionDeclarations").is_none());
    } else {
        entries.retain(|e| {
            let s = e.to_string();
            !s.contains("\"input_schema\"")
                && !s.contains("\"parameters\"")
                && !s.contains("\"toolSpec\"")
                && e.get("function").is_none()
        });
    }
    entries
}

/// The embedded registry with the web search's `builtin` replaced.
fn with_builtin(builtin: Value) -> Result<Registry, tool_intent::Error> {
    let mut doc = Registry::embedded().to_value();
    for t in doc["tools"].as_array_mut().unwrap() {
        if t["name"] == "web_search" {
            t["builtin"] = builtin.clone();
        }
    }
    Registry::from_value(&doc)
}

#[test]
fn each_provider_gets_its_own_web_search_or_the_documented_fallback() {
    let r = Registry::embedded();
    let anthropic = plan(&r, Provider::Anthropic, DeferralMode::Catalog);
    assert_eq!(
        own_tools(&anthropic),
        [json!({"type": "web_search_20260318", "name": "web_search"})]
    );
    let responses = plan(&r, Provider::OpenAiResponses, DeferralMode::Catalog);
    assert_eq!(own_tools(&responses), [json!({"type": "web_search"})]);
    let gemini = plan(&r, Provider::Gemini, DeferralMode::Catalog);
    assert_eq!(own_tools(&gemini), [json!({"googleSearch": {}})]);
    assert_eq!(
        gemini.request_fields,
        r#"{"toolConfig":{"includeServerSideToolInvocations":true}}"#
    );
    assert_eq!(
        gemini.array().last(),
        Some(&"web_search"),
        "after the declarations, as sent"
    );
    // OpenAI Chat (search models only) and Bedrock (Nova only): the function, by default.
    for provider in [Provider::OpenAiChat, Provider::BedrockConverse] {
        let p = plan(&r, provider, DeferralMode::Catalog);
        assert!(own_tools(&p).is_empty(), "{provider:?}");
        assert!(
            p.payload.contains("\"name\":\"web_search\""),
            "{provider:?}"
        );
        assert_eq!(p.request_fields, "");
        let check = r.check(provider);
        assert!(
            check
                .findings
                .iter()
                .any(|f| f.rule == "builtin_fallback" && f.tool == "web_search"),
            "{provider:?}"
        );
    }
    // In native mode too, and never deferred.
    let native = plan(&r, Provider::Anthropic, DeferralMode::Native);
    let entries: Value = serde_json::from_str(&native.payload).unwrap();
    let search = entries
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "web_search")
        .unwrap();
    assert_eq!(
        search,
        &json!({"type": "web_search_20260318", "name": "web_search"})
    );
}

#[test]
fn chat_and_bedrock_get_the_built_in_when_listed() {
    let r = with_builtin(
        json!({"kind": "web_search", "providers": ["openai-chat", "bedrock-converse"],
        "user_location": {"city": "Lyon", "country": "FR"}, "search_context_size": "low"}),
    )
    .unwrap();
    let chat = plan(&r, Provider::OpenAiChat, DeferralMode::Catalog);
    assert!(!chat.payload.contains("web_search"));
    assert!(!chat.array().contains(&"web_search"));
    assert_eq!(
        chat.request_fields,
        r#"{"web_search_options":{"search_context_size":"low","user_location":{"type":"approximate","approximate":{"city":"Lyon","country":"FR"}}}}"#
    );
    let bedrock = plan(&r, Provider::BedrockConverse, DeferralMode::Catalog);
    assert_eq!(
        own_tools(&bedrock),
        [json!({"systemTool": {"name": "nova_grounding"}})]
    );
    // Bedrock's form takes no options: both are dropped for it, with a warning saying so.
    let w: Vec<&str> = r
        .warnings()
        .iter()
        .filter(|w| w.code == WarningCode::BuiltinOptionDropped)
        .map(|w| w.message.as_str())
        .collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("bedrock-converse") && w[0].contains("user_location, search_context_size")
    );
    // Anthropic is not listed now: the function.
    let anthropic = plan(&r, Provider::Anthropic, DeferralMode::Catalog);
    assert!(own_tools(&anthropic).is_empty());
}

#[test]
fn a_domain_allow_list_is_sent_or_refused_never_dropped() {
    let allow = json!(["docs.rs", "crates.io"]);
    for provider in Provider::ALL {
        let builtin = json!({"kind": "web_search", "allowed_domains": allow, "providers": [provider.as_str()]});
        match provider {
            Provider::Anthropic | Provider::OpenAiResponses => {
                let r = with_builtin(builtin).unwrap();
                let p = plan(&r, provider, DeferralMode::Catalog);
                let own = own_tools(&p);
                let sent = own[0]
                    .get("allowed_domains")
                    .or_else(|| own[0]["filters"].get("allowed_domains"));
                assert_eq!(sent, Some(&allow), "{provider:?}: {own:?}");
            }
            _ => {
                let e = with_builtin(builtin).unwrap_err();
                assert_eq!(e.code(), "invalid_registry", "{provider:?}");
                assert!(
                    e.path().unwrap().ends_with(".builtin.allowed_domains"),
                    "{provider:?}: {e}"
                );
                assert!(e.to_string().contains(provider.as_str()), "{e}");
            }
        }
    }
    // A block list: Anthropic and Gemini send it; OpenAI Responses cannot and refuses it.
    let block = json!({"kind": "web_search", "blocked_domains": ["example.com"], "providers": ["anthropic", "gemini"]});
    let r = with_builtin(block).unwrap();
    assert_eq!(
        own_tools(&plan(&r, Provider::Gemini, DeferralMode::Catalog)),
        [json!({"googleSearch": {"excludeDomains": ["example.com"]}})]
    );
    let e = with_builtin(json!({"kind": "web_search", "blocked_domains": ["x.com"], "providers": ["openai-responses"]})).unwrap_err();
    assert!(
        e.path().unwrap().ends_with(".builtin.blocked_domains"),
        "{e}"
    );
    // Anthropic forbids the two together.
    let e = with_builtin(
        json!({"kind": "web_search", "allowed_domains": ["a.com"], "blocked_domains": ["b.com"]}),
    )
    .unwrap_err();
    assert!(
        e.path().unwrap().ends_with(".builtin.blocked_domains"),
        "{e}"
    );
}

#[test]
fn dispatch_refuses_a_tool_the_provider_runs_and_the_budget_prices_its_form() {
    let r = Registry::embedded();
    for provider in Provider::ALL {
        let request = TurnRequest {
            tools_override: ToolsOverride::from_json_str(WEB).unwrap(),
            provider,
            ..Default::default()
        };
        let turn = r.turn(&request).unwrap();
        let resolved = turn.resolve("web_search");
        let runs = r
            .tool_named("web_search")
            .unwrap()
            .builtin()
            .unwrap()
            .runs_on(provider);
        match resolved {
            Err(e) => {
                assert!(runs, "{provider:?}: {e}");
                assert_eq!(e.code(), "provider_executed");
            }
            Ok(tool) => {
                assert!(!runs, "{provider:?}");
                assert_eq!(tool.name, "web_search");
            }
        }
        let budget = turn
            .budget(
                tool_intent::counter::shared_counter(tool_intent::counter::CounterKind::Estimate)
                    .unwrap(),
            )
            .unwrap();
        let row = budget
            .rows
            .iter()
            .find(|row| row.name == "web_search")
            .unwrap();
        // The server tool is a few tokens; the function carries its whole schema.
        assert_eq!(row.tokens < 40, runs, "{provider:?}: {} tokens", row.tokens);
    }
}

#[test]
fn a_web_fetch_built_in_goes_to_anthropic_and_gemini_and_is_refused_elsewhere() {
    let fetch = json!({"name": "web_fetch", "description": "Fetch a page.", "parameters": {"type": "object",
        "properties": {"url": {"type": "string"}}, "required": ["url"]},
        "builtin": {"kind": "web_fetch", "allowed_domains": ["docs.rs"], "providers": ["anthropic"]}});
    let mut doc = Registry::embedded().to_value();
    doc["tools"].as_array_mut().unwrap().push(fetch.clone());
    // Exposed (`full`) and a default, as a registry that defines it would make it.
    for key in ["full", "default"] {
        let list = if key == "full" {
            &mut doc["toolsets"]["full"]
        } else {
            &mut doc["default_tools"]
        };
        list.as_array_mut().unwrap().push(json!("web_fetch"));
    }
    let r = Registry::from_value(&doc).unwrap();
    let p = plan(&r, Provider::Anthropic, DeferralMode::Catalog);
    assert!(
        p.payload.contains(
            r#"{"type":"web_fetch_20260318","name":"web_fetch","allowed_domains":["docs.rs"]}"#
        ),
        "{}",
        &p.payload[p.payload.len() - 400..]
    );
    // Gemini is not listed here: the function; listed with a domain list: refused.
    assert!(plan(&r, Provider::Gemini, DeferralMode::Catalog)
        .payload
        .contains("\"name\":\"web_fetch\""));
    let mut listed = doc.clone();
    let tools = listed["tools"].as_array_mut().unwrap();
    let last = tools.len() - 1;
    tools[last]["builtin"] =
        json!({"kind": "web_fetch", "allowed_domains": ["docs.rs"], "providers": ["gemini"]});
    let e = Registry::from_value(&listed).unwrap_err();
    assert!(
        e.path().unwrap().ends_with("].builtin.allowed_domains"),
        "{e}"
    );
    // No OpenAI or Bedrock web fetch exists; a search option is not a fetch option.
    for (builtin, at) in [
        (
            json!({"kind": "web_fetch", "providers": ["openai-responses"]}),
            "].builtin.providers[0]",
        ),
        (
            json!({"kind": "web_fetch", "search_context_size": "low"}),
            "].builtin.search_context_size",
        ),
    ] {
        tools_builtin(&mut listed, builtin);
        let e = Registry::from_value(&listed).unwrap_err();
        assert!(e.path().unwrap().ends_with(at), "{e}");
    }
    tools_builtin(&mut listed, json!({"kind": "web_fetch"}));
    let r = Registry::from_value(&listed).unwrap();
    let gemini = plan(&r, Provider::Gemini, DeferralMode::Catalog);
    let payload: Value = serde_json::from_str(&gemini.payload).unwrap();
    let n = payload.as_array().unwrap().len();
    assert_eq!(
        payload.as_array().unwrap()[n - 2..].to_vec(),
        [json!({"googleSearch": {}}), json!({"urlContext": {}})]
    );
    assert_eq!(
        r.check(Provider::OpenAiResponses)
            .findings
            .iter()
            .filter(|f| f.rule == "builtin_fallback")
            .count(),
        1,
        "web_fetch: OpenAI Responses has none"
    );
}

/// Sets the `builtin` of the last tool of a document.
fn tools_builtin(doc: &mut Value, builtin: Value) {
    let tools = doc["tools"].as_array_mut().unwrap();
    let last = tools.len() - 1;
    tools[last]["builtin"] = builtin;
}

#[test]
fn the_option_table_in_the_docs_is_the_codes() {
    let docs = read_repo_file("docs/providers.md");
    let table = ProviderTool::options_table();
    assert!(
        docs.contains(&table),
        "docs/providers.md lacks the option table; it should hold:\n{table}"
    );
}
