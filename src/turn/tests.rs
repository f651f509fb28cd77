//! Unit tests of the turn: plan, search, resolve and budget of one `Turn`, and the options.

use super::*;
use crate::turn::record_loaded;
use serde_json::{json, Value};

fn loaded(names: &[&str]) -> TurnState {
    Registry::embedded().begin_turn(&record_loaded(&TurnState::default(), names).unwrap())
}

#[test]
fn to_json_without_names_empties_only_the_name_lists() {
    let r = Registry::embedded();
    for (o, state) in [
        ("null", TurnState::default()),
        (r#"{"toolset":"full","x":1}"#, loaded(&["memory", "nope"])),
        ("[]", TurnState::default()),
    ] {
        let req = TurnRequest {
            tools_override: ToolsOverride::from_json_str(o).unwrap(),
            state,
            ..Default::default()
        };
        let p = r.plan_turn(&req).unwrap();
        let mut without: Value = serde_json::from_str(&p.to_json().unwrap()).unwrap();
        for key in ["array", "catalog", "promoted"] {
            without[key] = json!([]);
        }
        let written: Value = serde_json::from_str(&p.to_json_without_names().unwrap()).unwrap();
        assert_eq!(written, without, "{o}");
        assert!(p
            .to_json_without_names()
            .unwrap()
            .starts_with(r#"{"array":[],"catalog":[],"promoted":[],"#));
    }
}

/// The joined lists a binding splits on "\n" give back each list, the empty list included:
/// with promoted tools out of registry order, with the provider's own search tool (native),
/// and with nothing deferred.
#[test]
fn joined_names_split_into_the_plans_lists() {
    let r = Registry::embedded();
    for (o, state, mode) in [
        (
            "null",
            loaded(&["exit_plan_mode", "send_message"]),
            DeferralMode::Catalog,
        ),
        (
            r#"{"toolset":"full"}"#,
            TurnState::default(),
            DeferralMode::Native,
        ),
        ("[]", TurnState::default(), DeferralMode::Catalog),
        (
            r#"["read_file","memory"]"#,
            TurnState::default(),
            DeferralMode::Catalog,
        ),
    ] {
        let req = TurnRequest {
            tools_override: ToolsOverride::from_json_str(o).unwrap(),
            state,
            mode,
            ..Default::default()
        };
        let p = r.plan_turn(&req).unwrap();
        let split = |joined: &str| -> Vec<String> {
            if joined.is_empty() {
                Vec::new()
            } else {
                joined.split('\n').map(String::from).collect()
            }
        };
        let [array, catalog, promoted] = p.joined_names();
        assert_eq!(split(&array), p.array(), "{o}");
        assert_eq!(split(&catalog), p.catalog(), "{o}");
        assert_eq!(split(&promoted), p.promoted(), "{o}");
    }
    let p = r
        .plan_turn(&TurnRequest {
            state: loaded(&["exit_plan_mode", "send_message"]),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(p.promoted(), ["exit_plan_mode", "send_message"]);
    assert!(!p.catalog().is_empty());
}

#[test]
fn search_outcome_json_carries_the_provider_output_as_json() {
    let r = Registry::embedded();
    let req = TurnRequest {
        mode: DeferralMode::NativeClient,
        ..Default::default()
    };
    let outcome = r
        .turn(&req)
        .unwrap()
        .search(&SearchCall::new("plan mode"))
        .unwrap();
    let v: Value = serde_json::from_str(&outcome.to_json().unwrap()).unwrap();
    assert_eq!(v["providerOutput"][0]["type"], "tool_reference");
    // A provider's wire format: a binding that renames keys leaves it (`json::DATA_KEYS`).
    assert!(crate::json::DATA_KEYS.contains(&"providerOutput"));
    assert_eq!(v["hits"][0], "enter_plan_mode");
    let plain = r
        .turn(&TurnRequest::default())
        .unwrap()
        .search(&SearchCall::new("plan mode"))
        .unwrap();
    let v: Value = serde_json::from_str(&plain.to_json().unwrap()).unwrap();
    assert!(v.get("providerOutput").is_none());
    assert_eq!(v["state"]["loaded"], json!(plain.result.hits));
}

/// Which call an options object is for, in the tests below.
#[derive(Clone, Copy)]
enum Call {
    Turn,
    Search,
    Budget,
    CacheReport,
}

fn read_options(options: &Value, call: Call) -> crate::Result<()> {
    match call {
        Call::Turn => TurnRequest::from_values(&json!(null), options).map(drop),
        Call::Search => SearchOptions::from_object(options).map(drop),
        Call::Budget => BudgetOptions::from_object(options).map(drop),
        Call::CacheReport => CacheReportOptions::from_object(options).map(drop),
    }
}

#[test]
fn options_errors_name_the_option_and_the_path_inside_it() {
    let err = |options: Value, call: Call| {
        let e = read_options(&options, call).unwrap_err();
        (e.code(), e.input(), e.path().map(String::from))
    };
    let at = |argument: &'static str, path: &str| {
        let path = (path != "$").then(|| path.to_string());
        ("invalid_argument", Some(argument), path)
    };
    assert_eq!(
        err(json!({"profile": {"disabled": [1]}}), Call::Turn),
        at("profile", "$.disabled[0]")
    );
    assert_eq!(
        err(json!({"state": {"turn": "x"}}), Call::Turn),
        at("state", "$.turn")
    );
    assert_eq!(
        err(json!({"provider": "x"}), Call::Turn),
        at("provider", "$")
    );
    assert_eq!(err(json!({"provider": 3}), Call::Turn), at("provider", "$"));
    assert_eq!(err(json!({"view": "x"}), Call::Turn), at("view", "$"));
    assert_eq!(
        err(json!({"cacheControl": 1}), Call::Turn),
        at("cache_control", "$")
    );
    assert_eq!(
        err(json!({"toolChanges": "x"}), Call::CacheReport),
        at("tool_changes", "$")
    );
    assert_eq!(
        err(json!({"counter": "o2"}), Call::Budget),
        at("counter", "$")
    );
    assert_eq!(err(json!({"limit": 0}), Call::Search), at("limit", "$"));
    assert_eq!(
        err(json!({"abstain": "yes"}), Call::Search),
        at("abstain", "$")
    );
    assert_eq!(
        err(json!(3), Call::Search),
        ("invalid_argument", Some("options"), Some("$".into()))
    );
    // A key the call does not take is an error of the options object, listing the keys; a
    // snake_case key is not JS's spelling.
    for (options, call, known) in [
        (
            json!({"limit": 3}),
            Call::Turn,
            "source, profile, state, provider, mode, toolChanges, cacheControl, view",
        ),
        (json!({"loaded": ["a"]}), Call::Turn, "view"),
        (json!({"tool_changes": "array"}), Call::Turn, "toolChanges"),
        (
            json!({"view": "live"}),
            Call::CacheReport,
            "mode, toolChanges, counter",
        ),
        (
            json!({"cacheControl": true}),
            Call::Budget,
            "(known: counter)",
        ),
        (
            json!({"state": null}),
            Call::Search,
            "(known: limit, ranker, abstain)",
        ),
    ] {
        let e = read_options(&options, call).unwrap_err();
        assert_eq!(e.input(), Some("options"), "{options}");
        assert!(e.to_string().contains(known), "{e}");
    }
    // A binding that cannot read a member names the member's option.
    let whole = |path: &crate::JsonPath| crate::Error::InvalidValue {
        input: "options",
        path: path.clone(),
        message: "m".into(),
    };
    let root = crate::JsonPath::root();
    let e = option_error(whole(&root.key("profile").key("disabled").index(0)));
    assert_eq!(
        (e.input(), e.path()),
        (Some("profile"), Some("$.disabled[0]"))
    );
    let e = option_error(whole(&root.key("cacheControl")));
    assert_eq!((e.input(), e.path()), (Some("cache_control"), None));
    let e = option_error(whole(&root.key("nope").key("x")));
    assert_eq!((e.input(), e.path()), (Some("options"), Some("$.nope.x")));
}

#[test]
fn each_call_has_its_options_with_the_core_defaults() {
    let search = SearchOptions::default();
    assert_eq!(search.limit, crate::registry::DEFAULT_SEARCH_LIMIT);
    assert_eq!(search.ranker, crate::search::RankerKind::Keyword);
    assert!(!search.abstain);
    assert_eq!(SearchOptions::from_object(&json!(null)).unwrap(), search);
    let read =
        SearchOptions::from_object(&json!({"limit": 3, "abstain": true, "ranker": null})).unwrap();
    assert_eq!((read.limit, read.abstain), (3, true));
    assert_eq!(
        BudgetOptions::default().counter,
        crate::CounterKind::Estimate
    );
    // Python's keywords: the snake_case names, one at a time; an unknown one is refused as JS's
    // unknown key is, in its own spelling.
    let mut request = TurnRequest::default();
    request
        .set_named("tool_changes", &json!("messages"))
        .unwrap();
    request.set_named("cache_control", &json!(true)).unwrap();
    request.set_named("source", &Value::Null).unwrap();
    assert_eq!(request.tool_changes, crate::provider::ToolChanges::Messages);
    assert!(request.cache_control);
    assert_eq!(request.source, None);
    let e = request
        .set_named("toolChanges", &json!("array"))
        .unwrap_err();
    assert_eq!(
        (e.input(), e.path()),
        (Some("options"), Some("$.toolChanges"))
    );
    assert!(e.to_string().contains("tool_changes, cache_control"), "{e}");
    let e = request.set_named("view", &json!(1)).unwrap_err();
    assert_eq!((e.input(), e.path()), (Some("view"), None));
    let mut report = CacheReportOptions::default();
    report.set_named("counter", &json!("estimate")).unwrap();
    report.set_named("mode", &json!("native")).unwrap();
    assert_eq!(report.request.mode, crate::DeferralMode::Native);
    assert_eq!(js_key("tool_changes"), "toolChanges");
    assert_eq!(js_key("limit"), "limit");
}

#[test]
fn plan_lists_array_catalog_and_promoted() {
    let r = Registry::embedded();
    let req = TurnRequest {
        state: loaded(&["enter_plan_mode"]),
        ..Default::default()
    };
    let p = r.plan_turn(&req).unwrap();
    assert_eq!(p.promoted(), ["enter_plan_mode"]);
    assert_eq!(p.array().last(), Some(&"enter_plan_mode"));
    assert!(!p.catalog().contains(&"enter_plan_mode"));
    assert!(p.catalog_text.contains("send_message"));
}

#[test]
fn a_turn_outlives_its_registry_handle_and_keeps_its_searches_loads() {
    let request = TurnRequest {
        state: loaded(&[]),
        ..Default::default()
    };
    let mut turn = {
        let registry = Registry::embedded();
        registry.turn(&request).unwrap()
    };
    let before = turn.plan().unwrap();
    let first = turn.search(&SearchCall::new("plan mode")).unwrap();
    let second = turn.search(&SearchCall::new("send message")).unwrap();
    assert!(!first.result.hits.is_empty() && !second.result.hits.is_empty());
    // The second search starts from the first one's loads.
    for hit in first.result.hits.iter().chain(&second.result.hits) {
        assert!(second.state.loaded.contains(hit), "{hit} lost");
    }
    assert_eq!(turn.state(), &second.state);
    // Loads join at the next boundary: this turn's array is what it was.
    assert_eq!(turn.plan().unwrap().payload, before.payload);
    assert_eq!(
        turn.resolve("enter_plan_mode").unwrap().name,
        "enter_plan_mode"
    );
    // The plan owns its names: it outlives the turn too.
    drop(turn);
    assert!(before.array().contains(&"tool_search"));
}

#[test]
fn a_turns_calls_equal_a_fresh_turn_per_call() {
    let r = Registry::embedded();
    for (o, mode) in [
        ("null", DeferralMode::Catalog),
        (r#"{"toolset":"full"}"#, DeferralMode::Native),
        (
            r#"{"enabled":true,"web_search":true}"#,
            DeferralMode::NativeClient,
        ),
    ] {
        let request = TurnRequest {
            tools_override: ToolsOverride::from_json_str(o).unwrap(),
            state: loaded(&["memory"]),
            mode,
            ..Default::default()
        };
        let mut turn = r.turn(&request).unwrap();
        let plan = turn.plan().unwrap();
        assert_eq!(
            plan.to_json().unwrap(),
            r.plan_turn(&request).unwrap().to_json().unwrap(),
            "{o}"
        );
        let call = SearchCall::new("browser page");
        let fresh = r.turn(&request).unwrap().search(&call).unwrap();
        assert_eq!(turn.search(&call).unwrap(), fresh, "{o}");
        let budget = turn.budget(&crate::counter::Estimator).unwrap();
        let again = r
            .turn(&request)
            .unwrap()
            .budget(&crate::counter::Estimator)
            .unwrap();
        assert_eq!(budget, again, "{o}");
    }
}

// Here rather than beside the memo slots: the registry does not know the modules above it
// that own the memo types.
#[test]
fn every_memo_type_of_the_crate_has_its_own_slot() {
    use crate::registry::Memo;
    use crate::registry::RenderCache;
    use crate::search::KeywordIndex;
    use crate::turn::budget::TokenCache;
    use crate::turn::split::ProviderRules;
    let slots = [
        RenderCache::SLOT,
        TokenCache::SLOT,
        KeywordIndex::SLOT,
        ProviderRules::SLOT,
    ];
    for (i, a) in slots.iter().enumerate() {
        assert_eq!(*a as usize, i, "{a:?}");
    }
    assert_eq!(slots.len(), 4);
}

#[test]
fn the_tool_count_advice_fits_what_is_declared() {
    let tools: Vec<_> = (0..130)
        .map(|k| json!({"name": format!("t{k}"), "description": "d", "parameters": {"type": "object"}}))
        .collect();
    let message = |deferred: bool, mode: DeferralMode| {
        let doc = if deferred {
            json!({"tools": tools, "default_tools": ["*"], "deferred_default_tools": ["*"]})
        } else {
            json!({"tools": tools})
        };
        let r = Registry::from_value(&doc).unwrap();
        let request = TurnRequest {
            provider: Provider::OpenAiResponses,
            mode,
            ..Default::default()
        };
        let e = r.plan_turn(&request).unwrap_err();
        assert_eq!(e.code(), "invalid_argument");
        e.to_string()
    };
    let all_resident = message(false, DeferralMode::Catalog);
    assert!(all_resident.contains("defer some"), "{all_resident}");
    let all_deferred = message(true, DeferralMode::Native);
    assert!(!all_deferred.contains("defer some"), "{all_deferred}");
    assert!(all_deferred.contains("use catalog mode"), "{all_deferred}");
    // Deferred in catalog mode: the array is small, nothing to refuse.
    let r = Registry::from_value(
        &json!({"tools": tools, "default_tools": ["*"], "deferred_default_tools": ["*"]}),
    )
    .unwrap();
    let request = TurnRequest {
        provider: Provider::OpenAiResponses,
        ..Default::default()
    };
    assert!(r.plan_turn(&request).is_ok());
}

/// A `select:` of a tool this request already declares in full tells the model to call it; a
/// disabled tool and an unknown name stay unavailable. All three are `not_found`.
#[test]
fn selecting_a_resident_tool_says_to_call_it_not_that_it_is_unavailable() {
    let request = TurnRequest {
        tools_override: ToolsOverride::from_json_str(r#"{"enabled":true,"disabled":["shell"]}"#)
            .unwrap(),
        state: loaded(&[]),
        ..Default::default()
    };
    let mut turn = Registry::embedded().turn(&request).unwrap();
    assert!(turn.plan().unwrap().array().contains(&"read_file"));
    let call = SearchCall::new("select:read_file,send_message,shell,nope");
    let found = turn.search(&call).unwrap().result;
    assert_eq!(found.hits, ["send_message"]);
    assert_eq!(found.not_found, ["read_file", "shell", "nope"]);
    assert!(
        found.text.ends_with(
            "Already in your tool list, call directly: read_file\n\
             Not available as deferred tools of this session: shell, nope\n"
        ),
        "{}",
        found.text
    );
}
