//! Native benchmarks per registry size (50, 1,000, 10,000 tools), so growth with size is
//! visible: registry load, expand, split, tool_search, budget, and the per-turn `plan_turn`
//! (expand + split + payload + fingerprint + names) the CLI, wasm and Python expose. `scripts/bench.sh` runs this and collects
//! criterion's estimates into a table and `bench-results/native.json`.

#[path = "support/generator.rs"]
mod generator;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use tool_intent::counter::Estimator;
use tool_intent::provider::ToolChanges;
use tool_intent::search::SearchCall;
use tool_intent::turn::expand::{expand, ExpandContext};
use tool_intent::turn::split;
use tool_intent::{record_loaded, Provider, Registry, ToolsOverride, TurnRequest, TurnState, View};

const SIZES: [usize; 3] = [50, 1_000, 10_000];

fn fixtures() -> Vec<(usize, String, Registry, TurnState)> {
    SIZES
        .iter()
        .map(|&n| {
            let doc = generator::registry_document(n, 42);
            let text = serde_json::to_string(&doc).unwrap();
            let registry = Registry::from_json_str(&text).unwrap();
            let state = registry.begin_turn(
                &record_loaded(&TurnState::default(), &generator::bench_loaded(&doc)).unwrap(),
            );
            (n, text, registry, state)
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let fixtures = fixtures();
    let o = ToolsOverride::from_json_str(generator::BENCH_OVERRIDE).unwrap();
    let ctx = ExpandContext::default();
    let request = |s: &TurnState| TurnRequest {
        tools_override: o.clone(),
        state: s.clone(),
        ..Default::default()
    };

    let mut g = c.benchmark_group("load");
    for (n, text, _, _) in &fixtures {
        g.bench_with_input(BenchmarkId::from_parameter(n), text, |b, text| {
            b.iter(|| Registry::from_json_str(black_box(text)).unwrap())
        });
    }
    g.finish();

    macro_rules! per_size {
        ($name:literal, |$r:ident, $s:ident| $body:expr) => {{
            let mut g = c.benchmark_group($name);
            for (n, _, $r, $s) in &fixtures {
                g.bench_function(BenchmarkId::from_parameter(n), |b| {
                    b.iter(|| black_box($body))
                });
            }
            g.finish();
        }};
    }
    per_size!("expand", |r, _s| expand(r, &o, ctx)
        .unwrap()
        .tools()
        .count());
    per_size!("split", |r, s| {
        let e = expand(r, &o, ctx).unwrap();
        split(&e, s, View::Frozen).catalog.len()
    });
    let arguments = serde_json::json!({"query": "+issue create comment", "limit": 5});
    per_size!("tool_search", |r, s| {
        let call = SearchCall::from_arguments(&arguments).unwrap();
        r.turn(&request(s))
            .and_then(|mut turn| turn.search(&call))
            .unwrap()
            .result
            .hits
            .len()
    });
    // A long natural-language query (20 words) against every deferred tool: the case the
    // README's latency target is about.
    per_size!("tool_search_20_words", |r, s| {
        r.turn(&request(s))
            .and_then(|mut turn| turn.search(&SearchCall::new(generator::SEARCH_20_WORDS)))
            .unwrap()
            .result
            .hits
            .len()
    });
    // The keyword index, built on a registry's first keyword query: the time of that first
    // query, expand included. Each iteration gets a freshly loaded registry (load and its
    // fingerprint, which the turn's state names, not timed): clones share their memos, the
    // index included.
    let mut g = c.benchmark_group("search_index_build");
    for (n, text, _, s) in &fixtures {
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter_batched(
                || {
                    let fresh = Registry::from_json_str(text).unwrap();
                    fresh.fingerprint();
                    fresh
                },
                |r| {
                    let hits = r
                        .turn(&request(s))
                        .and_then(|mut turn| turn.search(&SearchCall::new("issue")))
                        .unwrap()
                        .result
                        .hits;
                    // Returned, so that dropping the registry is not timed.
                    (r, hits)
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
    g.finish();
    per_size!("budget", |r, s| r
        .turn(&request(s))
        .and_then(|turn| turn.budget(&Estimator))
        .unwrap()
        .catalog_tokens);
    // The per-turn call: expand, split, render, fingerprint and the name lists.
    per_size!("preview", |r, s| r
        .plan_turn(&request(s))
        .unwrap()
        .fingerprint);
    // A turn that plans, runs one tool_search and dispatches one call: what an agent server
    // does per request when the model searches.
    let query = SearchCall::new("issue create comment");
    per_size!("plan_search_resolve", |r, s| {
        let mut turn = r.turn(&request(s)).unwrap();
        let plan = turn.plan().unwrap();
        let hits = turn.search(&query).unwrap().result.hits.len();
        let tool = turn.resolve(plan.array()[0]).unwrap().name.len();
        (plan.fingerprint, hits, tool)
    });
    // `tool_changes: messages`, a later turn: the persisted state (with the conversation's
    // record from a first turn on another intent) read from its JSON text, then the plan with
    // its change message and the state to keep written back, as a server does per request.
    // Anthropic declares the first turn's array; Bedrock Converse every tool the session
    // could be offered, so its record grows with the registry.
    for provider in [Provider::Anthropic, Provider::BedrockConverse] {
        let mut g = c.benchmark_group(format!("plan_changes_{}", provider.as_str()));
        for (n, _, r, s) in &fixtures {
            let first = r
                .plan_turn(&TurnRequest {
                    tools_override: ToolsOverride::from_json_str(r#"{"enabled":true}"#).unwrap(),
                    state: s.clone(),
                    provider,
                    tool_changes: ToolChanges::Messages,
                    ..Default::default()
                })
                .unwrap();
            let kept = serde_json::to_string(&first.state.unwrap()).unwrap();
            println!(
                "plan_changes_{}/{n}: the state kept between requests is {} bytes",
                provider.as_str(),
                kept.len()
            );
            g.bench_function(BenchmarkId::from_parameter(n), |b| {
                b.iter(|| {
                    let state = TurnState::from_json_str(black_box(&kept)).unwrap();
                    let plan = r
                        .plan_turn(&TurnRequest {
                            provider,
                            tool_changes: ToolChanges::Messages,
                            ..request(&state)
                        })
                        .unwrap();
                    let next = serde_json::to_string(&plan.state).unwrap();
                    (plan.changes.len(), next.len())
                })
            });
        }
        g.finish();
    }
}

criterion_group! {
    name = expansion;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(2));
    targets = benches
}
criterion_main!(expansion);
