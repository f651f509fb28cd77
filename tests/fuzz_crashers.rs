//! Replays `tests/fuzz-crashers/*` through the invariants of their fuzz targets.

#![cfg(not(target_arch = "wasm32"))]

use tool_intent::{Registry, ToolsOverride, TurnRequest};

#[test]
fn fuzz_crashers_stay_fixed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-crashers");
    let mut replayed = 0;
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    files.sort();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if name.starts_with("override_json") {
            let o = ToolsOverride::from_json_str(&text).unwrap();
            let canonical = o.to_canonical_json();
            let again = ToolsOverride::from_json_str(&canonical).unwrap();
            assert_eq!(
                again.to_canonical_json(),
                canonical,
                "{name}: canonical JSON is not a fixed point"
            );
            let r = Registry::embedded();
            r.plan_turn(&TurnRequest {
                tools_override: o,
                ..Default::default()
            })
            .unwrap();
            replayed += 1;
        } else if name.starts_with("registry_json") {
            if let Ok(r) = Registry::from_json_str(&text) {
                let again = Registry::from_value(&r.to_value()).unwrap();
                assert_eq!(again.tools(), r.tools(), "{name}");
            }
            replayed += 1;
        }
    }
    assert!(replayed >= 1, "no crasher replayed");
}

#[test]
fn floats_round_trip_exactly() {
    // Canonical bytes must be a fixed point for any number a stored intent or schema holds.
    for n in [
        "2.2222222222222222e38",
        "0.1",
        "1e-300",
        "123456789.123456789",
        "5e-324",
        "1.7976931348623157e308",
    ] {
        let text = format!(r#"{{"x":{n}}}"#);
        let once = ToolsOverride::from_json_str(&text)
            .unwrap()
            .to_canonical_json();
        let twice = ToolsOverride::from_json_str(&once)
            .unwrap()
            .to_canonical_json();
        assert_eq!(once, twice, "{n}");
    }
}
