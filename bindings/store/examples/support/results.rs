//! The fleet examples' results file (`bench-results/fleet.json`): one JSON object with an
//! entry per run kind — `fleet/` one per store, `model_first_search.rs` its own — each run
//! replacing its entry and keeping the others.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

/// Prints `report` and writes it as `key`'s entry of the object in `out` (a file that is not
/// such an object is started again).
pub fn record(out: &Path, key: &str, report: &Value) -> std::io::Result<()> {
    println!(
        "{}",
        serde_json::to_string_pretty(report).unwrap_or_default()
    );
    let mut runs: BTreeMap<String, Value> = std::fs::read_to_string(out)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    runs.insert(key.to_string(), report.clone());
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(
        out,
        serde_json::to_string_pretty(&runs).unwrap_or_default() + "\n",
    )
}
