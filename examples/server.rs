//! What an agent server does with the crate on every turn (the README's Rust example, compiled
//! by `cargo test`): read the stored row, expand it against today's registry, send the exact
//! payload, run `tool_search` calls, dispatch by name, and keep the turn state.
//!
//! cargo run --example server

use tool_intent::{build_intent, Registry, SearchCall, SessionRunConfig, Toggles, TurnRequest};

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
    // One `Turn` per request: expanded once, then planned, searched and dispatched.
    let mut state = Default::default();
    for k in 1..=3 {
        state = registry.begin_turn(&state);
        let request = TurnRequest {
            tools_override: row.to_override(),
            source: Some("webui".into()),
            state,
            ..Default::default()
        };
        let mut turn = registry.turn(&request)?;
        let p = turn.plan()?;
        println!(
            "turn {k}: {} tools in the array, {} in the catalog, {}",
            p.array().len(),
            p.catalog().len(),
            p.fingerprint
        );

        // The model calls tool_search mid-turn: the array stays, the tool is callable at once.
        if k == 1 {
            let found = turn.search(&SearchCall::new("select:memory"))?;
            println!(
                "  tool_search -> {:?}; dispatch finds {}",
                found.result.hits,
                turn.resolve("memory")?.name
            );
        }
        // The turn's state (with its searches' loads) is what the session keeps.
        state = turn.state().clone();
    }
    Ok(())
}
