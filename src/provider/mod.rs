//! What each provider accepts, in one room: the providers and deferral modes with their wire
//! names (this file), and for every provider
//! - its function entry, its own tool-search entry and its deferral flags (`entry.rs`:
//!   Anthropic `{name, description, input_schema}`, OpenAI Chat `{type: "function",
//!   function: {…}}`, Responses `{type: "function", name, …}`, Bedrock `{toolSpec: {…}}`,
//!   Gemini `functionDeclarations`; `defer_loading`, `cache_control`, Bedrock's `cachePoint`);
//! - what it refuses and what the library does about it, with its limits (`rules.rs`: names,
//!   top-level combinators, schemas that are not JSON Schema or whose arrays lack `items`
//!   (judged by `json_schema.rs`), description length, tools per request, native deferral);
//! - the tools it runs itself and the options each carries (`provider_tools.rs`, the table
//!   `OPTION_SUPPORT`), and their forms (`provider_tool_form.rs`);
//! - its change blocks for `tool_changes: messages` (`change_blocks.rs`);
//! - its shape of our `tool_search` result in `native-client` mode (`search_output.rs`).
//!
//! So "what does Bedrock accept" is answered here. Nothing in this room reads a registry: it
//! maps a tool's parts (name, description, schema, the registry's `builtin` options) to each
//! provider's bytes and rules, and the registry, the turn and the budget call it.
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
//!   `{"type":"tool_reference","tool_name":…}` blocks (`search_output.rs`), which the
//!   API expands into the deferred definitions inline; on OpenAI Responses it is declared as
//!   `{"type":"tool_search","execution":"client","description","parameters"}` and answered
//!   with a `{"type":"tool_search_output","execution":"client","tools":[…]}` item (the caller
//!   adds the call's `call_id`). A load changes nothing in the array, and our ranking,
//!   `select:` and deny rules are what the model searches with. Field names as in Anthropic's
//!   tool reference (`ToolReferenceBlockParam {type: "tool_reference", tool_name}`, allowed in
//!   a `tool_result`'s content) and OpenAI's Responses API reference (`ToolSearchTool {type,
//!   execution, description, parameters}`, `ToolSearchOutputItemParam {type, call_id,
//!   execution, tools}`), as their SDKs define them.

use serde::Serialize;

use crate::error::{quoted, Error, Result};

pub(crate) mod change_blocks;
pub(crate) mod entry;
pub(crate) mod json_schema;
pub(crate) mod provider_tool_form;
pub(crate) mod provider_tools;
pub mod rules;
pub(crate) mod search_output;

pub use change_blocks::ANTHROPIC_BETAS;
pub use entry::{ANTHROPIC_TOOL_SEARCH_NAME, ANTHROPIC_TOOL_SEARCH_TYPE};
pub use provider_tools::ProviderTool;

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
                    format!("{} is not one of anthropic, openai-chat, openai-responses, bedrock-converse, gemini", quoted(text)),
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
                    format!(
                        "{} is not one of catalog, native, native-client",
                        quoted(text)
                    ),
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
    /// `allowed_tools`). See `src/turn/tool_changes.rs`.
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
                    format!(
                        "{} is not one of array, messages, messages-by-reference",
                        quoted(text)
                    ),
                )
            })
    }
}
