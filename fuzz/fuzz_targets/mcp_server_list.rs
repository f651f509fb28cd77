//! An MCP server's tools/list as anything: setting it never panics; its tools' wire names are
//! provider-safe, whatever the server named them; a server set twice with
//! the same list changes nothing; removing it again gives the registry it started from; and
//! the registry writes back to one with the same fingerprint; errors and warnings show the
//! list's text escaped.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_intent::{Registry, TurnRequest};
use tool_intent_fuzz::{error_shown_safely, names_provider_safe, warnings_shown_safely};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let base = Registry::embedded();
    let first = match base.set_mcp_server("s", text) {
        Ok(first) => first,
        Err(e) => return error_shown_safely(&e),
    };
    warnings_shown_safely(first.registry.warnings());
    names_provider_safe(&first.registry);
    let again = first.registry.set_mcp_server("s", text).expect("the same list sets again");
    assert!(again.diff.is_empty(), "{:?}", again.diff);
    assert_eq!(again.registry.fingerprint(), first.registry.fingerprint());
    let written = Registry::from_json_str(&first.registry.to_json()).expect("writes back");
    assert_eq!(written.fingerprint(), first.registry.fingerprint());
    let state = first.registry.begin_turn(&Default::default());
    let gone = first.registry.remove_mcp_server("s").expect("the server is there");
    let _ = gone.registry.plan_turn(&TurnRequest { state, ..Default::default() });
    assert_eq!(gone.registry.fingerprint(), base.fingerprint());
});
