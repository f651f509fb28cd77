//! The model ranker's latency (feature `model`): the hybrid benchmark's registry (at least
//! 1,000 deferred tools) and 20-word query (`benches/hybrid.rs`), with all-MiniLM-L6-v2 run
//! per text. Prints the weights' load, the first search (every deferred tool embedded), a
//! registry change that adds one server of 5 tools (only those embedded), then criterion's
//! warm query. Issue 36's target: ≤ 20 ms per warm 20-word query natively.
//! `benches/js/model-node.mjs` measures the same in wasm under Node.
//!
//! `cargo bench --features model --bench model` (the weights: `source scripts/setup.sh &&
//! setup_model`, or `TOOL_INTENT_MODEL=path/model.safetensors`)

#[path = "support/generator.rs"]
mod generator;
#[path = "support/model_weights.rs"]
mod model_weights;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use tool_intent::search::{ModelRanker, SearchCall};
use tool_intent::Registry;

const TOTAL: usize = 1_020;

fn benches(c: &mut Criterion) {
    let bytes = model_weights::bytes();
    let (_, registry, request, deferred) = generator::search_bench(TOTAL);
    let started = Instant::now();
    let model = ModelRanker::from_safetensors(&bytes).unwrap();
    let load_ms = started.elapsed().as_secs_f64() * 1e3;
    let registry = registry.with_model(model.clone());
    let call = SearchCall::new(generator::SEARCH_20_WORDS).with_ranker(&model);
    let search = |r: &Registry| {
        r.turn(&request)
            .and_then(|mut turn| turn.search(&call))
            .unwrap()
            .result
            .hits
    };
    let started = Instant::now();
    search(&registry);
    let first_s = started.elapsed().as_secs_f64();
    let embedded = model.cached_tools();
    let extra = serde_json::json!({"tools": (0..5).map(|i| serde_json::json!({
        "name": format!("extra_{i}"),
        "description": format!("Extra tool number {i} that files expense reports"),
        "inputSchema": {"type": "object"}})).collect::<Vec<_>>()});
    let changed = registry
        .set_mcp_server("extra", &extra.to_string())
        .unwrap()
        .registry;
    let started = Instant::now();
    search(&changed);
    let change_ms = started.elapsed().as_secs_f64() * 1e3;
    println!(
        "model bench: {deferred} deferred tools, query of {} words; weights parsed in {load_ms:.0} ms; first search (embeds {embedded} tools) {first_s:.1} s; a server of 5 tools added: next search {change_ms:.0} ms ({} tools embedded in all)",
        generator::SEARCH_20_WORDS.split_whitespace().count(),
        model.cached_tools()
    );
    c.bench_function(&format!("search_20_words_model/{deferred}"), |b| {
        b.iter(|| black_box(search(&registry).len()))
    });
}

criterion_group! {
    name = model;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    targets = benches
}
criterion_main!(model);
