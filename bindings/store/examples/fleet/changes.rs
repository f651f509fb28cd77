//! The registry changes the publisher rolls while the sessions run, in order: each a
//! different kind of change.

use serde_json::{json, Value};
use tool_intent::{Registry, Result};

/// A change the publisher makes to the newest version.
pub(crate) type Change = Box<dyn Fn(&Registry) -> Result<Registry>>;

pub(crate) fn changes() -> Vec<(&'static str, Change)> {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/mcp/");
    let read = |name: &str| std::fs::read_to_string(format!("{data}{name}.json")).unwrap();
    let (memory, fetch, github) = (read("memory"), read("fetch"), read("github"));
    let edited = github.replacen("\"description\":\"", "\"description\":\"(v2) ", 1);
    assert!(
        edited != github,
        "the github fixture has a description to change"
    );
    vec![
        (
            "a new server's tools (memory)",
            Box::new(move |r: &Registry| Ok(r.set_mcp_server("memory", &memory)?.registry)),
        ),
        (
            "a changed description (github)",
            Box::new(move |r: &Registry| Ok(r.set_mcp_server("github", &edited)?.registry)),
        ),
        (
            "a removed server (memory)",
            Box::new(|r: &Registry| Ok(r.remove_mcp_server("memory")?.registry)),
        ),
        (
            "a trusted-server change (github's annotations believed)",
            Box::new(|r: &Registry| {
                let mut doc = r.to_value();
                let mut trusted = doc["trusted_servers"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                trusted.push(json!("github"));
                doc["trusted_servers"] = Value::Array(trusted);
                Registry::from_value(&doc)
            }),
        ),
        (
            "a new server's tools (fetch)",
            Box::new(move |r: &Registry| Ok(r.set_mcp_server("fetch", &fetch)?.registry)),
        ),
    ]
}
