//! The budget, half by half, against the exact o200k count of the rendered bytes.
//! Needs the `exact-tokens` feature (the README's test command enables it).
#![cfg(feature = "exact-tokens")]
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
#[path = "../benches/support/halves.rs"]
mod halves;

use halves::rendered_halves;
use tool_intent::counter::{BpeCounter, Estimator};
use tool_intent::turn::budget::{BudgetRow, Placement};
use tool_intent::turn::expand::{expand, ExpandContext};
use tool_intent::{
    Budget, Provider, Registry, TokenCounter, ToolsOverride, TurnRequest, TurnState, View,
};

/// The request of `o` at a state for a provider (catalog mode).
fn request(o: &ToolsOverride, state: &TurnState, view: View, provider: Provider) -> TurnRequest {
    TurnRequest {
        tools_override: o.clone(),
        state: state.clone(),
        view,
        provider,
        ..Default::default()
    }
}

/// The registries of the acceptance: embedded, each MCP file alone (every tool resident), each
/// merged into the embedded registry (every server tool deferred), and all merged.
fn registries() -> Vec<(String, Registry)> {
    let mut out = vec![("embedded".to_string(), Registry::embedded())];
    for (name, v) in mcp_files() {
        out.push((name.clone(), Registry::from_value(&v).unwrap()));
        out.push((
            format!("embedded+{name}"),
            Registry::embedded()
                .set_mcp_server(&name, &v.to_string())
                .unwrap()
                .registry,
        ));
    }
    out.push(("all-merged".to_string(), all_merged()));
    out
}

/// Relative error of a budget half against the exact count; Err when above tolerance.
fn check_half(label: &str, priced: usize, exact: usize, tolerance: f64) -> Result<f64, String> {
    if exact == 0 {
        return if priced == 0 {
            Ok(0.0)
        } else {
            Err(format!("{label}: priced {priced}, exact 0"))
        };
    }
    let err = (priced as f64 - exact as f64) / exact as f64;
    if err.abs() <= tolerance {
        Ok(err)
    } else {
        Err(format!(
            "{label}: priced {priced}, exact {exact} ({:+.1}% > {:.0}%)",
            err * 100.0,
            tolerance * 100.0
        ))
    }
}

fn halves(b: &Budget) -> (usize, usize) {
    (b.resident_tokens, b.catalog_tokens)
}

#[test]
fn budget_halves() {
    let exact = BpeCounter::o200k().unwrap();
    let mut failures = Vec::new();
    let mut report = String::new();
    let o = intent(r#"{"toolset":"full"}"#);
    for provider in Provider::ALL {
        for (name, r) in registries() {
            let e = expand(&r, &o, ExpandContext::default()).unwrap();
            // A session two turns in, with one tool promoted, checks promoted pricing too.
            let loaded: Vec<String> = e.names(e.deferred()).into_iter().take(1).collect();
            for state in [
                TurnState::default(),
                r.begin_turn(&tool_intent::record_loaded(&TurnState::default(), &loaded).unwrap()),
            ] {
                let req = request(&o, &state, View::Frozen, provider);
                let (array, catalog) = rendered_halves(&r, &req).unwrap();
                let (ax, cx) = (exact.count(&array), exact.count(&catalog));
                let (xa, xc) = halves(&r.turn(&req).and_then(|turn| turn.budget(&exact)).unwrap());
                let (ea, ec) = halves(
                    &r.turn(&req)
                        .and_then(|turn| turn.budget(&Estimator))
                        .unwrap(),
                );
                let label = format!("{name}/{}/{}loaded", provider.as_str(), state.frozen.len());
                for result in [
                    check_half(&format!("{label} exact array"), xa, ax, 0.03),
                    check_half(&format!("{label} exact catalog"), xc, cx, 0.03),
                    check_half(&format!("{label} estimate array"), ea, ax, 0.15),
                    check_half(&format!("{label} estimate catalog"), ec, cx, 0.15),
                ] {
                    if let Err(e) = result {
                        failures.push(e);
                    }
                }
                // The exact budget of the array is the exact count to one token, on every
                // provider (OpenAI Chat once overcounted by n−1: its separators merge more).
                if xa.abs_diff(ax) > 1 {
                    failures.push(format!("{label}: exact array budget {xa} vs real {ax}"));
                }
                if state.frozen.is_empty() {
                    report.push_str(&format!(
                        "{label}: array {ax} (est {ea}), catalog {cx} (est {ec})\n"
                    ));
                }
            }
        }
    }
    println!("{report}");
    assert!(
        failures.is_empty(),
        "mis-priced halves:\n{}",
        failures.join("\n")
    );
}

#[test]
fn mis_priced_halves_are_caught() {
    // The check must fail if a deferred tool were priced with its description, or a resident
    // tool by its schema alone.
    let exact = BpeCounter::o200k().unwrap();
    let r = all_merged();
    let o = intent(r#"{"toolset":"full"}"#);
    let e = expand(&r, &o, ExpandContext::default()).unwrap();
    let req = request(&o, &TurnState::default(), View::Frozen, Provider::Anthropic);
    let (array, catalog) = rendered_halves(&r, &req).unwrap();
    let (ax, cx) = (exact.count(&array), exact.count(&catalog));
    let b = r
        .turn(&req)
        .and_then(|turn| turn.budget(&Estimator))
        .unwrap();
    let with_descriptions: usize = b
        .rows
        .iter()
        .filter(|row| row.placement == Placement::Deferred)
        .map(|row| {
            Estimator.count(&format!(
                "{}: {}\n",
                row.name,
                r.tools()[r.index_of(&row.name).unwrap()].description
            ))
        })
        .sum();
    assert!(check_half(
        "catalog priced with descriptions",
        with_descriptions,
        cx,
        0.15
    )
    .is_err());
    let schema_only: usize = e
        .resident()
        .map(|i| Estimator.count(&r.tools()[i].parameters().to_string()))
        .sum();
    assert!(check_half("array priced by schema only", schema_only, ax, 0.15).is_err());
    // The correct budget passes the same check.
    assert!(check_half("catalog", b.catalog_tokens, cx, 0.15).is_ok());
    assert!(check_half("array", b.resident_tokens, ax, 0.15).is_ok());
}

#[test]
fn embedded_registry_reproduces_the_seed_headline() {
    let exact = BpeCounter::o200k().unwrap();
    let r = Registry::embedded();
    let req = request(
        &intent("null"),
        &TurnState::default(),
        View::Live,
        Provider::Anthropic,
    );
    let b = r.turn(&req).and_then(|turn| turn.budget(&exact)).unwrap();
    let deferred: Vec<&BudgetRow> = b
        .rows
        .iter()
        .filter(|r| r.placement == Placement::Deferred)
        .collect();
    let names: Vec<&str> = deferred.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "send_message",
            "playwright_browser",
            "enter_plan_mode",
            "exit_plan_mode"
        ]
    );
    // playwright_browser is the single largest schema of the default set.
    let largest = b.rows.iter().max_by_key(|r| r.resident_tokens).unwrap();
    assert_eq!(largest.name, "playwright_browser");
    // The resident array shrinks by roughly 40% (the design note expected ~7.9k -> ~4.7k, 41%).
    let cut = 1.0 - b.resident_tokens as f64 / b.all_resident_tokens as f64;
    println!(
        "all resident {} -> resident {} (+ catalog {}): {:.1}% smaller",
        b.all_resident_tokens,
        b.resident_tokens,
        b.catalog_tokens,
        cut * 100.0
    );
    assert!((0.35..=0.50).contains(&cut), "cut {cut}");
    // Each deferred default costs a handful of tokens in the catalog.
    assert!(deferred.iter().all(|r| r.tokens <= 6));
}
