//! Real MCP servers: every `tools/list` result loads as it is, alone and all merged, the
//! fixtures are the pinned server outputs, and tool names become provider-valid wire names
//! with a round trip to the source name, independent of the order tools arrive in, with no
//! request that carries two entries with one name.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeSet;

use common::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use tool_intent::{DeferralMode, Provider, Registry, ToolsOverride, TurnRequest, WarningCode};

#[test]
fn every_mcp_file_loads_alone() {
    let files = mcp_files();
    assert_eq!(files.len(), 9, "fixture set changed");
    let mut total = 0;
    for (name, value) in &files {
        let count = value.as_array().map(Vec::len).unwrap();
        let r = Registry::from_value(value).unwrap_or_else(|e| panic!("{name}: {e}"));
        // The library's tool_search is appended; every server tool is there in order.
        assert_eq!(r.len(), count + 1, "{name}");
        for (i, t) in value.as_array().unwrap().iter().enumerate() {
            assert_eq!(r.tools()[i].name, t["name"].as_str().unwrap());
            assert_eq!(
                r.tools()[i].parameters(),
                &t["inputSchema"],
                "{name}: schema kept as sent"
            );
        }
        total += count;
        // Alone, a bare list is its own default set: all resident, nothing deferred.
        let s = expand_json(&r, "null").summary();
        assert_eq!(s.resident.len(), count, "{name}");
        assert!(s.deferred.is_empty());
    }
    assert_eq!(total, 103);
}

#[test]
fn mcp_fields_survive_round_trip() {
    for (name, value) in mcp_files() {
        let r = Registry::from_value(&value).unwrap();
        let again = Registry::from_value(&r.to_value()).unwrap();
        assert_eq!(again.tools(), r.tools(), "{name}");
        for (t, raw) in r.tools().iter().zip(value.as_array().unwrap()) {
            assert_eq!(
                t.title.as_deref(),
                raw.get("title").and_then(|v| v.as_str()),
                "{name}"
            );
            assert_eq!(t.annotations.as_ref(), raw.get("annotations"), "{name}");
            for key in ["outputSchema", "execution"] {
                assert_eq!(t.extra.get(key), raw.get(key), "{name}.{key}");
            }
        }
    }
}

#[test]
fn all_mcp_files_merge_into_one_namespaced_registry() {
    let r = all_merged();
    assert_eq!(r.len(), 17 + 103);
    for (name, value) in mcp_files() {
        for t in value.as_array().unwrap() {
            let full = format!("mcp__{name}__{}", t["name"].as_str().unwrap());
            assert!(r.index_of(&full).is_some(), "{full}");
        }
    }
    // Globs over namespaces work, and merged servers are deferred (outside default_tools).
    let e = expand_json(
        &r,
        r#"{"toolset":"full","disabled":["mcp__playwright__*"]}"#,
    );
    let s = e.summary();
    assert!(s.deferred.iter().any(|n| n.starts_with("mcp__github__")));
    assert!(!s.tools.iter().any(|n| n.starts_with("mcp__playwright__")));
    for provider in Provider::ALL {
        let req = TurnRequest {
            tools_override: intent(r#"{"toolset":"full"}"#),
            provider,
            ..Default::default()
        };
        let p = r.plan_turn(&req).unwrap();
        assert_eq!(p.array().len() + p.catalog().len(), 17 + 103);
        if provider.has_native_deferral() {
            let native = r
                .plan_turn(&TurnRequest {
                    mode: DeferralMode::Native,
                    ..req
                })
                .unwrap();
            let v: serde_json::Value = serde_json::from_str(&native.payload).unwrap();
            // every available tool except our tool_search, plus the provider's search tool
            assert_eq!(v.as_array().unwrap().len(), 17 + 103 - 1 + 1);
        }
    }
}

/// The fixtures are the servers' output unchanged: each file's SHA-256 is pinned in
/// `tests/data/mcp/SHA256SUMS` (taken when they were copied from the project's shared
/// material). A missing, extra or edited fixture fails here.
#[test]
fn fixtures_are_the_pinned_server_outputs() {
    let sums = read_repo_file("tests/data/mcp/SHA256SUMS");
    let pinned: Vec<(String, String)> = sums
        .lines()
        .map(|l| {
            let (hash, file) = l.split_once("  ").unwrap();
            (file.trim_end_matches(".json").to_string(), hash.to_string())
        })
        .collect();
    let texts = mcp_texts();
    assert_eq!(
        texts.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        pinned.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        "fixture set differs from SHA256SUMS"
    );
    for ((name, text), (_, hash)) in texts.iter().zip(&pinned) {
        assert_eq!(
            tool_intent::fingerprint(text.as_bytes()),
            format!("sha256:{hash}"),
            "{name}.json is not the pinned server output"
        );
    }
}

fn fixture() -> Value {
    serde_json::from_str(&read_repo_file("tests/data/bfcl/tools.json")).unwrap()
}

/// The embedded registry with the BFCL fixture as the server `bfcl`.
fn with_bfcl() -> Registry {
    Registry::embedded()
        .set_mcp_server("bfcl", &fixture().to_string())
        .unwrap()
        .registry
}

fn provider_valid(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[test]
fn a_benchmark_server_loads_whole_with_valid_unique_wire_names() {
    let tools = fixture();
    let count = tools["tools"].as_array().unwrap().len();
    let r = Registry::embedded()
        .set_mcp_server("bfcl", &tools.to_string())
        .unwrap()
        .registry;
    let codes: Vec<WarningCode> = r.warnings().iter().map(|w| w.code).collect();
    assert_eq!(codes, [WarningCode::NormalisedSchema], "{:?}", r.warnings());
    let mcp: Vec<&std::sync::Arc<tool_intent::Tool>> = r
        .tools()
        .iter()
        .filter(|t| t.name.starts_with("mcp__bfcl__"))
        .collect();
    assert_eq!(mcp.len(), count, "no tool left out");
    let folded: BTreeSet<String> = r
        .tools()
        .iter()
        .map(|t| t.name.to_ascii_lowercase())
        .collect();
    assert_eq!(folded.len(), r.len(), "unique ignoring case");
    for t in &mcp {
        assert!(provider_valid(&t.name), "{}", t.name);
        assert_eq!(
            t.parameters()["type"],
            "object",
            "{} root normalised",
            t.name
        );
    }
    // Dispatch by wire name returns the name the server knows.
    let o = ToolsOverride::from_json_str(r#"{"toolset":"full"}"#).unwrap();
    let e = tool_intent::turn::expand::expand(&r, &o, Default::default()).unwrap();
    for source in tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
    {
        let wire = mcp.iter().find(|t| t.source_name() == source).unwrap();
        assert_eq!(e.resolve(&wire.name).unwrap().source_name(), source);
    }
    let dotted = mcp
        .iter()
        .find(|t| t.source_name() == "AclApi.add_mapping")
        .unwrap();
    // Capitals and dots: the name plus a hash of the source name (a function of the tool
    // alone, so no other tool can ever take it).
    assert!(
        dotted.name.starts_with("mcp__bfcl__AclApi_add_mapping_"),
        "{}",
        dotted.name
    );
    assert_eq!(
        dotted.name.len(),
        "mcp__bfcl__AclApi_add_mapping_".len() + 8
    );
    let twins: Vec<&str> = mcp
        .iter()
        .filter(|t| t.source_name().eq_ignore_ascii_case("calculate_bmi"))
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(twins.len(), 2);
    assert!(twins.contains(&"mcp__bfcl__calculate_bmi"), "{twins:?}");
    assert!(
        twins
            .iter()
            .any(|n| n.starts_with("mcp__bfcl__calculate_BMI_")),
        "{twins:?}"
    );
}

#[test]
fn source_names_survive_the_registry_round_trip_and_show_in_the_plan() {
    let r = with_bfcl();
    let again = Registry::from_value(&r.to_value()).unwrap();
    assert_eq!(again.tools(), r.tools());
    let dotted = r
        .tools()
        .iter()
        .find(|t| t.source_name() == "AclApi.add_mapping")
        .unwrap()
        .name
        .clone();
    let i = again.index_of(&dotted).unwrap();
    assert_eq!(again.tools()[i].source_name(), "AclApi.add_mapping");
    let req = TurnRequest {
        tools_override: ToolsOverride::from_json_str(r#"{"toolset":"full"}"#).unwrap(),
        ..Default::default()
    };
    let p = r.plan_turn(&req).unwrap();
    let find = |wire: &str| {
        p.renamed()
            .iter()
            .find(|r| r.wire == wire)
            .map(|r| r.source)
    };
    assert_eq!(find(&dotted), Some("AclApi.add_mapping"));
    assert_eq!(find("mcp__bfcl__get_current_weather"), None);
}

#[test]
fn no_payload_holds_two_entries_with_one_name() {
    let r = all_merged()
        .set_mcp_server("bfcl", &fixture().to_string())
        .unwrap()
        .registry;
    for provider in Provider::ALL {
        for mode in [DeferralMode::Catalog, DeferralMode::Native] {
            if !provider.has_native_deferral() && mode == DeferralMode::Native {
                continue;
            }
            let req = TurnRequest {
                tools_override: ToolsOverride::from_json_str(r#"{"toolset":"full"}"#).unwrap(),
                state: r.begin_turn(
                    &tool_intent::record_loaded(&Default::default(), &["mcp__bfcl__calculate_BMI"])
                        .unwrap(),
                ),
                provider,
                mode,
                ..Default::default()
            };
            let p = match r.plan_turn(&req) {
                // 151 declared tools: more than OpenAI takes in one request (rule
                // tools_per_request), refused before anything is sent.
                Err(e) if mode == DeferralMode::Native && provider == Provider::OpenAiResponses => {
                    assert!(e.to_string().contains("at most 128"), "{e}");
                    continue;
                }
                other => other.unwrap(),
            };
            let mut entries: Vec<Value> = serde_json::from_str(&p.payload).unwrap();
            if provider == Provider::Gemini {
                entries = entries[0]["functionDeclarations"]
                    .as_array()
                    .unwrap()
                    .clone();
            }
            let names: Vec<String> = entries
                .iter()
                .filter(|e| e.get("cachePoint").is_none())
                .map(|e| {
                    let n = e
                        .get("name")
                        .or_else(|| e["function"].get("name"))
                        .or_else(|| e["toolSpec"].get("name"));
                    n.and_then(Value::as_str)
                        .or_else(|| e["type"].as_str())
                        .unwrap()
                        .to_string()
                })
                .collect();
            let unique: BTreeSet<&String> = names.iter().collect();
            assert_eq!(unique.len(), names.len(), "{provider:?}/{mode:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// The same source names give the same wire names whatever order they arrive in.
    #[test]
    fn wire_names_do_not_depend_on_arrival_order(seed in any::<u64>()) {
        let tools = fixture()["tools"].as_array().unwrap().clone();
        let mut shuffled = tools.clone();
        let mut s = seed | 1;
        for i in (1..shuffled.len()).rev() {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            shuffled.swap(i, (s % (i as u64 + 1)) as usize);
        }
        let names = |list: Vec<Value>| -> Vec<(String, String)> {
            let r = Registry::embedded().set_mcp_server("s", &json!({"tools": list}).to_string()).unwrap().registry;
            let mut pairs: Vec<(String, String)> = r
                .tools()
                .iter()
                .filter(|t| t.name.starts_with("mcp__s__"))
                .map(|t| (t.source_name().to_string(), t.name.clone()))
                .collect();
            pairs.sort();
            pairs
        };
        prop_assert_eq!(names(tools), names(shuffled));
    }
}

/// A plan lists the renamed tools of its own halves only, in wire-name order (found once per
/// registry, `turn_plan::renamed_among`).
#[test]
fn a_plan_lists_the_renamed_tools_of_its_halves_in_wire_name_order() {
    let r = with_bfcl();
    let renamed: Vec<String> = r
        .tools()
        .iter()
        .filter(|t| t.is_renamed())
        .map(|t| t.name.clone())
        .collect();
    assert!(renamed.len() >= 2, "the fixture renames tools: {renamed:?}");
    let plan_of = |o: &str| {
        let req = TurnRequest {
            tools_override: ToolsOverride::from_json_str(o).unwrap(),
            ..Default::default()
        };
        r.plan_turn(&req).unwrap()
    };
    let full = plan_of(r#"{"toolset":"full"}"#);
    let wires: Vec<&str> = full.renamed().iter().map(|x| x.wire).collect();
    let mut sorted = renamed.iter().map(String::as_str).collect::<Vec<_>>();
    sorted.sort();
    assert_eq!(wires, sorted);
    // Without one renamed tool, the plan does not list it.
    let left_out = &renamed[0];
    let fewer = plan_of(&format!(
        r#"{{"toolset":"full","disabled":["{left_out}"]}}"#
    ));
    let wires: Vec<&str> = fewer.renamed().iter().map(|x| x.wire).collect();
    assert!(!wires.contains(&left_out.as_str()), "{wires:?}");
    assert_eq!(wires.len(), sorted.len() - 1);
}
