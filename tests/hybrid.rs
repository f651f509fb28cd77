//! The hybrid ranker (feature `hybrid`): the search rules hold under it, it finds tools from
//! requests that share few words with them (better than the keyword ranker on the same
//! requests), its BFCL fixture figures stay above the BM25 baseline, keyword weight 1 is the
//! keyword ranking, and a registry update reaches its embeddings. Cross-target equality is in
//! `tests/cross_target.rs` (`search-hybrid.json`).

#![cfg(all(feature = "hybrid", not(target_arch = "wasm32")))]

mod common;
#[path = "../benches/support/retrieval.rs"]
mod retrieval;

use common::*;
use tool_intent::search::{HybridRanker, KeywordRanker, RankerKind};
use tool_intent::{Ranker, Registry, SearchCall, ToolsOverride, TurnRequest};

fn run(r: &Registry, o: &str, query: &str, limit: usize, ranker: &dyn Ranker) -> Vec<String> {
    let request = TurnRequest {
        tools_override: ToolsOverride::from_json_str(o).unwrap(),
        ..Default::default()
    };
    let call = SearchCall::new(query).with_limit(limit).with_ranker(ranker);
    r.turn(&request)
        .and_then(|mut turn| turn.search(&call))
        .unwrap()
        .result
        .hits
}

fn hybrid(r: &Registry, query: &str, limit: usize) -> Vec<String> {
    run(r, "null", query, limit, &HybridRanker::default())
}

#[test]
fn select_required_terms_exact_names_and_deny_rules_hold() {
    let r = all_merged();
    // select: loads exactly the names given.
    assert_eq!(
        hybrid(
            &r,
            "select:mcp__git__git_status,mcp__time__get_current_time",
            5
        ),
        ["mcp__git__git_status", "mcp__time__get_current_time"]
    );
    // +term: every hit has it (by its keyword index), however close its embedding.
    let with_branch = hybrid(&r, "+branch make a new one", 10);
    assert!(!with_branch.is_empty());
    for h in &with_branch {
        let t = r.tool_named(h).unwrap();
        let text = format!("{} {} {}", t.name, t.description, t.parameters()).to_lowercase();
        assert!(text.contains("branch"), "{h}");
    }
    assert!(hybrid(&r, "+zyzzyva anything", 5).is_empty());
    // A tool named in the query comes first, as with the keyword ranker.
    assert_eq!(
        hybrid(&r, "mcp__github__createIssue", 5)[0],
        "mcp__github__create_issue"
    );
    assert_eq!(
        hybrid(&r, "read multiple files", 5)[0],
        "mcp__filesystem__read_multiple_files"
    );
    // A denied tool is never a hit, and resident tools are not candidates.
    let hits = run(
        &r,
        r#"{"disabled":["mcp__github__create_issue"]}"#,
        "create issue",
        50,
        &HybridRanker::default(),
    );
    assert!(
        !hits.iter().any(|h| h == "mcp__github__create_issue"),
        "{hits:?}"
    );
    assert!(!hybrid(&r, "read a file", 50)
        .iter()
        .any(|h| h == "read_file"));
}

/// Requests written without the tools' words, each with the tool it needs.
const PARAPHRASES: [(&str, &str); 10] = [
    (
        "show me what changed in my working tree",
        "mcp__git__git_status",
    ),
    ("grab the contents of this web page", "mcp__fetch__fetch"),
    (
        "remind me what the clock says in Sydney",
        "mcp__time__get_current_time",
    ),
    (
        "think through this problem one step at a time",
        "mcp__seqthink__sequentialthinking",
    ),
    (
        "put a new folder next to the docs",
        "mcp__filesystem__create_directory",
    ),
    (
        "snap a picture of what the browser shows",
        "mcp__playwright__browser_take_screenshot",
    ),
    ("what are the last few commits", "mcp__git__git_log"),
    (
        "open a ticket about the login bug",
        "mcp__github__create_issue",
    ),
    (
        "type my name into the form field",
        "mcp__playwright__browser_type",
    ),
    (
        "what time is it in Tokyo when it is noon in Paris",
        "mcp__time__convert_time",
    ),
];

#[test]
fn paraphrased_requests_reach_their_tools() {
    let r = all_merged();
    let found = |ranker: &dyn Ranker| {
        PARAPHRASES
            .iter()
            .filter(|(q, tool)| run(&r, "null", q, 5, ranker).iter().any(|h| h == tool))
            .map(|(q, _)| *q)
            .collect::<Vec<_>>()
    };
    let (ours, keyword) = (found(&HybridRanker::default()), found(&KeywordRanker));
    println!(
        "top 5: hybrid {}/10 {ours:?}; keyword {}/10 {keyword:?}",
        ours.len(),
        keyword.len()
    );
    assert!(
        ours.len() >= 8,
        "hybrid found {} of 10: {ours:?}",
        ours.len()
    );
    assert!(
        ours.len() > keyword.len(),
        "hybrid {} vs keyword {}",
        ours.len(),
        keyword.len()
    );
}

#[test]
fn bfcl_fixture_figures_stay_above_bm25() {
    let (fixture, registry) = bfcl_fixture();
    let queries = fixture["queries"].as_array().unwrap();
    let f = retrieval::evaluate(&registry, queries, &HybridRanker::default()).unwrap();
    let bm25 = &fixture["bm25"];
    println!(
        "fixture, hybrid: R@1 {:.4} R@5 {:.4} MRR@10 {:.4}; BM25 {bm25}",
        f.recall_at_1, f.recall_at_5, f.mrr_at_10
    );
    for (ours, key) in [
        (f.recall_at_1, "recall@1"),
        (f.recall_at_5, "recall@5"),
        (f.mrr_at_10, "mrr@10"),
    ] {
        assert!(
            ours > bm25[key].as_f64().unwrap(),
            "{key} {ours} not above BM25 {}",
            bm25[key]
        );
    }
}

#[test]
fn requests_for_several_tools_are_embedded_clause_by_clause() {
    // The fixture's requests that need two or more tools (112 of 300). Embedded whole, a
    // request for two things lies between its tools and the embeddings pushed the second one
    // (which the keyword ranking found) out of the first five: Recall@5 0.8646 here before
    // clauses were embedded one by one too (src/search/hybrid/mod.rs; keyword 0.9077).
    const BEFORE_CLAUSES: f64 = 0.8646;
    let (fixture, registry) = bfcl_fixture();
    let several: Vec<serde_json::Value> = fixture["queries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["relevant"].as_array().is_some_and(|r| r.len() > 1))
        .cloned()
        .collect();
    assert_eq!(several.len(), 112);
    let keyword = retrieval::evaluate(&registry, &several, &KeywordRanker).unwrap();
    let hybrid = retrieval::evaluate(&registry, &several, &HybridRanker::default()).unwrap();
    println!(
        "requests for several tools ({}): Recall@5 keyword {:.4}, hybrid {:.4}",
        several.len(),
        keyword.recall_at_5,
        hybrid.recall_at_5
    );
    assert!(
        hybrid.recall_at_5 > BEFORE_CLAUSES + 0.01,
        "hybrid Recall@5 {} on requests for several tools: clause embeddings lost?",
        hybrid.recall_at_5
    );
}

#[test]
fn keyword_weight_one_is_the_keyword_ranking() {
    let (fixture, r) = bfcl_fixture();
    let only_keywords = HybridRanker {
        keyword_weight: 1.0,
    };
    let mut differ = 0;
    for q in fixture["queries"].as_array().unwrap() {
        let q = q["query"].as_str().unwrap();
        assert_eq!(
            run(&r, "null", q, 10, &only_keywords),
            run(&r, "null", q, 10, &KeywordRanker),
            "{q}"
        );
        differ += usize::from(
            run(&r, "null", q, 10, &HybridRanker::default())
                != run(&r, "null", q, 10, &KeywordRanker),
        );
    }
    // And the default weight does change rankings.
    assert!(
        differ > 30,
        "only {differ} of 300 rankings differ from the keyword ranking"
    );
}

#[test]
fn a_registry_update_reaches_the_embeddings() {
    let r = all_merged();
    let query = "how many euros do I get for 20 dollars";
    assert!(!hybrid(&r, query, 5).iter().any(|h| h.contains("exchange")));
    let list = r#"{"tools":[{"name":"convert_currency","description":"Convert an amount of money from one currency to another at today's rate.","inputSchema":{"type":"object","properties":{"amount":{"type":"number"}}}}]}"#;
    let r = r.set_mcp_server("exchange", list).unwrap().registry;
    // First: its only keyword match ("get", in many tools' names) must not outweigh the
    // embedding (the reason the keyword half is not divided by the best candidate's).
    assert_eq!(hybrid(&r, query, 5)[0], "mcp__exchange__convert_currency");
}

#[test]
fn rankers_by_name() {
    assert_eq!(RankerKind::parse("keyword").unwrap(), RankerKind::Keyword);
    assert_eq!(RankerKind::parse("hybrid").unwrap(), RankerKind::Hybrid);
    let e = RankerKind::parse("semantic").unwrap_err();
    assert_eq!((e.code(), e.input()), ("invalid_argument", Some("ranker")));
    assert!(e.to_string().contains("keyword, hybrid"), "{e}");
    assert!(RankerKind::Hybrid.ranker().is_ok());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// Any text is a query the hybrid ranker answers without panicking (in wasm a panic
    /// kills the module): combining marks, CJK, controls, emoji, long words. Hits are
    /// deferred tools, each once, at most the limit.
    #[test]
    fn any_text_is_a_query(query in "(\\PC|[\u{300}-\u{36f}\u{4e00}-\u{4e10}\u{0}-\u{1f}+_.-]){1,120}", limit in 1usize..12) {
        let r = hybrid_test_registry();
        if let Ok(outcome) = r.turn(&TurnRequest::default()).and_then(|mut turn| turn.search(&SearchCall::new(&query).with_limit(limit).with_ranker(&HybridRanker::default()))) {
            let hits = outcome.result.hits;
            proptest::prop_assert!(hits.len() <= limit);
            let mut unique = hits.clone();
            unique.sort();
            unique.dedup();
            proptest::prop_assert_eq!(unique.len(), hits.len());
        }
    }
}

fn hybrid_test_registry() -> &'static Registry {
    static R: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
    R.get_or_init(all_merged)
}
