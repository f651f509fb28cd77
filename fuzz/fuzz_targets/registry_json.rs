//! Registry JSON: loading never panics; a loaded registry expands, renders for every
//! provider and mode, and survives its own round trip (the same tools, fingerprint and text).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_intent::{DeferralMode, Provider, Registry, ToolsOverride, TurnRequest};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(registry) = Registry::from_json_str(text) else { return };
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
                if let Ok(p) = registry.plan_turn(&request) {
                    let _: serde_json::Value = serde_json::from_str(&p.payload).expect("payload is JSON");
                }
            }
        }
    }
});
