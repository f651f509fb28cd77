//! The registry's tools as each provider gets them: one tool's array entry (catalog mode, no
//! per-request flags) and its fingerprint, rendered once per registry and provider and kept
//! with the registry's memos. The shapes are `crate::provider`'s; this file only caches them.

use std::sync::OnceLock;

use super::{Memo, MemoSlot, Registry, Tool};
use crate::digest::fingerprint;
use crate::error::{Error, Result};
use crate::provider::entry::{self, Function};
use crate::provider::provider_tool_form::{self, Placement};
use crate::provider::{rules, Provider};

/// Each tool's rendered array entry per provider, and the entry's fingerprint (what
/// `turn/tool_changes.rs` records as the definition a conversation was given), filled on first
/// use. Rendering is a pure function of the immutable tool, so caching cannot change any byte.
pub(crate) struct RenderCache(Vec<[(OnceLock<String>, OnceLock<String>); Provider::ALL.len()]>);

impl Memo for RenderCache {
    const SLOT: MemoSlot = MemoSlot::RenderedEntries;
}

/// The exact bytes of one registry tool's array entry (catalog mode, no flags), rendered
/// once per registry and provider.
pub(crate) fn tool_entry(registry: &Registry, index: usize, provider: Provider) -> Result<&str> {
    let (cell, _) = render_cells(registry, index, provider)?;
    if let Some(s) = cell.get() {
        return Ok(s);
    }
    let tool = registry
        .tool(index)
        .ok_or_else(|| Error::internal(format!("no tool at registry position {index}")))?;
    let rendered = render_tool(tool, provider)?;
    Ok(cell.get_or_init(|| rendered))
}

/// `sha256:<hex>` of [`tool_entry`], computed once per registry and provider.
pub(crate) fn entry_fingerprint(
    registry: &Registry,
    index: usize,
    provider: Provider,
) -> Result<&str> {
    let (_, cell) = render_cells(registry, index, provider)?;
    if let Some(s) = cell.get() {
        return Ok(s);
    }
    let digest = fingerprint(tool_entry(registry, index, provider)?.as_bytes());
    Ok(cell.get_or_init(|| digest))
}

fn render_cells(
    registry: &Registry,
    index: usize,
    provider: Provider,
) -> Result<&(OnceLock<String>, OnceLock<String>)> {
    let cache = registry.memo(|r| RenderCache((0..r.len()).map(|_| Default::default()).collect()));
    cache
        .and_then(|c| c.0.get(index)?.get(provider.index()))
        .ok_or_else(|| Error::internal(format!("no render cache for position {index}")))
}

/// The exact bytes of one tool as it appears in a provider array, without per-request flags
/// (`push_with_flags` adds `defer_loading` and `cache_control`).
fn render_tool(tool: &Tool, provider: Provider) -> Result<String> {
    if let Some(b) = tool.builtin().filter(|b| b.runs_on(provider)) {
        return Ok(match provider_tool_form::form(b, &tool.name, provider)? {
            Placement::Array(entry) | Placement::GeminiTool(entry) => entry,
            Placement::RequestField(field) => format!("{{{field}}}"),
        });
    }
    let description = rules::description(&tool.description, provider);
    entry::function(
        Function {
            name: &tool.name,
            description: &description,
            parameters: tool.parameters(),
            strict: tool.strict,
        },
        provider,
    )
}

/// Whether the provider takes the tool at a position outside its list of functions: a
/// built-in OpenAI Chat takes as a request field, or Gemini as a tool object after its
/// function declarations (`render_split` writes them so; the plan lists them so).
pub(crate) fn goes_beside(registry: &Registry, index: usize, provider: Provider) -> bool {
    matches!(provider, Provider::OpenAiChat | Provider::Gemini)
        && registry
            .tool(index)
            .and_then(Tool::builtin)
            .is_some_and(|b| b.runs_on(provider))
}
