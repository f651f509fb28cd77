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

use crate::error::{Error, Result};
use crate::provider::Provider;
use crate::registry::Tool;

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

pub(super) fn to_json<T: Serialize>(value: &T) -> Result<String> {
    // Serialising a tool entry cannot fail: its schema is a JSON value with string keys.
    serde_json::to_string(value).map_err(|_| Error::internal("serialising a payload"))
}

/// One tool's entry for a provider, with the description the provider gets (shortened where
/// a provider limits it, see `rules`).
pub(super) fn tool(tool: &Tool, provider: Provider, description: &str) -> Result<String> {
    let (name, parameters) = (tool.name.as_str(), tool.parameters());
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
                strict: tool.strict,
            },
        }),
        Provider::OpenAiResponses => to_json(&OpenAiResponsesTool {
            kind: "function",
            name,
            description,
            parameters,
            strict: tool.strict,
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
pub(super) fn provider_search(provider: Provider, cache: bool) -> Result<String> {
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
pub(super) fn client_search(tool: &Tool) -> Result<String> {
    to_json(&OpenAiClientToolSearch {
        kind: "tool_search",
        execution: "client",
        description: &tool.description,
        parameters: tool.parameters(),
    })
}
