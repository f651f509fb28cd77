//! The wasm-bindgen adapter: JS values in, library call, JS values out. No logic lives here.
//!
//! - Inputs: an override or registry may be given as JSON text (parsed by serde_json, byte-for-
//!   byte as natively) or as a plain JS value (converted by serde-wasm-bindgen).
//! - Outputs: plain objects through `Serializer::json_compatible()` (no `Map`s, no BigInts);
//!   payload bytes stay a JSON string so callers send exactly what was fingerprinted.
//! - Errors: a JS `Error` with `name = "ToolIntentError"`, a stable `code` and, where the
//!   library has one, the JSON `path` of the bad value. The library never panics on input; the
//!   optional panic hook only makes a bug readable.

use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::budget::{self, CounterKind};
use crate::deferral::{self, TurnState};
use crate::error::Error;
use crate::intent::ToolsOverride;
use crate::preview::{effective_state, preview as preview_core, PreviewRequest};
use crate::registry::Registry;
use crate::render::{render, RenderOptions};
use crate::search as search_core;
use crate::session::{self, SessionRunConfig, Toggles};

#[wasm_bindgen(start)]
fn start() {
    #[cfg(feature = "console-panic-hook")]
    console_error_panic_hook::set_once();
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = include_str!("wasm_types.d.ts");

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "ToolsOverride | string")]
    pub type JsToolsOverride;
    #[wasm_bindgen(typescript_type = "RegistryDocument | ToolDefinition[] | string")]
    pub type JsRegistryInput;
    #[wasm_bindgen(typescript_type = "ExpandOptions")]
    pub type JsExpandOptions;
    #[wasm_bindgen(typescript_type = "ExpandResult")]
    pub type JsExpandResult;
    #[wasm_bindgen(typescript_type = "PayloadResult")]
    pub type JsPayloadResult;
    #[wasm_bindgen(typescript_type = "SearchOptions")]
    pub type JsSearchOptions;
    #[wasm_bindgen(typescript_type = "SearchResult")]
    pub type JsSearchResult;
    #[wasm_bindgen(typescript_type = "BudgetOptions")]
    pub type JsBudgetOptions;
    #[wasm_bindgen(typescript_type = "Budget")]
    pub type JsBudget;
    #[wasm_bindgen(typescript_type = "Toggles")]
    pub type JsToggles;
    #[wasm_bindgen(typescript_type = "ToolsOverride")]
    pub type JsToolsOverrideOut;
    #[wasm_bindgen(typescript_type = "SessionRunConfig | string")]
    pub type JsSessionRunConfig;
    #[wasm_bindgen(typescript_type = "SessionRunConfig")]
    pub type JsSessionRunConfigOut;
    #[wasm_bindgen(typescript_type = "NormalizedTools")]
    pub type JsNormalizedTools;
    #[wasm_bindgen(typescript_type = "TurnState | null | undefined")]
    pub type JsTurnStateIn;
    #[wasm_bindgen(typescript_type = "TurnState")]
    pub type JsTurnState;
    #[wasm_bindgen(typescript_type = "ToolInfo[]")]
    pub type JsToolInfos;
    #[wasm_bindgen(typescript_type = "ToolDefinition")]
    pub type JsToolDefinition;
    #[wasm_bindgen(typescript_type = "RegistryDocument")]
    pub type JsRegistryDocument;
}

fn js_error(e: &Error) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    err.set_name("ToolIntentError");
    let _ = js_sys::Reflect::set(&err, &"code".into(), &e.code().into());
    if let Some(path) = e.path() {
        let _ = js_sys::Reflect::set(&err, &"path".into(), &path.into());
    }
    err.into()
}

fn boundary_error(what: &'static str, message: String) -> JsValue {
    js_error(&Error::InvalidArgument {
        path: crate::error::JsonPath::from_raw(what),
        message,
    })
}

/// A JS value as JSON: strings are JSON text, anything else is converted.
fn json_in(value: &JsValue, what: &'static str) -> Result<Value, JsValue> {
    if let Some(text) = value.as_string() {
        return serde_json::from_str(&text).map_err(|e| js_error(&Error::invalid_json(what, &e)));
    }
    if value.is_undefined() {
        return Ok(Value::Null);
    }
    serde_wasm_bindgen::from_value(value.clone()).map_err(|e| boundary_error(what, e.to_string()))
}

/// An override given as JSON text or as a plain value.
fn override_in(value: &JsValue) -> Result<ToolsOverride, JsValue> {
    lib(ToolsOverride::from_value(&json_in(value, "override")?))
}

/// Options objects are never JSON text.
fn options_in(value: &JsValue) -> Result<Value, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Value::Null);
    }
    serde_wasm_bindgen::from_value(value.clone())
        .map_err(|e| boundary_error("options", e.to_string()))
}

fn out<T: Serialize + ?Sized, J: JsCast>(value: &T) -> Result<J, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map(JsCast::unchecked_into)
        .map_err(|e| boundary_error("result", e.to_string()))
}

/// Large, string-heavy results (previews list every tool name, budgets every tool) cross as
/// one JSON string parsed by the engine's JSON.parse: measured faster than building the
/// object field by field through serde-wasm-bindgen (see the Node benchmark's "boundary"
/// table).
fn out_json<T: Serialize + ?Sized, J: JsCast>(value: &T) -> Result<J, JsValue> {
    let text = serde_json::to_string(value).map_err(|e| boundary_error("result", e.to_string()))?;
    js_sys::JSON::parse(&text).map(JsCast::unchecked_into)
}

fn lib<T>(r: crate::error::Result<T>) -> Result<T, JsValue> {
    r.map_err(|e| js_error(&e))
}

/// A registry parsed once and kept on the wasm side; each call passes only the small intent.
#[wasm_bindgen(js_name = ToolRegistry)]
pub struct ToolRegistry {
    inner: Registry,
}

#[wasm_bindgen(js_class = ToolRegistry)]
impl ToolRegistry {
    /// Loads a registry: our format, an MCP `tools/list` result or a bare tool array, as JSON
    /// text (fastest, byte-exact) or as a plain object.
    #[wasm_bindgen(js_name = fromJson)]
    pub fn from_json(input: &JsRegistryInput) -> Result<ToolRegistry, JsValue> {
        let inner = match input.as_string() {
            Some(text) => lib(Registry::from_json_str(&text))?,
            None => lib(Registry::from_value(&json_in(input, "registry")?))?,
        };
        Ok(ToolRegistry { inner })
    }

    /// The registry compiled into the library.
    #[wasm_bindgen(js_name = default)]
    pub fn embedded() -> ToolRegistry {
        ToolRegistry {
            inner: Registry::embedded(),
        }
    }

    /// A new registry with one MCP server's tools merged in as `mcp__<server>__<tool>`.
    #[wasm_bindgen(js_name = mergeMcpServer)]
    pub fn merge_mcp_server(
        &self,
        server: &str,
        tools_list: &JsRegistryInput,
    ) -> Result<ToolRegistry, JsValue> {
        let value = json_in(tools_list, "tools list")?;
        Ok(ToolRegistry {
            inner: lib(self.inner.merge_mcp_server(server, &value))?,
        })
    }

    /// Number of tools.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.inner.len()
    }

    /// Every tool's name, title and description, in registry order.
    #[wasm_bindgen(js_name = toolInfo)]
    pub fn tool_info(&self) -> Result<JsToolInfos, JsValue> {
        out(&crate::preview::tool_infos(&self.inner))
    }

    /// One tool's full definition `{name, description, parameters, ...}`.
    #[wasm_bindgen(js_name = toolDefinition)]
    pub fn tool_definition(&self, name: &str) -> Result<JsToolDefinition, JsValue> {
        match self.inner.index_of(name).and_then(|i| self.inner.tool(i)) {
            Some(t) => out(&crate::registry::tool_to_value(t)),
            None => Err(js_error(&Error::ToolNotAvailable {
                name: name.to_string(),
                reason: "no tool of that name in the registry".to_string(),
            })),
        }
    }

    /// Preset names.
    #[wasm_bindgen(js_name = toolsetNames)]
    pub fn toolset_names(&self) -> Vec<String> {
        self.inner.toolset_names().map(String::from).collect()
    }

    /// Source names.
    #[wasm_bindgen(js_name = sourceNames)]
    pub fn source_names(&self) -> Vec<String> {
        self.inner.source_names().map(String::from).collect()
    }

    /// The registry document in our format (JSON text).
    #[wasm_bindgen(js_name = toJson)]
    pub fn to_json(&self) -> String {
        self.inner.to_value().to_string()
    }

    /// Expands an override: the same values as the CLI's `tool-intent expand`.
    pub fn expand(
        &self,
        tools_override: &JsToolsOverride,
        options: Option<JsExpandOptions>,
    ) -> Result<JsExpandResult, JsValue> {
        let request = self.request(tools_override, options.as_ref().map(|o| o.as_ref()))?;
        let preview = lib(preview_core(&self.inner, &request))?;
        js_sys::JSON::parse(&preview.to_json()).map(JsCast::unchecked_into)
    }

    /// The same result as `expand`, as JSON text (for callers that forward or store it).
    #[wasm_bindgen(js_name = expandJson)]
    pub fn expand_json(
        &self,
        tools_override: &JsToolsOverride,
        options: Option<JsExpandOptions>,
    ) -> Result<String, JsValue> {
        let request = self.request(tools_override, options.as_ref().map(|o| o.as_ref()))?;
        Ok(lib(preview_core(&self.inner, &request))?.to_json())
    }

    /// Benchmark hook: `expand` with the result built by serde-wasm-bindgen instead of
    /// JSON.parse, so the Node benchmark can report what the chosen route saves.
    #[wasm_bindgen(js_name = _expandViaSerde, skip_typescript)]
    pub fn expand_via_serde(
        &self,
        tools_override: &JsValue,
        options: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let request = self.request(tools_override, Some(options))?;
        out(&lib(preview_core(&self.inner, &request))?)
    }

    /// The exact provider payload: `{json, fingerprint, catalog, tools}`.
    pub fn payload(
        &self,
        tools_override: &JsToolsOverride,
        options: Option<JsExpandOptions>,
    ) -> Result<JsPayloadResult, JsValue> {
        let request = self.request(tools_override, options.as_ref().map(|o| o.as_ref()))?;
        let expansion = lib(request.expand(&self.inner))?;
        let opts = RenderOptions {
            provider: request.provider,
            mode: request.mode,
            cache_control: request.cache_control,
            view: request.view,
        };
        out(&lib(render(&expansion, &effective_state(&request), opts))?)
    }

    /// The catalog text for the system prompt ("" when nothing is deferred).
    #[wasm_bindgen(js_name = catalogText)]
    pub fn catalog_text(
        &self,
        tools_override: &JsToolsOverride,
        options: Option<JsExpandOptions>,
    ) -> Result<String, JsValue> {
        let request = self.request(tools_override, options.as_ref().map(|o| o.as_ref()))?;
        let expansion = lib(request.expand(&self.inner))?;
        let split =
            deferral::split_for_dispatch(&expansion, &effective_state(&request), request.view);
        Ok(deferral::catalog_text(&self.inner, &split.catalog))
    }

    /// Runs `tool_search`: `{hits, notFound, text, state}` where `state` has the loads recorded.
    pub fn search(
        &self,
        tools_override: &JsToolsOverride,
        query: &str,
        options: Option<JsSearchOptions>,
    ) -> Result<JsSearchResult, JsValue> {
        let (request, limit) = self.request_taking(
            tools_override,
            options.as_ref().map(|o| o.as_ref()),
            Some("limit"),
        )?;
        let limit = limit.unwrap_or_else(|| Value::from(search_core::DEFAULT_LIMIT));
        let expansion = lib(request.expand(&self.inner))?;
        let args = serde_json::json!({"query": query, "limit": limit});
        let (result, state) = lib(search_core::execute(
            &expansion,
            &effective_state(&request),
            &args,
        ))?;
        out(&crate::preview::SearchOutcome { result, state })
    }

    /// Dispatch lookup: the full definition of a tool the session may call, or a
    /// `tool_not_available` error.
    pub fn resolve(
        &self,
        tools_override: &JsToolsOverride,
        name: &str,
        options: Option<JsExpandOptions>,
    ) -> Result<JsToolDefinition, JsValue> {
        let request = self.request(tools_override, options.as_ref().map(|o| o.as_ref()))?;
        let expansion = lib(request.expand(&self.inner))?;
        out(&crate::registry::tool_to_value(lib(
            expansion.resolve(name)
        )?))
    }

    /// Token budget, half by half. `counter`: "estimate" (default) or, in the exact build,
    /// "o200k" / "cl100k".
    pub fn budget(
        &self,
        tools_override: &JsToolsOverride,
        options: Option<JsBudgetOptions>,
    ) -> Result<JsBudget, JsValue> {
        let (request, counter) = self.request_taking(
            tools_override,
            options.as_ref().map(|o| o.as_ref()),
            Some("counter"),
        )?;
        let kind = match counter {
            None => CounterKind::Estimate,
            Some(Value::String(s)) => lib(CounterKind::parse(&s))?,
            Some(other) => {
                return Err(boundary_error(
                    "options.counter",
                    format!("expected a string, found {other}"),
                ))
            }
        };
        let counter = counter_for(kind)?;
        out_json(&lib(budget::budget_with_counter(
            &self.inner,
            &request,
            counter,
        ))?)
    }

    fn request(
        &self,
        tools_override: &JsValue,
        options: Option<&JsValue>,
    ) -> Result<PreviewRequest, JsValue> {
        Ok(self.request_taking(tools_override, options, None)?.0)
    }

    /// A request from JS arguments, with one method-specific option (`limit`, `counter`)
    /// taken out first (`null` reads as absent).
    fn request_taking(
        &self,
        tools_override: &JsValue,
        options: Option<&JsValue>,
        key: Option<&str>,
    ) -> Result<(PreviewRequest, Option<Value>), JsValue> {
        let o = json_in(tools_override, "override")?;
        let mut opts = options_in(options.unwrap_or(&JsValue::UNDEFINED))?;
        let taken = opts
            .as_object_mut()
            .zip(key)
            .and_then(|(m, k)| m.remove(k))
            .filter(|v| !v.is_null());
        Ok((lib(PreviewRequest::from_values(&o, &opts))?, taken))
    }
}

/// Exact counters are built once per module instance (building o200k takes a while).
fn counter_for(kind: CounterKind) -> Result<&'static dyn budget::TokenCounter, JsValue> {
    match kind {
        CounterKind::Estimate => Ok(&budget::Estimator),
        #[cfg(feature = "exact-tokens")]
        CounterKind::O200k => {
            static O200K: std::sync::OnceLock<budget::BpeCounter> = std::sync::OnceLock::new();
            if O200K.get().is_none() {
                let _ = O200K.set(lib(budget::BpeCounter::o200k())?);
            }
            O200K
                .get()
                .map(|c| c as &dyn budget::TokenCounter)
                .ok_or_else(|| boundary_error("counter", "o200k unavailable".into()))
        }
        #[cfg(feature = "exact-tokens")]
        CounterKind::Cl100k => {
            static CL100K: std::sync::OnceLock<budget::BpeCounter> = std::sync::OnceLock::new();
            if CL100K.get().is_none() {
                let _ = CL100K.set(lib(budget::BpeCounter::cl100k())?);
            }
            CL100K
                .get()
                .map(|c| c as &dyn budget::TokenCounter)
                .ok_or_else(|| boundary_error("counter", "cl100k unavailable".into()))
        }
        #[cfg(not(feature = "exact-tokens"))]
        other => {
            lib(budget::counter(other).map(|_| &budget::Estimator as &dyn budget::TokenCounter))
        }
    }
}

/// Which build this is: `"core"` or `"exact"` (with the o200k/cl100k counters).
#[wasm_bindgen(js_name = buildFlavor)]
pub fn build_flavor() -> String {
    if cfg!(feature = "exact-tokens") {
        "exact"
    } else {
        "core"
    }
    .to_string()
}

/// Counts tokens of a text with a counter ("estimate", or "o200k"/"cl100k" in the exact build).
#[wasm_bindgen(js_name = countTokens)]
pub fn count_tokens(text: &str, counter: Option<String>) -> Result<usize, JsValue> {
    let kind = lib(CounterKind::parse(counter.as_deref().unwrap_or("estimate")))?;
    Ok(counter_for(kind)?.count(text))
}

/// The intent a writer stores for a set of UI toggles (never an expanded list).
#[wasm_bindgen(js_name = buildIntent)]
pub fn build_intent(toggles: &JsToggles) -> Result<JsToolsOverrideOut, JsValue> {
    let value = json_in(toggles, "toggles")?;
    let toggles: Toggles =
        serde_json::from_value(value).map_err(|e| boundary_error("toggles", e.to_string()))?;
    out(&session::build_intent(&toggles).to_canonical_value())
}

/// The canonical JSON text of an override (equal intents give equal bytes).
#[wasm_bindgen(js_name = canonicalIntent)]
pub fn canonical_intent(tools_override: &JsToolsOverride) -> Result<String, JsValue> {
    Ok(override_in(tools_override)?.to_canonical_json())
}

/// The override a stored session row stands for.
#[wasm_bindgen(js_name = toolsOverrideFromConfig)]
pub fn tools_override_from_config(
    config: &JsSessionRunConfig,
) -> Result<JsToolsOverrideOut, JsValue> {
    let row = lib(SessionRunConfig::from_value(&json_in(
        config,
        "session config",
    )?))?;
    out(&session::tools_override_from_config(&row).to_canonical_value())
}

/// The session row (four columns) to store for an override.
#[wasm_bindgen(js_name = sessionConfigFromOverride)]
pub fn session_config_from_override(
    tools_override: &JsToolsOverride,
) -> Result<JsSessionRunConfigOut, JsValue> {
    let o = override_in(tools_override)?;
    out(&SessionRunConfig::from_override(&o).to_value())
}

/// The seed's `normalize_tools_value`: `{toolsEnabled, toolsOverride}` for a writer's value.
#[wasm_bindgen(js_name = normalizeToolsValue)]
pub fn normalize_tools_value(value: &JsValue) -> Result<JsNormalizedTools, JsValue> {
    let v = if value.is_undefined() {
        Value::Null
    } else {
        json_in(value, "tools value")?
    };
    let (enabled, o) = lib(session::normalize_tools_value(&v))?;
    out(&serde_json::json!({
        "toolsEnabled": enabled,
        "toolsOverride": o.map(|o| o.to_canonical_value()),
    }))
}

fn state_in(state: &JsValue) -> Result<TurnState, JsValue> {
    if state.is_undefined() || state.is_null() {
        return Ok(TurnState::default());
    }
    serde_wasm_bindgen::from_value(state.clone())
        .map_err(|e| boundary_error("state", e.to_string()))
}

/// A turn boundary: loads recorded so far join the array from now on.
#[wasm_bindgen(js_name = beginTurn)]
pub fn begin_turn(state: &JsTurnStateIn) -> Result<JsTurnState, JsValue> {
    out(&deferral::begin_turn(&state_in(state)?))
}

/// Records loaded tools (in load order, each once).
#[wasm_bindgen(js_name = recordLoaded)]
pub fn record_loaded(state: &JsTurnStateIn, names: Vec<String>) -> Result<JsTurnState, JsValue> {
    out(&deferral::record_loaded(&state_in(state)?, &names))
}

/// `sha256:<hex>` of a string's UTF-8 bytes (to check a payload a caller holds).
#[wasm_bindgen(js_name = fingerprint)]
pub fn fingerprint(text: &str) -> String {
    crate::render::fingerprint(text.as_bytes())
}
