//! What an agent server does with the crate on every turn (the README's Rust example, compiled
//! by `cargo test`): read the stored row, expand it against today's registry, send the exact
//! payload, run `tool_search` calls, dispatch by name, and keep the turn state.
//!
//! cargo run --example server

use tool_intent::{
    begin_turn, build_intent, plan_turn, resolve_tool, search_turn, tools_override_from_config,
    Registry, SessionRunConfig, Toggles, TurnRequest,
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
        let request = TurnRequest {
            tools_override: tools_override_from_config(&row),
            source: Some("webui".into()),
            state: Some(state.clone()),
            ..Default::default()
        };
        let p = plan_turn(&registry, &request)?;
        println!(
            "turn {turn}: {} tools in the array, {} in the catalog, {}",
            p.array.len(),
            p.catalog.len(),
            p.fingerprint
        );

        // The model calls tool_search mid-turn: the array stays, the tool is callable at once.
        if turn == 1 {
            let found = search_turn(&registry, &request, "select:memory", None)?;
            println!(
                "  tool_search -> {:?}; dispatch finds {}",
                found.result.hits,
                resolve_tool(&registry, &request, "memory")?.name
            );
            state = found.state;
        }
    }
    Ok(())
}
