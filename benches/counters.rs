//! Token counter throughput: the vocabulary-free estimator against the exact o200k and
//! cl100k BPE, on the rendered resident array and the catalog text of every MCP fixture
//! merged into the embedded registry. Criterion reports time and bytes per second.
//!
//! cargo bench --features exact-tokens --bench counters

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
#[path = "../tests/common/fixtures.rs"]
mod fixtures;
#[path = "support/halves.rs"]
mod halves;

use halves::rendered_halves;
use tool_intent::counter::{BpeCounter, Estimator};
use tool_intent::{Registry, TokenCounter, ToolsOverride, TurnRequest, View};

fn texts() -> Vec<(&'static str, String)> {
    let mut r = Registry::embedded();
    for (name, text) in fixtures::mcp_texts() {
        r = r.set_mcp_server(&name, &text).unwrap().registry;
    }
    // Everything resident (no tool_search) gives the largest array to count.
    let request = |o: &str| TurnRequest {
        tools_override: ToolsOverride::from_json_str(o).unwrap(),
        view: View::Live,
        ..Default::default()
    };
    let (array, _) = rendered_halves(
        &r,
        &request(r#"{"toolset":"full","disabled":["tool_search"]}"#),
    )
    .unwrap();
    let (_, catalog) = rendered_halves(&r, &request(r#"{"toolset":"full"}"#)).unwrap();
    vec![("array", array), ("catalog", catalog)]
}

fn counters(c: &mut Criterion) {
    let o200k = BpeCounter::o200k().unwrap();
    let cl100k = BpeCounter::cl100k().unwrap();
    let counters: [(&str, &dyn TokenCounter); 3] = [
        ("estimate", &Estimator),
        ("o200k", &o200k),
        ("cl100k", &cl100k),
    ];
    for (what, text) in texts() {
        let mut g = c.benchmark_group(format!("count_{what}"));
        g.throughput(Throughput::Bytes(text.len() as u64));
        for (name, counter) in counters {
            eprintln!(
                "{what}: {} bytes, {name} counts {} tokens",
                text.len(),
                counter.count(&text)
            );
            g.bench_function(name, |b| b.iter(|| counter.count(black_box(&text))));
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(2));
    targets = counters
}
criterion_main!(benches);
