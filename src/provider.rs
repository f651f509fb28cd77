//! The providers a payload is rendered for and the deferral modes, with their wire names.

use serde::Serialize;

use crate::error::{Error, Result};

/// Target API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Provider {
    /// Anthropic Messages (`tools[]` of `{name, description, input_schema}`).
    #[default]
    #[serde(rename = "anthropic")]
    Anthropic,
    /// OpenAI Chat Completions (`{type: "function", function: {...}}`).
    #[serde(rename = "openai-chat")]
    OpenAiChat,
    /// OpenAI Responses (`{type: "function", name, description, parameters}`).
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// AWS Bedrock Converse (`toolConfig.tools[]` of `{toolSpec: {name, description,
    /// inputSchema: {json}}}`).
    #[serde(rename = "bedrock-converse")]
    BedrockConverse,
    /// Google Gemini (`tools: [{functionDeclarations: [{name, description,
    /// parametersJsonSchema}]}]`).
    #[serde(rename = "gemini")]
    Gemini,
}

impl Provider {
    /// Every provider, in declaration order.
    pub const ALL: [Provider; 5] = [
        Provider::Anthropic,
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::BedrockConverse,
        Provider::Gemini,
    ];

    /// The wire name (`anthropic`, `openai-chat`, `openai-responses`, `bedrock-converse`,
    /// `gemini`).
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAiChat => "openai-chat",
            Provider::OpenAiResponses => "openai-responses",
            Provider::BedrockConverse => "bedrock-converse",
            Provider::Gemini => "gemini",
        }
    }

    /// Whether the provider can declare deferred tools (`defer_loading`) and search them:
    /// Anthropic and OpenAI Responses. Chat Completions, Bedrock Converse (which refuses
    /// `defer_loading`) and Gemini have no tool search, so only `catalog` mode renders for them.
    pub fn has_native_deferral(self) -> bool {
        matches!(self, Provider::Anthropic | Provider::OpenAiResponses)
    }

    /// Index of this provider in per-provider tables sized `Provider::ALL.len()`.
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// Parses a wire name.
    pub fn parse(text: &str) -> Result<Provider> {
        Provider::ALL
            .into_iter()
            .find(|p| p.as_str() == text)
            .ok_or_else(|| {
                Error::argument(
                    "provider",
                    format!("\"{text}\" is not one of anthropic, openai-chat, openai-responses, bedrock-converse, gemini"),
                )
            })
    }
}

/// How deferred tools reach the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DeferralMode {
    /// Deferred tools are names in a catalog in the system prompt; loads join the array.
    #[default]
    Catalog,
    /// Every available tool is declared, deferred ones with `defer_loading`; the provider's
    /// own search tool loads them.
    Native,
    /// Declared as in `Native`, but our `tool_search` is the search tool and its results are
    /// provider-shaped references (`SearchOutcome::provider_output`): loads never change the array.
    #[serde(rename = "native-client")]
    NativeClient,
}

impl DeferralMode {
    /// Every mode, in declaration order.
    pub const ALL: [DeferralMode; 3] = [
        DeferralMode::Catalog,
        DeferralMode::Native,
        DeferralMode::NativeClient,
    ];

    /// The wire name (`catalog`, `native`, `native-client`).
    pub fn as_str(self) -> &'static str {
        match self {
            DeferralMode::Catalog => "catalog",
            DeferralMode::Native => "native",
            DeferralMode::NativeClient => "native-client",
        }
    }

    /// Whether deferred tools are declared to the provider (`native`, `native-client`).
    pub fn declares_deferred(self) -> bool {
        self != DeferralMode::Catalog
    }

    /// Parses a wire name.
    pub fn parse(text: &str) -> Result<DeferralMode> {
        DeferralMode::ALL
            .into_iter()
            .find(|m| m.as_str() == text)
            .ok_or_else(|| {
                Error::argument(
                    "mode",
                    format!("\"{text}\" is not one of catalog, native, native-client"),
                )
            })
    }
}

/// How a change of the offered tools reaches the model after a session's first turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChanges {
    /// The `tools` array changes at a turn boundary (the design note's rule): every change
    /// rewrites the cached prefix from the tools on.
    #[default]
    Array,
    /// The `tools` array stays what the first turn declared; each later change is a message
    /// the caller appends to the conversation (Anthropic `tool_addition`/`tool_removal`,
    /// Bedrock Converse `toolAddition`/`toolRemoval`, OpenAI Responses `additional_tools` and
    /// `allowed_tools`). See `src/changes/mod.rs`.
    Messages,
    /// As `Messages`, but a change message only names tools the `tools` array declares: the
    /// first turn declares every tool the session could be offered (as Bedrock Converse
    /// always does), for a model that takes `tool_addition`/`tool_removal` references but
    /// not tools given by value (Anthropic's `inline-tools` beta, Responses'
    /// `additional_tools`).
    #[serde(rename = "messages-by-reference")]
    MessagesByReference,
}

impl ToolChanges {
    /// Every value, in declaration order.
    pub const ALL: [ToolChanges; 3] = [
        ToolChanges::Array,
        ToolChanges::Messages,
        ToolChanges::MessagesByReference,
    ];

    /// The wire name (`array`, `messages`, `messages-by-reference`).
    pub fn as_str(self) -> &'static str {
        match self {
            ToolChanges::Array => "array",
            ToolChanges::Messages => "messages",
            ToolChanges::MessagesByReference => "messages-by-reference",
        }
    }

    /// Whether changes travel as messages inside the conversation.
    pub fn is_messages(self) -> bool {
        self != ToolChanges::Array
    }

    /// Parses a wire name.
    pub fn parse(text: &str) -> Result<ToolChanges> {
        ToolChanges::ALL
            .into_iter()
            .find(|c| c.as_str() == text)
            .ok_or_else(|| {
                Error::argument(
                    "tool_changes",
                    format!("\"{text}\" is not one of array, messages, messages-by-reference"),
                )
            })
    }
}
