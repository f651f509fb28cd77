//! The hybrid ranker's latency (feature `hybrid`): a 20-word query against a registry with
//! at least 1,000 deferred tools once its index exists, and the index build itself (the
//! first hybrid query on a fresh registry: keyword index, every tool's embedding, the query).
//! Issue targets: ≤ 20 ms per query and ≤ 1 s per index natively. The keyword ranker's figures
//! on the same registry are printed beside them. `scripts/retrieval-bench.sh` runs this and
//! `benches/js/hybrid-node.mjs` (the same in wasm under Node).
//!
//! `cargo bench --features hybrid --bench hybrid`

#[path = "support/generator.rs"]
mod generator;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use tool_intent::search::{HybridRanker, KeywordRanker, Ranker, SearchCall};
use tool_intent::Registry;

/// Tools in the generated registry: its 17 built-in tools plus 1,003 generated ones, of which
/// at least 1,000 are deferred (checked below).
const TOTAL: usize = 1_020;

fn benches(c: &mut Criterion) {
    let (doc, registry, request, deferred) = generator::search_bench(TOTAL);
    println!(
        "hybrid bench: {deferred} deferred tools of {TOTAL}, query of {} words",
        generator::SEARCH_20_WORDS.split_whitespace().count()
    );
    let hybrid = HybridRanker::default();
    // The process's first hybrid query also parses the embedding table (once per process).
    let started = std::time::Instant::now();
    registry
        .turn(&request)
        .and_then(|mut turn| {
            turn.search(&SearchCall::new(generator::SEARCH_20_WORDS).with_ranker(&hybrid))
        })
        .unwrap();
    println!(
        "hybrid bench: first hybrid query of the process (table parse + indexes + query): {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    // Each query below runs through a fresh `Turn` (expand and the provider split included):
    // the turn alone, so the query's own share can be read off.
    c.bench_function(&format!("turn_alone/{deferred}"), |b| {
        b.iter(|| black_box(registry.turn(&request).unwrap()))
    });
    let rankers: [(&str, &dyn Ranker); 2] = [("hybrid", &hybrid), ("keyword", &KeywordRanker)];
    for (name, ranker) in rankers {
        let call = SearchCall::new(generator::SEARCH_20_WORDS).with_ranker(ranker);
        // Warm: the indexes exist.
        registry
            .turn(&request)
            .and_then(|mut turn| turn.search(&call))
            .unwrap();
        c.bench_function(&format!("search_20_words_{name}/{deferred}"), |b| {
            b.iter(|| {
                black_box(
                    registry
                        .turn(&request)
                        .and_then(|mut turn| turn.search(&call))
                        .unwrap()
                        .result
                        .hits
                        .len(),
                )
            })
        });
        // A fresh registry's first query builds its indexes (the registry itself is made in
        // the untimed setup).
        let text = serde_json::to_string(&doc).unwrap();
        c.bench_function(&format!("index_build_{name}/{deferred}"), |b| {
            b.iter_batched(
                || Registry::from_json_str(&text).unwrap(),
                |r| {
                    let hits = r
                        .turn(&request)
                        .and_then(|mut turn| turn.search(&call))
                        .unwrap()
                        .result
                        .hits;
                    (r, hits)
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
}

criterion_group! {
    name = hybrid;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(2));
    targets = benches
}
criterion_main!(hybrid);
