//! What each provider refuses, and what the library does about it. The registry stays
//! provider-neutral; these rules apply when a payload is planned for a provider, and each has
//! a behaviour that never sends what the provider refuses and never changes what the model
//! reads without a warning saying so. `tool-intent check` lists them for a whole registry.
//!
//! | rule | providers | source | behaviour |
//! |---|---|---|---|
//! | `name` | all | Anthropic, OpenAI and Bedrock `ToolSpecification`: `^[a-zA-Z0-9_-]{1,64}$` | the registry refuses such names at load (MCP names get wire names) |
//! | `gemini_name` | gemini | Gemini `FunctionDeclaration.name`: starts with a letter or `_`; letters, digits, `_ . : -`; at most 64 | the tool is left out of the Gemini payload, with a warning |
//! | `top_level_combinator` | anthropic | Anthropic Messages refuses `oneOf`/`anyOf`/`allOf` at the top level of `input_schema` (one such MCP tool fails every request; makenotion/notion-mcp-server #341) | the tool is left out of the Anthropic payload, with a warning |
//! | `description_length` | openai-chat, openai-responses | OpenAI: a function description over 1,024 characters is refused (`string_above_max_length`) | shortened to 1,024 characters (UTF-16 units, so code points too) at a word boundary, ending in `…`, with a warning; the full text stays in the registry, in `resolve` and in `tool_search` results |
//! | `tools_per_request` | openai-chat, openai-responses (128), gemini (512) | OpenAI refuses more than 128 tools (`array_above_max_length`); Gemini takes up to 512 function declarations | counted over the `tools` array as sent (native modes: the deferred declarations too); more is an error naming the limit and the count, before anything is sent: which tools are resident is the registry's decision (`deferred_default_tools`, `defer`), and moving some into the catalog by registry size would change what the model sees from one deployment to the next |
//! | `strict` | openai-chat, openai-responses | OpenAI strict mode: root object, `additionalProperties: false` everywhere, every property required | checked at load for tools with `"strict": true` (`registry/strict.rs`); every function carries `strict` |
//! | `invalid_schema` | all | Anthropic "JSON schema is invalid. It must match JSON Schema draft 2020-12", OpenAI `invalid_function_parameters`: each keyword's value as the meta-schema has it (`json_schema.rs`) | the tool is left out of the payload, with a warning naming the path inside its schema |
//! | `array_items` | openai-chat, openai-responses | OpenAI `invalid_function_parameters`: "array schema missing items" (`json_schema.rs`) | the tool is left out of the OpenAI payload, with a warning naming the path |

use std::borrow::Cow;

use serde_json::Value;

use super::json_schema::fault;
use super::{DeferralMode, Provider};
use crate::error::{Error, Result};

/// OpenAI's longest function description, in characters, counted as UTF-16 units (JS's
/// `length`): the stricter reading of "characters" for text beyond the BMP.
pub const OPENAI_MAX_DESCRIPTION: usize = 1024;

/// How many tools one request may declare, where the provider says.
pub fn max_tools(provider: Provider) -> Option<usize> {
    match provider {
        Provider::OpenAiChat | Provider::OpenAiResponses => Some(128),
        Provider::Gemini => Some(512),
        Provider::Anthropic | Provider::BedrockConverse => None,
    }
}

/// A tool a provider refuses: the rule and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) rule: &'static str,
    pub(crate) why: Cow<'static, str>,
}

/// Why `provider` refuses a tool of this name and parameters schema, if it does.
pub(crate) fn refusal(name: &str, parameters: &Value, provider: Provider) -> Option<Refusal> {
    match provider {
        Provider::Gemini if !gemini_name(name) => Some(Refusal {
            rule: "gemini_name",
            why: Cow::Borrowed("Gemini names start with a letter or an underscore"),
        }),
        Provider::Anthropic if top_level_combinator(parameters) => Some(Refusal {
            rule: "top_level_combinator",
            why: Cow::Borrowed(
                "Anthropic refuses oneOf, anyOf or allOf at the top level of input_schema",
            ),
        }),
        _ => fault(
            parameters,
            matches!(provider, Provider::OpenAiChat | Provider::OpenAiResponses),
        )
        .map(|f| Refusal {
            rule: f.rule,
            why: Cow::Owned(format!(
                "its parameters schema at {} must be {}",
                f.path, f.must
            )),
        }),
    }
}

fn gemini_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'-'))
}

fn top_level_combinator(parameters: &Value) -> bool {
    parameters.as_object().is_some_and(|m| {
        ["oneOf", "anyOf", "allOf"]
            .iter()
            .any(|k| m.contains_key(*k))
    })
}

/// Whether the provider gets this description shortened (the test `description` makes,
/// without building the shortened text).
pub(crate) fn shortened(description: &str, provider: Provider) -> bool {
    matches!(provider, Provider::OpenAiChat | Provider::OpenAiResponses)
        && description.encode_utf16().count() > OPENAI_MAX_DESCRIPTION
}

/// The description a provider gets: shortened where the provider limits its length.
pub(crate) fn description(description: &str, provider: Provider) -> Cow<'_, str> {
    match provider {
        Provider::OpenAiChat | Provider::OpenAiResponses => {
            shorten(description, OPENAI_MAX_DESCRIPTION)
        }
        _ => Cow::Borrowed(description),
    }
}

/// `text` cut to at most `max` UTF-16 units (so at most `max` code points too), at the last
/// space in the final eighth when there is one, ending in `…`. Pure string arithmetic: the
/// same bytes on every target.
pub(crate) fn shorten(text: &str, max: usize) -> Cow<'_, str> {
    if text.encode_utf16().count() <= max {
        return Cow::Borrowed(text);
    }
    let budget = max - 1; // the ellipsis is one unit
    let mut end = 0;
    let mut units = 0;
    for (i, c) in text.char_indices() {
        if units + c.len_utf16() > budget {
            break;
        }
        units += c.len_utf16();
        end = i + c.len_utf8();
    }
    let cut = &text[..end];
    let cut = match cut.rfind(char::is_whitespace) {
        Some(at) if at >= end - end / 8 => cut[..at].trim_end(),
        _ => cut,
    };
    Cow::Owned(format!("{cut}…"))
}

/// An error when a payload declares more tools than the provider takes in one request.
/// `resident` of the `declared` tools are sent in full (the rest are `defer_loading`
/// declarations of a native mode): the advice names only what can help.
pub(crate) fn check_count(provider: Provider, declared: usize, resident: usize) -> Result<()> {
    let Some(max) = max_tools(provider).filter(|&max| declared > max) else {
        return Ok(());
    };
    let deferred = declared.saturating_sub(resident);
    let advice = match (resident, deferred) {
        (_, 0) => "defer some (deferred_default_tools or \"defer\": true), narrow the intent, or use a provider without the limit".to_string(),
        (0, _) => format!("all {deferred} are deferred declarations (defer_loading), which count too: use catalog mode (deferred tools are listed by name, not declared), narrow the intent, or use a provider without the limit"),
        _ => format!("{deferred} of them are deferred declarations (defer_loading), which count too: use catalog mode (deferred tools are listed by name, not declared), defer more of the {resident} resident ones, narrow the intent, or use a provider without the limit"),
    };
    Err(Error::argument(
        "provider",
        format!(
            "{} takes at most {max} tools per request and this turn declares {declared} (rule tools_per_request): {advice}",
            provider.as_str()
        ),
    ))
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shortening_is_bounded_and_ends_at_a_word() {
        assert_eq!(shorten("short", 10), "short");
        let long = "word ".repeat(300);
        let cut = shorten(&long, 1024);
        assert!(cut.encode_utf16().count() <= 1024, "{}", cut.len());
        assert!(cut.ends_with("word…"), "{cut}");
        // Astral characters count two UTF-16 units.
        let emoji = "🚀".repeat(600);
        let cut = shorten(&emoji, 1024);
        assert_eq!(cut.encode_utf16().count(), 1023);
        assert_eq!(cut.chars().count(), 512);
        // No whitespace near the end: a hard cut.
        assert_eq!(shorten(&"x".repeat(2000), 100).chars().count(), 100);
    }

    #[test]
    fn the_shortened_flag_agrees_with_the_shortened_text() {
        for n in [1023, 1024, 1025, 2000] {
            let text = "é".repeat(n);
            for provider in Provider::ALL {
                let owned = matches!(description(&text, provider), Cow::Owned(_));
                assert_eq!(shortened(&text, provider), owned, "{n} {provider:?}");
            }
        }
    }

    #[test]
    fn gemini_names_and_anthropic_combinators() {
        let plain = json!({"type": "object"});
        assert!(refusal("2fa_login", &plain, Provider::Gemini).is_some());
        assert!(refusal("-x", &plain, Provider::Gemini).is_some());
        assert!(refusal("_x-y", &plain, Provider::Gemini).is_none());
        assert!(refusal("2fa_login", &plain, Provider::Anthropic).is_none());
        let any_of = json!({"type": "object", "anyOf": [{"required": ["a"]}]});
        let r = refusal("a", &any_of, Provider::Anthropic).unwrap();
        assert_eq!(r.rule, "top_level_combinator");
        assert!(refusal("a", &any_of, Provider::OpenAiChat).is_none());
    }
}
