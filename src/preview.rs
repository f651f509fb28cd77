//! One call for consumers: expand, split, render, fingerprint.
//!
//! The CLI's `expand` / `payload` commands and the wasm `registry.expand(...)` are thin
//! translations of [`preview`], so all three print the same values for the same input.

use serde::Serialize;

use crate::deferral::{begin_turn, record_loaded, TurnState, View};
use crate::error::Result;
use crate::expand::{expand, ExpandContext, Warning};
use crate::intent::ToolsOverride;
use crate::registry::Registry;
use crate::render::{render, DeferralMode, Provider, RenderOptions};

/// Everything a preview needs besides the registry.
#[derive(Debug, Clone, Default)]
pub struct PreviewRequest {
    pub tools_override: ToolsOverride,
    pub profile: Option<ToolsOverride>,
    pub source: Option<String>,
    /// The session's turn state; `None` = a new session.
    pub state: Option<TurnState>,
    /// Tools loaded earlier, treated as promoted (as at the start of a turn).
    pub loaded: Vec<String>,
    pub provider: Provider,
    pub mode: DeferralMode,
    pub cache_control: bool,
    pub view: View,
}

/// The preview of one request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Preview {
    /// Every available tool, registry order.
    pub tools: Vec<String>,
    /// Names in the provider array, array order (resident, then promoted).
    pub resident: Vec<String>,
    /// Names in the catalog (deferred, not promoted), registry order.
    pub deferred: Vec<String>,
    /// Promoted tools (a suffix of `resident`), load order.
    pub promoted: Vec<String>,
    pub warnings: Vec<Warning>,
    pub provider: Provider,
    pub mode: DeferralMode,
    /// `sha256:<hex>` of `payload`.
    pub fingerprint: String,
    /// The exact provider tools-array JSON.
    #[serde(skip)]
    pub payload: String,
    /// The catalog text for the system prompt.
    #[serde(skip)]
    pub catalog: String,
}

/// The turn state a request stands for: its own state, plus `loaded` promoted at a boundary.
pub fn effective_state(request: &PreviewRequest) -> TurnState {
    let base = request.state.clone().unwrap_or_default();
    if request.loaded.is_empty() {
        base
    } else {
        begin_turn(&record_loaded(&base, &request.loaded))
    }
}

/// Expands, splits and renders one request.
pub fn preview(registry: &Registry, request: &PreviewRequest) -> Result<Preview> {
    let expansion = expand(
        registry,
        &request.tools_override,
        ExpandContext {
            profile: request.profile.as_ref(),
            source: request.source.as_deref(),
        },
    )?;
    let state = effective_state(request);
    let options = RenderOptions {
        provider: request.provider,
        mode: request.mode,
        cache_control: request.cache_control,
        view: request.view,
    };
    let payload = render(&expansion, &state, options)?;
    let split = crate::deferral::split_for_dispatch(&expansion, &state, request.view);
    let mut warnings = expansion.warnings().to_vec();
    for name in state.loaded_for(request.view) {
        if registry.index_of(name).is_none_or(|i| !expansion.is_deferred(i)) {
            warnings.push(Warning {
                code: "unknown_loaded_tool",
                origin: "loaded".to_string(),
                message: format!("loaded tool {name:?} is not a deferred tool of this expansion; ignored"),
            });
        }
    }
    Ok(Preview {
        tools: expansion.names(expansion.tools()),
        resident: expansion.names(split.provider_tools.iter().copied()),
        deferred: expansion.names(split.catalog.iter().copied()),
        promoted: expansion.names(split.promoted.iter().copied()),
        warnings,
        provider: request.provider,
        mode: request.mode,
        fingerprint: payload.fingerprint,
        payload: payload.json,
        catalog: payload.catalog,
    })
}
