//! The cache-impact report: what a scripted session costs in prompt-cache rewrites, per
//! provider and deferral mode.
//!
//! A provider caches a request's prefix in the order it reads it: the tool definitions, then
//! the system prompt (where catalog mode puts the catalog), then the messages. A turn reuses
//! the longest prefix it shares with the previous turn's request; everything of the previous
//! request after the first differing byte is written to the cache again at full price. Growth
//! at the end (new messages) is not a rewrite. For each turn of a [`CacheScript`] this module
//! renders the request as the library would send it — tools from [`Registry::plan_turn`], the
//! system prompt with the catalog, a fixed-size stand-in for each turn's messages — and
//! reports the first differing byte, which section it falls in, and the tokens of the previous
//! request from there on: the answer to "why did my cache miss?".
//!
//! What the tools part of the prefix holds is the provider's rule, per its documentation:
//! - Anthropic, `native` and `native-client`: only the definitions without `defer_loading`.
//!   "Deferred tools are not included in the system-prompt prefix. When the model discovers a
//!   deferred tool through tool search, the definition is appended inline as a tool_reference
//!   block in the conversation history. The prefix is untouched" (Anthropic, "Tool use with
//!   prompt caching", defer_loading). So a deferred tool joining the registry rewrites
//!   nothing, and a load adds its definition to the turn's messages.
//! - OpenAI Responses, `native` and `native-client`: a deferred function's name and
//!   description are in the prefix, its parameters are not ("for individual deferred
//!   functions, the model still sees the function name and description", OpenAI, "Tool
//!   search"; discovered tools "are injected at the end of the context window"). A load adds
//!   its definition to the messages.
//! - `tool_changes: messages` / `messages-by-reference` (Anthropic, Bedrock Converse, OpenAI
//!   Responses; `catalog` mode, and Anthropic's `native-client`): the array the session
//!   declared, which stays; each turn's change message is appended to that turn's messages,
//!   growth, not a rewrite — Anthropic: "The cached prefix stays the same, so the next request
//!   still reads it from cache" ("Mid-conversation system messages and tool changes"); Bedrock
//!   Converse: a `ToolAdditionBlock` in a system message makes "a tool available without
//!   re-sending the full tool configuration" (`@aws-sdk/client-bedrock-runtime`); OpenAI
//!   Responses: an `additional_tools` item makes tools "available at this item", and the
//!   `allowed_tools` tool choice is not among what "Prompt caching" lists as cached (messages,
//!   images, tools, structured output schema). The catalog travels in those messages, not the
//!   system prompt. A change the provider cannot take as a message edits the array
//!   (`crate::turn::tool_changes`), which the report shows as the rewrite it is.
//! - `catalog` mode, every provider: the whole array as sent (Bedrock Converse and Gemini have
//!   no deferral; a Bedrock `cachePoint` would sit after the tools, which is where this
//!   section ends).
//!
//! **Cost.** A request is kept as its parts — tools, system prompt, catalog, messages — each
//! counted once when it changes; a request's tokens are the sum of its parts' (a count across
//! a part boundary may differ from the whole text's by a token). Unchanged tools and catalog
//! mean no difference at once, since the messages only grow; otherwise the comparison starts at
//! the first changed part and stops at the first differing byte. So a turn costs its own new
//! bytes and the report grows linearly with the turns, within the limits below
//! ([`MAX_TURNS`], ...).
//!
//! Script (JSON): `{"systemPromptBytes": 4000, "messageBytes": 2000, "turns": [turn, ...]}`
//! where each turn may have `override` (the intent from this turn on; absent: unchanged),
//! `addServer` (`{"name", "tools"}`: an MCP server's `tools/list` merged into the registry
//! before the turn), `removeServer` (a server's name: its tools leave before the turn) and
//! `searches` (`tool_search` queries the model runs during the turn; their loads reach the
//! array at the next turn in catalog mode, and never in the native modes). The next turn's
//! events name each query, and say so when it loaded nothing.

mod parts;
mod script;
#[cfg(test)]
mod tests;

use serde::Serialize;
use serde_json::Value;

use crate::counter::TokenCounter;
use crate::error::{Error, Result};
use crate::provider::{DeferralMode, Provider, ToolChanges};
use crate::registry::Registry;
use crate::search::SearchCall;
use crate::turn::TurnRequest;
use crate::turn::View;
use parts::{filler, first_difference, prefix_tools, tokens_from, History, Parts};
pub use script::{
    CacheScript, ScriptTurn, MAX_MESSAGE_TOTAL, MAX_PART_BYTES, MAX_SEARCHES, MAX_SERVERS_ADDED,
    MAX_TURNS,
};

/// Where a request first differs from the previous turn's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Section {
    /// The `tools` array.
    Tools,
    /// The system prompt (catalog included).
    System,
    /// The messages: only growth, not a rewrite.
    Messages,
    /// The first request: nothing was cached yet.
    First,
}

impl Section {
    /// The name it has in the report's JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Section::Tools => "tools",
            Section::System => "system",
            Section::Messages => "messages",
            Section::First => "first",
        }
    }
}

/// One turn of a [`CacheReport`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheTurn {
    /// 1-based.
    pub turn: usize,
    /// The tool array's fingerprint.
    pub fingerprint: String,
    /// Tools in the array.
    pub array_tools: usize,
    /// Bytes and tokens of the whole request.
    pub request_bytes: usize,
    /// Tokens of the whole request.
    pub request_tokens: usize,
    /// First byte that differs from the previous request (`None` on the first turn, or when
    /// the previous request is a prefix of this one).
    pub first_difference: Option<usize>,
    /// The section that byte falls in.
    pub section: Section,
    /// Tokens of the previous request from that byte on: cached once, written again.
    pub rewritten_tokens: usize,
    /// What happened before this request (registry change, intent change, loads joining).
    pub events: Vec<String>,
}

/// The report for one provider and mode.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheReport {
    /// Provider.
    pub provider: Provider,
    /// Deferral mode.
    pub mode: DeferralMode,
    /// How tool changes reach the model (written only when `messages`).
    #[serde(skip_serializing_if = "is_array")]
    pub tool_changes: ToolChanges,
    /// The token counter.
    pub counter: &'static str,
    /// Per turn.
    pub turns: Vec<CacheTurn>,
    /// Turns whose request rewrote part of the cached prefix.
    pub rewrites: usize,
    /// Tokens written again over the session.
    pub rewritten_tokens: usize,
}

impl Registry {
    /// Replays a scripted session against this registry (see the module docs).
    ///
    /// `base` is the request every turn starts from: its provider, mode, profile, source and
    /// `cache_control` hold for the whole session, its state is the state before the first
    /// turn, and its override is the intent until a turn sets one. Each turn is planned with
    /// the frozen view (what a server sends), whatever `base.view` says.
    pub fn cache_report(
        &self,
        script: &CacheScript,
        base: &TurnRequest,
        counter: &dyn TokenCounter,
    ) -> Result<CacheReport> {
        replay(self, script, base, counter)
    }
}

fn replay(
    registry: &Registry,
    script: &CacheScript,
    base: &TurnRequest,
    counter: &dyn TokenCounter,
) -> Result<CacheReport> {
    let (provider, mode) = (base.provider, base.mode);
    let mut registry = registry.clone();
    let mut tools_override = base.tools_override.clone();
    let mut state = base.state.clone();
    let mut system = String::from("\n\n");
    system.push_str(&filler(
        "You are the agent of this session. ",
        script.system_prompt_bytes,
    ));
    let system_tokens = counter.count(&system);
    // The session's messages: "\n\n", then each turn's stand-in and inline loads, appended.
    let mut messages = History::new("\n\n", counter);
    let mut previous: Option<Parts> = None;
    let mut promoted: Vec<String> = Vec::new();
    // The previous turn's `tool_search` calls: each query and whether it loaded a tool.
    let mut loads: Vec<(String, bool)> = Vec::new();
    let mut report = CacheReport {
        provider,
        mode,
        tool_changes: base.tool_changes,
        counter: counter.name(),
        turns: Vec::with_capacity(script.turns.len()),
        rewrites: 0,
        rewritten_tokens: 0,
    };
    for (k, turn) in script.turns.iter().enumerate() {
        let mut events = Vec::new();
        for (name, tools) in &turn.add_servers {
            registry = registry
                .set_mcp_server(name, &crate::json_text::text(tools))?
                .registry;
            events.push(format!("server {name} added to the registry"));
        }
        for name in &turn.remove_servers {
            registry = registry.remove_mcp_server(name)?.registry;
            events.push(format!("server {name} removed from the registry"));
        }
        if let Some(o) = &turn.tools_override {
            if *o != tools_override {
                // The script is input: its text is shown escaped (docs/contract.md, Errors).
                events.push(format!(
                    "intent now {}",
                    crate::error::json_shown(&o.to_canonical_json())
                ));
            }
            tools_override = o.clone();
        }
        state = registry.begin_turn(&state);
        let request = TurnRequest {
            tools_override: tools_override.clone(),
            state: state.clone(),
            view: View::Frozen,
            ..base.clone()
        };
        let mut this_turn = registry.turn(&request)?;
        let plan = this_turn.plan()?;
        if let Some(next) = &plan.state {
            // `tool_changes: messages`: the conversation's record goes on with the session.
            state.clone_from(next);
        }
        let joined: Vec<&str> = plan
            .promoted()
            .into_iter()
            .filter(|p| !promoted.iter().any(|q| q == p))
            .collect();
        if !joined.is_empty() {
            events.push(format!(
                "joined the array: {}",
                crate::text::join(&joined, ", ")
            ));
        }
        promoted = plan.promoted().iter().map(|p| p.to_string()).collect();
        for (query, loaded) in &loads {
            // A query that finds no tool (its server left out of the script, a name misspelt)
            // is said, so the rewrites it would have made are not missing without a word.
            events.push(format!(
                "tool_search {} in the previous turn{}",
                crate::error::quoted(query),
                if *loaded {
                    ""
                } else {
                    ", which loaded nothing"
                }
            ));
        }
        let segment = filler(&format!("[turn {} messages] ", k + 1), script.message_bytes);
        messages.append(&segment, counter);
        // A change message goes after the turn's user message: the messages grow by it.
        if !plan.changes.is_empty() {
            messages.append(&plan.changes, counter);
            events.push(format!("change message of {} bytes", plan.changes.len()));
        }
        // The native modes cut the cached prefix, and a load's inline definition, from the
        // payload's entries: read them once per turn.
        // The crate's one value reader (`parse_trusted`), not serde_json's own: a second
        // deserializer in the wasm module for one call site. A payload is the crate's own
        // JSON array, so anything else is a defect, not a case to skip.
        let entries: Option<Vec<Value>> = if mode.declares_deferred() {
            match crate::json::parse_trusted(&plan.payload) {
                Ok(Value::Array(entries)) => Some(entries),
                _ => return Err(Error::internal("a rendered payload is not a JSON array")),
            }
        } else {
            None
        };
        let tools = match &entries {
            Some(entries) => prefix_tools(entries, provider),
            None => plan.payload.clone(),
        };
        let catalog = if plan.catalog_text.is_empty() {
            String::new()
        } else {
            format!("\n\n{}", plan.catalog_text)
        };
        // Unchanged parts keep their counts: a turn counts only what is new.
        let (tools_tokens, catalog_tokens) = match &previous {
            Some(p) => (
                if p.tools == tools {
                    p.tools_tokens
                } else {
                    counter.count(&tools)
                },
                if p.catalog == catalog {
                    p.catalog_tokens
                } else {
                    counter.count(&catalog)
                },
            ),
            None => (counter.count(&tools), counter.count(&catalog)),
        };
        let parts = Parts {
            tools,
            tools_tokens,
            catalog,
            catalog_tokens,
            messages_len: messages.text.len(),
            messages_tokens: messages.tokens(),
        };
        let (first, section, rewritten) = match &previous {
            None => (None, Section::First, 0),
            Some(p) => match first_difference(p, &parts, &system, &messages.text) {
                None => (None, Section::Messages, 0),
                Some(at) => {
                    let tools_end = p.tools.len();
                    let head_end = tools_end + system.len() + p.catalog.len() + 2;
                    let section = if at < tools_end {
                        Section::Tools
                    } else if at < head_end {
                        Section::System
                    } else {
                        Section::Messages
                    };
                    (
                        Some(at),
                        section,
                        tokens_from(p, at, (&system, system_tokens), &messages, counter),
                    )
                }
            },
        };
        if rewritten > 0 {
            report.rewrites += 1;
            report.rewritten_tokens += rewritten;
        }
        report.turns.push(CacheTurn {
            turn: k + 1,
            fingerprint: plan.fingerprint.clone(),
            array_tools: plan.array().len(),
            request_bytes: parts.tools.len()
                + system.len()
                + parts.catalog.len()
                + parts.messages_len,
            request_tokens: parts.tools_tokens
                + system_tokens
                + parts.catalog_tokens
                + parts.messages_tokens,
            first_difference: first,
            section,
            rewritten_tokens: rewritten,
            events,
        });
        // The model's tool_search calls during the turn.
        loads.clear();
        for query in &turn.searches {
            let outcome = this_turn.search(&SearchCall::new(query))?;
            loads.push((query.clone(), !outcome.result.hits.is_empty()));
            // In the native modes a load arrives inline in the conversation: its definition
            // grows this turn's messages (and so the next request), never the tools.
            for hit in &outcome.result.hits {
                let entry = entries
                    .iter()
                    .flatten()
                    .find(|e| e.get("name").and_then(Value::as_str) == Some(hit));
                if let Some(entry) = entry {
                    let definition = crate::json_text::text(entry);
                    messages.append(&definition, counter);
                }
            }
            state = outcome.state;
        }
        previous = Some(parts);
    }
    Ok(report)
}

fn is_array(changes: &ToolChanges) -> bool {
    *changes == ToolChanges::Array
}
