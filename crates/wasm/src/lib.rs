//! The WebAssembly binding of tool-intent (wasm-bindgen): JS arguments in, one core call, JS
//! values out. Every function here converts its arguments, calls the core and converts the
//! result or the error; nothing is decided here. scripts/build-wasm.sh builds the npm packages
//! (tool-intent, tool-intent-exact, tool-intent-hybrid) from this crate.
//!
//! - Inputs: a value may be JSON text (parsed by serde_json, byte-for-byte as natively) or a
//!   plain JS value, which crosses as `JSON.stringify` text (so it reads exactly as
//!   `JSON.parse` would give it: `1.0` is `1`, `undefined` members vanish). One route for
//!   both keeps the module small and the two forms equal.
//! - Outputs: serde_json text handed to the engine's `JSON.parse` (measured faster than
//!   building objects field by field); payload bytes stay a string so callers send exactly
//!   what was fingerprinted.
//! - Errors: a JS `Error` with `name = "ToolIntentError"`, a stable `code`, the `argument` it
//!   is about (the parameter or option name, camelCase: the core names them in snake_case,
//!   as Python shows them) and, where there is one, the JSON `path` inside that argument.
//!   The library never panics on input; the optional panic hook only makes a bug readable.

// The JS surface is documented by the TypeScript declarations (`src/types.d.ts`);
// `wasm_bindgen` generates undocumented glue items.
#![allow(missing_docs)]

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

mod convert;

use convert::{json_in, json_text, names_in, opt_text_in, options_in, out, parse_out, text_in};
use tool_intent::cache_report::CacheScript;
use tool_intent::counter::shared_counter;
use tool_intent::plan::{search_argument_error, Call, CallOptions};
use tool_intent::session::normalize_tools_value as normalize_core;
use tool_intent::{
    CounterKind, Error, Registry as CoreRegistry, SessionRunConfig, Toggles, ToolsOverride,
    Turn as CoreTurn, TurnRequest, TurnState,
};

// talc instead of the default dlmalloc: measured smaller in the module and as fast for the
// registry loader's many small allocations.
// SAFETY: wasm32 here is single-threaded, which is what `TalckWasm` assumes.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::TalckWasm = unsafe { talc::TalckWasm::new_global() };

// Only with the feature: a `start` function would otherwise be one more JS export that does
// nothing.
#[cfg(feature = "console-panic-hook")]
#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = include_str!("types.d.ts");

// The counter names each build accepts, so `budget({ counter: "o200k" })` only type-checks
// against the package whose module can count o200k (tool-intent-exact).
#[cfg(feature = "exact-tokens")]
#[wasm_bindgen(typescript_custom_section)]
const TS_COUNTER_NAMES: &'static str = r#"
/** Counter names countTokens, budget and cacheReport accept: the estimator and the exact BPE
 * counters of this build (tool-intent-exact). */
export type CounterName = "estimate" | "o200k" | "cl100k" | "o200k_base" | "cl100k_base";
"#;
#[cfg(not(feature = "exact-tokens"))]
#[wasm_bindgen(typescript_custom_section)]
const TS_COUNTER_NAMES: &'static str = r#"
/** Counter names countTokens, budget and cacheReport accept. This build has the estimator
 * only; the exact o200k / cl100k counters are in the tool-intent-exact package. */
export type CounterName = "estimate";
"#;

// The rankers each build accepts, so `search(..., { ranker: "hybrid" })` only type-checks
// against the package that has it (tool-intent-hybrid).
#[cfg(feature = "hybrid")]
#[wasm_bindgen(typescript_custom_section)]
const TS_RANKER_NAMES: &'static str = r#"
/** Rankers search accepts: keyword (default), hybrid (keywords + static embeddings) and
 * model (keywords + all-MiniLM-L6-v2 run per text; the registry needs the model's weights
 * first: registry.withModel). */
export type RankerName = "keyword" | "hybrid" | "model";
"#;
#[cfg(not(feature = "hybrid"))]
#[wasm_bindgen(typescript_custom_section)]
const TS_RANKER_NAMES: &'static str = r#"
/** Rankers search accepts; "hybrid" is in tool-intent-hybrid. */
export type RankerName = "keyword";
"#;

// Opaque JS types, each named for its declaration in `src/types.d.ts`.
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "ToolsOverride | string")]
    pub type JsToolsOverride;
    #[wasm_bindgen(typescript_type = "RegistryDocument | ToolDefinition[] | string")]
    pub type JsRegistryInput;
    #[wasm_bindgen(typescript_type = "TurnOptions")]
    pub type JsTurnOptions;
    #[wasm_bindgen(typescript_type = "TurnPlan")]
    pub type JsTurnPlan;
    #[wasm_bindgen(typescript_type = "SearchOptions")]
    pub type JsSearchOptions;
    #[wasm_bindgen(typescript_type = "SearchOutcome")]
    pub type JsSearchOutcome;
    #[wasm_bindgen(typescript_type = "BudgetOptions")]
    pub type JsBudgetOptions;
    #[wasm_bindgen(typescript_type = "CacheReportOptions")]
    pub type JsCacheReportOptions;
    #[wasm_bindgen(typescript_type = "CacheScript | string")]
    pub type JsCacheScript;
    #[wasm_bindgen(typescript_type = "CacheReport")]
    pub type JsCacheReport;
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
    #[wasm_bindgen(typescript_type = "ExpansionWarning[]")]
    pub type JsWarnings;
    #[wasm_bindgen(typescript_type = "ProviderCheck")]
    pub type JsProviderCheck;
    #[wasm_bindgen(typescript_type = "TurnState | null | undefined")]
    pub type JsTurnStateIn;
    #[wasm_bindgen(typescript_type = "TurnState")]
    pub type JsTurnState;
    #[wasm_bindgen(typescript_type = "ToolInfo[]")]
    pub type JsToolInfos;
    #[wasm_bindgen(typescript_type = "ToolDefinition")]
    pub type JsToolDefinition;
    #[wasm_bindgen(
        typescript_type = "{ name: string; tools: RegistryDocument | ToolDefinition[] | string }[]"
    )]
    pub type JsServerLists;
    #[wasm_bindgen(typescript_type = "RegistryDiff")]
    pub type JsRegistryDiff;
    #[wasm_bindgen(typescript_type = "CounterName")]
    pub type JsCounterName;
    // Strings and name lists cross as plain JS values and are checked here, so a wrong type
    // is a ToolIntentError naming the argument, not the generated glue's TypeError.
    #[wasm_bindgen(typescript_type = "string")]
    pub type JsText;
    #[wasm_bindgen(typescript_type = "string[]")]
    pub type JsNames;
    #[wasm_bindgen(typescript_type = "Uint8Array")]
    pub type JsBytes;
    #[wasm_bindgen(typescript_type = "Provider")]
    pub type JsProviderName;
}

fn js_error(e: &Error) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    err.set_name("ToolIntentError");
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(&err, &k.into(), &v);
    };
    set("code", e.code().into());
    if let Some(input) = e.input() {
        set("argument", camel_case(input).into());
    }
    if let Some(path) = e.path() {
        set("path", path.into());
    }
    err.into()
}

/// An argument name as JS spells it (`tools_override` → `toolsOverride`).
fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn lib<T>(r: tool_intent::Result<T>) -> Result<T, JsValue> {
    r.map_err(|e| js_error(&e))
}

// The platform's UTF-8 encoder writes a JS string straight into wasm memory: one native pass,
// no intermediate buffer (measured faster than the generated glue's per-character loop).

/// A registry after a change to its servers: `registry` (the new one) and `diff`
/// (`{added, removed, changed}` wire names).
#[wasm_bindgen]
pub struct RegistryChange {
    registry: CoreRegistry,
    diff: tool_intent::RegistryDiff,
}

#[wasm_bindgen]
impl RegistryChange {
    /// The new registry.
    #[wasm_bindgen(getter)]
    pub fn registry(&self) -> Registry {
        Registry {
            inner: self.registry.clone(),
        }
    }

    /// Tools added, removed and changed, by wire name, and the annotation presets they moved.
    #[wasm_bindgen(getter)]
    pub fn diff(&self) -> Result<JsRegistryDiff, JsValue> {
        out(&self.diff)
    }
}

fn change(
    result: tool_intent::Result<tool_intent::RegistryChange>,
) -> Result<RegistryChange, JsValue> {
    let c = lib(result)?;
    Ok(RegistryChange {
        registry: c.registry,
        diff: c.diff,
    })
}

/// A registry parsed once and kept on the wasm side; each call passes only the small intent.
/// The JS class is `Registry`, with the Rust handle's method names in camelCase.
#[wasm_bindgen]
pub struct Registry {
    inner: CoreRegistry,
}

#[wasm_bindgen]
impl Registry {
    /// Loads a registry: our format, an MCP `tools/list` result or a bare tool array, as JSON
    /// text (fastest, byte-exact) or as a plain object.
    #[wasm_bindgen(js_name = fromJson)]
    pub fn from_json(document: &JsRegistryInput) -> Result<Registry, JsValue> {
        let text = json_text(document, "document")?;
        Ok(Registry {
            inner: lib(CoreRegistry::from_json_str(&text).map_err(|e| e.with_input("document")))?,
        })
    }

    /// The registry compiled into the library.
    pub fn embedded() -> Registry {
        Registry {
            inner: CoreRegistry::embedded(),
        }
    }

    /// Sets one MCP server's tools from its `tools/list` result (adds the server or replaces
    /// its tools): `{registry, diff}`, this registry unchanged.
    #[wasm_bindgen(js_name = setMcpServer)]
    pub fn set_mcp_server(
        &self,
        server: &JsText,
        tools_list: &JsRegistryInput,
    ) -> Result<RegistryChange, JsValue> {
        let server = text_in(server, "server")?;
        let text = json_text(tools_list, "tools_list")?;
        change(
            self.inner
                .set_mcp_server(&server, &text)
                .map_err(|e| match e.input() {
                    Some("server") => e,
                    _ => e.with_input("tools_list"),
                }),
        )
    }

    /// Sets many servers in one build: `servers` is `[{name, tools}]` (each `tools` a
    /// `tools/list` result or its JSON text).
    #[wasm_bindgen(js_name = setMcpServers)]
    pub fn set_mcp_servers(&self, servers: &JsServerLists) -> Result<RegistryChange, JsValue> {
        change(
            self.inner
                .set_mcp_servers_value(&json_in(servers, "servers")?)
                .map_err(|e| e.with_input("servers")),
        )
    }

    /// Removes a server and its tools: `{registry, diff}`.
    #[wasm_bindgen(js_name = removeMcpServer)]
    pub fn remove_mcp_server(&self, server: &JsText) -> Result<RegistryChange, JsValue> {
        change(self.inner.remove_mcp_server(&text_in(server, "server")?))
    }

    /// This registry with all-MiniLM-L6-v2's weights (the bytes of its `model.safetensors`)
    /// for `search(query, { ranker: "model" })`; registries made from it keep them. The
    /// content and fingerprint do not change. Loading copies the 91 MB into the module.
    #[cfg(feature = "hybrid")]
    #[wasm_bindgen(js_name = withModel)]
    pub fn with_model(&self, model: &JsBytes) -> Result<Registry, JsValue> {
        let bytes = convert::bytes_in(model, "model")?;
        let model = lib(tool_intent::search::ModelRanker::from_safetensors(&bytes))?;
        Ok(Registry {
            inner: self.inner.clone().with_model(model),
        })
    }

    /// `sha256:<hex>` of the registry's content: what `beginTurn` stamps a turn with.
    #[wasm_bindgen(js_name = fingerprint)]
    pub fn registry_fingerprint(&self) -> String {
        self.inner.fingerprint().to_string()
    }

    /// A turn boundary: loads recorded so far join the array from now on, and the turn's
    /// calls run on this registry until the next boundary.
    #[wasm_bindgen(js_name = beginTurn)]
    pub fn begin_turn(&self, state: &JsTurnStateIn) -> Result<JsTurnState, JsValue> {
        out(&self.inner.begin_turn(&state_in(state)?))
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether the registry has no tool (never after loading: `tool_search` is always there).
    #[wasm_bindgen(js_name = isEmpty)]
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// What loading left out or changed: `[{code, origin, message}]`.
    pub fn warnings(&self) -> Result<JsWarnings, JsValue> {
        out(self.inner.warnings())
    }

    /// Every tool's name, title and description, in registry order.
    #[wasm_bindgen(js_name = toolInfos)]
    pub fn tool_infos(&self) -> Result<JsToolInfos, JsValue> {
        out(&self.inner.tool_infos())
    }

    /// One tool's full definition `{name, description, parameters, ...}`.
    #[wasm_bindgen(js_name = toolDefinition)]
    pub fn tool_definition(&self, name: &JsText) -> Result<JsToolDefinition, JsValue> {
        out(&lib(self.inner.tool_definition(&text_in(name, "name")?))?)
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
        self.inner.to_json()
    }

    /// Starts a turn: the registry version the turn runs on and the expansion of its
    /// request, made once; the turn's calls are methods of the returned `Turn`.
    pub fn turn(
        &self,
        tools_override: &JsToolsOverride,
        options: Option<JsTurnOptions>,
    ) -> Result<Turn, JsValue> {
        let request = request(tools_override, options.as_deref(), Call::Turn)?;
        Ok(Turn {
            inner: lib(self.inner.turn(&request))?,
        })
    }

    /// Plans a turn in one call (`registry.turn(toolsOverride, options).plan()`).
    #[wasm_bindgen(js_name = planTurn)]
    pub fn plan_turn(
        &self,
        tools_override: &JsToolsOverride,
        options: Option<JsTurnOptions>,
    ) -> Result<JsTurnPlan, JsValue> {
        self.turn(tools_override, options)?.plan()
    }

    /// What a provider would refuse in this registry, and what the library changes for it:
    /// `{provider, findings: [{tool, rule, refused, message}]}` (no findings: clean).
    pub fn check(&self, provider: &JsProviderName) -> Result<JsProviderCheck, JsValue> {
        let provider = lib(tool_intent::Provider::parse(&text_in(
            provider, "provider",
        )?))?;
        out(&self.inner.check(provider))
    }

    /// Replays a scripted session against this registry for one provider and mode and
    /// reports, per turn, where the request stops matching the previous one and the tokens
    /// written to the prompt cache again. `toolsOverride` is the session's intent before the
    /// script changes it; options: `source`, `profile`, `state`, `provider`, `mode`,
    /// `counter`.
    #[wasm_bindgen(js_name = cacheReport)]
    pub fn cache_report(
        &self,
        script: &JsCacheScript,
        tools_override: &JsToolsOverride,
        options: Option<JsCacheReportOptions>,
    ) -> Result<JsCacheReport, JsValue> {
        let script = lib(CacheScript::from_value(&json_in(script, "script")?)
            .map_err(|e| e.with_input("script")))?;
        let (request, extra) =
            request_and_options(tools_override, options.as_deref(), Call::CacheReport)?;
        let counter = lib(shared_counter(
            extra.counter.unwrap_or(CounterKind::Estimate),
        ))?;
        out(&lib(self.inner.cache_report(&script, &request, counter))?)
    }
}

/// One turn: made by `registry.turn(toolsOverride, options)`, it holds the registry version,
/// the expansion and the state, and answers the turn's calls without expanding again.
#[wasm_bindgen]
pub struct Turn {
    inner: CoreTurn,
}

#[wasm_bindgen]
impl Turn {
    /// The turn's plan: `{payload, catalogText, requestFields, array, catalog, promoted,
    /// renamed, warnings, provider, mode, fingerprint}` (`payload` is the exact JSON text that was
    /// fingerprinted).
    pub fn plan(&self) -> Result<JsTurnPlan, JsValue> {
        let plan = lib(self.inner.plan())?;
        let object: JsValue = parse_out(&lib(plan.to_json_without_names())?)?;
        let set = |key: &str, value: &JsValue| js_sys::Reflect::set(&object, &key.into(), value);
        // Each name list crosses as one newline-joined string split by the engine: names are
        // provider-safe (`[a-zA-Z0-9_-]`, checked at load), so a newline never occurs in one,
        // and splitting measured a fraction of parsing the lists as JSON (1,000 names).
        for (key, names) in [
            ("array", plan.array()),
            ("catalog", plan.catalog()),
            ("promoted", plan.promoted()),
        ] {
            let list: JsValue = if names.is_empty() {
                js_sys::Array::new().into()
            } else if names.iter().any(|n| n.contains('\n')) {
                return Err(js_error(&Error::internal(format!(
                    "a name of the plan's {key} list holds a newline, which the loader refuses"
                ))));
            } else {
                // One string split by JS (one crossing, not one per name); built by hand, as
                // the core builds its joins (`[S]::join` adds 0.4 KB of wasm per item type).
                let mut joined = String::with_capacity(names.len() * 16);
                for (i, name) in names.iter().enumerate() {
                    if i > 0 {
                        joined.push('\n');
                    }
                    joined.push_str(name);
                }
                js_sys::JsString::from(joined.as_str()).split("\n").into()
            };
            set(key, &list)?;
        }
        // The two long strings cross as strings, not as JSON text to be parsed again.
        set("payload", &plan.payload.as_str().into())?;
        set("catalogText", &plan.catalog_text.as_str().into())?;
        set("requestFields", &plan.request_fields.as_str().into())?;
        set("changes", &plan.changes.as_str().into())?;
        Ok(object.unchecked_into())
    }

    /// Runs `tool_search`: `{hits, notFound, text, state, warnings?, providerOutput?}`. The
    /// hits are recorded in the turn's state (`turn.state`), so a second search keeps the
    /// first's loads.
    pub fn search(
        &mut self,
        query: &JsText,
        options: Option<JsSearchOptions>,
    ) -> Result<JsSearchOutcome, JsValue> {
        let query = text_in(query, "query")?;
        let extra = call_options(options.as_deref(), Call::Search)?;
        let ranker = lib(extra.search_ranker(self.inner.registry()))?;
        let call = extra.search_call(&query, &ranker);
        let outcome = lib(self.inner.search(&call).map_err(search_argument_error))?;
        parse_out(&lib(outcome.to_json())?)
    }

    /// Dispatch lookup: the full definition of a tool this turn may call, or a
    /// `tool_not_available` (`tool_removed`) error.
    pub fn resolve(&self, name: &JsText) -> Result<JsToolDefinition, JsValue> {
        let name = text_in(name, "name")?;
        out(&lib(self.inner.resolve(&name))?.to_value())
    }

    /// Token budget, half by half. `counter`: "estimate" (default) or, in the exact build,
    /// "o200k" / "cl100k".
    pub fn budget(&self, options: Option<JsBudgetOptions>) -> Result<JsBudget, JsValue> {
        let extra = call_options(options.as_deref(), Call::Budget)?;
        let counter = lib(shared_counter(
            extra.counter.unwrap_or(CounterKind::Estimate),
        ))?;
        out(&lib(self.inner.budget(counter))?)
    }

    /// The turn's state: the request's, with this turn's searches' loads recorded (persist it
    /// with the session).
    #[wasm_bindgen(getter)]
    pub fn state(&self) -> Result<JsTurnState, JsValue> {
        out(self.inner.state())
    }

    /// The turn's warnings: the expansion's, and `turn_registry_gone` when its version is no
    /// longer held.
    pub fn warnings(&self) -> Result<JsWarnings, JsValue> {
        out(&self.inner.warnings())
    }
}

/// A turn request from JS arguments (the options a turn accepts).
fn request(
    tools_override: &JsValue,
    options: Option<&JsValue>,
    call: Call,
) -> Result<TurnRequest, JsValue> {
    Ok(request_and_options(tools_override, options, call)?.0)
}

fn request_and_options(
    tools_override: &JsValue,
    options: Option<&JsValue>,
    call: Call,
) -> Result<(TurnRequest, CallOptions), JsValue> {
    let o = json_in(tools_override, "tools_override")?;
    lib(TurnRequest::from_values(&o, &options_in(options)?, call))
}

/// The options of a call on a turn.
fn call_options(options: Option<&JsValue>, call: Call) -> Result<CallOptions, JsValue> {
    lib(CallOptions::from_value(&options_in(options)?, call))
}

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
    let kind = lib(CounterKind::parse(name.as_deref().unwrap_or("estimate")))?;
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
pub fn canonical_intent(tools_override: &JsToolsOverride) -> Result<String, JsValue> {
    let o = lib(ToolsOverride::from_value(&json_in(
        tools_override,
        "tools_override",
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
    tools_override: &JsToolsOverride,
) -> Result<JsSessionRunConfigOut, JsValue> {
    let o = lib(ToolsOverride::from_value(&json_in(
        tools_override,
        "tools_override",
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

fn state_in(state: &JsValue) -> Result<TurnState, JsValue> {
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
