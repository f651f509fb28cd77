//! Fits and checks the fast estimator against the exact o200k count of rendered payloads.
//!
//! For the embedded registry, each MCP server of `tests/data/mcp` (alone: every tool
//! resident; merged into the embedded registry: every tool deferred) and all of them merged,
//! it renders the resident array (Anthropic and OpenAI Chat wrappers) and the catalog text,
//! counts both exactly, and prints the estimator's error per half. With `--fit` it searches
//! the estimator constants for the smallest worst-case error first.
//!
//! cargo run --release --features exact-tokens --example calibrate_estimator [-- --fit]

#[path = "../tests/common/fixtures.rs"]
mod fixtures;
#[path = "../benches/support/halves.rs"]
mod halves;

use halves::rendered_halves;
use tool_intent::counter::{
    estimate_tokens_with, BpeCounter, Estimator, EstimatorParams, ESTIMATOR_PARAMS,
};
use tool_intent::{Provider, Registry, TokenCounter, ToolsOverride, TurnRequest, View};

fn registries() -> Vec<(String, Registry)> {
    let mut out = vec![("embedded".to_string(), Registry::embedded())];
    let mut all = Registry::embedded();
    for (name, text) in fixtures::mcp_texts() {
        out.push((name.clone(), Registry::from_json_str(&text).unwrap()));
        out.push((
            format!("{name}+emb"),
            Registry::embedded()
                .set_mcp_server(&name, &text)
                .unwrap()
                .registry,
        ));
        all = all.set_mcp_server(&name, &text).unwrap().registry;
    }
    out.push(("all-merged".to_string(), all));
    out
}

fn main() {
    let fit = std::env::args().any(|a| a == "--fit");
    let exact = BpeCounter::o200k().expect("o200k");
    let full = ToolsOverride::from_json_str(r#"{"toolset":"full"}"#).unwrap();
    let mut halves: Vec<(String, String, usize)> = Vec::new();
    println!(
        "{:<16} {:>5} {:<11} | {:>6} {:>6} {:>6} | {:>5} {:>5} {:>6} | {:>6} {:>5}",
        "registry",
        "tools",
        "provider",
        "arrayX",
        "arrayE",
        "err%",
        "catX",
        "catE",
        "err%",
        "budX",
        "err%"
    );
    for provider in [Provider::Anthropic, Provider::OpenAiChat] {
        for (name, r) in &registries() {
            let request = TurnRequest {
                tools_override: full.clone(),
                view: View::Live,
                provider,
                ..Default::default()
            };
            let (array, catalog) = rendered_halves(r, &request).unwrap();
            let (ax, cx) = (exact.count(&array), exact.count(&catalog));
            let turn = r.turn(&request).unwrap();
            let be = turn.budget(&Estimator).unwrap();
            let bx = turn.budget(&exact).unwrap();
            let err = |a: usize, b: usize| {
                if b == 0 {
                    0.0
                } else {
                    100.0 * (a as f64 - b as f64) / b as f64
                }
            };
            println!(
                "{:<16} {:>5} {:<11} | {:>6} {:>6} {:>6.1} | {:>5} {:>5} {:>6.1} | {:>6} {:>5.1}",
                name,
                r.len(),
                provider.as_str(),
                ax,
                be.resident_tokens,
                err(be.resident_tokens, ax),
                cx,
                be.catalog_tokens,
                err(be.catalog_tokens, cx),
                bx.resident_tokens,
                err(bx.resident_tokens, ax)
            );
            halves.push((format!("{name}/{}/array", provider.as_str()), array, ax));
            if cx > 0 {
                halves.push((format!("{name}/{}/catalog", provider.as_str()), catalog, cx));
            }
        }
    }
    if !fit {
        return;
    }
    let mut best: Option<(f64, EstimatorParams)> = None;
    for word_first in 4..=12 {
        for word_rest in 2..=8 {
            for punct in 1..=5 {
                let p = EstimatorParams {
                    word_first,
                    word_rest,
                    punct,
                };
                let worst = halves
                    .iter()
                    .map(|(_, text, x)| {
                        ((estimate_tokens_with(text, p) as f64 - *x as f64) / *x as f64).abs()
                    })
                    .fold(0.0, f64::max);
                if best.is_none_or(|(b, _)| worst < b) {
                    best = Some((worst, p));
                }
            }
        }
    }
    let (worst, p) = best.unwrap();
    println!(
        "\nbest constants: {p:?}, worst error {:.1}% (current {:?})",
        worst * 100.0,
        ESTIMATOR_PARAMS
    );
}
