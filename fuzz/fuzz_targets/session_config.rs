//! Session config rows and writer toggles: never panic; whatever parses expands; errors show
//! the row's text escaped.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tool_intent::turn::expand::{expand, ExpandContext};
use tool_intent::session::normalize_tools_value;
use tool_intent::{build_intent, Registry, SessionRunConfig, Toggles};
use tool_intent_fuzz::error_shown_safely;

fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(Registry::embedded)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let registry = registry();
    match SessionRunConfig::from_json_str(text) {
        Err(e) => error_shown_safely(&e),
        Ok(row) => {
            let o = row.to_override();
            expand(registry, &o, ExpandContext::default()).expect("expands");
            let stored = SessionRunConfig::from_override(&o);
            SessionRunConfig::from_value(&stored.to_value()).expect("a written row reads back");
        }
    }
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
        let _ = normalize_tools_value(&v);
    }
    match Toggles::from_json_str(text) {
        Err(e) => error_shown_safely(&e),
        Ok(t) => {
            let o = build_intent(&t);
            expand(registry, &o, ExpandContext::default()).expect("expands");
        }
    }
});
