//! # tool-intent
//!
//! Decides which tools an LLM agent gets on each turn. Sessions store toggle **intent**
//! ([`ToolsOverride`]), never an expanded list; every request expands the intent against the
//! live [`Registry`], splits the available tools into resident and deferred, and renders a
//! byte-stable provider payload with a fingerprint. The handle is [`Registry`]; a request
//! ([`TurnRequest`]) makes one [`Turn`] value ([`Registry::turn`]), which expands once and
//! answers the rest of the turn:
//!
//! | call | returns |
//! |---|---|
//! | [`Turn::plan`] ([`Registry::plan_turn`] in one call) | the payload, catalog text, names and fingerprint |
//! | [`Turn::search`] | a `tool_search` result; the turn's state records its loads |
//! | [`Turn::resolve`] | the tool a model's call names, if this turn may call it |
//! | [`Turn::budget`] | the token cost of both halves |
//! | [`Registry::cache_report`] | what a scripted session writes to the prompt cache again |
//!
//! ```
//! use tool_intent::{Registry, SearchCall, ToolsOverride, TurnRequest};
//! let registry = Registry::embedded();
//! let request = TurnRequest {
//!     tools_override: ToolsOverride::from_json_str(r#"{"enabled":true,"web_search":true}"#)?,
//!     ..Default::default()
//! };
//! let mut turn = registry.turn(&request)?;
//! let plan = turn.plan()?;
//! assert!(plan.array().contains(&"web_search"));
//! assert!(plan.catalog().contains(&"playwright_browser"));
//! assert!(plan.fingerprint.starts_with("sha256:"));
//! let found = turn.search(&SearchCall::new("browser"))?;
//! assert_eq!(turn.resolve(&found.result.hits[0])?.name, found.result.hits[0]);
//! # Ok::<(), tool_intent::Error>(())
//! ```
//!
//! The crate root holds what a server author uses; everything else is in a public module
//! named for its job, under its own name:
//! - [`error`], [`json`], [`limits`], [`warning`], [`glob`] — the error type with JSON paths, JSON
//!   reading, size limits, warning codes, name globs;
//! - [`intent`] — the override/intent model and its canonical JSON;
//! - [`provider`] — what each provider accepts: its entries, rules and limits, its own tools,
//!   its deferral flags and its change blocks (nothing here reads a registry);
//! - [`registry`] — loading, validating, merging and writing back registries (our format,
//!   MCP `tools/list`), and each tool's rendered entry per provider;
//! - [`counter`] — token counters;
//! - [`search`] — the `tool_search` tool ([`search::SearchCall`], [`Ranker`]), over the
//!   deferred tools a turn hands it;
//! - [`turn`] — [`Turn`] and everything of one turn: the expansion of its intent
//!   ([`turn::expand`], [`Turn::expansion`]) with the resident and deferred split,
//!   [`TurnState`] and its boundary, the provider split made once, the payload, [`TurnPlan`],
//!   the budget, and the change messages of `tool_changes: messages` with the conversation's
//!   record;
//! - [`provider_check`], [`tool_info`] — a registry checked against a provider's rules; the
//!   tools as a UI lists them;
//! - [`cache_report`] — the prompt-cache replay of a scripted session;
//! - [`session`] — the stored run config and [`build_intent`] for writers;
//!
//! The bindings are crates of their own and only translate arguments, results and errors:
//! `bindings/wasm` (the npm packages), `python/` (the Python module), `bindings/cli` (the command
//! line) and `bindings/migrate` (legacy snapshot recovery on SQLite and PostgreSQL).
//!
//! Dependencies point one way, down this list: a module uses only those listed before it or
//! beside it (`tests/module_graph.rs` checks the list against the imports, and fails on a
//! cycle, on a root of more than 30 items and on a renamed re-export).

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod cache_report;
pub mod counter;
mod digest;
pub mod error;
pub mod glob;
pub mod intent;
pub mod json;
mod json_text;
pub mod limits;
#[cfg(feature = "model")]
mod model_ranker;
pub mod provider;
pub mod provider_check;
pub mod registry;
pub mod search;
pub mod session;
mod sort;
mod text;
pub mod tool_info;
pub mod turn;
pub mod warning;

// The root: what a server author uses (at most 30 items, none renamed; tests/module_graph.rs).
pub use counter::{CounterKind, TokenCounter};
pub use digest::fingerprint;
pub use error::{Error, JsonPath, Result};
pub use intent::{Intent, ToolsOverride};
pub use provider::{DeferralMode, Provider};
pub use registry::{Registry, RegistryChange, RegistryDiff, Tool};
pub use search::{Ranker, SearchCall};
pub use session::{build_intent, SessionRunConfig, Toggles};
pub use turn::{
    record_loaded, Budget, Renamed, SearchOutcome, Turn, TurnPlan, TurnRequest, TurnState, View,
};
pub use warning::{Warning, WarningCode};

// The README's Rust example runs as a doctest (`cargo test --doc`), so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
