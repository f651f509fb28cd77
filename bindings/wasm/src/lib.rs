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
mod errors;
mod functions;
mod json_in;
mod registry;
mod turn;

pub(crate) use errors::{js_error, lib};
pub(crate) use functions::state_in;
pub use functions::*;
pub use registry::{Registry, RegistryChange};
pub use turn::Turn;
pub(crate) use turn::{call_options, request};

use convert::{names_in, opt_text_in, out, parse_out, text_in};
use json_in::{json_in, json_text, options_in};
use tool_intent::cache_report::CacheScript;
use tool_intent::counter::shared_counter;
use tool_intent::session::normalize_tools_value as normalize_core;
use tool_intent::turn::{
    search_argument_error, BudgetOptions, CacheReportOptions, CallOptions, SearchOptions,
};
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
