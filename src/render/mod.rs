//! Rendering: provider tool arrays as exact bytes, with a SHA-256 fingerprint.
//!
//! One canonical serialiser produces every payload: compact JSON (no whitespace), wrapper
//! fields in the provider's documented order, JSON Schemas with object keys in lexicographic
//! order (serde_json's ordered map; the `preserve_order` feature must stay off, which a test
//! checks), numbers and strings as serde_json writes them — the same on native and wasm.
//! The fingerprint is `sha256:<hex>` of those bytes; it is what a prompt cache keys on.
//!
//! Providers:
//! - Anthropic Messages: `{"name","description","input_schema"}`; with `cache_control`
//!   the last non-deferred tool gets `{"type":"ephemeral"}` (Anthropic rejects it on a
//!   deferred tool);
//! - OpenAI Chat Completions: `{"type":"function","function":{"name","description","parameters"}}`;
//! - OpenAI Responses: `{"type":"function","name","description","parameters"}`.
//!
//! Deferral modes:
//! - `catalog`: array = resident tools + promoted tools (load order); the catalog text goes in
//!   the system prompt;
//! - `native`: every available tool is declared, deferred ones with `"defer_loading":true`,
//!   our `tool_search` replaced by the provider's own tool-search tool; the array never changes
//!   during a session and the catalog text is empty. Chat Completions has no native deferral,
//!   so `native` with `openai-chat` is an error.
//! - `native-client`: declared as in `native`, but the search is ours: on Anthropic our
//!   `tool_search` is an ordinary client tool whose `tool_result` content is a list of
//!   `{"type":"tool_reference","tool_name":…}` blocks (`client_search.rs`), which the
//!   API expands into the deferred definitions inline; on OpenAI Responses it is declared as
//!   `{"type":"tool_search","execution":"client","description","parameters"}` and answered
//!   with a `{"type":"tool_search_output","execution":"client","tools":[…]}` item (the caller
//!   adds the call's `call_id`). A load changes nothing in the array, and our ranking,
//!   `select:` and deny rules are what the model searches with. Field names as in Anthropic's
//!   tool reference (`ToolReferenceBlockParam {type: "tool_reference", tool_name}`, allowed in
//!   a `tool_result`'s content) and OpenAI's Responses API reference (`ToolSearchTool {type,
//!   execution, description, parameters}`, `ToolSearchOutputItemParam {type, call_id,
//!   execution, tools}`), as their SDKs define them.
//!
//! An empty description is omitted rather than sent as `""`.

use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::expand::Expansion;
use crate::registry::{Memo, MemoSlot, Registry, Tool, TOOL_SEARCH};
use crate::turn::{catalog_text, Split, View};

mod client_search;
mod entry;
mod provider_tool_form;
pub mod rules;
pub use crate::provider::{DeferralMode, Provider, ToolChanges};
pub(crate) use client_search::client_search_output;
pub(crate) use entry::BEDROCK_CACHE_POINT;
pub use entry::{ANTHROPIC_TOOL_SEARCH_NAME, ANTHROPIC_TOOL_SEARCH_TYPE};
#[cfg(test)]
pub(crate) use rules::ProviderRules;

/// Rendering options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct RenderOptions {
    /// The target API.
    pub provider: Provider,
    /// How deferred tools reach the model.
    pub mode: DeferralMode,
    /// Anthropic explicit prompt caching: `cache_control` on the last non-deferred tool.
    pub cache_control: bool,
    /// Which loaded set the array shows (the frozen one during a turn).
    pub view: View,
}

/// One rendered tool array (with `tool_changes: messages`, the array a conversation declared:
/// `crate::changes`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Payload {
    /// The exact JSON bytes of the `tools` array.
    pub json: String,
    /// `sha256:<hex>` of `json`.
    pub fingerprint: String,
    /// The catalog text for the system prompt (empty in native mode).
    pub catalog: String,
    /// Tool names in array order (the provider's tool-search tool included by its name).
    pub array: Vec<String>,
    /// Top-level request fields the tools need besides `tools`, as a JSON object ("" when
    /// none): OpenAI Chat's `web_search_options`, Gemini's `toolConfig` (`provider_tool_form.rs`).
    pub request_fields: String,
    /// Each entry of the list of functions as a byte range of `json`, in array order (the
    /// conversation's tool record is kept per entry: `crate::changes`).
    pub spans: Vec<(usize, usize)>,
}

/// `sha256:<hex>` of some bytes.
pub fn fingerprint(bytes: &[u8]) -> String {
    crate::registry::sha256_hex(&Sha256::digest(bytes))
}

/// One entry of a rendered array.
#[derive(Clone, Copy)]
enum Slot<'a> {
    /// A registry tool (position), deferred or not.
    Tool(usize, bool),
    /// The provider's own search tool (`native`).
    ProviderSearch,
    /// Our `tool_search` as OpenAI's client-executed search tool.
    ClientSearch(&'a Tool),
}

/// Renders the provider tool array for a split the caller already made (the catalog-mode
/// array is `split.array`; native mode declares every available tool).
pub(crate) fn render_split(
    expansion: &Expansion,
    split: &Split,
    refused: &dyn Fn(usize) -> bool,
    options: RenderOptions,
) -> Result<Payload> {
    let registry = expansion.registry();
    let mut entries: Vec<Slot> = Vec::new();
    let catalog = match options.mode {
        DeferralMode::Catalog => {
            entries.extend(split.array.iter().map(|&i| Slot::Tool(i, false)));
            catalog_text(registry, &split.catalog)
        }
        DeferralMode::Native | DeferralMode::NativeClient => {
            check_mode(options.provider, options.mode)?;
            let mut any_deferred = false;
            for i in expansion.tools().filter(|&i| !refused(i)) {
                let deferred = expansion.is_deferred(i);
                any_deferred |= deferred;
                let is_search = registry.tool(i).is_some_and(|t| t.name == TOOL_SEARCH);
                entries.push(match (is_search, options.mode, options.provider) {
                    (false, ..) => Slot::Tool(i, deferred),
                    (true, DeferralMode::Native, _) => continue,
                    (true, _, Provider::OpenAiResponses) => match registry.tool(i) {
                        Some(tool) => Slot::ClientSearch(tool),
                        None => return Err(Error::internal("no tool_search at its position")),
                    },
                    (true, ..) => Slot::Tool(i, false),
                });
            }
            if any_deferred && options.mode == DeferralMode::Native {
                entries.push(Slot::ProviderSearch);
            }
            String::new()
        }
    };
    let mut beside: Vec<usize> = Vec::new();
    entries.retain(|slot| match *slot {
        Slot::Tool(i, _) if goes_beside(registry, i, options.provider) => {
            beside.push(i);
            false
        }
        _ => true,
    });
    let last_resident = entries
        .iter()
        .rposition(|e| !matches!(e, Slot::Tool(_, true)));
    let mut json = String::with_capacity(entries.len() * 1024);
    // Gemini takes its functions inside one `Tool` object (`[{"functionDeclarations":[…]}]`);
    // an empty list is sent as `[]`.
    let gemini = options.provider == Provider::Gemini && !entries.is_empty();
    json.push_str(if gemini {
        "[{\"functionDeclarations\":["
    } else {
        "["
    });
    let mut names = Vec::with_capacity(entries.len());
    let mut spans = Vec::with_capacity(entries.len());
    for (pos, &slot) in entries.iter().enumerate() {
        if pos > 0 {
            json.push(',');
        }
        let start = json.len();
        let cache = options.cache_control
            && options.provider == Provider::Anthropic
            && Some(pos) == last_resident;
        match slot {
            Slot::Tool(i, deferred) => {
                let base = tool_entry(registry, i, options.provider)?;
                push_with_flags(&mut json, base, deferred, cache);
                names.push(registry.name(i).to_string());
            }
            Slot::ProviderSearch => {
                json.push_str(&render_search(slot, options.provider, cache)?);
                names.push(match options.provider {
                    Provider::Anthropic => ANTHROPIC_TOOL_SEARCH_NAME.to_string(),
                    _ => "tool_search".to_string(),
                });
            }
            Slot::ClientSearch(_) => {
                json.push_str(&render_search(slot, options.provider, cache)?);
                names.push(TOOL_SEARCH.to_string());
            }
        }
        spans.push((start, json.len()));
    }
    // Bedrock Converse caches up to a `cachePoint` entry of its own: after the last tool.
    if options.cache_control && options.provider == Provider::BedrockConverse && !entries.is_empty()
    {
        json.push(',');
        json.push_str(entry::BEDROCK_CACHE_POINT);
    }
    if gemini {
        json.push_str("]}");
    }
    let mut fields: Vec<String> = Vec::new();
    for (k, &i) in beside.iter().enumerate() {
        let tool = registry
            .tool(i)
            .ok_or_else(|| Error::internal(format!("no tool at registry position {i}")))?;
        let Some(b) = tool.builtin() else {
            return Err(Error::internal(
                "a tool set beside the array is not a built-in",
            ));
        };
        match provider_tool_form::form(b, &tool.name, options.provider)? {
            provider_tool_form::Placement::GeminiTool(entry) => {
                if gemini || k > 0 {
                    json.push(',');
                }
                json.push_str(&entry);
                names.push(tool.name.clone());
            }
            provider_tool_form::Placement::RequestField(field) => fields.push(field),
            provider_tool_form::Placement::Array(_) => {
                return Err(Error::internal(
                    "an array built-in was set beside the array",
                ))
            }
        }
    }
    // Gemini: "mixing them with function declarations needs
    // tool_config.include_server_side_tool_invocations".
    if gemini && !beside.is_empty() {
        fields.push(provider_tool_form::GEMINI_TOOL_CONFIG.to_string());
    }
    json.push(']');
    Ok(Payload {
        fingerprint: fingerprint(json.as_bytes()),
        json,
        catalog,
        array: names,
        spans,
        request_fields: if fields.is_empty() {
            String::new()
        } else {
            format!("{{{}}}", crate::text::join(&fields, ","))
        },
    })
}

/// Anthropic's explicit cache breakpoint, the last field of the entry it marks.
pub(crate) const CACHE_CONTROL_FIELD: &str = ",\"cache_control\":{\"type\":\"ephemeral\"}";

/// A deferred declaration's flag, the last field of its entry but `cache_control`.
pub(crate) const DEFER_LOADING_FIELD: &str = ",\"defer_loading\":true";

/// An entry with Anthropic's `cache_control` added, as [`push_with_flags`] adds it.
pub(crate) fn with_cache_control(entry: &str) -> String {
    let body = entry.strip_suffix('}').unwrap_or(entry);
    format!("{body}{CACHE_CONTROL_FIELD}}}")
}

/// Whether an entry carries Anthropic's `cache_control` ([`with_cache_control`]).
pub(crate) fn has_cache_control(entry: &str) -> bool {
    entry
        .strip_suffix('}')
        .is_some_and(|body| body.ends_with(CACHE_CONTROL_FIELD))
}

/// Appends a cached entry, adding `defer_loading` and `cache_control` as the serialiser
/// would: both are the last fields of their wrapper, so they go right before its final `}`.
fn push_with_flags(json: &mut String, base: &str, deferred: bool, cache: bool) {
    if !deferred && !cache {
        json.push_str(base);
        return;
    }
    let body = base.strip_suffix('}').unwrap_or(base);
    json.push_str(body);
    if deferred {
        json.push_str(DEFER_LOADING_FIELD);
    }
    if cache {
        json.push_str(CACHE_CONTROL_FIELD);
    }
    json.push('}');
}

/// Each tool's rendered array entry per provider, and the entry's fingerprint (what
/// `crate::changes` records as the definition a conversation was given), filled on first
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

/// The entry of a search tool the library declares itself (`Slot::ProviderSearch` or
/// `Slot::ClientSearch`); `cache` puts Anthropic's `cache_control` on it.
fn render_search(slot: Slot<'_>, provider: Provider, cache: bool) -> Result<String> {
    match slot {
        Slot::ProviderSearch => entry::provider_search(provider, cache),
        Slot::ClientSearch(tool) => entry::client_search(tool),
        Slot::Tool(..) => Err(Error::internal("a registry tool is not a search entry")),
    }
}

/// An error (about `mode`) when the provider cannot take the mode: the native modes need native
/// deferral, which only Anthropic and OpenAI Responses have.
pub(crate) fn check_mode(provider: Provider, mode: DeferralMode) -> Result<()> {
    if mode.declares_deferred() && !provider.has_native_deferral() {
        return Err(Error::argument(
            "mode",
            format!(
                "{} has no native deferral, so mode {} cannot be used with it (use mode catalog, or provider anthropic or openai-responses)",
                provider.as_str(),
                mode.as_str()
            ),
        ));
    }
    Ok(())
}

/// The provider's own search tool entry as `native` mode declares it (the budget prices it).
pub(crate) fn provider_search_entry(provider: Provider) -> Result<String> {
    entry::provider_search(provider, false)
}

/// The exact bytes of one tool as it appears in a provider array, without per-request flags
/// (`push_with_flags` adds `defer_loading` and `cache_control`). The budget prices resident
/// tools with this.
pub(crate) fn render_tool(tool: &Tool, provider: Provider) -> Result<String> {
    if let Some(b) = tool.builtin().filter(|b| b.runs_on(provider)) {
        return Ok(match provider_tool_form::form(b, &tool.name, provider)? {
            provider_tool_form::Placement::Array(entry)
            | provider_tool_form::Placement::GeminiTool(entry) => entry,
            provider_tool_form::Placement::RequestField(field) => format!("{{{field}}}"),
        });
    }
    entry::tool(tool, provider, &rules::description(tool, provider))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expand::{expand, ExpandContext};
    use crate::intent::ToolsOverride;
    use crate::registry::Registry;
    use crate::turn::{record_loaded, split, TurnState};

    fn render(e: &Expansion, state: &TurnState, options: RenderOptions) -> Result<Payload> {
        render_split(e, &split(e, state, options.view), &|_| false, options)
    }

    #[test]
    fn fingerprint_of_known_bytes() {
        assert_eq!(
            fingerprint(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn schema_keys_are_sorted_and_wrapper_ordered() {
        let r = Registry::from_value(&serde_json::json!([{"name": "t", "description": "d", "parameters": {"type": "object", "properties": {"b": {}, "a": {}}}}])).unwrap();
        let e = expand(&r, &ToolsOverride::Follow, ExpandContext::default()).unwrap();
        let p = render(&e, &TurnState::default(), RenderOptions::default()).unwrap();
        assert_eq!(
            p.json,
            r#"[{"name":"t","description":"d","input_schema":{"properties":{"a":{},"b":{}},"type":"object"}}]"#
        );
    }

    #[test]
    fn cache_control_lands_on_last_non_deferred_tool() {
        let r = Registry::embedded();
        let e = expand(&r, &ToolsOverride::Follow, ExpandContext::default()).unwrap();
        let opts = RenderOptions {
            cache_control: true,
            mode: DeferralMode::Native,
            ..Default::default()
        };
        let p = render(&e, &TurnState::default(), opts).unwrap();
        let v: serde_json::Value = serde_json::from_str(&p.json).unwrap();
        let arr = v.as_array().unwrap();
        let marked: Vec<usize> = (0..arr.len())
            .filter(|&i| arr[i].get("cache_control").is_some())
            .collect();
        assert_eq!(marked.len(), 1);
        assert!(arr[marked[0]].get("defer_loading").is_none());
        assert!(arr[marked[0] + 1..]
            .iter()
            .all(|t| t.get("defer_loading").is_some()));
    }

    #[test]
    fn promoted_tools_append_after_resident() {
        let r = Registry::embedded();
        let e = expand(&r, &ToolsOverride::Follow, ExpandContext::default()).unwrap();
        let s = r.begin_turn(
            &record_loaded(&TurnState::default(), &["send_message", "enter_plan_mode"]).unwrap(),
        );
        let p = render(&e, &s, RenderOptions::default()).unwrap();
        let n = p.array.len();
        assert_eq!(&p.array[n - 2..], ["send_message", "enter_plan_mode"]);
        assert!(!p.catalog.contains("\nsend_message\n"));
    }

    #[test]
    fn native_is_refused_for_chat_completions() {
        let r = Registry::embedded();
        let e = expand(&r, &ToolsOverride::Follow, ExpandContext::default()).unwrap();
        let opts = RenderOptions {
            provider: Provider::OpenAiChat,
            mode: DeferralMode::Native,
            ..Default::default()
        };
        assert_eq!(
            render(&e, &TurnState::default(), opts).unwrap_err().code(),
            "invalid_argument"
        );
    }
}
