//! The provider-executed form of a registry tool marked `"builtin"` (the rules and the SDK
//! types each field follows are in `provider_tools.rs`): an entry in the `tools`
//! array (Anthropic, OpenAI Responses, Bedrock Converse), a tool object beside Gemini's
//! function declarations, or a top-level request field (OpenAI Chat's `web_search_options`).
//! Field order is the order written, so part of the fingerprint.

use serde::Serialize;
use serde_json::{Map, Value};

use super::entry::to_json;
use super::provider_tools::ProviderTool;
use super::Provider;
use crate::error::{Error, Result};

/// Where a provider takes a built-in.
pub(crate) enum Placement {
    /// An entry of the `tools` array.
    Array(String),
    /// A tool object after Gemini's `{"functionDeclarations": [...]}`.
    GeminiTool(String),
    /// Top-level request fields (a JSON object's members, without braces).
    RequestField(String),
}

#[derive(Serialize)]
struct ApproximateLocation<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    fields: &'a Map<String, Value>,
}

#[derive(Serialize)]
/// Anthropic's server tools share these fields (`WebSearchTool20260318`, `WebFetchTool20260318`).
struct AnthropicWebSearch<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    allowed_domains: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    blocked_domains: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_uses: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    user_location: Option<ApproximateLocation<'a>>,
}

#[derive(Serialize)]
struct ResponsesFilters<'a> {
    allowed_domains: &'a [String],
}

#[derive(Serialize)]
struct ResponsesWebSearch<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    filters: Option<ResponsesFilters<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    search_context_size: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    user_location: Option<ApproximateLocation<'a>>,
}

#[derive(Serialize)]
struct ChatLocation<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    approximate: &'a Map<String, Value>,
}

#[derive(Serialize)]
struct ChatWebSearchOptions<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    search_context_size: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    user_location: Option<ChatLocation<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GoogleSearch<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    exclude_domains: Option<&'a [String]>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GeminiSearchTool<'a> {
    google_search: GoogleSearch<'a>,
}

#[derive(Serialize)]
struct UrlContext {}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GeminiUrlContextTool {
    url_context: UrlContext,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BedrockSystemToolName {
    name: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BedrockSystemTool {
    system_tool: BedrockSystemToolName,
}

/// Gemini's request field when its function declarations and a built-in go out together.
pub(crate) const GEMINI_TOOL_CONFIG: &str =
    r#""toolConfig":{"includeServerSideToolInvocations":true}"#;

/// The built-in form for a provider that `b.runs_on`; `name` is the tool's name.
pub(crate) fn form(b: &ProviderTool, name: &str, provider: Provider) -> Result<Placement> {
    let location = |kind| {
        b.user_location
            .as_ref()
            .map(|fields| ApproximateLocation { kind, fields })
    };
    // Anthropic's web search and web fetch share these fields (a web fetch has no location:
    // the registry refuses one).
    let anthropic = || -> Result<Placement> {
        Ok(Placement::Array(to_json(&AnthropicWebSearch {
            kind: &b.anthropic_version,
            name,
            allowed_domains: b.allowed_domains.as_deref(),
            blocked_domains: b.blocked_domains.as_deref(),
            max_uses: b.max_uses,
            user_location: location("approximate"),
        })?))
    };
    if b.kind() == "web_fetch" {
        // Anthropic `WebFetchTool20260318`; Gemini `Tool {urlContext: {}}` (the registry
        // refused the other providers for this kind).
        return match provider {
            Provider::Anthropic => anthropic(),
            Provider::Gemini => Ok(Placement::GeminiTool(to_json(&GeminiUrlContextTool {
                url_context: UrlContext {},
            })?)),
            other => Err(Error::internal(format!(
                "{} has no built-in web_fetch",
                other.as_str()
            ))),
        };
    }
    Ok(match provider {
        Provider::Anthropic => anthropic()?,
        Provider::OpenAiResponses => Placement::Array(to_json(&ResponsesWebSearch {
            kind: "web_search",
            filters: b
                .allowed_domains
                .as_deref()
                .map(|allowed_domains| ResponsesFilters { allowed_domains }),
            search_context_size: b.search_context_size.as_deref(),
            user_location: location("approximate"),
        })?),
        Provider::OpenAiChat => {
            let options = to_json(&ChatWebSearchOptions {
                search_context_size: b.search_context_size.as_deref(),
                user_location: b.user_location.as_ref().map(|approximate| ChatLocation {
                    kind: "approximate",
                    approximate,
                }),
            })?;
            Placement::RequestField(format!("\"web_search_options\":{options}"))
        }
        Provider::Gemini => Placement::GeminiTool(to_json(&GeminiSearchTool {
            google_search: GoogleSearch {
                exclude_domains: b.blocked_domains.as_deref(),
            },
        })?),
        Provider::BedrockConverse => Placement::Array(to_json(&BedrockSystemTool {
            system_tool: BedrockSystemToolName {
                name: "nova_grounding",
            },
        })?),
    })
}
