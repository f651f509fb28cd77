//! One call for consumers: expand, split, render, fingerprint.
//!
//! The CLI's `expand` / `payload` commands and the wasm `registry.expand(...)` are thin
//! translations of [`preview`], so all three print the same values for the same input.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::deferral::{begin_turn, record_loaded, TurnState, View};
use crate::error::{Error, JsonPath, Result};
use crate::expand::{expand, ExpandContext, Warning};
use crate::intent::ToolsOverride;
use crate::registry::Registry;
use crate::render::{render_split, DeferralMode, Provider, RenderOptions};

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

/// Options of a request as JS callers and JSON configs write them (camelCase keys):
/// `{source, profile, loaded, state, provider, mode, cacheControl, view}`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct RequestOptions {
    pub source: Option<String>,
    pub profile: Option<Value>,
    pub loaded: Vec<String>,
    pub state: Option<TurnState>,
    pub provider: Option<Provider>,
    pub mode: Option<DeferralMode>,
    pub cache_control: bool,
    pub view: Option<View>,
}

impl PreviewRequest {
    /// Expands this request's override (with its profile and source) against a registry.
    pub fn expand<'r>(&self, registry: &'r Registry) -> Result<crate::expand::Expansion<'r>> {
        expand(
            registry,
            &self.tools_override,
            ExpandContext {
                profile: self.profile.as_ref(),
                source: self.source.as_deref(),
            },
        )
    }

    /// Builds a request from an override value and an options value (`null` = defaults).
    /// Errors name the path (`$.profile.disabled[0]`, `options`).
    pub fn from_values(tools_override: &Value, options: &Value) -> Result<PreviewRequest> {
        let tools_override = ToolsOverride::from_value(tools_override)?;
        let options: RequestOptions = if options.is_null() {
            RequestOptions::default()
        } else {
            serde_json::from_value(options.clone()).map_err(|e| Error::InvalidArgument {
                path: JsonPath::from_raw("options"),
                message: e.to_string(),
            })?
        };
        let profile = match &options.profile {
            None | Some(Value::Null) => None,
            Some(p) => Some(ToolsOverride::from_value_at(
                p,
                &JsonPath::from_raw("options.profile"),
            )?),
        };
        Ok(PreviewRequest {
            tools_override,
            profile,
            source: options.source,
            state: options.state,
            loaded: options.loaded,
            provider: options.provider.unwrap_or_default(),
            mode: options.mode.unwrap_or_default(),
            cache_control: options.cache_control,
            view: options.view.unwrap_or_default(),
        })
    }
}

/// The preview of one request. Names borrow from the registry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Preview<'r> {
    /// Every available tool, registry order.
    pub tools: Vec<&'r str>,
    /// Names in the provider array, array order (resident, then promoted).
    pub resident: Vec<&'r str>,
    /// Names in the catalog (deferred, not promoted), registry order.
    pub deferred: Vec<&'r str>,
    /// Promoted tools (a suffix of `resident`), load order.
    pub promoted: Vec<&'r str>,
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

impl Preview<'_> {
    /// Compact JSON, byte-identical to `serde_json::to_string(self)` but written directly:
    /// previews of large registries list every tool name, and names are provider-safe
    /// (`[a-zA-Z0-9_-]`, checked at load), so they need no escaping.
    pub fn to_json(&self) -> String {
        let names =
            self.tools.len() + self.resident.len() + self.deferred.len() + self.promoted.len();
        let mut out = String::with_capacity(256 + names * 40);
        let lists: [(&str, &[&str]); 4] = [
            ("{\"tools\":", &self.tools),
            (",\"resident\":", &self.resident),
            (",\"deferred\":", &self.deferred),
            (",\"promoted\":", &self.promoted),
        ];
        for (key, list) in lists {
            out.push_str(key);
            push_names(&mut out, list);
        }
        out.push_str(",\"warnings\":");
        out.push_str(&serde_json::to_string(&self.warnings).unwrap_or_else(|_| "[]".to_string()));
        out.push_str(",\"provider\":\"");
        out.push_str(self.provider.as_str());
        out.push_str("\",\"mode\":\"");
        out.push_str(self.mode.as_str());
        out.push_str("\",\"fingerprint\":\"");
        out.push_str(&self.fingerprint);
        out.push_str("\"}");
        out
    }
}

// push_str over push(char): measured faster in the size-optimised wasm build.
#[allow(clippy::single_char_add_str)]
fn push_names(out: &mut String, names: &[&str]) {
    out.push_str("[");
    let mut first = true;
    for name in names {
        if !first {
            out.push_str(",");
        }
        first = false;
        if needs_escape(name) {
            // Unreachable for registry names; kept total for any input.
            out.push_str(&serde_json::Value::String((*name).to_string()).to_string());
        } else {
            out.push_str("\"");
            out.push_str(name);
            out.push_str("\"");
        }
    }
    out.push_str("]");
}

fn needs_escape(s: &str) -> bool {
    for &b in s.as_bytes() {
        if b == b'"' || b == b'\\' || b < 0x20 {
            return true;
        }
    }
    false
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
pub fn preview<'r>(registry: &'r Registry, request: &PreviewRequest) -> Result<Preview<'r>> {
    let expansion = request.expand(registry)?;
    let state = effective_state(request);
    let options = RenderOptions {
        provider: request.provider,
        mode: request.mode,
        cache_control: request.cache_control,
        view: request.view,
    };
    let split = crate::deferral::split_for_dispatch(&expansion, &state, request.view);
    let payload = render_split(&expansion, &split, options)?;
    let mut warnings = expansion.warnings().to_vec();
    for name in state.loaded_for(request.view) {
        if registry
            .index_of(name)
            .is_none_or(|i| !expansion.is_deferred(i))
        {
            warnings.push(Warning {
                code: "unknown_loaded_tool",
                origin: "loaded".to_string(),
                message: format!(
                    "loaded tool \"{name}\" is not a deferred tool of this expansion; ignored"
                ),
            });
        }
    }
    Ok(Preview {
        tools: expansion.name_refs(expansion.tools()),
        resident: expansion.name_refs(split.provider_tools.iter().copied()),
        deferred: expansion.name_refs(split.catalog.iter().copied()),
        promoted: expansion.name_refs(split.promoted.iter().copied()),
        warnings,
        provider: request.provider,
        mode: request.mode,
        fingerprint: payload.fingerprint,
        payload: payload.json,
        catalog: payload.catalog,
    })
}

/// A registry tool as a UI lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolInfo {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub description: String,
    /// In `default_tools`.
    pub default: bool,
    /// Deferred when available (before the `tool_search` rule).
    pub deferrable: bool,
    /// An overlay tool (switched by `web_search`).
    pub overlay: bool,
}

/// Every registry tool, in registry order.
pub fn tool_infos(registry: &Registry) -> Vec<ToolInfo> {
    registry
        .tools()
        .iter()
        .enumerate()
        .map(|(i, t)| ToolInfo {
            name: t.name.clone(),
            title: t.title.clone(),
            description: t.description.clone(),
            default: registry.default_set().contains(i),
            deferrable: crate::deferral::is_deferrable(registry, i),
            overlay: registry.overlay_set().contains(i),
        })
        .collect()
}

/// A `tool_search` result with the turn state that records its loads.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchOutcome {
    #[serde(flatten)]
    pub result: crate::search::SearchResult,
    pub state: TurnState,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_json_equals_the_serde_serialisation() {
        let r = Registry::embedded();
        for (o, loaded) in [
            ("null", vec![]),
            (
                r#"{"toolset":"full","x":1}"#,
                vec!["memory".to_string(), "nope".to_string()],
            ),
            ("[]", vec![]),
        ] {
            let req = PreviewRequest {
                tools_override: ToolsOverride::from_json_str(o).unwrap(),
                loaded,
                ..Default::default()
            };
            let p = preview(&r, &req).unwrap();
            assert_eq!(p.to_json(), serde_json::to_string(&p).unwrap(), "{o}");
        }
    }
}
