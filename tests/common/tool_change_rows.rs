//! The rows of `tests/golden/tool-changes.json`: the toggle session with `tool_changes:
//! messages` on the three providers in `catalog` mode and on Anthropic in `native-client`, one
//! row per turn. Written by `tests/tool_changes.rs` and made again inside the wasm module by
//! `bindings/wasm/tests/wasm_suite` (both include this file), so one loop serves both.

use serde_json::{json, Value};
use tool_intent::cache_report::CacheScript;
use tool_intent::provider::ToolChanges;
use tool_intent::{
    DeferralMode, Provider, Registry, SearchCall, ToolsOverride, TurnRequest, TurnState,
};

/// Replays `script` from `registry` (the embedded registry with the nine servers merged).
pub fn tool_change_rows(registry: &Registry, script: &CacheScript) -> Vec<Value> {
    let targets = [
        (Provider::Anthropic, DeferralMode::Catalog),
        (Provider::BedrockConverse, DeferralMode::Catalog),
        (Provider::OpenAiResponses, DeferralMode::Catalog),
        (Provider::Anthropic, DeferralMode::NativeClient),
    ];
    let mut rows = Vec::new();
    for (provider, mode) in targets {
        let mut registry = registry.clone();
        let mut state = TurnState::default();
        let mut intent = ToolsOverride::Follow;
        for (k, turn) in script.turns.iter().enumerate() {
            for (name, tools) in &turn.add_servers {
                registry = registry
                    .set_mcp_server(name, &tools.to_string())
                    .unwrap()
                    .registry;
            }
            for name in &turn.remove_servers {
                registry = registry.remove_mcp_server(name).unwrap().registry;
            }
            if let Some(o) = &turn.tools_override {
                intent = o.clone();
            }
            state = registry.begin_turn(&state);
            let mut this_turn = registry
                .turn(&TurnRequest {
                    tools_override: intent.clone(),
                    state: state.clone(),
                    provider,
                    mode,
                    tool_changes: ToolChanges::Messages,
                    ..TurnRequest::default()
                })
                .unwrap();
            let plan = this_turn.plan().unwrap();
            rows.push(json!({
                "provider": provider.as_str(),
                "mode": mode.as_str(),
                "turn": k + 1,
                "fingerprint": plan.fingerprint,
                "changes": tool_intent::fingerprint(plan.changes.as_bytes()),
                "changesBytes": plan.changes.len(),
                "requestFields": plan.request_fields,
                "betas": plan.betas(),
            }));
            state = plan.state.clone().unwrap();
            for query in &turn.searches {
                state = this_turn.search(&SearchCall::new(query)).unwrap().state;
            }
        }
    }
    rows
}
