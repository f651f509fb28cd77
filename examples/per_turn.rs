//! The per-turn call timed from Rust, for `benches/python/per_turn.py` to compare the Python
//! binding against: `plan_turn` (expand + split + payload + fingerprint) with the benchmark
//! intent and three promoted tools, on a registry file. Prints one JSON line (tools,
//! fingerprint, loaded names), then times one round of calls for each line read from stdin
//! (the number of calls) and prints its microseconds per call, until stdin closes: the script
//! alternates Rust and Python round by round, so a slow spell of the machine hits both.
//!
//! `echo 200 | cargo run --release --example per_turn -- bench-results/registry-1000.json`

#[path = "../benches/support/generator.rs"]
mod generator;

use std::io::{BufRead, Write};
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
        state: registry.begin_turn(&record_loaded(&TurnState::default(), &loaded)?),
        ..Default::default()
    };
    let fingerprint = registry.plan_turn(&request)?.fingerprint;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{}",
        serde_json::json!({"tools": registry.len(), "fingerprint": fingerprint, "loaded": loaded})
    )?;
    out.flush()?;
    for line in std::io::stdin().lock().lines() {
        let calls: u32 = line?.trim().parse()?;
        let t = Instant::now();
        for _ in 0..calls {
            std::hint::black_box(registry.plan_turn(&request)?.payload.len());
        }
        writeln!(
            out,
            "{}",
            t.elapsed().as_secs_f64() * 1e6 / f64::from(calls.max(1))
        )?;
        out.flush()?;
    }
    Ok(())
}
