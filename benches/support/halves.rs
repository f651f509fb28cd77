//! The exact texts a budget prices — the catalog-mode array and the catalog text — for the
//! code that checks the budget against a real tokenizer (the `budget_halves` test, the
//! counters bench and the estimator calibration include this file).

use tool_intent::{render, Expansion, Provider, RenderOptions, TurnState, View};

/// (provider array JSON, catalog text) of an expansion and turn state.
pub fn rendered_halves(
    expansion: &Expansion<'_>,
    state: &TurnState,
    view: View,
    provider: Provider,
) -> tool_intent::Result<(String, String)> {
    let options = RenderOptions {
        provider,
        view,
        ..Default::default()
    };
    let payload = render(expansion, state, options)?;
    Ok((payload.json, payload.catalog))
}
