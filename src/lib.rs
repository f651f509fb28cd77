//! # tool-intent
//!
//! Decides which tools an LLM agent gets on each turn. Sessions store toggle **intent**
//! ([`ToolsOverride`]), never an expanded list; every request expands the intent against the
//! live [`Registry`] ([`expand()`]), splits the available tools into resident and deferred
//! ([`deferral`]), and renders a byte-stable provider payload with a fingerprint
//! ([`render()`]). The token cost of both halves is estimated in [`budget`].
//!
//! Where things live:
//! - [`intent`] — the override/intent model and its canonical JSON;
//! - [`session`] — the stored run config and `build_intent` for writers;
//! - [`registry`] — loading and validating registries (our format and MCP `tools/list`);
//! - [`expand`](mod@expand) — the expander;
//! - [`deferral`] — resident/deferred split, [`TurnState`], catalog text;
//! - [`search`] — the `tool_search` tool;
//! - [`render`](mod@render) — provider payloads and fingerprints;
//! - [`budget`] — token budget and counters;
//! - [`preview`] — one call that does all of the above (what the CLI and wasm expose);
//! - `migrate` (native only) — legacy snapshot recovery on SQLite.
//!
//! ```
//! use tool_intent::{expand, ExpandContext, Registry, ToolsOverride};
//! let registry = Registry::embedded();
//! let intent = ToolsOverride::from_json_str(r#"{"enabled":true,"web_search":true}"#).unwrap();
//! let expansion = expand(&registry, &intent, ExpandContext::default()).unwrap();
//! let names = expansion.summary();
//! assert!(names.resident.contains(&"web_search".to_string()));
//! assert!(names.deferred.contains(&"playwright_browser".to_string()));
//! ```

pub mod budget;
pub mod deferral;
pub mod error;
pub mod expand;
pub mod glob;
pub mod intent;
pub mod preview;
pub mod registry;
pub mod render;
pub mod search;
pub mod session;

#[cfg(not(target_arch = "wasm32"))]
pub mod migrate;

/// The wasm-bindgen adapter (only on wasm32). Public so the wasm test suites can call it.
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use deferral::{begin_turn, record_loaded, split_for_dispatch, Split, TurnState, View};
pub use error::{Error, JsonPath, Result};
pub use expand::{expand, ExpandContext, Expansion, ExpansionSummary, ToolStatus, Warning};
pub use intent::{Intent, ToolsOverride};
pub use preview::{preview, Preview, PreviewRequest};
pub use registry::{Registry, Tool};
pub use render::{fingerprint, render, DeferralMode, Payload, Provider, RenderOptions};
pub use session::{
    build_intent, normalize_tools_value, tools_override_from_config, SessionRunConfig, Toggles,
};
