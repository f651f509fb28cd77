//! Warnings: non-fatal remarks about an expansion or a turn. A stored session may carry
//! names and presets that no longer exist; that must never fail a turn, so it is reported
//! here instead of as an [`crate::Error`].

use serde::Serialize;

/// What a warning is about. The wire form (JSON, JS) is the snake_case name; the TS union in
/// `bindings/wasm/src/types.d.ts` is checked against [`WarningCode::ALL`] by a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningCode {
    /// A name in a hand-pick, `allowed` or `disabled` names no registry tool.
    UnknownTool,
    /// The intent names a preset the registry does not define; `default_tools` is used.
    UnknownToolset,
    /// The intent has a key this version does not know (kept, ignored).
    UnknownIntentKey,
    /// `web_search: true` but the registry has no `web_search` overlay.
    NoWebSearchOverlay,
    /// A toggle that has no effect because `enabled` is `false`.
    IgnoredWhenDisabled,
    /// A loaded (promoted) name that is not a deferred tool of this expansion.
    UnknownLoadedTool,
    /// An MCP server's tool that cannot be used was left out of the registry.
    QuarantinedTool,
    /// Schemas whose root type was missing or `"dict"` are sent as `"object"`.
    NormalisedSchema,
    /// A hand-picked or allowed tool is removed by the source's ceiling.
    DeniedBySource,
    /// An intent names an empty preset (`"toolset": ""`), which reads as no preset.
    EmptyToolset,
    /// A tool the target provider refuses (its name or schema breaks one of the provider's
    /// rules) was left out of that provider's payload; the rest goes out.
    ProviderRefusedTool,
    /// A description over the provider's limit was shortened in that provider's payload.
    DescriptionShortened,
    /// `tool_search` ran in a session that defers nothing, so there was nothing to load.
    NothingDeferred,
    /// An MCP tool's wire name was already taken (its server lists the name twice, or a
    /// registry tool has it): the later tool is left out.
    DuplicateToolName,
    /// The turn's state names a registry version that is no longer held: the current
    /// registry is used for the rest of the turn.
    TurnRegistryGone,
    /// The turn's state names an earlier registry version than the current one, still held:
    /// the turn runs on it (a registry change waits for the turn boundary), so its tools and
    /// trust decisions are that version's until the next [`crate::Registry::begin_turn`].
    TurnRegistryEarlier,
    /// An option of a provider-executed tool (`"builtin"`) that a provider's form cannot carry
    /// (and whose loss widens nothing, unlike a domain list) was left out of that form.
    BuiltinOptionDropped,
    /// With `tool_changes: messages`, a change the provider cannot take inside the
    /// conversation (a tool it can only reference joined, or a declared tool's definition
    /// changed): the `tools` array was edited at this turn boundary and the cache is rewritten
    /// from there.
    ToolChangesRewrite,
    /// With `tool_changes: messages`, a tool the conversation added by value changed its
    /// definition: providers take no replacement of an inline definition, so the model keeps
    /// the one it was given; dispatch resolves the current registry's.
    ToolDefinitionKept,
    /// A search that may abstain (`abstain`) found no deferred tool that fits the request well
    /// enough: it loaded nothing and named the nearest tools.
    SearchAbstained,
}

impl WarningCode {
    /// Every code, in declaration order.
    pub const ALL: [WarningCode; 20] = [
        WarningCode::UnknownTool,
        WarningCode::UnknownToolset,
        WarningCode::UnknownIntentKey,
        WarningCode::NoWebSearchOverlay,
        WarningCode::IgnoredWhenDisabled,
        WarningCode::UnknownLoadedTool,
        WarningCode::QuarantinedTool,
        WarningCode::NormalisedSchema,
        WarningCode::DeniedBySource,
        WarningCode::EmptyToolset,
        WarningCode::ProviderRefusedTool,
        WarningCode::DescriptionShortened,
        WarningCode::NothingDeferred,
        WarningCode::DuplicateToolName,
        WarningCode::TurnRegistryGone,
        WarningCode::TurnRegistryEarlier,
        WarningCode::BuiltinOptionDropped,
        WarningCode::ToolChangesRewrite,
        WarningCode::ToolDefinitionKept,
        WarningCode::SearchAbstained,
    ];

    /// The wire name (`unknown_tool`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            WarningCode::UnknownTool => "unknown_tool",
            WarningCode::UnknownToolset => "unknown_toolset",
            WarningCode::UnknownIntentKey => "unknown_intent_key",
            WarningCode::NoWebSearchOverlay => "no_web_search_overlay",
            WarningCode::IgnoredWhenDisabled => "ignored_when_disabled",
            WarningCode::UnknownLoadedTool => "unknown_loaded_tool",
            WarningCode::QuarantinedTool => "quarantined_tool",
            WarningCode::NormalisedSchema => "normalised_schema",
            WarningCode::DeniedBySource => "denied_by_source",
            WarningCode::ProviderRefusedTool => "provider_refused_tool",
            WarningCode::DescriptionShortened => "description_shortened",
            WarningCode::NothingDeferred => "nothing_deferred",
            WarningCode::DuplicateToolName => "duplicate_tool_name",
            WarningCode::EmptyToolset => "empty_toolset",
            WarningCode::TurnRegistryGone => "turn_registry_gone",
            WarningCode::TurnRegistryEarlier => "turn_registry_earlier",
            WarningCode::BuiltinOptionDropped => "builtin_option_dropped",
            WarningCode::ToolChangesRewrite => "tool_changes_rewrite",
            WarningCode::ToolDefinitionKept => "tool_definition_kept",
            WarningCode::SearchAbstained => "search_abstained",
        }
    }
}

/// A non-fatal remark about the expansion. Warnings never fail a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// What kind of remark.
    pub code: WarningCode,
    /// Where it came from: `override`, `profile`, `source:<name>`, `loaded`.
    pub origin: String,
    /// A sentence for people.
    pub message: String,
}

impl Warning {
    pub(crate) fn new(code: WarningCode, origin: impl Into<String>, message: String) -> Self {
        Warning {
            code,
            origin: origin.into(),
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_match_serde() {
        for code in WarningCode::ALL {
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                serde_json::Value::from(code.as_str())
            );
        }
    }
}
