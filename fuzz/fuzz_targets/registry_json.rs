//! Registry JSON: loading never panics; a loaded registry's names are provider-safe; it
//! expands, renders for every provider and mode (each plan's joined name lists split back),
//! and survives its own round trip (the same tools, fingerprint and text); every error and
//! warning shows the document's text escaped.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_intent::{DeferralMode, Provider, Registry, ToolsOverride, TurnRequest};
use tool_intent_fuzz::{error_shown_safely, joined_names_split_back, names_provider_safe, warnings_shown_safely};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let registry = match Registry::from_json_str(text) {
        Ok(r) => r,
        Err(e) => return error_shown_safely(&e),
    };
    warnings_shown_safely(registry.warnings());
    names_provider_safe(&registry);
    let again = Registry::from_value(&registry.to_value()).expect("a loaded registry reloads from its own JSON");
    assert_eq!(again.tools(), registry.tools());
    assert_eq!(again.fingerprint(), registry.fingerprint(), "a reloaded registry is the same version");
    assert_eq!(again.to_json(), registry.to_json(), "writing back is a fixed point");
    for o in [ToolsOverride::Follow, ToolsOverride::from_json_str(r#"{"toolset":"full","web_search":true}"#).unwrap()] {
        registry
            .turn(&TurnRequest { tools_override: o.clone(), ..Default::default() })
            .expect("no source, no error");
        for provider in Provider::ALL {
            for mode in [DeferralMode::Catalog, DeferralMode::Native] {
                let request = TurnRequest { tools_override: o.clone(), provider, mode, cache_control: true, ..Default::default() };
                match registry.plan_turn(&request) {
                    Ok(p) => {
                        warnings_shown_safely(&p.warnings);
                        joined_names_split_back(&p);
                        let _: serde_json::Value = serde_json::from_str(&p.payload).expect("payload is JSON");
                    }
                    Err(e) => error_shown_safely(&e),
                }
            }
        }
    }
});
