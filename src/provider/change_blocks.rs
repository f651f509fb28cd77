//! One turn's tool changes in each provider's shape: the items a caller appends to the
//! conversation, and the request fields that go with them.
//!
//! - Anthropic Messages: one `{"role":"system","content":[…]}` message whose blocks are a
//!   `text` block (the catalog's changes), then `tool_removal` and `tool_addition` blocks, a
//!   tool named `{"type":"tool_reference","name":…}` (declared in `tools` or defined by an
//!   earlier addition) or given by value `{"type":"tool_definition","definition":…}`.
//!   SDK: `BetaSystemMessageParam`, `BetaRequestToolAdditionBlock`,
//!   `BetaRequestToolRemovalBlock`, `BetaToolChangeToolReference`,
//!   `BetaToolChangeToolDefinitionParam` (`@anthropic-ai/sdk` 1.16.0); betas
//!   `mid-conversation-tool-changes-2026-07-01` (references) and `inline-tools-2026-09-15`
//!   (definitions). Docs: "Mid-conversation system messages and tool changes".
//! - Bedrock Converse: one `{"role":"system","content":[…]}` message of `{"text":…}`,
//!   `{"toolRemoval":{"tool":{"name":…}}}` and `{"toolAddition":{"tool":{"name":…}}}` blocks;
//!   "The name of the tool. Must match the name of a tool declared in the top-level tool
//!   configuration" (`ToolReference`, `@aws-sdk/client-bedrock-runtime` 3.1164.0), so nothing
//!   is added by value.
//! - OpenAI Responses: a developer `message` item with the catalog's changes, then an
//!   `{"type":"additional_tools","role":"developer","tools":[…]}` item for tools given by
//!   value (`ResponseInputItem.AdditionalTools`, `openai` 7.59.0). Responses has no removal
//!   item: what is offered is `tool_choice: {"type":"allowed_tools","mode":"auto","tools":[…]}`
//!   (`ToolChoiceAllowed`), a request field outside the cached prefix (OpenAI, "Prompt
//!   caching": what is cached is the messages, images, the list of tools and the structured
//!   output schema).

use super::Provider;
use crate::json_text::string;

/// The Anthropic betas a conversation with change messages needs on every request: the first
/// for references, the second for tools given by value (`messages`, not
/// `messages-by-reference`).
pub const ANTHROPIC_BETAS: [&str; 2] = [
    "mid-conversation-tool-changes-2026-07-01",
    "inline-tools-2026-09-15",
];

/// What one turn changes, provider-neutral: references are [`super::KnownTool::reference`]s,
/// definitions are array entries (exact bytes).
#[derive(Debug, Default)]
pub(crate) struct ChangeSet {
    /// The catalog's changes as text ("" when none).
    pub(crate) text: String,
    pub(crate) removed: Vec<String>,
    pub(crate) added_by_reference: Vec<String>,
    pub(crate) added_by_value: Vec<String>,
    /// OpenAI Responses: the `allowed_tools` references, when something the conversation
    /// knows is not offered.
    pub(crate) allowed: Option<Vec<String>>,
}

impl ChangeSet {
    fn is_empty(&self) -> bool {
        self.text.is_empty()
            && self.removed.is_empty()
            && self.added_by_reference.is_empty()
            && self.added_by_value.is_empty()
    }
}

/// The items to append (a JSON array, "" when nothing changed) and the request fields (a
/// JSON object, as a plan's `request_fields` always is; "" when none).
pub(crate) fn render(provider: Provider, set: &ChangeSet) -> (String, String) {
    let fields = match (&set.allowed, provider) {
        (Some(allowed), Provider::OpenAiResponses) if allowed.is_empty() => {
            "{\"tool_choice\":\"none\"}".to_string()
        }
        (Some(allowed), Provider::OpenAiResponses) => format!(
            "{{\"tool_choice\":{{\"type\":\"allowed_tools\",\"mode\":\"auto\",\"tools\":[{}]}}}}",
            crate::text::join(allowed, ",")
        ),
        _ => String::new(),
    };
    if set.is_empty() {
        return (String::new(), fields);
    }
    let items = match provider {
        Provider::Anthropic => system_message(&ANTHROPIC_BLOCKS, set),
        Provider::BedrockConverse => system_message(&BEDROCK_BLOCKS, set),
        // OpenAI Responses (the only other provider `super::check` lets through).
        _ => responses_items(set),
    };
    (items, fields)
}

/// A system message's blocks by reference, each a JSON value written between an opening and a
/// closing part.
struct SystemBlocks {
    text: (&'static str, &'static str),
    removal: (&'static str, &'static str),
    addition: (&'static str, &'static str),
}

const ANTHROPIC_BLOCKS: SystemBlocks = SystemBlocks {
    text: ("{\"type\":\"text\",\"text\":", "}"),
    removal: (
        "{\"type\":\"tool_removal\",\"tool\":{\"type\":\"tool_reference\",\"name\":",
        "}}",
    ),
    addition: (
        "{\"type\":\"tool_addition\",\"tool\":{\"type\":\"tool_reference\",\"name\":",
        "}}",
    ),
};

const BEDROCK_BLOCKS: SystemBlocks = SystemBlocks {
    text: ("{\"text\":", "}"),
    removal: ("{\"toolRemoval\":{\"tool\":{\"name\":", "}}}"),
    addition: ("{\"toolAddition\":{\"tool\":{\"name\":", "}}}"),
};

/// Anthropic's or Bedrock's one `system` message: the catalog's text, removals, additions by
/// reference, then (Anthropic only: Bedrock's records never hold one) additions by value.
fn system_message(shape: &SystemBlocks, set: &ChangeSet) -> String {
    let mut blocks: Vec<String> = Vec::new();
    let mut block = |(open, close): (&str, &str), value: &str| {
        blocks.push(format!("{open}{}{close}", string(value)));
    };
    if !set.text.is_empty() {
        block(shape.text, &set.text);
    }
    for name in &set.removed {
        block(shape.removal, name);
    }
    for name in &set.added_by_reference {
        block(shape.addition, name);
    }
    for entry in &set.added_by_value {
        blocks.push(format!(
            "{{\"type\":\"tool_addition\",\"tool\":{{\"type\":\"tool_definition\",\"definition\":{entry}}}}}"
        ));
    }
    format!(
        "[{{\"role\":\"system\",\"content\":[{}]}}]",
        crate::text::join(&blocks, ",")
    )
}

/// OpenAI Responses' items: a developer message with the catalog's text and an
/// `additional_tools` item ("" when there is neither: a removal is the tool choice alone).
fn responses_items(set: &ChangeSet) -> String {
    let mut items: Vec<String> = Vec::new();
    if !set.text.is_empty() {
        items.push(format!(
            "{{\"type\":\"message\",\"role\":\"developer\",\"content\":{}}}",
            string(&set.text)
        ));
    }
    if !set.added_by_value.is_empty() {
        items.push(format!(
            "{{\"type\":\"additional_tools\",\"role\":\"developer\",\"tools\":[{}]}}",
            crate::text::join(&set.added_by_value, ",")
        ));
    }
    if items.is_empty() {
        String::new()
    } else {
        format!("[{}]", crate::text::join(&items, ","))
    }
}
