//! The cache-impact report's cost against the length of the session: 500, 1,000 and 2,000
//! turns over the embedded registry, empty turns (the 2,000-byte message stand-in), turns
//! with an intent change every tenth turn, and the catalog-tail session (the catalog's last
//! deferred tool toggled every tenth turn: the catalog changes at its end, which once counted
//! the whole history again), then the largest script the report accepts
//! (1 MiB system prompt, 1 MiB messages a turn, 64 turns: 64 MiB of messages). Prints the
//! time per run and per turn: linear growth shows as a flat time per turn.
//! `cargo bench --bench cache_report` (`scripts/bench.sh` runs it); `BENCH_SMOKE=1` runs 50 /
//! 100 / 200 turns and a 64 KiB largest script (`scripts/bench-smoke.sh`, in CI).

use std::time::Instant;

use tool_intent::cache_report::CacheScript;
use tool_intent::counter::Estimator;
use tool_intent::{DeferralMode, Provider, Registry, TurnRequest};

/// What a session's every tenth turn changes.
#[derive(Clone, Copy)]
enum Toggle {
    Nothing,
    WebSearch,
    /// The catalog's last tool, disabled and enabled again.
    CatalogTail(&'static str),
}

fn script(turns: usize, toggle: Toggle, system: usize, messages: usize) -> CacheScript {
    let turns: Vec<serde_json::Value> = (0..turns)
        .map(|k| match toggle {
            Toggle::WebSearch if k % 10 == 9 => {
                serde_json::json!({"override": {"enabled": true, "web_search": k % 20 == 9}})
            }
            Toggle::CatalogTail(last) if k % 10 == 9 => {
                let disabled: Vec<&str> = if k % 20 == 9 { vec![last] } else { vec![] };
                serde_json::json!({"override": {"enabled": true, "disabled": disabled}})
            }
            _ => serde_json::json!({}),
        })
        .collect();
    CacheScript::from_value(&serde_json::json!({
        "systemPromptBytes": system,
        "messageBytes": messages,
        "turns": turns,
    }))
    .expect("a script within the limits")
}

fn time(registry: &Registry, script: &CacheScript, mode: DeferralMode) -> (f64, usize) {
    let base = TurnRequest {
        provider: Provider::Anthropic,
        mode,
        ..TurnRequest::default()
    };
    let start = Instant::now();
    let report = registry
        .cache_report(script, &base, &Estimator)
        .expect("the report runs");
    (start.elapsed().as_secs_f64(), report.rewrites)
}

fn main() {
    let smoke = std::env::var_os("BENCH_SMOKE").is_some();
    let (sizes, largest_bytes) = if smoke {
        ([50, 100, 200], 1 << 16)
    } else {
        ([500, 1_000, 2_000], 1 << 20)
    };
    let registry = Registry::embedded();
    println!("cache_report, Anthropic, estimator counter (one run each)");
    println!(
        "{:<44} {:>6} {:>10} {:>12} {:>9}",
        "script", "turns", "ms", "µs per turn", "rewrites"
    );
    let last: &'static str = registry
        .plan_turn(&TurnRequest::default())
        .expect("a default plan")
        .catalog()
        .last()
        .expect("the embedded registry defers tools")
        .to_string()
        .leak();
    for (label, toggle) in [
        ("empty turns", Toggle::Nothing),
        ("intent change every 10th turn", Toggle::WebSearch),
        (
            "catalog tail toggled every 10th turn",
            Toggle::CatalogTail(last),
        ),
    ] {
        for mode in [DeferralMode::Catalog, DeferralMode::Native] {
            for turns in sizes {
                let s = script(turns, toggle, 4_000, 2_000);
                let (secs, rewrites) = time(&registry, &s, mode);
                println!(
                    "{:<44} {:>6} {:>10.1} {:>12.1} {:>9}",
                    format!("{label}, {}", mode.as_str()),
                    turns,
                    secs * 1e3,
                    secs * 1e6 / turns as f64,
                    rewrites
                );
            }
        }
    }
    let largest = script(64, Toggle::WebSearch, largest_bytes, largest_bytes);
    let (secs, rewrites) = time(&registry, &largest, DeferralMode::Catalog);
    println!(
        "{:<44} {:>6} {:>10.1} {:>12.1} {:>9}",
        format!("largest: {} KiB prompt and a turn", largest_bytes >> 10),
        64,
        secs * 1e3,
        secs * 1e6 / 64.0,
        rewrites
    );
}
