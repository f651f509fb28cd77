//! One tool's entry in each provider's `tools` list, as the providers' SDKs type it, and the
//! search-tool entries the library declares itself. Field order is the order written (and so
//! part of the fingerprint); an empty description is omitted rather than sent as `""`.
//!
//! Field names, checked against the SDKs' type definitions:
//! - Anthropic `@anthropic-ai/sdk` `Tool {name, description?, input_schema}`;
//! - OpenAI `openai` Chat `ChatCompletionFunctionTool {type: "function", function:
//!   FunctionDefinition {name, description?, parameters?, strict?}}` and Responses
//!   `FunctionTool {type: "function", name, description?, parameters, strict}` — `strict` is
//!   always written: OpenAI's function-calling guide says an omitted `strict` in Responses is
//!   normalised into strict mode where the schema allows, which makes every optional
//!   parameter required (the Responses SDK type marks it required for that reason);
//! - AWS `@aws-sdk/client-bedrock-runtime` `Tool.ToolSpecMember {toolSpec: ToolSpecification
//!   {name, description?, inputSchema: ToolInputSchema.JsonMember {json}}}`, and
//!   `Tool.CachePointMember {cachePoint: CachePointBlock {type: "default"}}`;
//! - Google `@google/genai` `FunctionDeclaration {name, description?, parametersJsonSchema}`
//!   inside `Tool {functionDeclarations}`: the JSON Schema field, since the older `parameters`
//!   takes an OpenAPI subset that refuses `$schema`, `additionalProperties` and type arrays.

use serde::Serialize;
use serde_json::Value;

use super::Provider;
use crate::error::{Error, Result};

/// Anthropic's server-side tool search (regex variant): its `type`.
pub const ANTHROPIC_TOOL_SEARCH_TYPE: &str = "tool_search_tool_regex_20251119";
/// Anthropic's server-side tool search: its `name`.
pub const ANTHROPIC_TOOL_SEARCH_NAME: &str = "tool_search_tool_regex";

#[derive(Serialize)]
struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
}

// Tool entries are serialised without per-request flags and cached per registry;
// `defer_loading` and `cache_control` are spliced in per request (`push_with_flags`).
#[derive(Serialize)]
struct AnthropicTool<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
    input_schema: &'a Value,
}

#[derive(Serialize)]
struct AnthropicServerTool {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<CacheControl>,
}

#[derive(Serialize)]
struct OpenAiFunction<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
    parameters: &'a Value,
    strict: bool,
}

#[derive(Serialize)]
struct OpenAiChatTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: OpenAiFunction<'a>,
}

#[derive(Serialize)]
struct OpenAiResponsesTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
    parameters: &'a Value,
    strict: bool,
}

#[derive(Serialize)]
struct OpenAiToolSearch {
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct OpenAiClientToolSearch<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    execution: &'static str,
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
    parameters: &'a Value,
}

#[derive(Serialize)]
struct BedrockInputSchema<'a> {
    json: &'a Value,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BedrockToolSpec<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
    input_schema: BedrockInputSchema<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BedrockTool<'a> {
    tool_spec: BedrockToolSpec<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GeminiFunctionDeclaration<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
    parameters_json_schema: &'a Value,
}

/// Bedrock Converse's cache breakpoint, an entry of its own after the last cached tool.
pub(crate) const BEDROCK_CACHE_POINT: &str = r#"{"cachePoint":{"type":"default"}}"#;

pub(crate) fn to_json<T: Serialize>(value: &T) -> Result<String> {
    // Serialising a tool entry cannot fail: its schema is a JSON value with string keys.
    serde_json::to_string(value).map_err(|_| Error::internal("serialising a payload"))
}

/// What a function entry is made of: the registry tool's name, parameters schema and strict
/// flag, and the description the provider gets (shortened where a provider limits it, see
/// `rules`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Function<'a> {
    pub(crate) name: &'a str,
    pub(crate) description: &'a str,
    pub(crate) parameters: &'a Value,
    pub(crate) strict: bool,
}

/// One function's entry for a provider.
pub(crate) fn function(f: Function<'_>, provider: Provider) -> Result<String> {
    let Function {
        name,
        description,
        parameters,
        strict,
    } = f;
    match provider {
        Provider::Anthropic => to_json(&AnthropicTool {
            name,
            description,
            input_schema: parameters,
        }),
        Provider::OpenAiChat => to_json(&OpenAiChatTool {
            kind: "function",
            function: OpenAiFunction {
                name,
                description,
                parameters,
                strict,
            },
        }),
        Provider::OpenAiResponses => to_json(&OpenAiResponsesTool {
            kind: "function",
            name,
            description,
            parameters,
            strict,
        }),
        Provider::BedrockConverse => to_json(&BedrockTool {
            tool_spec: BedrockToolSpec {
                name,
                description,
                input_schema: BedrockInputSchema { json: parameters },
            },
        }),
        Provider::Gemini => to_json(&GeminiFunctionDeclaration {
            name,
            description,
            parameters_json_schema: parameters,
        }),
    }
}

/// The provider's own tool search, as `native` mode declares it; `cache` puts Anthropic's
/// `cache_control` on it.
pub(crate) fn provider_search(provider: Provider, cache: bool) -> Result<String> {
    match provider {
        Provider::Anthropic => to_json(&AnthropicServerTool {
            kind: ANTHROPIC_TOOL_SEARCH_TYPE,
            name: ANTHROPIC_TOOL_SEARCH_NAME,
            cache_control: cache.then_some(CacheControl { kind: "ephemeral" }),
        }),
        Provider::OpenAiResponses => to_json(&OpenAiToolSearch {
            kind: "tool_search",
        }),
        other => Err(Error::internal(format!(
            "{} has no tool search of its own",
            other.as_str()
        ))),
    }
}

/// Our `tool_search` declared as OpenAI Responses' client-executed search tool.
pub(crate) fn client_search(description: &str, parameters: &Value) -> Result<String> {
    to_json(&OpenAiClientToolSearch {
        kind: "tool_search",
        execution: "client",
        description,
        parameters,
    })
}

/// Anthropic's explicit cache breakpoint, the last field of the entry it marks.
pub(crate) const CACHE_CONTROL_FIELD: &str = ",\"cache_control\":{\"type\":\"ephemeral\"}";

/// A deferred declaration's flag (Anthropic's and OpenAI Responses' `defer_loading`), the last
/// field of its entry but `cache_control`.
pub(crate) const DEFER_LOADING_FIELD: &str = ",\"defer_loading\":true";

/// Appends an entry, adding `defer_loading` and `cache_control` as the serialiser would: both
/// are the last fields of their wrapper, so they go right before its final `}`.
pub(crate) fn push_with_flags(json: &mut String, base: &str, deferred: bool, cache: bool) {
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

/// How a change block names the tool of `entry` (the `reference` of a known tool in the conversation's record).
pub(crate) fn reference(entry: &str, provider: Provider) -> Result<String> {
    let value = crate::json::parse_trusted(entry)
        .map_err(|_| Error::internal("a rendered entry is not JSON"))?;
    let text = |v: Option<&serde_json::Value>| v.and_then(|v| v.as_str()).map(str::to_string);
    let found = match provider {
        Provider::BedrockConverse => text(value.get("toolSpec").and_then(|t| t.get("name")))
            .or_else(|| text(value.get("systemTool").and_then(|t| t.get("name")))),
        Provider::OpenAiResponses => text(value.get("type")).map(|kind| {
            let mut o = serde_json::Map::new();
            o.insert("type".into(), kind.into());
            if let Some(name) = text(value.get("name")) {
                o.insert("name".into(), name.into());
            }
            crate::json_text::text(&serde_json::Value::Object(o))
        }),
        _ => text(value.get("name")),
    };
    found.ok_or_else(|| Error::internal("a rendered entry has no name to reference"))
}
