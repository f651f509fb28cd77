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
//! - [`registry`] — loading, validating, merging and writing back registries (our format,
//!   MCP `tools/list`);
//! - [`expand`] — the expander under every call ([`Turn::expansion`]);
//! - [`conversation`] — with `tool_changes: messages`, the turn state's record of what the
//!   conversation was told about its tools;
//! - [`turn`] — [`TurnState`], the array/catalog/promoted split, the catalog text;
//! - [`search`] — the `tool_search` tool ([`search::SearchCall`], [`Ranker`]);
//! - [`render`] — providers, deferral modes and the payload's fingerprint; [`tool_info`] — the
//!   tools as a UI lists them;
//! - [`changes`] — each provider's change messages (`tool_changes: messages`);
//! - [`counter`], [`budget`] — token counters and the budget;
//! - [`plan`] — [`Turn`], [`TurnPlan`] and the request/options reading the bindings share;
//! - [`cache_report`] — the prompt-cache replay of a scripted session;
//! - [`session`] — the stored run config and [`build_intent`] for writers;
//!
//! The bindings are crates of their own and only translate arguments, results and errors:
//! `crates/wasm` (the npm packages), `python/` (the Python module), `crates/cli` (the command
//! line) and `crates/migrate` (legacy snapshot recovery on SQLite and PostgreSQL).
//!
//! Dependencies point one way, down this list: a module uses only those listed before it or
//! beside it (`tests/module_graph.rs` checks the list against the imports, and fails on a
//! cycle, on a root of more than 30 items and on a renamed re-export).

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod budget;
pub mod cache_report;
pub mod changes;
pub mod conversation;
pub mod counter;
mod deferral;
pub mod error;
pub mod expand;
pub mod glob;
pub mod intent;
pub mod json;
mod json_text;
pub mod limits;
#[cfg(feature = "model")]
mod model_ranker;
pub mod plan;
mod provider;
pub mod registry;
pub mod render;
pub mod search;
pub mod session;
mod sort;
mod text;
pub mod tool_info;
pub mod turn;
pub mod warning;

// The root: what a server author uses (at most 30 items, none renamed; tests/module_graph.rs).
pub use budget::Budget;
pub use counter::{CounterKind, TokenCounter};
pub use error::{Error, JsonPath, Result};
pub use intent::{Intent, ToolsOverride};
pub use plan::{Renamed, SearchOutcome, Turn, TurnPlan, TurnRequest};
pub use registry::{Registry, RegistryChange, RegistryDiff, Tool};
pub use render::{fingerprint, DeferralMode, Provider};
pub use search::{Ranker, SearchCall};
pub use session::{build_intent, SessionRunConfig, Toggles};
pub use turn::{record_loaded, TurnState, View};
pub use warning::{Warning, WarningCode};

// The README's Rust example runs as a doctest (`cargo test --doc`), so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
