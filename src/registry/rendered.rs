//! The registry's tools as each provider gets them: one tool's array entry (catalog mode, no
//! per-request flags), its fingerprint and how a change block names it, worked out once per
//! registry and provider and kept with the registry's memos. The shapes are
//! `crate::provider`'s; this file only caches them.

use std::sync::OnceLock;

use super::{Memo, MemoSlot, Registry, Tool};
use crate::digest::fingerprint;
use crate::error::{Error, Result};
use crate::provider::entry::{self, Function};
use crate::provider::provider_tool_form::{self, Placement};
use crate::provider::{rules, Provider};

/// Each tool's rendered array entry per provider, and the entry's [`Keys`], filled on first
/// use. Rendering is a pure function of the immutable tool, so caching cannot change any byte.
pub(crate) struct RenderCache(Vec<[Cells; Provider::ALL.len()]>);

/// One tool's cells for one provider: its entry and the entry's keys.
type Cells = (OnceLock<String>, OnceLock<Box<Keys>>);

/// What `turn/tool_changes.rs` keeps of an entry: its fingerprint (the definition a
/// conversation was given) and its reference (how a change block names the tool,
/// [`entry::reference`]). Both are worked out together, once per registry and provider: a turn
/// of `tool_changes: messages` asks them of every tool its conversation knows, and reading
/// each entry again per request cost about a quarter of such a request on Bedrock at 1,000
/// tools. The per-request flags (`defer_loading`, `cache_control`) change neither.
pub(crate) struct Keys {
    /// `sha256:<hex>` of the entry.
    pub fingerprint: String,
    /// How a change block names the tool.
    pub reference: String,
}

impl Memo for RenderCache {
    const SLOT: MemoSlot = MemoSlot::RenderedEntries;
}

/// The exact bytes of one registry tool's array entry (catalog mode, no flags), rendered
/// once per registry and provider.
pub(crate) fn tool_entry(registry: &Registry, index: usize, provider: Provider) -> Result<&str> {
    let ((cell, _), tool) = render_cells(registry, index, provider)?;
    if let Some(s) = cell.get() {
        return Ok(s);
    }
    let rendered = render_tool(tool, provider)?;
    Ok(cell.get_or_init(|| rendered))
}

/// The [`Keys`] of [`tool_entry`], worked out once per registry and provider.
pub(crate) fn entry_keys(registry: &Registry, index: usize, provider: Provider) -> Result<&Keys> {
    let ((_, cell), _) = render_cells(registry, index, provider)?;
    if let Some(k) = cell.get() {
        return Ok(k);
    }
    let entry = tool_entry(registry, index, provider)?;
    // Boxed, so a cell nobody asks (every one outside `tool_changes: messages`) is a pointer.
    let keys = Box::new(Keys {
        fingerprint: fingerprint(entry.as_bytes()),
        reference: entry::reference(entry, provider)?,
    });
    Ok(cell.get_or_init(|| keys))
}

/// The cells of the tool at `index` for `provider`, and the tool.
fn render_cells(registry: &Registry, index: usize, provider: Provider) -> Result<(&Cells, &Tool)> {
    let cache = registry.memo(|r| RenderCache((0..r.len()).map(|_| Default::default()).collect()));
    cache
        .and_then(|c| {
            Some((
                c.0.get(index)?.get(provider.index())?,
                registry.tool(index)?,
            ))
        })
        .ok_or_else(|| Error::internal(format!("no tool at registry position {index}")))
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
