//! The cross-target golden test, native half and the one place cases are resolved.
//!
//! It expands every case of `tests/golden/cross-target-cases.json` (registry recipes ×
//! overrides × option variants) into fully resolved rows — registry recipe, override, options
//! (with `loadFirstDeferred` replaced by the actual name) — with the payload's fingerprint,
//! byte length and catalog fingerprint, and compares them with `tests/golden/cross-target.json`
//! (regenerate with `UPDATE_GOLDEN=1`). The wasm runners (`tests/js/golden.test.mjs` in Node,
//! `bindings/wasm/tests/wasm_suite` in Node and Chrome) and Python's `test_golden.py` loop over those rows and
//! call `planTurn` / `plan_turn` with each row's own override and options (`loaded` read as a
//! turn state, see [`turn_options`]), so a pass on every target means equal bytes everywhere.

#![cfg(not(target_arch = "wasm32"))]

mod common;
#[cfg(feature = "model")]
#[path = "../benches/support/model_weights.rs"]
mod model_weights;

use common::*;
use serde_json::{json, Value};
use tool_intent::turn::expand::{expand, ExpandContext};
use tool_intent::turn::{CallOptions, SearchOptions};
use tool_intent::{ToolsOverride, TurnRequest};

/// A row's options as the library reads them: the rows' `loaded` (a list of names loaded
/// earlier) stands for a turn state that loaded them and began a turn, which every runner
/// (Node, Chrome, Python) builds the same way.
fn turn_options(row_options: &Value) -> Value {
    let mut options = row_options.clone();
    if let Some(loaded) = options.as_object_mut().and_then(|o| o.remove("loaded")) {
        options["state"] = json!({"loaded": loaded, "frozen": loaded, "turn": 1});
    }
    options
}

#[test]
fn cross_target_fingerprints() {
    let cases: Value =
        serde_json::from_str(&read_repo_file("tests/golden/cross-target-cases.json")).unwrap();
    let mut rows = Vec::new();
    for (recipe, r) in golden_registries() {
        for (oi, o) in cases["overrides"].as_array().unwrap().iter().enumerate() {
            for (vi, variant) in cases["variants"].as_array().unwrap().iter().enumerate() {
                let mut options = variant.clone();
                let load_first = options
                    .as_object_mut()
                    .unwrap()
                    .remove("loadFirstDeferred")
                    .is_some();
                if load_first {
                    let e = expand(
                        &r,
                        &ToolsOverride::from_value(o).unwrap(),
                        ExpandContext::default(),
                    )
                    .unwrap();
                    let first: Vec<String> = e.names(e.deferred()).into_iter().take(1).collect();
                    options["loaded"] = json!(first);
                }
                let req = TurnRequest::from_values(o, &turn_options(&options)).unwrap();
                let p = r.plan_turn(&req).unwrap();
                rows.push(json!({
                    "case": format!("{recipe}|o{oi}|v{vi}"),
                    "registry": recipe,
                    "override": o,
                    "options": options,
                    "fingerprint": p.fingerprint,
                    "bytes": p.payload.len(),
                    "catalog": tool_intent::fingerprint(p.catalog_text.as_bytes()),
                    "requestFields": p.request_fields,
                }));
            }
        }
    }
    let text = serde_json::to_string_pretty(&rows).unwrap() + "\n";
    check_golden("cross-target.json", &text);
    assert_eq!(rows.len(), 21 * 9 * 10);
}

/// Keyword queries of the search golden on the `all` registry: one or more per ranking rule
/// (exact names in every spelling, stemming, stop words, `+` terms, camelCase, several
/// intents in one query, a query that matches nothing).
const SEARCH_QUERIES: [&str; 14] = [
    "create issue",
    "mcp__github__createIssue",
    "creating issues and adding comments",
    "please read the file for me",
    "+branch create",
    "+zyzzyva anything",
    "git diff staged changes",
    "navigate to a page, take a screenshot and click a button",
    "ReadMultipleFiles",
    "what time is it in Tokyo",
    "knowledge graph entities relations",
    "book a flight and a hotel",
    "search code in repositories",
    "select:mcp__git__git_status,nope",
];

/// The search half of the cross-target golden: hits and result text of keyword queries on
/// the `all` registry (two overrides) and of the first 100 BFCL fixture queries, written to
/// `tests/golden/search.json` (`UPDATE_GOLDEN=1`) and checked by the wasm runners the same
/// way as the payload rows. BM25F scores are floating point: equal hits on every target show
/// the arithmetic is the same.
#[test]
fn cross_target_search_hits() {
    let rows = search_rows(None, &[]);
    let text = serde_json::to_string_pretty(&rows).unwrap() + "\n";
    check_golden("search.json", &text);
    assert_eq!(rows.len(), 2 * SEARCH_QUERIES.len() + 100);
}

/// Requests that share few words with the tool they need: where the hybrid ranker's
/// embeddings decide the order.
#[cfg(any(feature = "hybrid", feature = "model"))]
const PARAPHRASES: [&str; 8] = [
    "how many euros do I get for 20 dollars",
    "is it going to rain in Lisbon this weekend",
    "remember that my sister's birthday is in May",
    "show me what changed in my working tree",
    "grab the contents of this web page",
    "put a new folder next to the docs",
    "remind me what the clock says in Sydney",
    "think through this problem one step at a time",
];

/// The hybrid ranker's rows (feature `hybrid`): the same queries plus [`PARAPHRASES`], ranked
/// `{"ranker": "hybrid"}`, written to `tests/golden/search-hybrid.json` and checked by the
/// tool-intent-hybrid package in Node (`tests/js/hybrid.test.mjs`) and Chrome
/// (`bindings/wasm/tests/wasm_suite`, built with the feature) and by the `tool-intent[hybrid]` module in
/// Python. Embeddings, cosines and fused scores are floating point: equal hits everywhere
/// show the arithmetic is the same.
#[cfg(feature = "hybrid")]
#[test]
fn cross_target_hybrid_search_hits() {
    let rows = search_rows(Some("hybrid"), &PARAPHRASES);
    let text = serde_json::to_string_pretty(&rows).unwrap() + "\n";
    check_golden("search-hybrid.json", &text);
    assert_eq!(
        rows.len(),
        2 * (SEARCH_QUERIES.len() + PARAPHRASES.len()) + 100
    );
    // The hybrid ranking is not the keyword ranking under another name.
    let keyword = search_rows(None, &PARAPHRASES);
    let differ = rows
        .iter()
        .zip(&keyword)
        .filter(|(h, k)| h["hits"] != k["hits"])
        .count();
    assert!(
        differ > 20,
        "only {differ} rows differ from the keyword ranking"
    );
}

/// The model ranker's rows (feature `model`): the `all` registry's queries and
/// [`PARAPHRASES`] ranked `{"ranker": "model"}` with all-MiniLM-L6-v2 (the weights from
/// `setup_model`; not the BFCL pool: embedding its 709 tools would take minutes in wasm),
/// written to `tests/golden/search-model.json` and checked by the tool-intent-hybrid package
/// in Node (`tests/js/model.test.mjs`), by the wasm suite in Node and Chrome and by the
/// `tool-intent[hybrid]` module in Python (`python/tests/test_model.py`). Every row's hits
/// come from 384-dimensional float embeddings of a six-layer network: equal hits everywhere
/// show the arithmetic is the same.
#[cfg(feature = "model")]
#[test]
fn cross_target_model_search_hits() {
    let bytes = model_weights::bytes();
    let model = tool_intent::search::ModelRanker::from_safetensors(&bytes).unwrap();
    let rows = search_rows_on(Some("model"), &PARAPHRASES, Some(&model), 0);
    let text = serde_json::to_string_pretty(&rows).unwrap() + "\n";
    check_golden("search-model.json", &text);
    assert_eq!(rows.len(), 2 * (SEARCH_QUERIES.len() + PARAPHRASES.len()));
    let keyword = search_rows_on(None, &PARAPHRASES, None, 0);
    let differ = rows
        .iter()
        .zip(&keyword)
        .filter(|(m, k)| m["hits"] != k["hits"])
        .count();
    assert!(
        differ > 10,
        "only {differ} rows differ from the keyword ranking"
    );
}

/// Search rows: each query on the `all` registry under two overrides (`extra` queries too),
/// then the first 100 BFCL fixture queries; `ranker` is the search option (None: default).
fn search_rows(ranker: Option<&str>, extra: &[&str]) -> Vec<Value> {
    search_rows_on(ranker, extra, None, 100)
}

/// [`search_rows`] with the registries given `model` (feature `model`) and `bfcl` fixture
/// queries.
fn search_rows_on(
    ranker: Option<&str>,
    extra: &[&str],
    #[cfg(feature = "model")] model: Option<&tool_intent::search::ModelRanker>,
    #[cfg(not(feature = "model"))] model: Option<&()>,
    bfcl_queries: usize,
) -> Vec<Value> {
    let (fixture, bfcl) = bfcl_fixture();
    let all = golden_registries()
        .into_iter()
        .find(|(recipe, _)| recipe == "all")
        .unwrap()
        .1;
    #[cfg(feature = "model")]
    let (all, bfcl) = match model {
        Some(m) => (all.with_model(m.clone()), bfcl.with_model(m.clone())),
        None => (all, bfcl),
    };
    #[cfg(not(feature = "model"))]
    let _ = model;
    let mut cases: Vec<(&str, &tool_intent::Registry, Value, String, usize)> = Vec::new();
    for o in [
        Value::Null,
        json!({"disabled": ["mcp__github__create_issue"]}),
    ] {
        for q in SEARCH_QUERIES.iter().chain(extra) {
            cases.push(("all", &all, o.clone(), q.to_string(), 5));
        }
    }
    for q in fixture["queries"]
        .as_array()
        .unwrap()
        .iter()
        .take(bfcl_queries)
    {
        let text = q["query"].as_str().unwrap().to_string();
        cases.push(("bfcl", &bfcl, Value::Null, text, 10));
    }
    cases
        .into_iter()
        .enumerate()
        .map(|(k, (recipe, r, o, query, limit))| {
            search_row(
                &format!("search|{recipe}|{k}"),
                recipe,
                r,
                o,
                &query,
                limit,
                ranker,
                false,
            )
        })
        .collect()
}

/// One search row: the search run with its options (`limit`, `ranker` when given, `abstain`
/// when true) as every surface reads them, its hits, a fingerprint of its text, and (with
/// `abstain`) its warning codes.
#[allow(clippy::too_many_arguments)]
fn search_row(
    case: &str,
    recipe: &str,
    r: &tool_intent::Registry,
    o: Value,
    query: &str,
    limit: usize,
    ranker: Option<&str>,
    abstain: bool,
) -> Value {
    let mut options = json!({"limit": limit});
    if let Some(ranker) = ranker {
        options["ranker"] = json!(ranker);
    }
    if abstain {
        options["abstain"] = json!(true);
    }
    let req = TurnRequest::from_values(&o, &Value::Null).unwrap();
    let search = SearchOptions::from_object(&options).unwrap();
    let chosen = search.ranker_for(r).unwrap();
    let call = search.call(query, &chosen);
    let outcome = r
        .turn(&req)
        .and_then(|mut turn| turn.search(&call))
        .unwrap();
    let mut row = json!({
        "case": case,
        "registry": recipe,
        "override": o,
        "query": query,
        "limit": limit,
        "hits": outcome.result.hits,
        "text": tool_intent::fingerprint(outcome.result.text.as_bytes()),
    });
    if let Some(ranker) = ranker {
        row["ranker"] = json!(ranker);
    }
    if abstain {
        row["abstain"] = json!(true);
        let codes: Vec<&str> = outcome
            .result
            .warnings
            .iter()
            .map(|w| w.code.as_str())
            .collect();
        row["warnings"] = json!(codes);
    }
    row
}

/// Requests for the abstention rows on the `all` registry: some no tool there fits (a
/// restaurant, the tide, a translation, a pizza), some that fit, one naming a tool and a
/// `select:` (those two never abstain), and a `+term` no tool has.
#[cfg(feature = "model")]
const ABSTAIN_QUERIES: [&str; 10] = [
    "book a table for two at an Italian restaurant tonight",
    "what is the tide at Brighton tomorrow morning",
    "translate this paragraph into Japanese",
    "order a large pepperoni pizza with extra cheese",
    "create issue",
    "show me what changed in my working tree",
    "remind me what the clock says in Sydney",
    "mcp__github__createIssue",
    "select:mcp__git__git_status",
    "+zyzzyva anything",
];

/// The abstention rows (`{"abstain": true}`), written to `tests/golden/search-abstain.json`:
/// [`ABSTAIN_QUERIES`] on the `all` registry under each ranker, and for the keyword and hybrid
/// rankers the first 20 BFCL fixture queries with their tools in the pool and disabled (the
/// model's rows stay on `all`: embedding the BFCL pool takes minutes in wasm). Replayed by
/// the tool-intent-hybrid and tool-intent-exact packages in Node (`tests/js/abstain.test.mjs`),
/// the wasm suite in Node and Chrome, and both Python modules; the hits, the text (with the
/// score printed in it) and the `search_abstained` warnings must match everywhere.
#[cfg(feature = "model")]
#[test]
fn cross_target_abstain_search() {
    let bytes = model_weights::bytes();
    let model = tool_intent::search::ModelRanker::from_safetensors(&bytes).unwrap();
    let (fixture, bfcl) = bfcl_fixture();
    let all = golden_registries()
        .into_iter()
        .find(|(recipe, _)| recipe == "all")
        .unwrap()
        .1
        .with_model(model);
    let mut rows = Vec::new();
    for ranker in ["keyword", "hybrid", "model"] {
        for o in [
            Value::Null,
            json!({"disabled": ["mcp__github__create_issue"]}),
        ] {
            for q in ABSTAIN_QUERIES {
                let case = format!("abstain|{ranker}|all|{}", rows.len());
                rows.push(search_row(
                    &case,
                    "all",
                    &all,
                    o.clone(),
                    q,
                    5,
                    Some(ranker),
                    true,
                ));
            }
        }
        if ranker == "model" {
            continue;
        }
        for q in fixture["queries"].as_array().unwrap().iter().take(20) {
            let relevant: Vec<String> = q["relevant"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| format!("mcp__b__{}", n.as_str().unwrap()))
                .collect();
            for o in [Value::Null, json!({ "disabled": relevant })] {
                let case = format!("abstain|{ranker}|bfcl|{}", rows.len());
                let query = q["query"].as_str().unwrap();
                rows.push(search_row(
                    &case,
                    "bfcl",
                    &bfcl,
                    o,
                    query,
                    5,
                    Some(ranker),
                    true,
                ));
            }
        }
    }
    let text = serde_json::to_string_pretty(&rows).unwrap() + "\n";
    check_golden("search-abstain.json", &text);
    assert_eq!(rows.len(), 3 * 2 * ABSTAIN_QUERIES.len() + 2 * 2 * 20);
    let abstained = |ranker: &str| {
        rows.iter()
            .filter(|r| r["ranker"] == ranker && r["warnings"] == json!(["search_abstained"]))
            .count()
    };
    // Each ranker abstains somewhere and not everywhere; a named (enabled) tool and select:
    // never do.
    for ranker in ["keyword", "hybrid", "model"] {
        let n = abstained(ranker);
        assert!(n > 0 && n < 40, "{ranker} abstained on {n} rows");
    }
    for row in rows.iter().filter(|r| {
        let q = r["query"].as_str().unwrap();
        q.starts_with("select:") || (q == "mcp__github__createIssue" && r["override"].is_null())
    }) {
        assert_eq!(row["warnings"], json!([]), "{}", row["case"]);
    }
}
