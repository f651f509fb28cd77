//! The budget in the native modes counts what is sent: deferred definitions are declared with
//! `defer_loading` and not billed until loaded, there is no catalog, and the declared search
//! tool (the provider's in `native`, ours in `native-client`) is counted.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use tool_intent::counter::Estimator;
use tool_intent::turn::budget::Placement;
use tool_intent::{DeferralMode, Provider, TokenCounter, TurnRequest, TurnState};

#[test]
fn native_budgets_count_what_is_declared_and_billed() {
    let r = all_merged();
    let state = r.begin_turn(
        &tool_intent::record_loaded(
            &TurnState::default(),
            &["mcp__github__create_issue".to_string()],
        )
        .unwrap(),
    );
    for provider in [Provider::Anthropic, Provider::OpenAiResponses] {
        let budget = |mode| {
            let req = TurnRequest {
                provider,
                mode,
                state: state.clone(),
                ..Default::default()
            };
            r.turn(&req)
                .and_then(|turn| turn.budget(&Estimator))
                .unwrap()
        };
        let catalog = budget(DeferralMode::Catalog);
        for mode in [DeferralMode::Native, DeferralMode::NativeClient] {
            let b = budget(mode);
            assert_eq!(b.catalog_tokens, 0, "{mode:?}: no catalog is sent");
            for row in &b.rows {
                match row.placement {
                    Placement::Deferred => {
                        assert_eq!(row.tokens, 0, "{}: not billed until loaded", row.name)
                    }
                    // The loaded tool is billed (the provider expands its definition).
                    Placement::Promoted => assert!(row.tokens > 0),
                    Placement::Resident => assert!(row.tokens > 0, "{}", row.name),
                }
            }
            assert!(b.rows.iter().any(|r| r.placement == Placement::Promoted));
            // Same tools billed as catalog mode's array, the search tool priced as declared.
            let search = b.rows.iter().find(|r| r.name == "tool_search").unwrap();
            let ours = catalog
                .rows
                .iter()
                .find(|r| r.name == "tool_search")
                .unwrap();
            if mode == DeferralMode::NativeClient {
                assert_eq!(search.tokens, ours.tokens);
                assert_eq!(b.resident_tokens, catalog.resident_tokens);
            } else {
                assert!(
                    search.tokens < ours.tokens,
                    "the provider's search tool is a few tokens"
                );
            }
            assert!(
                b.saving_tokens > catalog.saving_tokens,
                "{mode:?}: no catalog to pay for"
            );
        }
        // native-client declares our tool_search with its full definition.
        let req = TurnRequest {
            provider,
            mode: DeferralMode::NativeClient,
            ..Default::default()
        };
        let payload = r.plan_turn(&req).unwrap().payload;
        assert!(payload.contains("\"query\""), "{provider:?}");
        assert!(Estimator.count(&payload) > 0);
    }
}
