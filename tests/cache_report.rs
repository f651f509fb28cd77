//! The issue-14 session (`tests/data/cache-session.json`) through the cache-impact report:
//! native-client never rewrites the cached prefix on a promotion, catalog mode rewrites it on
//! each promotion turn. The reports are the golden file `tests/golden/cache-report.json`
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
fn native_client_rewrites_only_when_the_registry_or_the_intent_changes() {
    for r in reports()
        .iter()
        .filter(|r| r.mode == DeferralMode::NativeClient)
    {
        let w = rewritten(r);
        assert_eq!(r.turns.len(), 20);
        for turn in (2..=11).chain(13..=14).chain(16..=20) {
            assert_eq!(w[turn - 1], 0, "{:?} turn {turn}: {w:?}", r.provider);
        }
        // Turn 12: the new server's tool is declared (deferred) at the end of the tools.
        assert!(w[11] > 0 && r.turns[11].section == Section::Tools, "{w:?}");
        // Turn 15: a disabled tool leaves the array; the report says what it cost.
        assert!(w[14] > 0 && r.turns[14].section == Section::Tools, "{w:?}");
        assert_eq!(r.rewrites, 2);
        assert_eq!(r.rewritten_tokens, w[11] + w[14]);
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
