//! The registry's tools as a UI lists them (the demo page's tool list, the CLI's `tools`).

use serde::Serialize;

use crate::provider::Provider;
use crate::registry::{EffectiveAnnotations, Registry};

/// A registry tool as a UI lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolInfo {
    /// The tool's name.
    pub name: String,
    /// MCP `title`, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The description.
    pub description: String,
    /// The name at its source, when the wire name differs (a renamed MCP tool).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_name: Option<String>,
    /// In `default_tools`.
    pub default: bool,
    /// Deferred when available (before the `tool_search` rule).
    pub deferrable: bool,
    /// An overlay tool (switched by `web_search`).
    pub overlay: bool,
    /// Its MCP annotations as believed, and whether they were (`trusted_servers`).
    pub effective_annotations: EffectiveAnnotations,
    /// The providers that run it themselves (`"builtin"`), in provider order; empty for a
    /// tool the agent server runs everywhere.
    pub builtin_providers: Vec<Provider>,
}

impl Registry {
    /// Every tool as a UI lists it, in registry order.
    pub fn tool_infos(&self) -> Vec<ToolInfo> {
        let registry = self;
        registry
            .tools()
            .iter()
            .zip(registry.effective_annotations())
            .enumerate()
            .map(|(i, (t, effective))| ToolInfo {
                name: t.name.clone(),
                title: t.title.clone(),
                description: t.description.clone(),
                source_name: t.is_renamed().then(|| t.source_name().to_string()),
                default: registry.is_default(i),
                deferrable: crate::turn::expand::is_deferrable(registry, i),
                overlay: registry.is_overlay(i),
                effective_annotations: *effective,
                builtin_providers: t.builtin().map(|b| b.providers.clone()).unwrap_or_default(),
            })
            .collect()
    }
}
