//! A call's options as any JSON (`[toolsOverride, turnOptions, searchOptions, budgetOptions,
//! query]`, as the JS surface hands them over): reading them never panics; a bad one is an
//! error naming the argument or option it is about (with the JSON path inside one that holds
//! JSON); options read make a turn whose plan, search and budget answer in JSON text or fail
//! with an error, never a panic; every error shows the options' text escaped.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tool_intent::counter::Estimator;
use tool_intent::turn::{BudgetOptions, CallOptions, SearchOptions};
use tool_intent::{Error, Registry, TurnRequest};
use tool_intent_fuzz::error_shown_safely;

/// What an error reading options may be about: the override, the options object, or one
/// option by its snake_case name.
fn names_a_known_input(e: &Error, names: &[&str]) {
    error_shown_safely(e);
    let input = e.input().unwrap_or_else(|| panic!("{e} names no input"));
    assert!(
        input == "tools_override"
            || input == "override"
            || input == "options"
            || names.contains(&input),
        "{e} is about {input:?}"
    );
    // A scalar option (`provider`, `limit`) is named by the error itself; one holding JSON
    // also gives the path of the bad value inside it.
    if matches!(
        input,
        "tools_override" | "override" | "options" | "profile" | "state"
    ) {
        assert!(
            e.path().is_some_and(|p| p.starts_with('$')),
            "{e} has no JSON path"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(Value::Array(args)) = serde_json::from_str::<Value>(text) else {
        return;
    };
    let arg = |k: usize| args.get(k).unwrap_or(&Value::Null);
    let request = match TurnRequest::from_values(arg(0), arg(1)) {
        Ok(r) => r,
        Err(e) => return names_a_known_input(&e, TurnRequest::NAMES),
    };
    let search = SearchOptions::from_object(arg(2));
    if let Err(e) = &search {
        names_a_known_input(e, SearchOptions::NAMES);
    }
    if let Err(e) = BudgetOptions::from_object(arg(3)) {
        names_a_known_input(&e, BudgetOptions::NAMES);
    }
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    let registry = REGISTRY.get_or_init(Registry::embedded);
    let Ok(mut turn) = registry.turn(&request) else {
        return;
    };
    if let Ok(plan) = turn.plan() {
        let _: Value = serde_json::from_str(&plan.to_json().expect("a plan writes its JSON"))
            .expect("plan JSON");
    }
    let _ = turn.budget(&Estimator);
    if let (Ok(options), Some(query)) = (search, arg(4).as_str()) {
        if let Ok(ranker) = options.ranker_for(registry) {
            if let Ok(found) = turn.search(&options.call(query, &ranker)) {
                let _: Value =
                    serde_json::from_str(&found.to_json().expect("an outcome writes its JSON"))
                        .expect("outcome JSON");
            }
        }
    }
});
