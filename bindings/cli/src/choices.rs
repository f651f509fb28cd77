//! The values of the CLI's choice flags (`--provider`, `--mode`, `--tool-changes`,
//! `--ranker`, `--counter`), each with its help line, and each mirroring the core enum it
//! stands for.

use clap::ValueEnum;
use tool_intent::provider::ToolChanges;
use tool_intent::search::RankerKind;
use tool_intent::{CounterKind, DeferralMode, Provider};

/// A CLI value that stands for a core enum, mapped both ways by exhaustive matches (a variant
/// added to the core fails to compile here until the CLI offers it); the defaults shown in
/// `--help` are the core's (`default_value_t = X::from(Core::default())`).
macro_rules! mirror {
    ($arg:ident, $core:ty, $to_core:ident, { $($variant:ident => $value:path),* $(,)? }) => {
        impl $arg {
            pub(crate) fn $to_core(self) -> $core {
                match self {
                    $($arg::$variant => $value),*
                }
            }
        }

        impl From<$core> for $arg {
            fn from(value: $core) -> Self {
                match value {
                    $($value => $arg::$variant),*
                }
            }
        }
    };
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum ToolChangesArg {
    /// The tools array changes at a turn boundary
    Array,
    /// The first turn's array stays; changes are messages appended to the conversation
    /// (Anthropic, Bedrock Converse, OpenAI Responses; mode catalog)
    Messages,
    /// As messages, naming only tools the first turn declared (it declares every tool the
    /// session could be offered)
    MessagesByReference,
}

mirror!(ToolChangesArg, ToolChanges, tool_changes, {
    Array => ToolChanges::Array,
    Messages => ToolChanges::Messages,
    MessagesByReference => ToolChanges::MessagesByReference
});

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum ProviderArg {
    /// Anthropic Messages
    Anthropic,
    /// OpenAI Chat Completions
    OpenaiChat,
    /// OpenAI Responses
    OpenaiResponses,
    /// AWS Bedrock Converse
    BedrockConverse,
    /// Google Gemini
    Gemini,
}

mirror!(ProviderArg, Provider, provider, {
    Anthropic => Provider::Anthropic,
    OpenaiChat => Provider::OpenAiChat,
    OpenaiResponses => Provider::OpenAiResponses,
    BedrockConverse => Provider::BedrockConverse,
    Gemini => Provider::Gemini
});

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum ModeArg {
    /// Deferred tools are names in a catalog; tool_search loads them into the array
    Catalog,
    /// Every tool declared, deferred ones marked so; the provider's own search loads them
    Native,
    /// Declared as in native, but tool_search is the search tool; loads never change the array
    NativeClient,
}

mirror!(ModeArg, DeferralMode, mode, {
    Catalog => DeferralMode::Catalog,
    Native => DeferralMode::Native,
    NativeClient => DeferralMode::NativeClient
});

/// `cache-report --mode`: one deferral mode, or every mode the provider has.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum CacheModeArg {
    /// As `--mode catalog`
    Catalog,
    /// As `--mode native`
    Native,
    /// As `--mode native-client`
    NativeClient,
    /// Each mode the provider has, one report each
    All,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub(crate) enum RankerArg {
    /// BM25F over name, server, description and parameters
    Keyword,
    /// Keywords fused with static sentence embeddings (a build with the `hybrid` feature)
    Hybrid,
    /// Keywords fused with all-MiniLM-L6-v2 run per text (the `model` feature, with --model)
    Model,
}

mirror!(RankerArg, RankerKind, kind, {
    Keyword => RankerKind::Keyword,
    Hybrid => RankerKind::Hybrid,
    Model => RankerKind::Model
});

#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub(crate) enum CounterArg {
    /// The vocabulary-free estimator
    Estimate,
    /// Exact o200k_base (a build with the `exact-tokens` feature)
    O200k,
    /// Exact cl100k_base (a build with the `exact-tokens` feature)
    Cl100k,
}

mirror!(CounterArg, CounterKind, kind, {
    Estimate => CounterKind::Estimate,
    O200k => CounterKind::O200k,
    Cl100k => CounterKind::Cl100k
});
