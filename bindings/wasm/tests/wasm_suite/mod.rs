//! Tests of the wasm build, shared by `bindings/wasm/tests/node.rs` (wasm-pack test --node) and
//! `bindings/wasm/tests/web.rs` (wasm-pack test --headless --chrome). They call the exported binding
//! functions with JS values, and run the cross-target golden cases inside the wasm module.

use serde_json::Value;
use tool_intent::turn::{CallOptions, SearchOptions};
use tool_intent::{Registry, TurnRequest};
use tool_intent_wasm as wasm;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

#[path = "../../../../tests/common/tool_change_rows.rs"]
mod tool_change_rows;

/// Fully resolved golden rows, written by the native `tests/cross_target.rs`.
const EXPECTED: &str = include_str!("../../../../tests/golden/cross-target.json");
/// tool_search golden rows (same writer) and the BFCL pool their `bfcl` rows search.
const SEARCH_EXPECTED: &str = include_str!("../../../../tests/golden/search.json");
const BFCL_POOL: &str = include_str!("../../../../tests/data/bfcl/retrieval-pool.json");
const BUILTIN_REGISTRY: &str = include_str!("../../../../tests/data/builtin-registry.json");
/// The toggle session and its tool-change rows (written by the native `tests/tool_changes.rs`).
const TOGGLE_SESSION: &str = include_str!("../../../../tests/data/cache-session-toggles.json");
const TOOL_CHANGES_EXPECTED: &str = include_str!("../../../../tests/golden/tool-changes.json");
const MCP: [(&str, &str); 9] = [
    (
        "everything",
        include_str!("../../../../tests/data/mcp/everything.json"),
    ),
    (
        "fetch",
        include_str!("../../../../tests/data/mcp/fetch.json"),
    ),
    (
        "filesystem",
        include_str!("../../../../tests/data/mcp/filesystem.json"),
    ),
    ("git", include_str!("../../../../tests/data/mcp/git.json")),
    (
        "github",
        include_str!("../../../../tests/data/mcp/github.json"),
    ),
    (
        "memory",
        include_str!("../../../../tests/data/mcp/memory.json"),
    ),
    (
        "playwright",
        include_str!("../../../../tests/data/mcp/playwright.json"),
    ),
    (
        "seqthink",
        include_str!("../../../../tests/data/mcp/seqthink.json"),
    ),
    ("time", include_str!("../../../../tests/data/mcp/time.json")),
];

fn get(v: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(v, &key.into()).unwrap()
}

fn js(text: &str) -> JsValue {
    js_sys::JSON::parse(text).unwrap()
}

/// A JS value read back as JSON.
fn json_of(v: &JsValue) -> Value {
    serde_json::from_str(&js_sys::JSON::stringify(v).unwrap().as_string().unwrap()).unwrap()
}

/// A golden registry by recipe: `embedded`, `mcp:<file>`, `embedded+<file>`, `all`,
/// `doc:builtin`.
fn golden_registry(recipe: &str) -> Registry {
    let mcp = |name: &str| MCP.iter().find(|(n, _)| *n == name).unwrap().1;
    match recipe.split_once(':').or_else(|| recipe.split_once('+')) {
        Some(("doc", "builtin")) => Registry::from_json_str(BUILTIN_REGISTRY).unwrap(),
        None if recipe == "all" => MCP.iter().fold(Registry::embedded(), |r, (n, t)| {
            r.set_mcp_server(n, t).unwrap().registry
        }),
        None => Registry::embedded(),
        Some(("mcp", name)) => Registry::from_json_str(mcp(name)).unwrap(),
        Some((_, name)) => {
            Registry::embedded()
                .set_mcp_server(name, mcp(name))
                .unwrap()
                .registry
        }
    }
}

#[wasm_bindgen_test]
fn cross_target_fingerprints_inside_wasm() {
    let rows: Vec<Value> = serde_json::from_str(EXPECTED).unwrap();
    let mut current: Option<(String, Registry)> = None;
    for row in &rows {
        let recipe = row["registry"].as_str().unwrap();
        if current.as_ref().is_none_or(|(r, _)| r != recipe) {
            current = Some((recipe.to_string(), golden_registry(recipe)));
        }
        let registry = &current.as_ref().unwrap().1;
        // A row's `loaded` stands for a state that loaded those tools and began a turn
        // (tests/cross_target.rs, `turn_options`).
        let mut options = row["options"].clone();
        if let Some(loaded) = options.as_object_mut().unwrap().remove("loaded") {
            options["state"] = serde_json::json!({"loaded": loaded, "frozen": loaded, "turn": 1});
        }
        let req = TurnRequest::from_values(&row["override"], &options).unwrap();
        let p = registry.plan_turn(&req).unwrap();
        assert_eq!(
            row["fingerprint"],
            Value::from(p.fingerprint),
            "{}",
            row["case"]
        );
        assert_eq!(
            row["bytes"],
            Value::from(p.payload.len()),
            "{}",
            row["case"]
        );
        assert_eq!(
            row["requestFields"],
            Value::from(p.request_fields),
            "{}",
            row["case"]
        );
    }
    assert_eq!(rows.len(), 1890);
}

/// The toggle session with `tool_changes: messages` on the three providers, replayed inside
/// the wasm module turn by turn: the same tools, change messages and request fields as native.
#[wasm_bindgen_test]
fn tool_change_rows_inside_wasm() {
    let expected: Vec<Value> = serde_json::from_str(TOOL_CHANGES_EXPECTED).unwrap();
    let script = tool_intent::cache_report::CacheScript::from_json_str(TOGGLE_SESSION).unwrap();
    let rows = tool_change_rows::tool_change_rows(&golden_registry("all"), &script);
    assert_eq!(rows, expected);
    assert_eq!(rows.len(), 80);
}

#[wasm_bindgen_test]
fn plan_turn_through_the_binding() {
    let r = wasm::Registry::embedded();
    let result: JsValue = r
        .plan_turn(JsValue::NULL.unchecked_ref(), None)
        .unwrap()
        .into();
    assert_eq!(
        json_of(&get(&result, "catalog")),
        serde_json::json!([
            "send_message",
            "playwright_browser",
            "enter_plan_mode",
            "exit_plan_mode"
        ])
    );
    let fp = get(&result, "fingerprint").as_string().unwrap();
    let golden = include_str!("../../../../tests/golden/fingerprints.txt");
    assert!(
        golden.contains(&format!("anthropic.default.json {fp}")),
        "{fp}"
    );
    // The payload and catalog text come from the same planning as the names.
    let payload = get(&result, "payload").as_string().unwrap();
    assert_eq!(tool_intent::fingerprint(payload.as_bytes()), fp);
    assert!(get(&result, "catalogText")
        .as_string()
        .unwrap()
        .contains("\nsend_message\n"));
}

#[wasm_bindgen_test]
fn errors_reach_js_with_code_and_path() {
    let r = wasm::Registry::embedded();
    let bad = js(r#"{"disabled":[1]}"#);
    let err = r.plan_turn(bad.unchecked_ref(), None).err().unwrap();
    assert!(err.is_instance_of::<js_sys::Error>());
    assert_eq!(
        get(&err, "code").as_string().as_deref(),
        Some("invalid_value")
    );
    assert_eq!(
        get(&err, "path").as_string().as_deref(),
        Some("$.disabled[0]")
    );
    assert_eq!(
        get(&err, "name").as_string().as_deref(),
        Some("ToolIntentError")
    );
    assert_eq!(
        get(&err, "argument").as_string().as_deref(),
        Some("toolsOverride")
    );
    let err = wasm::Registry::from_json(JsValue::from_str("{\"tools\": 3}").unchecked_ref())
        .err()
        .unwrap();
    assert_eq!(get(&err, "path").as_string().as_deref(), Some("$.tools"));
}

#[wasm_bindgen_test]
fn turn_state_and_search_through_the_binding() {
    let r = wasm::Registry::embedded();
    let intent = js("null");
    let state: JsValue = r.begin_turn(JsValue::NULL.unchecked_ref()).unwrap().into();
    let options = js("{}");
    js_sys::Reflect::set(&options, &"state".into(), &state).unwrap();
    let before = get(
        &r.plan_turn(
            intent.unchecked_ref(),
            Some(options.clone().unchecked_into()),
        )
        .unwrap()
        .into(),
        "fingerprint",
    );
    let mut turn = r
        .turn(
            intent.unchecked_ref(),
            Some(options.clone().unchecked_into()),
        )
        .unwrap();
    let found: JsValue = turn
        .search(
            JsValue::from_str("select:exit_plan_mode").unchecked_ref(),
            None,
        )
        .unwrap()
        .into();
    let after_search = get(&found, "state");
    // The turn keeps the load: its state is the outcome's.
    assert_eq!(
        json_of(&turn.state().unwrap().into()),
        json_of(&after_search)
    );
    js_sys::Reflect::set(&options, &"state".into(), &after_search).unwrap();
    let mid = get(
        &r.plan_turn(
            intent.unchecked_ref(),
            Some(options.clone().unchecked_into()),
        )
        .unwrap()
        .into(),
        "fingerprint",
    );
    assert_eq!(before, mid, "mid-turn search moved the array");
    let next: JsValue = r.begin_turn(after_search.unchecked_ref()).unwrap().into();
    js_sys::Reflect::set(&options, &"state".into(), &next).unwrap();
    let expanded: JsValue = r
        .plan_turn(intent.unchecked_ref(), Some(options.unchecked_into()))
        .unwrap()
        .into();
    assert_eq!(
        json_of(&get(&expanded, "promoted")),
        serde_json::json!(["exit_plan_mode"])
    );
    assert_ne!(get(&expanded, "fingerprint"), before);
}

#[wasm_bindgen_test]
fn intent_helpers_through_the_binding() {
    let toggles = js(r#"{"webSearch":true,"toolset":"research"}"#);
    let intent: JsValue = wasm::build_intent(toggles.unchecked_ref()).unwrap().into();
    assert_eq!(
        js_sys::JSON::stringify(&intent)
            .unwrap()
            .as_string()
            .unwrap(),
        r#"{"toolset":"research","web_search":true}"#
    );
    let canonical = wasm::canonical_intent(
        JsValue::from_str(r#"{"web_search":true,"disabled":["b","a"]}"#).unchecked_ref(),
    )
    .unwrap();
    assert_eq!(canonical, r#"{"disabled":["a","b"],"web_search":true}"#);
    let o: JsValue =
        wasm::session_config_to_override(js(r#"{"tools_enabled":false}"#).unchecked_ref())
            .unwrap()
            .into();
    assert_eq!(
        js_sys::JSON::stringify(&o).unwrap().as_string().unwrap(),
        "[]"
    );
}

#[wasm_bindgen_test]
fn cross_target_search_hits_inside_wasm() {
    assert_eq!(check_search_rows(SEARCH_EXPECTED), 128);
}

/// The hybrid ranker's rows (tests/golden/search-hybrid.json), in a build with the feature
/// (scripts/test.sh runs this suite with `--features hybrid`).
#[cfg(feature = "hybrid")]
#[wasm_bindgen_test]
fn cross_target_hybrid_search_hits_inside_wasm() {
    let rows = include_str!("../../../../tests/golden/search-hybrid.json");
    assert_eq!(check_search_rows(rows), 144);
}

/// The abstention rows (tests/golden/search-abstain.json: keyword, hybrid and model rankers
/// with `abstain`), the registries given the model.
#[cfg(feature = "hybrid")]
#[wasm_bindgen_test]
fn cross_target_abstain_search_inside_wasm() {
    let model = tool_intent::search::ModelRanker::from_safetensors(MODEL_WEIGHTS).unwrap();
    let rows = include_str!("../../../../tests/golden/search-abstain.json");
    assert_eq!(
        check_search_rows_with(rows, |r| r.with_model(model.clone())),
        140
    );
}

/// all-MiniLM-L6-v2's weights, compiled into this test module (`setup_model` downloads them;
/// without them this suite does not build).
#[cfg(feature = "hybrid")]
static MODEL_WEIGHTS: &[u8] =
    include_bytes!("../../../../target/retrieval/minilm/model/model.safetensors");

/// The model ranker's rows (tests/golden/search-model.json), with all-MiniLM-L6-v2's weights
/// compiled into this test module (`setup_model` downloads them; without them this suite does
/// not build).
#[cfg(feature = "hybrid")]
#[wasm_bindgen_test]
fn cross_target_model_search_hits_inside_wasm() {
    let model = tool_intent::search::ModelRanker::from_safetensors(MODEL_WEIGHTS).unwrap();
    let rows = include_str!("../../../../tests/golden/search-model.json");
    assert_eq!(
        check_search_rows_with(rows, |r| r.with_model(model.clone())),
        44
    );
}

/// Runs every search row (its limit, its ranker when it names one, `abstain` when it asks) and
/// compares hits, result text and (for abstention rows) warning codes with the native
/// build's; returns the row count.
fn check_search_rows(text: &str) -> usize {
    check_search_rows_with(text, |r| r)
}

/// [`check_search_rows`] on registries passed through `prepare` (to give them a model).
fn check_search_rows_with(text: &str, prepare: impl Fn(Registry) -> Registry) -> usize {
    let rows: Vec<Value> = serde_json::from_str(text).unwrap();
    let bfcl = prepare(
        Registry::embedded()
            .set_mcp_server("b", BFCL_POOL)
            .unwrap()
            .registry,
    );
    let all = prepare(golden_registry("all"));
    for row in &rows {
        let registry = if row["registry"] == "bfcl" {
            &bfcl
        } else {
            &all
        };
        let mut options = serde_json::json!({"limit": row["limit"]});
        if let Some(ranker) = row.get("ranker") {
            options["ranker"] = ranker.clone();
        }
        if let Some(abstain) = row.get("abstain") {
            options["abstain"] = abstain.clone();
        }
        let req = TurnRequest::from_values(&row["override"], &Value::Null).unwrap();
        let search = SearchOptions::from_object(&options).unwrap();
        let chosen = search.ranker_for(registry).unwrap();
        let call = search.call(row["query"].as_str().unwrap(), &chosen);
        let out = registry
            .turn(&req)
            .and_then(|mut turn| turn.search(&call))
            .unwrap();
        assert_eq!(
            row["hits"],
            serde_json::json!(out.result.hits),
            "{}",
            row["case"]
        );
        assert_eq!(
            row["text"],
            Value::from(tool_intent::fingerprint(out.result.text.as_bytes())),
            "{}",
            row["case"]
        );
        if let Some(codes) = row.get("warnings") {
            let got: Vec<&str> = out
                .result
                .warnings
                .iter()
                .map(|w| w.code.as_str())
                .collect();
            assert_eq!(*codes, serde_json::json!(got), "{}", row["case"]);
        }
    }
    rows.len()
}
