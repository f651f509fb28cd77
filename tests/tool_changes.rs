//! Tool changes inside the conversation (`tool_changes: messages`, `src/turn/tool_changes.rs`): the
//! `tools` bytes never change after the first turn, and the tools a provider offers after
//! applying every change message in order — replayed here by each provider's documented rules
//! (`Replay`) — are the tools a fresh plan of that turn offers, names and definitions, with
//! the same catalog. Checked on the committed toggle session and on random sessions (a
//! property test); withdrawn tools are refused at dispatch.

#![cfg(not(target_arch = "wasm32"))]

mod common;
#[path = "common/tool_change_rows.rs"]
mod tool_change_rows;

use std::collections::{BTreeMap, BTreeSet};

use common::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use tool_change_rows::tool_change_rows;
use tool_intent::cache_report::CacheScript;
use tool_intent::provider::ToolChanges;
use tool_intent::turn::tool_changes::{CATALOG_ADDED, CATALOG_NOW_OFFERED, CATALOG_WITHDRAWN};
use tool_intent::turn::CATALOG_HEADER;
use tool_intent::{
    DeferralMode, Provider, Registry, SearchCall, TokenCounter, ToolsOverride, TurnPlan,
    TurnRequest, TurnState, WarningCode,
};

const PROVIDERS: [Provider; 3] = [
    Provider::Anthropic,
    Provider::BedrockConverse,
    Provider::OpenAiResponses,
];

/// The key a provider knows a tool entry by: Anthropic `name`, Bedrock `toolSpec.name` (or a
/// system tool's name), OpenAI Responses `name` (or a built-in's `type`).
fn key(provider: Provider, entry: &Value) -> String {
    let found = match provider {
        Provider::BedrockConverse => entry
            .pointer("/toolSpec/name")
            .or_else(|| entry.pointer("/systemTool/name")),
        _ => entry.get("name").or_else(|| entry.get("type")),
    };
    found.and_then(Value::as_str).unwrap().to_string()
}

/// An entry without Anthropic's `cache_control` (where the breakpoint sits is not part of what
/// a tool is).
fn plain(mut entry: Value) -> Value {
    if let Some(o) = entry.as_object_mut() {
        o.remove("cache_control");
    }
    entry
}

/// A request on `provider` with the defaults.
fn on(provider: Provider) -> TurnRequest {
    TurnRequest {
        provider,
        ..TurnRequest::default()
    }
}

/// A conversation as the provider sees it: the declared tools, then every change message.
struct Replay {
    provider: Provider,
    defs: BTreeMap<String, Value>,
    offered: BTreeSet<String>,
    catalog: BTreeSet<String>,
}

impl Replay {
    fn new(provider: Provider, tools: &str) -> Replay {
        let entries: Vec<Value> = serde_json::from_str(tools).unwrap();
        let mut defs = BTreeMap::new();
        for e in entries
            .into_iter()
            .filter(|e| e.get("cachePoint").is_none())
        {
            defs.insert(key(provider, &e), plain(e));
        }
        let offered = defs.keys().cloned().collect();
        Replay {
            provider,
            defs,
            offered,
            catalog: BTreeSet::new(),
        }
    }

    /// The catalog's changes; names said to be offered now are returned, to be checked
    /// against the additions of the same message.
    fn text(&mut self, text: &str) -> Vec<String> {
        let mut adding = true;
        let mut now_offered = None;
        let mut offered = Vec::new();
        for line in text.lines() {
            match line {
                CATALOG_HEADER | CATALOG_ADDED => (adding, now_offered) = (true, None),
                CATALOG_WITHDRAWN => (adding, now_offered) = (false, None),
                CATALOG_NOW_OFFERED => (adding, now_offered) = (false, Some(())),
                name if adding => assert!(self.catalog.insert(name.to_string()), "{name} twice"),
                name => {
                    assert!(self.catalog.remove(name), "{name} was not listed");
                    if now_offered.is_some() {
                        offered.push(name.to_string());
                    }
                }
            }
        }
        offered
    }

    /// Applies one turn's change items (the JSON array text, or "").
    fn apply(&mut self, items: &str) {
        if items.is_empty() {
            return;
        }
        let items: Vec<Value> = serde_json::from_str(items).unwrap();
        let mut said_offered = Vec::new();
        for item in items {
            match self.provider {
                Provider::Anthropic => {
                    assert_eq!(item["role"], "system");
                    for block in item["content"].as_array().unwrap() {
                        let tool = &block["tool"];
                        match (block["type"].as_str().unwrap(), tool["type"].as_str()) {
                            ("text", _) => {
                                said_offered.extend(self.text(block["text"].as_str().unwrap()))
                            }
                            ("tool_removal", Some("tool_reference")) => {
                                let name = tool["name"].as_str().unwrap();
                                assert!(self.defs.contains_key(name), "{name} never declared");
                                self.offered.remove(name);
                            }
                            ("tool_addition", Some("tool_reference")) => {
                                let name = tool["name"].as_str().unwrap();
                                assert!(self.defs.contains_key(name), "{name} never declared");
                                self.offered.insert(name.to_string());
                            }
                            ("tool_addition", Some("tool_definition")) => {
                                let def = tool["definition"].clone();
                                let name = key(self.provider, &def);
                                assert!(!self.defs.contains_key(&name), "{name} defined twice");
                                self.defs.insert(name.clone(), def);
                                self.offered.insert(name);
                            }
                            other => panic!("unexpected block {other:?}"),
                        }
                    }
                }
                Provider::BedrockConverse => {
                    assert_eq!(item["role"], "system");
                    for block in item["content"].as_array().unwrap() {
                        if let Some(text) = block.get("text") {
                            said_offered.extend(self.text(text.as_str().unwrap()));
                            continue;
                        }
                        let (add, change) =
                            match (block.get("toolAddition"), block.get("toolRemoval")) {
                                (Some(c), None) => (true, c),
                                (None, Some(c)) => (false, c),
                                _ => panic!("unexpected block {block}"),
                            };
                        let name = change["tool"]["name"].as_str().unwrap();
                        // "Must match the name of a tool declared in the top-level tool
                        // configuration".
                        assert!(self.defs.contains_key(name), "{name} not declared");
                        if add {
                            self.offered.insert(name.to_string());
                        } else {
                            self.offered.remove(name);
                        }
                    }
                }
                _ => match item["type"].as_str().unwrap() {
                    "message" => {
                        assert_eq!(item["role"], "developer");
                        said_offered.extend(self.text(item["content"].as_str().unwrap()));
                    }
                    "additional_tools" => {
                        for def in item["tools"].as_array().unwrap() {
                            let name = key(self.provider, def);
                            assert!(!self.defs.contains_key(&name), "{name} defined twice");
                            self.defs.insert(name.clone(), def.clone());
                            self.offered.insert(name);
                        }
                    }
                    other => panic!("unexpected item {other}"),
                },
            }
        }
        // A name the text says left the catalog for the tools is offered by the same message.
        for name in said_offered {
            assert!(
                self.defs.contains_key(&name),
                "{name} said offered, never given"
            );
            if self.provider != Provider::OpenAiResponses {
                assert!(
                    self.offered.contains(&name),
                    "{name} said offered, not added"
                );
            }
        }
    }

    /// What the model may call this request: on OpenAI Responses every definition, narrowed by
    /// the request's `allowed_tools`.
    fn callable(&self, request_fields: &str) -> BTreeMap<String, Value> {
        let mut offered = self.offered.clone();
        if self.provider == Provider::OpenAiResponses && !request_fields.is_empty() {
            let fields: Value = serde_json::from_str(request_fields).unwrap();
            offered = match &fields["tool_choice"] {
                Value::String(none) if none == "none" => BTreeSet::new(),
                choice => choice["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| key(self.provider, t))
                    .collect(),
            };
        }
        offered
            .into_iter()
            .map(|name| {
                let def = self
                    .defs
                    .get(&name)
                    .unwrap_or_else(|| panic!("{name} undefined"));
                (name, def.clone())
            })
            .collect()
    }
}

/// The tools and catalog a plan in `array` mode offers.
fn fresh_offer(provider: Provider, plan: &TurnPlan) -> (BTreeMap<String, Value>, BTreeSet<String>) {
    let entries: Vec<Value> = serde_json::from_str(&plan.payload).unwrap();
    let tools = entries
        .into_iter()
        .filter(|e| e.get("cachePoint").is_none())
        .map(|e| (key(provider, &e), plain(e)))
        .collect();
    let catalog = plan.catalog().iter().map(|n| n.to_string()).collect();
    (tools, catalog)
}

/// One step of a session: registry change, intent, then the model's searches.
#[derive(Debug, Clone, Default)]
struct Step {
    servers: Vec<(String, Option<String>)>,
    intent: Option<String>,
    searches: Vec<String>,
}

/// Runs a session in `messages` mode beside a fresh `array`-mode plan of every turn and checks
/// the replayed conversation against it. Returns the number of turns whose array changed.
fn run(registry: &Registry, base: &TurnRequest, steps: &[Step]) -> usize {
    let provider = base.provider;
    let mut registry = registry.clone();
    let mut state = TurnState::default();
    let mut intent = ToolsOverride::Follow;
    let mut first: Option<String> = None;
    let mut replay: Option<Replay> = None;
    let mut changed_turns = 0;
    for (k, step) in steps.iter().enumerate() {
        for (server, list) in &step.servers {
            registry = match list {
                Some(text) => registry.set_mcp_server(server, text).unwrap().registry,
                None => match registry.remove_mcp_server(server) {
                    Ok(change) => change.registry,
                    Err(_) => registry,
                },
            };
        }
        if let Some(o) = &step.intent {
            intent = ToolsOverride::from_json_str(o).unwrap();
        }
        state = registry.begin_turn(&state);
        let request = TurnRequest {
            tools_override: intent.clone(),
            state: state.clone(),
            tool_changes: if base.tool_changes.is_messages() {
                base.tool_changes
            } else {
                ToolChanges::Messages
            },
            ..base.clone()
        };
        let mut turn = registry.turn(&request).unwrap();
        let plan = turn.plan().unwrap();
        // The turn's own state is the state to keep, as the plan's is.
        assert_eq!(Some(turn.state()), plan.state.as_ref());
        let rewrote = plan
            .warnings
            .iter()
            .any(|w| w.code == WarningCode::ToolChangesRewrite);
        match &first {
            None => first = Some(plan.payload.clone()),
            Some(before) if rewrote => {
                // Only ever grown at its end or edited in place, never on Anthropic or
                // Responses for a tool joining.
                assert!(
                    provider == Provider::BedrockConverse
                        || request.tool_changes == ToolChanges::MessagesByReference,
                    "turn {}",
                    k + 1
                );
                if !plan
                    .warnings
                    .iter()
                    .any(|w| w.message.contains("definition"))
                {
                    // A tool joined: the array grew at its end (before Bedrock's cachePoint),
                    // every earlier byte kept.
                    let entries = |p: &str| {
                        let p = &p[..p.len() - 1];
                        p.strip_suffix(r#",{"cachePoint":{"type":"default"}}"#)
                            .unwrap_or(p)
                            .to_string()
                    };
                    assert!(plan.payload.len() > before.len());
                    assert!(entries(&plan.payload).starts_with(&entries(before)));
                }
                changed_turns += 1;
                first = Some(plan.payload.clone());
            }
            Some(before) => assert_eq!(&plan.payload, before, "turn {}: tools changed", k + 1),
        }
        assert!(plan.catalog_text.is_empty());
        let replay = replay.get_or_insert_with(|| Replay::new(provider, &plan.payload));
        if rewrote {
            // The provider reads the new array, then the whole history's blocks again.
            let fresh = Replay::new(provider, &plan.payload);
            for (name, def) in fresh.defs {
                if !replay.defs.contains_key(&name) {
                    replay.offered.insert(name.clone());
                }
                replay.defs.insert(name, def);
            }
        }
        replay.apply(&plan.changes);
        let array_request = TurnRequest {
            tool_changes: ToolChanges::Array,
            state: TurnState {
                conversation: None,
                ..state.clone()
            },
            ..request.clone()
        };
        let fresh = registry.plan_turn(&array_request).unwrap();
        let (tools, catalog) = fresh_offer(provider, &fresh);
        assert_eq!(
            replay
                .callable(&plan.request_fields)
                .keys()
                .collect::<Vec<_>>(),
            tools.keys().collect::<Vec<_>>(),
            "turn {}: offered names",
            k + 1
        );
        assert_eq!(
            replay.callable(&plan.request_fields),
            tools,
            "turn {}: definitions",
            k + 1
        );
        assert_eq!(replay.catalog, catalog, "turn {}: catalog", k + 1);
        // The budget counts the declared array and this turn's change message.
        let budget = turn.budget(&tool_intent::counter::Estimator).unwrap();
        assert_eq!(
            budget.declared_tokens,
            Some(tool_intent::counter::Estimator.count(&plan.payload))
        );
        assert_eq!(
            budget.changes_tokens,
            Some(tool_intent::counter::Estimator.count(&plan.changes))
        );
        state = plan.state.clone().unwrap();
        for query in &step.searches {
            state = turn.search(&SearchCall::new(query)).unwrap().state;
            assert!(state.conversation.is_some());
        }
    }
    changed_turns
}

/// The committed session's turns as steps.
fn script_steps(path: &str) -> Vec<Step> {
    let script = CacheScript::from_json_str(&read_repo_file(path)).unwrap();
    script
        .turns
        .iter()
        .map(|t| Step {
            servers: t
                .add_servers
                .iter()
                .map(|(n, v)| (n.clone(), Some(v.to_string())))
                .chain(t.remove_servers.iter().map(|n| (n.clone(), None)))
                .collect(),
            intent: t.tools_override.as_ref().map(|o| o.to_canonical_json()),
            searches: t.searches.clone(),
        })
        .collect()
}

#[test]
fn the_toggle_session_never_changes_the_tools_on_anthropic_and_responses() {
    let steps = script_steps("tests/data/cache-session-toggles.json");
    assert_eq!(steps.len(), 20);
    assert_eq!(run(&all_merged(), &on(Provider::Anthropic), &steps), 0);
    assert_eq!(
        run(&all_merged(), &on(Provider::OpenAiResponses), &steps),
        0
    );
    // Bedrock references only declared tools: the server joining before turn 10 has its
    // tool offered (loaded) on turn 12, the one turn its array grows.
    assert_eq!(
        run(&all_merged(), &on(Provider::BedrockConverse), &steps),
        1
    );
    // Anthropic's native-client: deferred tools declared with defer_loading, new ones added
    // by value with the flag.
    let native_client = TurnRequest {
        mode: DeferralMode::NativeClient,
        ..on(Provider::Anthropic)
    };
    assert_eq!(run(&all_merged(), &native_client, &steps), 0);
    for provider in PROVIDERS {
        let steps = script_steps("tests/data/cache-session.json");
        // Its joining server's tool is deferred and never loaded: no rewrite even on Bedrock.
        assert_eq!(run(&all_merged(), &on(provider), &steps), 0, "{provider:?}");
    }
}

#[test]
fn naming_tools_only_by_reference_declares_the_ceiling_and_says_when_it_cannot() {
    let steps = script_steps("tests/data/cache-session-toggles.json");
    // The one tool no first turn could declare (the joining server's, loaded on turn 11)
    // grows the array once, on every provider, as on Bedrock.
    for provider in PROVIDERS {
        let base = TurnRequest {
            tool_changes: ToolChanges::MessagesByReference,
            ..on(provider)
        };
        assert_eq!(run(&all_merged(), &base, &steps), 1, "{provider:?}");
    }
    // References only: Anthropic's inline-tools beta is not asked for (a model without it
    // would refuse the header), the change-message beta is.
    let registry = Registry::embedded();
    let change_beta = "mid-conversation-tool-changes-2026-07-01";
    for (tool_changes, betas) in [
        (ToolChanges::MessagesByReference, vec![change_beta]),
        (
            ToolChanges::Messages,
            vec![change_beta, "inline-tools-2026-09-15"],
        ),
    ] {
        let plan = registry
            .plan_turn(&TurnRequest {
                tool_changes,
                ..on(Provider::Anthropic)
            })
            .unwrap();
        assert_eq!(plan.betas(), betas, "{tool_changes:?}");
    }
    // OpenAI Responses takes at most 128 tools: a ceiling past it is an error naming the
    // option and the way out.
    let many: Vec<Value> = (0..130)
        .map(|k| json!({"name": format!("t{k}"), "description": "d", "inputSchema": {"type": "object"}}))
        .collect();
    let r = Registry::embedded()
        .set_mcp_server("many", &json!({ "tools": many }).to_string())
        .unwrap()
        .registry;
    let request = TurnRequest {
        tool_changes: ToolChanges::MessagesByReference,
        ..on(Provider::OpenAiResponses)
    };
    let e = r.plan_turn(&request).unwrap_err();
    assert_eq!(e.input(), Some("tool_changes"));
    assert!(e.to_string().contains(r#"use "messages""#), "{e}");
    // With by-value additions the same registry plans.
    assert!(r
        .plan_turn(&TurnRequest {
            tool_changes: ToolChanges::Messages,
            ..request
        })
        .is_ok());
}

fn a_request(provider: Provider, intent: &str, state: TurnState) -> TurnRequest {
    TurnRequest {
        tools_override: ToolsOverride::from_json_str(intent).unwrap(),
        state,
        provider,
        tool_changes: ToolChanges::Messages,
        ..TurnRequest::default()
    }
}

#[test]
fn a_withdrawn_tool_is_refused_and_no_longer_found() {
    let r = Registry::embedded();
    for provider in PROVIDERS {
        let first = r
            .plan_turn(&a_request(
                provider,
                r#"{"enabled":true,"web_search":false}"#,
                r.begin_turn(&TurnState::default()),
            ))
            .unwrap();
        let state = r.begin_turn(first.state.as_ref().unwrap());
        let turn = r
            .turn(&a_request(
                provider,
                r#"{"enabled":true,"disabled":["shell","memory"]}"#,
                state,
            ))
            .unwrap();
        let plan = turn.plan().unwrap();
        if provider == Provider::OpenAiResponses {
            // No removal item: the allowed tools leave it out.
            assert!(
                plan.request_fields.contains("allowed_tools"),
                "{}",
                plan.request_fields
            );
            assert!(!plan.request_fields.contains("\"shell\""));
        } else {
            assert!(
                plan.changes.contains("shell"),
                "{provider:?}: {}",
                plan.changes
            );
        }
        let e = turn.resolve("shell").unwrap_err();
        assert_eq!(e.code(), "tool_removed", "{provider:?}");
        assert!(e.to_string().contains("withdrawn"), "{e}");
        // A deferred tool taken out of the catalog is not found either.
        let mut turn = turn;
        let found = turn.search(&SearchCall::new("select:memory")).unwrap();
        assert!(
            found.result.hits.is_empty(),
            "{provider:?}: {:?}",
            found.result.hits
        );
        // A name the conversation never knew is still `tool_not_available`.
        assert_eq!(
            turn.resolve("nope").unwrap_err().code(),
            "tool_not_available"
        );
    }
}

#[test]
fn providers_without_change_messages_are_refused_with_the_alternatives() {
    let r = Registry::embedded();
    for provider in [Provider::Gemini, Provider::OpenAiChat] {
        let e = r
            .plan_turn(&a_request(provider, "null", TurnState::default()))
            .unwrap_err();
        assert_eq!(
            (e.code(), e.input()),
            ("invalid_argument", Some("tool_changes"))
        );
        let text = e.to_string();
        assert!(
            text.contains(provider.as_str()) && text.contains(r#"use "array""#),
            "{text}"
        );
        assert!(
            text.contains("anthropic, bedrock-converse or openai-responses"),
            "{text}"
        );
    }
    let e = r
        .plan_turn(&TurnRequest {
            mode: DeferralMode::Native,
            ..a_request(Provider::Anthropic, "null", TurnState::default())
        })
        .unwrap_err();
    assert_eq!(e.input(), Some("tool_changes"));
    assert!(e.to_string().contains("mode catalog"), "{e}");
}

#[test]
fn a_changed_definition_is_replaced_in_place_or_kept_when_added_by_value() {
    let tool = |description: &str| {
        json!({"tools": [{"name": "t", "description": description, "inputSchema": {"type": "object"}}]})
            .to_string()
    };
    let r = Registry::embedded()
        .set_mcp_server("s", &tool("one"))
        .unwrap()
        .registry;
    let on = r#"{"enabled":true,"allowed":["read_file","mcp__s__t"]}"#;
    let off = r#"{"enabled":true,"allowed":["read_file"]}"#;
    // MCP tools are deferred: loaded, it is in the array.
    let loaded =
        r.begin_turn(&tool_intent::record_loaded(&TurnState::default(), &["mcp__s__t"]).unwrap());
    // Declared on turn 1, then its definition changes: the entry is replaced in place.
    let p1 = r
        .plan_turn(&a_request(Provider::Anthropic, on, loaded.clone()))
        .unwrap();
    assert!(p1.payload.contains("\"one\""));
    let r2 = r.set_mcp_server("s", &tool("two")).unwrap().registry;
    let p2 = r2
        .plan_turn(&a_request(
            Provider::Anthropic,
            on,
            r2.begin_turn(p1.state.as_ref().unwrap()),
        ))
        .unwrap();
    assert!(p2
        .warnings
        .iter()
        .any(|w| w.code == WarningCode::ToolChangesRewrite));
    assert_eq!(p2.payload.len(), p1.payload.len());
    assert!(p2.payload.contains("\"two\"") && !p2.payload.contains("\"one\""));
    // Added by value on turn 2, then changed: the model keeps the definition it was given.
    let q1 = r
        .plan_turn(&a_request(
            Provider::Anthropic,
            off,
            r.begin_turn(&TurnState::default()),
        ))
        .unwrap();
    let with_load = TurnState {
        loaded: loaded.loaded.clone(),
        frozen: loaded.frozen.clone(),
        ..q1.state.clone().unwrap()
    };
    let q2 = r
        .plan_turn(&a_request(
            Provider::Anthropic,
            on,
            r.begin_turn(&with_load),
        ))
        .unwrap();
    assert!(q2.changes.contains("tool_definition") && q2.payload == q1.payload);
    let q3 = r2
        .plan_turn(&a_request(
            Provider::Anthropic,
            on,
            r2.begin_turn(q2.state.as_ref().unwrap()),
        ))
        .unwrap();
    assert!(q3
        .warnings
        .iter()
        .any(|w| w.code == WarningCode::ToolDefinitionKept));
    assert_eq!(q3.payload, q1.payload);
}

/// Anthropic refuses `cache_control` on a deferred tool (a 400): the breakpoint the first turn
/// put on its last resident tool is dropped when a later turn defers that tool (tool_search
/// switched back on in native-client), and a stored entry carrying both flags is not used.
#[test]
fn the_cache_breakpoint_never_sits_on_a_deferred_tool() {
    let r = Registry::embedded();
    let request = |intent: &str, state: &TurnState| TurnRequest {
        tools_override: ToolsOverride::from_json_str(intent).unwrap(),
        provider: Provider::Anthropic,
        mode: DeferralMode::NativeClient,
        tool_changes: ToolChanges::Messages,
        cache_control: true,
        state: r.begin_turn(state),
        ..TurnRequest::default()
    };
    let flagged = |plan: &TurnPlan| -> Vec<(String, bool)> {
        serde_json::from_str::<Vec<Value>>(&plan.payload)
            .unwrap()
            .iter()
            .filter(|e| e.get("cache_control").is_some())
            .map(|e| {
                (
                    e["name"].as_str().unwrap().to_string(),
                    e.get("defer_loading").is_some(),
                )
            })
            .collect()
    };
    // Turn 1, tool_search off: every tool resident, the breakpoint on the last one.
    let p1 = r
        .plan_turn(&request(
            r#"{"enabled":true,"disabled":["tool_search"]}"#,
            &TurnState::default(),
        ))
        .unwrap();
    let marked = flagged(&p1);
    assert_eq!(marked.len(), 1, "{marked:?}");
    assert!(!marked[0].1);
    // Turn 2, tool_search on: that tool is deferred now, and carries no breakpoint.
    let stored = p1.state.clone().unwrap();
    let p2 = r
        .plan_turn(&request(r#"{"enabled":true}"#, &stored))
        .unwrap();
    assert!(p2
        .payload
        .contains(&format!("\"name\":\"{}\"", marked[0].0)));
    assert!(
        flagged(&p2).iter().all(|(_, deferred)| !deferred),
        "{:?}",
        flagged(&p2)
    );
    // A stored breakpoint edited to sit on a deferred entry is not used: the turn declares
    // again, and says so.
    let mut doc = serde_json::to_value(&stored).unwrap();
    for entry in doc["conversation"]["tools"].as_array_mut().unwrap() {
        let text = entry.as_str().unwrap().to_string();
        if text.contains("cache_control") {
            *entry = json!(text.replace(
                ",\"cache_control\"",
                ",\"defer_loading\":true,\"cache_control\""
            ));
        }
    }
    let edited = TurnState::from_value(&doc).unwrap();
    let p3 = r
        .plan_turn(&request(r#"{"enabled":true}"#, &edited))
        .unwrap();
    assert!(
        p3.warnings
            .iter()
            .any(|w| w.code == WarningCode::ToolChangesRewrite),
        "{:?}",
        p3.warnings
    );
    assert!(flagged(&p3).iter().all(|(_, deferred)| !deferred));
}

/// A pool of MCP tools a random server lists a subset of; a tool's definition depends only on
/// its name, so a server set again keeps the definitions of the tools it keeps.
fn server_list(mask: u8) -> String {
    let tools: Vec<Value> = (0..6)
        .filter(|k| mask & (1 << k) != 0)
        .map(|k| json!({"name": format!("p{k}"), "description": format!("Pool tool {k}."), "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}))
        .collect();
    json!({ "tools": tools }).to_string()
}

const INTENTS: [&str; 8] = [
    r#"{"enabled":true}"#,
    r#"{"enabled":true,"web_search":true}"#,
    r#"{"enabled":true,"toolset":"research"}"#,
    r#"{"enabled":true,"toolset":"full","web_search":true}"#,
    r#"{"enabled":true,"disabled":["shell","mcp__a__*"]}"#,
    r#"{"enabled":true,"toolset":"readonly"}"#,
    r#"["read_file","mcp__b__p1"]"#,
    "null",
];

fn step_strategy() -> impl Strategy<Value = Step> {
    (
        proptest::option::of(0..INTENTS.len()),
        proptest::collection::vec((0..2usize, proptest::option::of(any::<u8>())), 0..2),
        proptest::collection::vec(0..8usize, 0..3),
    )
        .prop_map(|(intent, servers, searches)| Step {
            intent: intent.map(|k| INTENTS[k].to_string()),
            servers: servers
                .into_iter()
                .map(|(s, mask)| (["a", "b"][s].to_string(), mask.map(server_list)))
                .collect(),
            searches: searches
                .into_iter()
                .map(|k| match k {
                    0..=5 => format!("select:mcp__{}__p{k}", ["a", "b"][k % 2]),
                    6 => "select:send_message".to_string(),
                    _ => "browser".to_string(),
                })
                .collect(),
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn change_messages_offer_what_a_fresh_plan_offers(
        steps in proptest::collection::vec(step_strategy(), 1..10),
        start in any::<u8>(),
        cache_control in any::<bool>(),
        channel in any::<bool>(),
    ) {
        let registry = Registry::embedded()
            .set_mcp_server("a", &server_list(start)).unwrap().registry;
        // With and without explicit caching, and under the `channel` source's ceiling.
        let base = |provider| TurnRequest {
            cache_control,
            source: channel.then(|| "channel".to_string()),
            ..on(provider)
        };
        let native_client = TurnRequest { mode: DeferralMode::NativeClient, ..base(Provider::Anthropic) };
        prop_assert_eq!(run(&registry, &native_client, &steps), 0);
        for provider in [Provider::Anthropic, Provider::OpenAiResponses] {
            prop_assert_eq!(run(&registry, &base(provider), &steps), 0);
            // Naming tools only by reference: what is offered is the same; the array may grow.
            let by_reference = TurnRequest {
                tool_changes: ToolChanges::MessagesByReference,
                ..base(provider)
            };
            run(&registry, &by_reference, &steps);
        }
        run(&registry, &base(Provider::BedrockConverse), &steps);
    }
}

/// The toggle session in `messages` mode on the three providers, one row per turn: the tools'
/// fingerprint, the change message's fingerprint and the request fields. Node
/// (`tests/js/tool-changes.test.mjs`) and Python (`python/tests/test_tool_changes.py`) replay
/// the same session through their bindings and compare with `tests/golden/tool-changes.json`.
#[test]
fn tool_change_rows_match_the_golden_file() {
    let script =
        CacheScript::from_json_str(&read_repo_file("tests/data/cache-session-toggles.json"))
            .unwrap();
    let rows = tool_change_rows(&all_merged(), &script);
    assert_eq!(rows.len(), 80);
    check_golden(
        "tool-changes.json",
        &(serde_json::to_string_pretty(&rows).unwrap() + "\n"),
    );
}
