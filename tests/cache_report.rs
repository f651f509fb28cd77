//! The issue-14 session (`tests/data/cache-session.json`) through the cache-impact report, with
//! each provider's own prefix rule: Anthropic's native modes never rewrite (deferred tools are
//! outside the prefix), OpenAI Responses' rewrite when a deferred name or description changes,
//! catalog mode rewrites on each promotion turn. The reports are the golden file `tests/golden/cache-report.json`
//! (`UPDATE_GOLDEN=1`), which the CLI test and the Node test compare against.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use tool_intent::cache_report::{CacheReport, CacheScript, Section};
use tool_intent::counter::Estimator;
use tool_intent::{DeferralMode, Provider, TurnRequest};

fn reports() -> Vec<CacheReport> {
    let registry = all_merged();
    let script =
        CacheScript::from_json_str(&read_repo_file("tests/data/cache-session.json")).unwrap();
    let mut out = Vec::new();
    for provider in [Provider::Anthropic, Provider::OpenAiResponses] {
        for mode in DeferralMode::ALL {
            let base = TurnRequest {
                provider,
                mode,
                ..TurnRequest::default()
            };
            out.push(registry.cache_report(&script, &base, &Estimator).unwrap());
        }
    }
    out
}

fn rewritten(r: &CacheReport) -> Vec<usize> {
    r.turns.iter().map(|t| t.rewritten_tokens).collect()
}

#[test]
fn anthropic_native_modes_never_rewrite_when_only_deferred_tools_change() {
    // Anthropic keeps deferred definitions out of the cached prefix: the server joining at
    // turn 12 (one deferred tool) and the deferred tool disabled at turn 15 rewrite nothing,
    // and loads arrive inline in the messages.
    for r in reports()
        .iter()
        .filter(|r| r.provider == Provider::Anthropic && r.mode != DeferralMode::Catalog)
    {
        assert_eq!(r.turns.len(), 20);
        assert_eq!(rewritten(r), vec![0; 20], "{:?}", r.mode);
        assert_eq!(r.rewrites, 0);
        assert!(r.turns[11].events.iter().any(|e| e.contains("added")));
        // The loads of turn 3 grow turn 4's request by their definitions, not just messages.
        let grown = r.turns[3].request_tokens - r.turns[2].request_tokens;
        let plain = r.turns[2].request_tokens - r.turns[1].request_tokens;
        assert!(grown > plain + 100, "{:?}: {grown} vs {plain}", r.mode);
    }
}

#[test]
fn openai_responses_native_modes_rewrite_when_a_deferred_name_or_description_changes() {
    // OpenAI Responses shows a deferred function's name and description up front: the turn-12
    // newcomer and the turn-15 removal change the prefix; loads never do.
    for r in reports()
        .iter()
        .filter(|r| r.provider == Provider::OpenAiResponses && r.mode != DeferralMode::Catalog)
    {
        let w = rewritten(r);
        for turn in (2..=11).chain(13..=14).chain(16..=20) {
            assert_eq!(w[turn - 1], 0, "{:?} turn {turn}: {w:?}", r.mode);
        }
        assert!(w[11] > 0 && r.turns[11].section == Section::Tools, "{w:?}");
        assert!(w[14] > 0 && r.turns[14].section == Section::Tools, "{w:?}");
        assert_eq!(r.rewrites, 2);
    }
}

#[test]
fn catalog_mode_rewrites_once_on_each_promotion_turn() {
    for r in reports().iter().filter(|r| r.mode == DeferralMode::Catalog) {
        let w = rewritten(r);
        // Loads on turns 3 and 9 join the array at the next turn boundary.
        for turn in [4, 10] {
            assert!(w[turn - 1] > 0, "{:?} turn {turn}: {w:?}", r.provider);
            assert_eq!(r.turns[turn - 1].section, Section::Tools);
            assert!(r.turns[turn - 1]
                .events
                .iter()
                .any(|e| e.starts_with("joined")));
        }
        // Nothing else changes on the turns around them.
        for turn in [2, 3, 5, 6, 7, 8, 9, 11, 13, 14] {
            assert_eq!(w[turn - 1], 0, "{:?} turn {turn}: {w:?}", r.provider);
        }
        // The new server's tool is deferred: the catalog in the system prompt changes.
        assert!(w[11] > 0 && r.turns[11].section == Section::System, "{w:?}");
        assert!(w[14] > 0);
        assert_eq!(r.rewrites, 4);
    }
}

#[test]
fn reports_match_the_golden_file() {
    let text = serde_json::to_string_pretty(&reports()).unwrap() + "\n";
    check_golden("cache-report.json", &text);
}

/// A counter that counts what it is asked to read: the bytes the report hands it.
struct BytesRead(std::cell::Cell<usize>);

impl tool_intent::TokenCounter for BytesRead {
    fn name(&self) -> &'static str {
        "bytes-read"
    }
    fn count(&self, text: &str) -> usize {
        self.0.set(self.0.get() + text.len());
        Estimator.count(text)
    }
}

/// The report is linear in every case (issue 47): a session whose catalog changes at its end
/// (the last deferred tool toggled every 10th turn; a server joining) reads each byte of its
/// history a bounded number of times, however long the session is. Before the fix the whole
/// history was counted again on each such turn: bytes read grew with the square of the turns.
#[test]
fn a_catalog_that_changes_at_its_end_is_counted_in_linear_time() {
    use tool_intent::Registry;
    let registry = Registry::embedded();
    let last = registry
        .plan_turn(&TurnRequest::default())
        .unwrap()
        .catalog()
        .last()
        .unwrap()
        .to_string();
    let per_turn = |turns: usize| -> f64 {
        let script: Vec<serde_json::Value> = (0..turns)
            .map(|k| match k % 10 {
                9 => serde_json::json!({"override": {"enabled": true, "disabled": [last]}}),
                4 => serde_json::json!({"override": {"enabled": true}}),
                _ => serde_json::json!({}),
            })
            .collect();
        let script = CacheScript::from_value(&serde_json::json!({
            "systemPromptBytes": 4000, "messageBytes": 2000, "turns": script,
        }))
        .unwrap();
        let counter = BytesRead(std::cell::Cell::new(0));
        let report = registry
            .cache_report(&script, &TurnRequest::default(), &counter)
            .unwrap();
        assert!(
            report.rewrites >= turns / 10,
            "{} rewrites",
            report.rewrites
        );
        counter.0.get() as f64 / turns as f64
    };
    let (short, long) = (per_turn(100), per_turn(400));
    // Each turn reads its own 2,000 new bytes and the parts that changed, whatever came before.
    assert!(
        long < short * 1.2,
        "bytes read per turn: {short:.0} at 100 turns, {long:.0} at 400"
    );
}
