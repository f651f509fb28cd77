//! # tool-intent
//!
//! Decides which tools an LLM agent gets on each turn. Sessions store toggle **intent**
//! ([`ToolsOverride`]), never an expanded list; every request expands the intent against the
//! live [`Registry`] ([`expand()`]), splits the available tools into resident and deferred
//! ([`split`]), and renders a byte-stable provider payload with a fingerprint ([`render()`]).
//! [`plan_turn`] does all of that in the one call a server makes per request; the token cost
//! of both halves is priced by [`estimate_budget`] / [`budget_turn`].
//!
//! Where things live (each module private, its public items re-exported here):
//! - `error`, `json`, `glob`, `limits`, `warning` — leaves: the error enum with JSON paths,
//!   JSON reading, name globs, size limits, warning codes;
//! - `intent` — the override/intent model and its canonical JSON;
//! - `registry/` — loading, validating and writing back registries (our format, MCP
//!   `tools/list`), one file per job;
//! - `deferral` — which available tools are resident and which deferred;
//! - `expand` — the expander ([`Expansion`], dispatch by [`Expansion::resolve`]);
//! - `turn` — [`TurnState`], the array/catalog/promoted [`Split`], the catalog text;
//! - `search` — the `tool_search` tool; `render` — provider payloads and fingerprints;
//! - `counter`, `budget` — token counters and the budget;
//! - `plan` — the per-turn facade ([`plan_turn`], [`search_turn`], [`resolve_tool`],
//!   [`budget_turn`]);
//! - `session` — the stored run config and [`build_intent`] for writers;
//! - `migrate` (native only, feature `migrate`) — legacy snapshot recovery on SQLite.
//!
//! Dependencies point one way, down this list (`tests/module_graph.rs` fails on a cycle);
//! the bindings (`wasm`, the CLI in `src/bin/`) only translate arguments and errors.
//!
//! ```
//! use tool_intent::{plan_turn, Registry, ToolsOverride, TurnRequest};
//! let registry = Registry::embedded();
//! let request = TurnRequest {
//!     tools_override: ToolsOverride::from_json_str(r#"{"enabled":true,"web_search":true}"#)?,
//!     ..Default::default()
//! };
//! let plan = plan_turn(&registry, &request)?;
//! assert!(plan.array.contains(&"web_search"));
//! assert!(plan.catalog.contains(&"playwright_browser"));
//! assert!(plan.fingerprint.starts_with("sha256:"));
//! # Ok::<(), tool_intent::Error>(())
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod budget;
mod cache_report;
mod counter;
mod deferral;
mod error;
mod expand;
mod glob;
mod intent;
mod json;
mod limits;
mod plan;
mod registry;
mod render;
mod search;
mod session;
mod tool_info;
mod turn;
mod warning;

#[cfg(all(feature = "migrate", not(target_arch = "wasm32")))]
#[cfg_attr(docsrs, doc(cfg(feature = "migrate")))]
pub mod migrate;

/// The wasm-bindgen adapter (only on wasm32). Public so the wasm test suites can call it.
/// Its JS surface is documented by the TypeScript declarations (`src/wasm_types.d.ts`);
/// `wasm_bindgen` generates undocumented glue items, hence the allow.
#[cfg(target_arch = "wasm32")]
#[allow(missing_docs)]
pub mod wasm;

pub use budget::{
    estimate as estimate_budget, estimate_mode as estimate_budget_for_mode,
    render_table as budget_table, separator_overhead, Budget, BudgetRow, Placement,
    PER_ARRAY_OVERHEAD,
};
pub use cache_report::{
    cache_report, render_table as cache_report_table, CacheReport, CacheScript, CacheTurn,
    ScriptTurn, Section,
};
#[cfg(feature = "exact-tokens")]
pub use counter::BpeCounter;
pub use counter::{
    estimate_tokens, estimate_tokens_with, shared_counter, CounterKind, Estimator, EstimatorParams,
    TokenCounter, ESTIMATOR_PARAMS,
};
pub use deferral::is_deferrable;
pub use error::{Error, JsonPath, Result, SourceError};
pub use expand::{expand, ExpandContext, Expansion, ExpansionSummary, ToolStatus};
pub use intent::{Intent, ToolsOverride, INTENT_KEYS};
pub use json::parse as read_json;
pub use limits::{Limits, LIMITS};
pub use plan::{
    budget_turn, plan_turn, resolve_tool, search_turn, Call, CallOptions, Renamed, SearchOutcome,
    TurnPlan, TurnRequest,
};
pub use registry::{
    tool_to_value, HistoryVersion, Registry, SourcePolicy, Tool, DEFAULT_SEARCH_LIMIT,
    MAX_SEARCH_LIMIT, TOOL_SEARCH, WEB_SEARCH_OVERLAY,
};
pub use render::{
    client_search_output, fingerprint, render, DeferralMode, Payload, Provider, RenderOptions,
    ANTHROPIC_TOOL_SEARCH_NAME, ANTHROPIC_TOOL_SEARCH_TYPE,
};
pub use search::{
    execute as execute_tool_search, run as run_tool_search, run_with as run_tool_search_with,
    KeywordRanker, Query, Ranker, SearchResult,
};
pub use session::{
    build_intent, normalize_tools_value, tools_override_from_config, NormalizedTools,
    SessionRunConfig, Toggles,
};
pub use tool_info::{tool_infos, ToolInfo};
pub use turn::{
    begin_turn, catalog_text, record_loaded, split, system_prompt_with_catalog, Split, TurnState,
    View, CATALOG_HEADER,
};
pub use warning::{Warning, WarningCode};

// The README's Rust example runs as a doctest (`cargo test --doc`), so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
