//! The per-turn call timed from Rust, for `benches/python/per_turn.py` to compare the Python
//! binding against: `plan_turn` (expand + split + payload + fingerprint) with the benchmark
//! intent and three promoted tools, on a registry file. Prints one JSON object.
//!
//! `cargo run --release --example per_turn -- bench-results/registry-1000.json`

#[path = "../benches/support/generator.rs"]
mod generator;

use std::time::Instant;

use tool_intent::{record_loaded, Registry, ToolsOverride, TurnRequest, TurnState};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let file = std::env::args()
        .nth(1)
        .ok_or("usage: per_turn REGISTRY.json")?;
    let text = std::fs::read_to_string(&file)?;
    let registry = Registry::from_json_str(&text)?;
    // The intent and loads of every benchmark (benches/support/generator.rs).
    let loaded = generator::bench_loaded(&serde_json::from_str(&text)?);
    let request = TurnRequest {
        tools_override: ToolsOverride::from_json_str(generator::BENCH_OVERRIDE)?,
        state: registry.begin_turn(&record_loaded(&TurnState::default(), &loaded).unwrap()),
        ..Default::default()
    };
    let fingerprint = registry.plan_turn(&request)?.fingerprint;
    let mut rounds = Vec::new();
    for _ in 0..15 {
        let n = 200;
        let t = Instant::now();
        for _ in 0..n {
            std::hint::black_box(registry.plan_turn(&request)?.payload.len());
        }
        rounds.push(t.elapsed().as_secs_f64() * 1e6 / f64::from(n));
    }
    rounds.sort_by(f64::total_cmp);
    println!(
        "{}",
        serde_json::json!({"tools": registry.len(), "microsPerCall": rounds[rounds.len() / 2], "minMicrosPerCall": rounds[0], "fingerprint": fingerprint, "loaded": loaded})
    );
    Ok(())
}
