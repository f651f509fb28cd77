//! The module-level functions: token counts, intents and session rows for writers, loads,
//! fingerprints, the build's flavour.

use crate::*;

/// Which build this is: `"core"`, `"exact"` (with the o200k/cl100k counters) or `"hybrid"`
/// (with the hybrid search ranker).
#[wasm_bindgen(js_name = buildFlavor)]
pub fn build_flavor() -> String {
    if cfg!(feature = "exact-tokens") {
        "exact"
    } else if cfg!(feature = "hybrid") {
        "hybrid"
    } else {
        "core"
    }
    .to_string()
}

/// Counts tokens of a text with a counter ("estimate", or "o200k"/"cl100k" in the exact build).
#[wasm_bindgen(js_name = countTokens)]
pub fn count_tokens(text: &JsText, counter: Option<JsCounterName>) -> Result<usize, JsValue> {
    let text = text_in(text, "text")?;
    let name = match counter {
        Some(c) => opt_text_in(&c, "counter")?,
        None => None,
    };
    // No counter named: the core's default (`CounterKind::default()`), as `budget` takes it.
    let kind = lib(name.as_deref().map(CounterKind::parse).transpose())?.unwrap_or_default();
    Ok(lib(shared_counter(kind))?.count(&text))
}

/// The intent a writer stores for a set of UI toggles (never an expanded list).
#[wasm_bindgen(js_name = buildIntent)]
pub fn build_intent(toggles: &JsToggles) -> Result<JsToolsOverrideOut, JsValue> {
    let toggles = lib(Toggles::from_value(&json_in(toggles, "toggles")?))?;
    out(&tool_intent::build_intent(&toggles).to_canonical_value())
}

/// The canonical JSON text of an override (equal intents give equal bytes).
#[wasm_bindgen(js_name = canonicalIntent)]
pub fn canonical_intent(
    #[wasm_bindgen(js_name = "toolsOverride")] tools_override: &JsToolsOverride,
) -> Result<String, JsValue> {
    let o = lib(ToolsOverride::from_value(&json_in(
        tools_override,
        "toolsOverride",
    )?))?;
    Ok(o.to_canonical_json())
}

/// The override a stored session row stands for.
#[wasm_bindgen(js_name = sessionConfigToOverride)]
pub fn session_config_to_override(
    config: &JsSessionRunConfig,
) -> Result<JsToolsOverrideOut, JsValue> {
    let row = lib(SessionRunConfig::from_value(&json_in(config, "config")?)
        .map_err(|e| e.with_input("config")))?;
    out(&row.to_override().to_canonical_value())
}

/// The session row (four columns) to store for an override.
#[wasm_bindgen(js_name = sessionConfigFromOverride)]
pub fn session_config_from_override(
    #[wasm_bindgen(js_name = "toolsOverride")] tools_override: &JsToolsOverride,
) -> Result<JsSessionRunConfigOut, JsValue> {
    let o = lib(ToolsOverride::from_value(&json_in(
        tools_override,
        "toolsOverride",
    )?))?;
    out(&SessionRunConfig::from_override(&o).to_value())
}

/// The server's `normalize_tools_value`: the row's `tools_enabled` and `tools_override`
/// columns for a writer's value (the other two columns null).
#[wasm_bindgen(js_name = normalizeToolsValue)]
pub fn normalize_tools_value(value: &JsToolsOverride) -> Result<JsSessionRunConfigOut, JsValue> {
    out(
        &lib(normalize_core(&json_in(value, "value")?).map_err(|e| e.with_input("value")))?
            .to_value(),
    )
}

pub(crate) fn state_in(state: &JsValue) -> Result<TurnState, JsValue> {
    lib(TurnState::from_value(&json_in(state, "state")?))
}

/// Records loaded tools (in load order, each once).
#[wasm_bindgen(js_name = recordLoaded)]
pub fn record_loaded(state: &JsTurnStateIn, names: &JsNames) -> Result<JsTurnState, JsValue> {
    let names = names_in(names, "names")?;
    out(&lib(tool_intent::record_loaded(&state_in(state)?, &names))?)
}

/// `sha256:<hex>` of a string's UTF-8 bytes (to check a payload a caller holds).
#[wasm_bindgen(js_name = fingerprint)]
pub fn fingerprint(text: &JsText) -> Result<String, JsValue> {
    Ok(tool_intent::fingerprint(text_in(text, "text")?.as_bytes()))
}
