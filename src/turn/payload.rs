//! The turn's payload: the provider `tools` array of one split as exact bytes, with its
//! SHA-256 fingerprint.
//!
//! One canonical serialiser produces every payload: compact JSON (no whitespace), wrapper
//! fields in the provider's documented order (`crate::provider`), JSON Schemas with object
//! keys in lexicographic order (serde_json's ordered map; the `preserve_order` feature must
//! stay off, which a test checks), numbers and strings as serde_json writes them — the same on
//! native and wasm. The fingerprint is `sha256:<hex>` of those bytes; it is what a prompt
//! cache keys on. How each deferral mode fills the array is in the docs of `crate::provider`.

use super::expand::Expansion;
use super::split::{catalog_text, Split};
use super::state::View;
use crate::digest::fingerprint;
use crate::error::{Error, Result};
use crate::provider::entry::{self, push_with_flags, ANTHROPIC_TOOL_SEARCH_NAME};
use crate::provider::provider_tool_form::{self, Placement};
use crate::provider::rules::check_mode;
use crate::provider::{DeferralMode, Provider};
use crate::registry::{goes_beside, tool_entry, Tool, TOOL_SEARCH};

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
/// `tool_changes.rs`).
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
    for (pos, &slot) in entries.iter().enumerate() {
        if pos > 0 {
            json.push(',');
        }
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
            Placement::GeminiTool(entry) => {
                if gemini || k > 0 {
                    json.push(',');
                }
                json.push_str(&entry);
                names.push(tool.name.clone());
            }
            Placement::RequestField(field) => fields.push(field),
            Placement::Array(_) => {
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
        request_fields: if fields.is_empty() {
            String::new()
        } else {
            format!("{{{}}}", crate::text::join(&fields, ","))
        },
    })
}

/// The entry of a search tool the library declares itself (`Slot::ProviderSearch` or
/// `Slot::ClientSearch`); `cache` puts Anthropic's `cache_control` on it.
fn render_search(slot: Slot<'_>, provider: Provider, cache: bool) -> Result<String> {
    match slot {
        Slot::ProviderSearch => entry::provider_search(provider, cache),
        Slot::ClientSearch(tool) => entry::client_search(&tool.description, tool.parameters()),
        Slot::Tool(..) => Err(Error::internal("a registry tool is not a search entry")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intent::ToolsOverride;
    use crate::registry::Registry;
    use crate::turn::expand::{expand, ExpandContext};
    use crate::turn::split::split;
    use crate::turn::{record_loaded, TurnState};

    fn render(e: &Expansion, state: &TurnState, options: RenderOptions) -> Result<Payload> {
        render_split(e, &split(e, state, options.view), &|_| false, options)
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
