//! What an agent server does with the crate on every turn (the README's Rust example, compiled
//! by `cargo test`): read the stored row, expand it against today's registry, send the exact
//! payload, run `tool_search` calls, dispatch by name, and keep the turn state.
//!
//! cargo run --example server

use serde_json::json;
use tool_intent::{
    begin_turn, build_intent, preview, search, tools_override_from_config, PreviewRequest,
    Registry, SessionRunConfig, Toggles,
};

fn main() -> Result<(), tool_intent::Error> {
    let registry = Registry::embedded();

    // A writer (web UI, TUI, channel) turns the user's toggles into an intent and stores the row.
    let intent = build_intent(&Toggles {
        web_search: Some(true),
        toolset: Some("research".into()),
        ..Default::default()
    });
    let row = SessionRunConfig::from_override(&intent);
    println!("stored row: {}", row.to_value());

    // Every turn: read the row back, expand against the live registry, send the payload.
    let mut state = Default::default();
    for turn in 1..=3 {
        state = begin_turn(&state);
        let request = PreviewRequest {
            tools_override: tools_override_from_config(&row),
            source: Some("webui".into()),
            state: Some(state.clone()),
            ..Default::default()
        };
        let p = preview(&registry, &request)?;
        println!(
            "turn {turn}: {} tools in the array, {} in the catalog, {}",
            p.resident.len(),
            p.deferred.len(),
            p.fingerprint
        );

        // The model calls tool_search mid-turn: the array stays, the tool is callable at once.
        if turn == 1 {
            let expansion = request.expand(&registry)?;
            let (result, next) =
                search::execute(&expansion, &state, &json!({"query": "select:memory"}))?;
            println!(
                "  tool_search -> {:?}; dispatch finds {}",
                result.hits,
                expansion.resolve("memory")?.name
            );
            state = next;
        }
    }
    Ok(())
}
