//! Override JSON: parsing never panics; canonical JSON is a fixed point; expansion against
//! the embedded registry (with and without a restricted source) never panics and never lets
//! a source-denied tool through; its errors and warnings show the override's text escaped.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tool_intent::counter::Estimator;
use tool_intent::{Registry, ToolsOverride, TurnRequest, View};
use tool_intent_fuzz::{error_shown_safely, warnings_shown_safely};

fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(Registry::embedded)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let o = match ToolsOverride::from_json_str(text) {
        Ok(o) => o,
        Err(e) => return error_shown_safely(&e),
    };
    let canonical = o.to_canonical_json();
    let again = ToolsOverride::from_json_str(&canonical).expect("canonical JSON parses");
    assert_eq!(again.to_canonical_json(), canonical);
    let r = registry();
    for source in [None, Some("channel")] {
        let request = TurnRequest {
            tools_override: o.clone(),
            source: source.map(String::from),
            ..Default::default()
        };
        let turn = r.turn(&request).expect("known source");
        let p = turn.plan().expect("catalog render");
        warnings_shown_safely(&p.warnings);
        let live = TurnRequest { view: View::Live, ..request.clone() };
        let _ = r.turn(&live).and_then(|t| t.budget(&Estimator)).expect("budget");
        if source.is_some() {
            for denied in &r.source("channel").unwrap().deny {
                assert!(!p.array().iter().any(|n| n.eq_ignore_ascii_case(denied)), "{denied} got through");
                assert!(turn.resolve(denied).is_err());
            }
        }
    }
});
