//! A stored turn state is input: reading one never panics, a state read is written back as
//! the same value, and a turn on it — every provider, both ways of telling tool changes, at
//! a turn boundary and mid-turn, on the registry version the state names or a newer one —
//! plans JSON texts or fails with an error, never a panic; a search's new state reads back;
//! errors and warnings show the state's text escaped.
//! Seeds (`fuzz/seeds/turn_state/`): per provider that takes change messages, the state after
//! one turn on the first registry below with `tool_changes: messages`, `begin_turn` and a
//! `select:mcp__a__p0` search (`<provider>.json`; `<provider>.entries-as-bytes.json` the same
//! state as releases before 2026-12-07 stored it, every declared entry as its bytes); and a
//! bare state with a load.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tool_intent::provider::ToolChanges;
use tool_intent::{Provider, Registry, SearchCall, ToolsOverride, TurnRequest, TurnState};
use tool_intent_fuzz::{error_shown_safely, warnings_shown_safely};

/// Two tools of our own and an MCP server's two: small enough that a state with its
/// conversation record fits the fuzzer's input length.
const REGISTRY: &str = r#"{"tools":[
  {"name":"read","description":"Read a file.","parameters":{"type":"object","properties":{"path":{"type":"string"}}}},
  {"name":"send_message","description":"Send a message.","parameters":{"type":"object","properties":{"to":{"type":"string"}}}}],
 "default_tools":["read"],"toolsets":{"full":["*"]}}"#;

/// The version a seed's state was stamped with, and a newer one that holds it.
fn registries() -> &'static (Registry, Registry) {
    static R: OnceLock<(Registry, Registry)> = OnceLock::new();
    R.get_or_init(|| {
        let server = |names: &[&str]| {
            let tools: Vec<String> = names
                .iter()
                .map(|n| format!(r#"{{"name":"{n}","description":"Pool tool {n}.","inputSchema":{{"type":"object"}}}}"#))
                .collect();
            format!(r#"{{"tools":[{}]}}"#, tools.join(","))
        };
        let first = Registry::from_json_str(REGISTRY).unwrap().set_mcp_server("a", &server(&["p0", "p1"])).unwrap().registry;
        let newer = first.set_mcp_server("a", &server(&["p1", "p2"])).unwrap().registry;
        (first, newer)
    })
}

fn reads_back(state: &TurnState) {
    let text = serde_json::to_string(state).expect("a state serialises");
    let again = TurnState::from_json_str(&text).expect("a written state reads back");
    assert_eq!(&again, state, "{text}");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let state = match TurnState::from_json_str(text) {
        Ok(state) => state,
        Err(e) => return error_shown_safely(&e),
    };
    reads_back(&state);
    let intent = ToolsOverride::from_json_str(r#"{"enabled":true,"toolset":"full"}"#).unwrap();
    let (first, newer) = registries();
    for registry in [first, newer] {
        for boundary in [false, true] {
            let state = if boundary {
                registry.begin_turn(&state)
            } else {
                state.clone()
            };
            for provider in Provider::ALL {
                for tool_changes in [ToolChanges::Array, ToolChanges::Messages] {
                    let request = TurnRequest {
                        tools_override: intent.clone(),
                        provider,
                        tool_changes,
                        state: state.clone(),
                        ..TurnRequest::default()
                    };
                    let mut turn = match registry.turn(&request) {
                        Ok(turn) => turn,
                        Err(e) => {
                            error_shown_safely(&e);
                            continue;
                        }
                    };
                    reads_back(turn.state());
                    match turn.plan() {
                        Err(e) => error_shown_safely(&e),
                        Ok(plan) => {
                            warnings_shown_safely(&plan.warnings);
                            let _: Value =
                                serde_json::from_str(&plan.payload).expect("the payload is JSON");
                            for json in [&plan.request_fields, &plan.changes]
                                .into_iter()
                                .filter(|t| !t.is_empty())
                            {
                                let _: Value = serde_json::from_str(json)
                                    .expect("request fields and changes are JSON");
                            }
                            if let Some(kept) = &plan.state {
                                reads_back(kept);
                            }
                            plan.to_json().expect("a plan writes its JSON");
                        }
                    }
                    if let Ok(found) =
                        turn.search(&SearchCall::new("select:send_message,mcp__a__p1"))
                    {
                        reads_back(&found.state);
                    }
                }
            }
        }
    }
});
