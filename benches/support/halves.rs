//! The exact texts a budget prices — the catalog-mode array and the catalog text — for the
//! code that checks the budget against a real tokenizer (the `budget` test (`tests/budget.rs`), the
//! counters bench and the estimator calibration include this file).

use tool_intent::{Registry, TurnRequest};

/// (provider array JSON, catalog text) of a request, as `Registry::plan_turn` sends them.
pub fn rendered_halves(
    registry: &Registry,
    request: &TurnRequest,
) -> tool_intent::Result<(String, String)> {
    let plan = registry.plan_turn(request)?;
    Ok((plan.payload, plan.catalog_text))
}
