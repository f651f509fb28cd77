//! Property tests over random registries, overrides and arbitrary JSON.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{render, search_args, turn_request, RenderOptions};
use proptest::prelude::*;
use serde_json::{json, Value};
use tool_intent::turn::expand::{expand, ExpandContext};
use tool_intent::turn::split;
use tool_intent::{DeferralMode, Registry, SessionRunConfig, ToolsOverride, TurnState, View};

const NAMES: [&str; 12] = [
    "read_file",
    "write_file",
    "shell",
    "grep",
    "web_search",
    "memory",
    "tool_search",
    "mcp__gh__issue",
    "mcp__gh__pr",
    "mcp__git__log",
    "Browser",
    "image",
];

fn registry_strategy() -> impl Strategy<Value = Registry> {
    (
        proptest::sample::subsequence(NAMES.to_vec(), 1..=NAMES.len()),
        any::<u64>(),
    )
        .prop_map(|(names, seed)| {
            // Shuffle deterministically so registry order differs from NAMES order.
            let mut names: Vec<&str> = names;
            let n = names.len();
            for i in 0..n {
                let j = ((seed >> (i % 60)) as usize + i * 7) % n;
                names.swap(i, j);
            }
            let pick = |k: u64| -> Vec<&str> { names.iter().enumerate().filter(|(i, _)| (seed >> ((*i as u64 + k) % 64)) & 1 == 1).map(|(_, n)| *n).collect() };
            let tools: Vec<Value> = names
                .iter()
                .map(|n| json!({"name": n, "description": format!("{n} tool"), "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}))
                .collect();
            let mut doc = json!({
                "tools": tools,
                "default_tools": pick(1),
                "deferred_default_tools": pick(2),
                "toolsets": {"research": pick(3), "full": pick(4)},
                "sources": {"channel": {"deny": pick(5)}},
            });
            if names.contains(&"web_search") {
                doc["overlays"] = json!({"web_search": ["web_search"]});
            }
            Registry::from_value(&doc).unwrap()
        })
}

fn pattern() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(NAMES.to_vec()).prop_map(String::from),
        proptest::sample::select(vec![
            "mcp__*",
            "*_file",
            "*",
            "?hell",
            "mcp__gh__*",
            "READ_FILE",
            "unknown",
            "Web_Search"
        ])
        .prop_map(String::from),
    ]
}

fn override_strategy() -> impl Strategy<Value = ToolsOverride> {
    let opt_bool = proptest::option::of(any::<bool>());
    prop_oneof![
        Just(ToolsOverride::Follow),
        proptest::collection::vec(pattern(), 0..5).prop_map(ToolsOverride::Picked),
        (
            opt_bool.clone(),
            proptest::option::of(proptest::sample::select(vec!["research", "full", "nope"])),
            proptest::option::of(proptest::collection::vec(pattern(), 0..4)),
            proptest::option::of(proptest::collection::vec(pattern(), 0..4)),
            opt_bool,
        )
            .prop_map(|(enabled, toolset, allowed, disabled, web_search)| {
                let mut o = serde_json::Map::new();
                if let Some(e) = enabled {
                    o.insert("enabled".into(), json!(e));
                }
                if let Some(t) = toolset {
                    o.insert("toolset".into(), json!(t));
                }
                if let Some(a) = allowed {
                    o.insert("allowed".into(), json!(a));
                }
                if let Some(d) = disabled {
                    o.insert("disabled".into(), json!(d));
                }
                if let Some(w) = web_search {
                    o.insert("web_search".into(), json!(w));
                }
                ToolsOverride::from_value(&Value::Object(o)).unwrap()
            }),
    ]
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "[a-zA-Z_*?\\-]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec(
                (
                    prop_oneof![
                        Just("enabled".to_string()),
                        Just("disabled".to_string()),
                        Just("allowed".to_string()),
                        Just("toolset".to_string()),
                        Just("web_search".to_string()),
                        Just("tools".to_string()),
                        Just("name".to_string()),
                        Just("parameters".to_string()),
                        "[a-z]{1,6}"
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// An independent glob matcher (recursive, ASCII case folded) to check the library's.
fn glob_fold(p: &[u8], n: &[u8]) -> bool {
    match (p.first(), n.first()) {
        (None, None) => true,
        (Some(b'*'), _) => glob_fold(&p[1..], n) || (!n.is_empty() && glob_fold(p, &n[1..])),
        (Some(b'?'), Some(_)) => glob_fold(&p[1..], &n[1..]),
        (Some(a), Some(b)) if a.eq_ignore_ascii_case(b) => glob_fold(&p[1..], &n[1..]),
        _ => false,
    }
}

/// Registry positions any pattern matches, ignoring ASCII case.
fn denied_by(r: &Registry, patterns: &[String]) -> Vec<usize> {
    (0..r.len())
        .filter(|&i| {
            patterns
                .iter()
                .any(|p| glob_fold(p.as_bytes(), r.name(i).as_bytes()))
        })
        .collect()
}

fn disabled_set(r: &Registry, o: &ToolsOverride) -> Vec<usize> {
    match o {
        ToolsOverride::Intent(i) => i
            .disabled
            .as_ref()
            .map(|d| denied_by(r, d))
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn expansion_is_deterministic_and_idempotent_under_canonicalisation(r in registry_strategy(), o in override_strategy(), source in proptest::option::of(Just("channel"))) {
        let ctx = ExpandContext { source, ..Default::default() };
        let a = expand(&r, &o, ctx).unwrap().summary();
        let b = expand(&r, &o, ctx).unwrap().summary();
        prop_assert_eq!(&a, &b);
        let canon = ToolsOverride::from_json_str(&o.to_canonical_json()).unwrap();
        prop_assert_eq!(canon.to_canonical_json(), o.to_canonical_json());
        let c = expand(&r, &canon, ctx).unwrap().summary();
        prop_assert_eq!(a.tools, c.tools);
        prop_assert_eq!(a.resident, c.resident);
        prop_assert_eq!(a.deferred, c.deferred);
    }

    #[test]
    fn output_order_is_registry_order(r in registry_strategy(), o in override_strategy()) {
        let e = expand(&r, &o, ExpandContext::default()).unwrap();
        for list in [e.tools().collect::<Vec<_>>(), e.resident().collect(), e.deferred().collect()] {
            prop_assert!(list.windows(2).all(|w| w[0] < w[1]), "not strictly increasing: {:?}", list);
        }
    }

    #[test]
    fn disabled_tool_never_reaches_array_catalog_search_or_dispatch(r in registry_strategy(), o in override_strategy(), loads in proptest::collection::vec(proptest::sample::select(NAMES.to_vec()), 0..6)) {
        let ctx = ExpandContext { source: Some("channel"), ..Default::default() };
        let e = expand(&r, &o, ctx).unwrap();
        let request = turn_request(&o, ctx);
        let mut denied = disabled_set(&r, &o);
        let ceiling = r.source("channel").unwrap().deny.clone();
        denied.extend(denied_by(&r, &ceiling));
        let state = r.begin_turn(&tool_intent::record_loaded(&TurnState::default(), &loads).unwrap());
        let split = split(&e, &state, View::Frozen);
        let payload = render(&r, &request, &state, RenderOptions::default()).unwrap();
        let (result, _) = search_args(&r, &request, &state, &json!({"query": format!("select:{}", NAMES.join(","))})).unwrap();
        let (kw, _) = search_args(&r, &request, &state, &json!({"query": "tool file mcp", "limit": 50})).unwrap();
        for i in denied {
            let name = &r.tools()[i].name;
            prop_assert!(!split.array.contains(&i));
            prop_assert!(!split.catalog.contains(&i));
            prop_assert!(!payload.array().contains(&name.as_str()));
            prop_assert!(!payload.catalog_text.lines().any(|l| l == name));
            prop_assert!(!result.hits.contains(name));
            prop_assert!(!kw.hits.contains(name));
            prop_assert!(e.resolve(name).is_err());
        }
    }

    #[test]
    fn no_payload_has_two_entries_with_one_name(r in registry_strategy(), o in override_strategy(), loads in proptest::collection::vec(proptest::sample::select(NAMES.to_vec()), 0..4)) {
        let request = turn_request(&o, ExpandContext::default());
        let state = r.begin_turn(&tool_intent::record_loaded(&TurnState::default(), &loads).unwrap());
        for provider in tool_intent::Provider::ALL {
            for mode in [DeferralMode::Catalog, DeferralMode::Native] {
                let opts = RenderOptions { provider, mode, ..Default::default() };
                let Ok(p) = render(&r, &request, &state, opts) else {
                    prop_assert!(!provider.has_native_deferral() && mode == DeferralMode::Native);
                    continue;
                };
                let names = p.array();
                let unique: std::collections::BTreeSet<&&str> = names.iter().collect();
                prop_assert_eq!(unique.len(), p.array().len(), "{:?}/{:?}: {:?}", provider, mode, p.array());
            }
        }
    }

    #[test]
    fn every_available_tool_is_reachable(r in registry_strategy(), o in override_strategy()) {
        let e = expand(&r, &o, ExpandContext::default()).unwrap();
        let resident: Vec<usize> = e.resident().collect();
        let ts = r.index_of("tool_search");
        let any_deferred = e.deferred().next().is_some();
        if any_deferred {
            prop_assert!(ts.is_some_and(|t| resident.contains(&t)), "deferred tools without a resident tool_search");
        }
        for i in e.tools() {
            prop_assert!(resident.contains(&i) || e.is_deferred(i));
            prop_assert!(e.resolve(&r.tools()[i].name).is_ok());
        }
        // Everything deferred can be loaded by select and then promoted.
        let names: Vec<String> = e.names(e.deferred());
        if !names.is_empty() {
            let request = turn_request(&o, ExpandContext::default());
            let (res, state) = search_args(&r, &request, &TurnState::default(), &json!({"query": format!("select:{}", names.join(","))})).unwrap();
            prop_assert_eq!(&res.hits, &names);
            let p = render(&r, &request, &r.begin_turn(&state), RenderOptions::default()).unwrap();
            prop_assert!(p.catalog_text.is_empty());
        }
    }

    #[test]
    fn fingerprints_equal_for_equal_inputs(r in registry_strategy(), o in override_strategy(), native in any::<bool>()) {
        let mode = if native { DeferralMode::Native } else { DeferralMode::Catalog };
        let r2 = Registry::from_value(&r.to_value()).unwrap();
        let o2 = ToolsOverride::from_json_str(&o.to_canonical_json()).unwrap();
        let opts = RenderOptions { mode, ..Default::default() };
        let a = render(&r, &turn_request(&o, ExpandContext::default()), &TurnState::default(), opts).unwrap();
        let b = render(&r2, &turn_request(&o2, ExpandContext::default()), &TurnState::default(), opts).unwrap();
        prop_assert_eq!(a.fingerprint, b.fingerprint);
    }

    #[test]
    fn no_parse_of_arbitrary_json_panics(v in arbitrary_json()) {
        let text = v.to_string();
        let _ = ToolsOverride::from_value(&v);
        let _ = ToolsOverride::from_json_str(&text);
        let _ = Registry::from_value(&v);
        let _ = SessionRunConfig::from_value(&v);
        let _ = tool_intent::session::normalize_tools_value(&v);
        let r = Registry::embedded();
        if let Ok(o) = ToolsOverride::from_value(&v) {
            let _ = search_args(&r, &turn_request(&o, ExpandContext::default()), &TurnState::default(), &v);
        }
    }

    #[test]
    fn no_parse_of_arbitrary_text_panics(text in "\\PC{0,64}") {
        let _ = ToolsOverride::from_json_str(&text);
        let _ = Registry::from_json_str(&text);
        let _ = SessionRunConfig::from_json_str(&text);
        let _ = tool_intent::search::Query::parse(&text);
    }
}
