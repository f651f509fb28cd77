//! `native-client` mode's search results in the provider's own shape (see the module docs of
//! `provider` for the field names and where they come from).

use super::entry::to_json;
use super::Provider;
use crate::error::{Error, Result};

/// What our `tool_search` hands back in `native-client` mode, as the provider expects it:
/// Anthropic — the `tool_result` content, a list of `tool_reference` blocks (a text block with
/// `text` when nothing was found); OpenAI Responses — a `tool_search_output` item with each
/// hit's full definition (add the call's `call_id` before sending). JSON text; an error for
/// Chat Completions, which has no native deferral. `entry_of` gives a hit's entry in the
/// provider's `tools` array.
pub(crate) fn client_search_output<'e>(
    hits: &[String],
    text: &str,
    provider: Provider,
    entry_of: &dyn Fn(&str) -> Result<&'e str>,
) -> Result<String> {
    let mut out = String::new();
    match provider {
        Provider::Anthropic if hits.is_empty() => {
            out.push_str("[{\"type\":\"text\",\"text\":");
            out.push_str(&to_json(&text)?);
            out.push_str("}]");
        }
        Provider::Anthropic => {
            out.push('[');
            for (k, name) in hits.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                out.push_str("{\"type\":\"tool_reference\",\"tool_name\":");
                out.push_str(&to_json(name)?);
                out.push('}');
            }
            out.push(']');
        }
        Provider::OpenAiResponses => {
            out.push_str("{\"type\":\"tool_search_output\",\"execution\":\"client\",\"tools\":[");
            for (k, name) in hits.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                out.push_str(entry_of(name)?);
            }
            out.push_str("]}");
        }
        other => {
            return Err(Error::argument(
                "provider",
                format!(
                    "{} has no native deferral, so there is no provider-shaped search result",
                    other.as_str()
                ),
            ))
        }
    }
    Ok(out)
}
