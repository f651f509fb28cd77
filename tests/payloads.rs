//! Golden payloads of the embedded registry for every provider, checked in under
//! `tests/golden/`. A change of bytes is a change of every user's prompt-cache key, so it
//! must be deliberate: regenerate with `UPDATE_GOLDEN=1 cargo test --test payloads`
//! and review the diff.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::check_golden;
use tool_intent::{record_loaded, DeferralMode, Provider, Registry, ToolsOverride, TurnRequest};

#[test]
fn golden_payloads_of_the_embedded_registry() {
    let r = Registry::embedded();
    let cases: [(&str, &str, DeferralMode, bool, &[&str]); 5] = [
        ("default", "null", DeferralMode::Catalog, false, &[]),
        (
            "web-search-cached",
            r#"{"enabled":true,"web_search":true}"#,
            DeferralMode::Catalog,
            true,
            &[],
        ),
        (
            "promoted",
            "null",
            DeferralMode::Catalog,
            false,
            &["exit_plan_mode", "send_message"],
        ),
        (
            "native",
            r#"{"toolset":"full"}"#,
            DeferralMode::Native,
            true,
            &[],
        ),
        (
            "native-client",
            r#"{"toolset":"full"}"#,
            DeferralMode::NativeClient,
            true,
            &["exit_plan_mode"],
        ),
    ];
    let mut fingerprints = String::new();
    for provider in Provider::ALL {
        for (case, o, mode, cache, loaded) in cases {
            if mode.declares_deferred() && !provider.has_native_deferral() {
                continue;
            }
            let req = TurnRequest {
                tools_override: ToolsOverride::from_json_str(o).unwrap(),
                state: r.begin_turn(&record_loaded(&Default::default(), loaded).unwrap()),
                provider,
                mode,
                cache_control: cache,
                ..Default::default()
            };
            let p = r.plan_turn(&req).unwrap();
            let file = format!("{}.{case}.json", provider.as_str());
            check_golden(&file, &p.payload);
            if case == "default" {
                check_golden(
                    &format!("{}.default.catalog.txt", provider.as_str()),
                    &p.catalog_text,
                );
            }
            fingerprints.push_str(&format!("{file} {}\n", p.fingerprint));
        }
    }
    check_golden("fingerprints.txt", &fingerprints);
}
