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
//! before the turn) and `searches` (`tool_search` queries the model runs during the turn; their
//! loads reach the array at the next turn in catalog mode, and never in the native modes).

use serde::Serialize;
use serde_json::Value;

use crate::counter::TokenCounter;
use crate::error::{Error, JsonPath, Result};
use crate::intent::ToolsOverride;
use crate::plan::TurnRequest;
use crate::registry::Registry;
use crate::render::{DeferralMode, Provider};
use crate::search::SearchCall;
use crate::turn::View;

const INPUT: &str = "cache script";

/// The largest script the report accepts, chosen so that it runs in seconds with bounded
/// memory (`benches/cache_report.rs` prints the figures): a turn costs its own new bytes, so
/// time grows with turns × (tool array + catalog + `messageBytes`) and memory with the
/// session's messages, at most [`MAX_MESSAGE_TOTAL`].
pub const MAX_TURNS: usize = 10_000;
/// Bytes of `systemPromptBytes` and of `messageBytes`, each.
pub const MAX_PART_BYTES: usize = 1 << 20;
/// `messageBytes` × turns: the messages the whole session holds at its end.
pub const MAX_MESSAGE_TOTAL: usize = 64 << 20;
/// `tool_search` queries in the whole script.
pub const MAX_SEARCHES: usize = 10_000;
/// `addServer` entries in the whole script (each rebuilds the registry).
pub const MAX_SERVERS_ADDED: usize = 1_000;

/// A scripted session (see the module docs for its JSON).
#[derive(Debug, Clone, PartialEq)]
pub struct CacheScript {
    /// Bytes of the system prompt stand-in (before the catalog).
    pub system_prompt_bytes: usize,
    /// Bytes of each turn's messages stand-in (user message, tool calls and results).
    pub message_bytes: usize,
    /// The turns, first to last.
    pub turns: Vec<ScriptTurn>,
}

/// One turn of a [`CacheScript`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScriptTurn {
    /// The intent from this turn on (`None`: unchanged).
    pub tools_override: Option<ToolsOverride>,
    /// MCP servers merged into the registry before the turn: (name, `tools/list` result).
    pub add_servers: Vec<(String, Value)>,
    /// `tool_search` queries run during the turn.
    pub searches: Vec<String>,
}

impl CacheScript {
    /// Reads a script from JSON text; errors carry the JSON path of the bad member.
    pub fn from_json_str(text: &str) -> Result<CacheScript> {
        CacheScript::from_value(&crate::json::parse(INPUT, text)?)
    }

    /// [`CacheScript::from_json_str`] for a parsed value.
    pub fn from_value(doc: &Value) -> Result<CacheScript> {
        let root = JsonPath::root();
        let obj = doc
            .as_object()
            .ok_or_else(|| Error::expected(INPUT, &root, "an object", doc))?;
        if let Some(key) = obj.keys().find(|k| {
            !["about", "systemPromptBytes", "messageBytes", "turns"].contains(&k.as_str())
        }) {
            return Err(Error::value(
                INPUT,
                &root.key(key),
                format!(
                    "unknown member {key:?} (known: about, systemPromptBytes, messageBytes, turns)"
                ),
            ));
        }
        let size = |key: &str, default: usize| -> Result<usize> {
            match obj.get(key) {
                None => Ok(default),
                Some(v) => v
                    .as_u64()
                    .and_then(|n| usize::try_from(n).ok())
                    .filter(|&n| n <= MAX_PART_BYTES)
                    .ok_or_else(|| {
                        Error::expected(
                            INPUT,
                            &root.key(key),
                            &format!("a byte count up to {MAX_PART_BYTES} (1 MiB)"),
                            v,
                        )
                    }),
            }
        };
        let turns_path = root.key("turns");
        let turns = match obj.get("turns") {
            Some(Value::Array(turns)) => turns,
            Some(other) => return Err(Error::expected(INPUT, &turns_path, "an array", other)),
            None => return Err(Error::value(INPUT, &root, "missing \"turns\"")),
        };
        if turns.len() > MAX_TURNS {
            return Err(Error::limit(
                INPUT,
                &turns_path,
                format!("{} turns, at most {MAX_TURNS} are replayed", turns.len()),
            ));
        }
        let mut script = CacheScript {
            system_prompt_bytes: size("systemPromptBytes", 4000)?,
            message_bytes: size("messageBytes", 2000)?,
            turns: Vec::with_capacity(turns.len()),
        };
        if script.message_bytes.saturating_mul(turns.len()) > MAX_MESSAGE_TOTAL {
            return Err(Error::limit(
                INPUT,
                &root.key("messageBytes"),
                format!(
                    "{} bytes × {} turns is more than the {MAX_MESSAGE_TOTAL} bytes of messages a session may hold",
                    script.message_bytes,
                    turns.len()
                ),
            ));
        }
        let (mut searches, mut servers) = (0, 0);
        for (k, turn) in turns.iter().enumerate() {
            let at = turns_path.index(k);
            let turn = read_turn(turn, &at)?;
            searches += turn.searches.len();
            servers += turn.add_servers.len();
            if searches > MAX_SEARCHES {
                return Err(Error::limit(
                    INPUT,
                    &at.key("searches"),
                    format!("more than {MAX_SEARCHES} searches in the script"),
                ));
            }
            if servers > MAX_SERVERS_ADDED {
                return Err(Error::limit(
                    INPUT,
                    &at.key("addServer"),
                    format!("more than {MAX_SERVERS_ADDED} servers added in the script"),
                ));
            }
            script.turns.push(turn);
        }
        Ok(script)
    }
}

fn read_turn(turn: &Value, path: &JsonPath) -> Result<ScriptTurn> {
    let obj = turn
        .as_object()
        .ok_or_else(|| Error::expected(INPUT, path, "an object", turn))?;
    let mut out = ScriptTurn::default();
    for (key, value) in obj {
        let at = path.key(key);
        match key.as_str() {
            "override" => out.tools_override = Some(ToolsOverride::from_value_at(value, &at)?),
            "searches" => {
                let list = value
                    .as_array()
                    .ok_or_else(|| Error::expected(INPUT, &at, "an array of queries", value))?;
                for (i, q) in list.iter().enumerate() {
                    let q = q
                        .as_str()
                        .ok_or_else(|| Error::expected(INPUT, &at.index(i), "a query string", q))?;
                    out.searches.push(q.to_string());
                }
            }
            "addServer" => {
                let name = value.get("name").and_then(Value::as_str).ok_or_else(|| {
                    Error::expected(INPUT, &at.key("name"), "a server name", value)
                })?;
                let tools = value.get("tools").ok_or_else(|| {
                    Error::value(INPUT, &at, "missing \"tools\" (the server's tools/list)")
                })?;
                out.add_servers.push((name.to_string(), tools.clone()));
            }
            _ => {
                return Err(Error::value(
                    INPUT,
                    &at,
                    format!("unknown turn member {key:?} (known: override, addServer, searches)"),
                ))
            }
        }
    }
    Ok(out)
}

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

/// One request as the report lays it out: `tools`, `"\n\n" + system`, the catalog part
/// (`"\n\n" + catalog`, or nothing), then `"\n\n"` and the messages, which only ever grow.
/// Each part's tokens are counted once when it is made, and a request's tokens are the sum of
/// its parts'; that keeps a turn's cost to its own new bytes (see [`Registry::cache_report`]).
struct Parts {
    tools: String,
    tools_tokens: usize,
    catalog: String,
    catalog_tokens: usize,
    /// Bytes of the messages this request holds (a prefix of the session's messages).
    messages_len: usize,
    /// Their tokens.
    messages_tokens: usize,
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
    let mut messages = String::from("\n\n");
    let mut messages_tokens = counter.count(&messages);
    let mut previous: Option<Parts> = None;
    let mut promoted: Vec<String> = Vec::new();
    let mut loads: Vec<String> = Vec::new();
    let mut report = CacheReport {
        provider,
        mode,
        counter: counter.name(),
        turns: Vec::with_capacity(script.turns.len()),
        rewrites: 0,
        rewritten_tokens: 0,
    };
    for (k, turn) in script.turns.iter().enumerate() {
        let mut events = Vec::new();
        for (name, tools) in &turn.add_servers {
            registry = registry.set_mcp_server(name, &tools.to_string())?.registry;
            events.push(format!("server {name} added to the registry"));
        }
        if let Some(o) = &turn.tools_override {
            if *o != tools_override {
                events.push(format!("intent now {}", o.to_canonical_json()));
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
        let plan = registry.plan_turn(&request)?;
        let joined: Vec<&str> = plan
            .promoted
            .iter()
            .filter(|p| !promoted.iter().any(|q| q == *p))
            .copied()
            .collect();
        if !joined.is_empty() {
            events.push(format!("joined the array: {}", joined.join(", ")));
        }
        promoted = plan.promoted.iter().map(|p| p.to_string()).collect();
        for query in &loads {
            events.push(format!("tool_search {query:?} in the previous turn"));
        }
        let segment = filler(&format!("[turn {} messages] ", k + 1), script.message_bytes);
        messages_tokens += counter.count(&segment);
        messages.push_str(&segment);
        // The native modes cut the cached prefix, and a load's inline definition, from the
        // payload's entries: read them once per turn.
        let entries: Option<Vec<Value>> = mode
            .declares_deferred()
            .then(|| match serde_json::from_str(&plan.payload) {
                Ok(Value::Array(entries)) => Some(entries),
                _ => None,
            })
            .flatten();
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
            messages_len: messages.len(),
            messages_tokens,
        };
        let (first, section, rewritten) = match &previous {
            None => (None, Section::First, 0),
            Some(p) => match first_difference(p, &parts, &system, &messages) {
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
                        tokens_from(p, at, &system, system_tokens, &messages, counter),
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
            array_tools: plan.array.len(),
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
        loads.clone_from(&turn.searches);
        for query in &turn.searches {
            let request = TurnRequest {
                state: state.clone(),
                ..request.clone()
            };
            let outcome = registry.search(&request, &SearchCall::new(query))?;
            // In the native modes a load arrives inline in the conversation: its definition
            // grows this turn's messages (and so the next request), never the tools.
            for hit in &outcome.result.hits {
                let entry = entries
                    .iter()
                    .flatten()
                    .find(|e| e.get("name").and_then(Value::as_str) == Some(hit));
                if let Some(entry) = entry {
                    let definition = entry.to_string();
                    messages_tokens += counter.count(&definition);
                    messages.push_str(&definition);
                }
            }
            state = outcome.state;
        }
        previous = Some(parts);
    }
    Ok(report)
}

/// The parts of a request, in order, borrowing the session's system prompt and messages.
fn sections<'a>(p: &'a Parts, system: &'a str, messages: &'a str) -> [&'a str; 4] {
    [&p.tools, system, &p.catalog, &messages[..p.messages_len]]
}

/// The first byte where `after` stops extending `before` (at a character boundary of
/// `before`), or `None` when `before` is a prefix of `after`. Equal leading parts are skipped
/// whole, and when tools and catalog are unchanged the answer is `None` at once (the system
/// prompt is the same and the messages only grow), so a turn costs its new bytes, not the
/// session's.
fn first_difference(before: &Parts, after: &Parts, system: &str, messages: &str) -> Option<usize> {
    if before.tools == after.tools && before.catalog == after.catalog {
        return None;
    }
    let (b, a) = (
        sections(before, system, messages),
        sections(after, system, messages),
    );
    let mut offset = 0;
    let mut i = 0;
    while i < 3 && b[i] == a[i] {
        offset += b[i].len();
        i += 1;
    }
    // From the first differing part on, byte by byte; this stops at the first difference,
    // which is inside that part or just past it.
    let same = b[i..]
        .iter()
        .flat_map(|s| s.bytes())
        .zip(a[i..].iter().flat_map(|s| s.bytes()))
        .take_while(|(x, y)| x == y)
        .count();
    let total: usize = b.iter().map(|s| s.len()).sum();
    if offset + same == total {
        return None;
    }
    // Back to a character boundary of `before`.
    let mut at = offset + same;
    let mut start = 0;
    for s in b {
        if at < start + s.len() {
            let mut local = at - start;
            while !s.is_char_boundary(local) {
                local -= 1;
            }
            at = start + local;
            break;
        }
        start += s.len();
    }
    Some(at)
}

/// Tokens of the request `p` from byte `at` on: the part `at` falls in is counted from there,
/// the parts after it by their kept counts.
fn tokens_from(
    p: &Parts,
    at: usize,
    system: &str,
    system_tokens: usize,
    messages: &str,
    counter: &dyn TokenCounter,
) -> usize {
    let parts = sections(p, system, messages);
    let kept = [
        p.tools_tokens,
        system_tokens,
        p.catalog_tokens,
        p.messages_tokens,
    ];
    let mut start = 0;
    for (k, s) in parts.iter().enumerate() {
        if at < start + s.len() {
            return counter.count(&s[at - start..]) + kept[k + 1..].iter().sum::<usize>();
        }
        start += s.len();
    }
    0
}

/// The tools part of the cached prefix in a native mode, from the payload's entries (see the
/// module docs).
fn prefix_tools(entries: &[Value], provider: Provider) -> String {
    let deferred = |e: &Value| e.get("defer_loading") == Some(&Value::Bool(true));
    let kept: Vec<Value> = match provider {
        Provider::Anthropic => entries.iter().filter(|e| !deferred(e)).cloned().collect(),
        Provider::OpenAiResponses => entries
            .iter()
            .map(|e| {
                if !deferred(e) {
                    return e.clone();
                }
                let mut seen = serde_json::Map::new();
                for key in ["type", "name", "description"] {
                    if let Some(v) = e.get(key) {
                        seen.insert(key.to_string(), v.clone());
                    }
                }
                Value::Object(seen)
            })
            .collect(),
        _ => entries.to_vec(),
    };
    Value::Array(kept).to_string()
}

/// `seed` repeated to exactly `bytes` (ASCII seeds only, so any cut is a boundary).
fn filler(seed: &str, bytes: usize) -> String {
    seed.chars()
        .filter(char::is_ascii)
        .cycle()
        .take(bytes)
        .collect()
}

/// A readable table of one or more reports (one block per provider and mode, then totals).
pub fn render_table(reports: &[CacheReport]) -> String {
    let mut out = String::new();
    for r in reports {
        out.push_str(&format!(
            "{} / {} ({} tokens)\n turn | tools | request tokens | first difference | section  | rewritten tokens | events\n------+-------+----------------+------------------+----------+------------------+-------\n",
            r.provider.as_str(),
            r.mode.as_str(),
            r.counter
        ));
        for t in &r.turns {
            let section = match t.section {
                Section::Tools => "tools",
                Section::System => "system",
                Section::Messages => "messages",
                Section::First => "first",
            };
            out.push_str(&format!(
                " {:>4} | {:>5} | {:>14} | {:>16} | {:<8} | {:>16} | {}\n",
                t.turn,
                t.array_tools,
                t.request_tokens,
                t.first_difference
                    .map_or("-".to_string(), |b| format!("byte {b}")),
                section,
                t.rewritten_tokens,
                t.events.join("; ")
            ));
        }
        out.push_str(&format!(
            "total: {} rewrite(s), {} tokens written again\n\n",
            r.rewrites, r.rewritten_tokens
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::Estimator;
    use crate::turn::{record_loaded, TurnState};

    /// Turns 1..=n, `tool_search` loading `enter_plan_mode` on turn 2.
    fn one_load(turns: usize) -> CacheScript {
        let mut text = String::from(r#"{"turns": [{}, {"searches": ["select:enter_plan_mode"]}"#);
        text.push_str(&", {}".repeat(turns.saturating_sub(2)));
        text.push_str("]}");
        CacheScript::from_json_str(&text).unwrap()
    }

    fn base(mode: DeferralMode) -> TurnRequest {
        TurnRequest {
            provider: Provider::Anthropic,
            mode,
            ..TurnRequest::default()
        }
    }

    #[test]
    fn the_base_request_sets_state_and_profile_for_the_whole_session() {
        let r = Registry::embedded();
        let script = one_load(3);
        let plain = r
            .cache_report(&script, &base(DeferralMode::Catalog), &Estimator)
            .unwrap();
        assert!(plain.turns[2].rewritten_tokens > 0, "{:?}", plain.turns);
        // Loaded before the session: promoted from turn 1, so the search joins nothing.
        let loaded = TurnRequest {
            state: record_loaded(&TurnState::default(), &["enter_plan_mode"]).unwrap(),
            ..base(DeferralMode::Catalog)
        };
        let report = r.cache_report(&script, &loaded, &Estimator).unwrap();
        assert_eq!(report.rewrites, 0, "{:?}", report.turns);
        // A profile that turns tools off holds on every turn: nothing to load, nothing rewritten.
        let off = TurnRequest {
            profile: Some(ToolsOverride::from_json_str(r#"{"enabled": false}"#).unwrap()),
            ..base(DeferralMode::Catalog)
        };
        let report = r.cache_report(&script, &off, &Estimator).unwrap();
        assert_eq!(report.rewrites, 0, "{:?}", report.turns);
    }

    #[test]
    fn script_errors_name_the_path() {
        let e = CacheScript::from_json_str(r#"{"turns": [{}, {"searches": [3]}]}"#).unwrap_err();
        assert_eq!(e.path(), Some("$.turns[1].searches[0]"));
        let e = CacheScript::from_json_str(r#"{"turns": [{"bogus": 1}]}"#).unwrap_err();
        assert_eq!(e.path(), Some("$.turns[0].bogus"));
        assert!(CacheScript::from_json_str(r#"{"turns": []}"#).is_ok());
    }

    #[test]
    fn scripts_past_the_limits_are_refused_before_any_turn_runs() {
        let turns = |n: usize| format!("[{}]", vec!["{}"; n].join(","));
        let at = |text: &str| {
            let e = CacheScript::from_json_str(text).unwrap_err();
            (e.code(), e.path().map(String::from))
        };
        let big = 1 + MAX_PART_BYTES;
        assert_eq!(
            at(&format!(r#"{{"systemPromptBytes": {big}, "turns": []}}"#)),
            ("invalid_value", Some("$.systemPromptBytes".into()))
        );
        assert_eq!(
            at(&format!(r#"{{"turns": {}}}"#, turns(MAX_TURNS + 1))),
            ("limit_exceeded", Some("$.turns".into()))
        );
        // 1 MiB a turn is accepted, but not for more than 64 turns.
        let mib = MAX_PART_BYTES;
        assert!(CacheScript::from_json_str(&format!(
            r#"{{"messageBytes": {mib}, "turns": {}}}"#,
            turns(64)
        ))
        .is_ok());
        assert_eq!(
            at(&format!(
                r#"{{"messageBytes": {mib}, "turns": {}}}"#,
                turns(65)
            )),
            ("limit_exceeded", Some("$.messageBytes".into()))
        );
        let searches = vec!["\"x\""; MAX_SEARCHES / 2 + 1].join(",");
        let two =
            format!(r#"{{"turns": [{{"searches": [{searches}]}}, {{"searches": [{searches}]}}]}}"#);
        assert_eq!(
            at(&two),
            ("limit_exceeded", Some("$.turns[1].searches".into()))
        );
    }

    #[test]
    fn appending_messages_is_not_a_rewrite_and_a_promotion_in_catalog_mode_is() {
        let r = Registry::embedded();
        let script = one_load(4);
        let catalog = r
            .cache_report(&script, &base(DeferralMode::Catalog), &Estimator)
            .unwrap();
        let rewritten: Vec<usize> = catalog.turns.iter().map(|t| t.rewritten_tokens).collect();
        assert_eq!(rewritten[0], 0);
        assert_eq!(rewritten[1], 0);
        assert!(
            rewritten[2] > 0,
            "the load joins the array at turn 3: {rewritten:?}"
        );
        assert_eq!(catalog.turns[2].section, Section::Tools);
        assert_eq!(rewritten[3], 0);
        assert_eq!(catalog.rewrites, 1);
        let client = r
            .cache_report(&script, &base(DeferralMode::NativeClient), &Estimator)
            .unwrap();
        assert_eq!(client.rewrites, 0, "{:?}", client.turns);
    }

    fn parts(tools: &str, catalog: &str, messages_len: usize) -> Parts {
        Parts {
            tools: tools.into(),
            tools_tokens: 0,
            catalog: catalog.into(),
            catalog_tokens: 0,
            messages_len,
            messages_tokens: 0,
        }
    }

    #[test]
    fn first_difference_is_at_a_char_boundary() {
        let (system, messages) = ("\n\nsys", "\n\nhello, more");
        let d = |a: &Parts, b: &Parts| first_difference(a, b, system, messages);
        // Growth of the messages alone is no difference.
        assert_eq!(d(&parts("abc", "", 7), &parts("abc", "", 14)), None);
        assert_eq!(d(&parts("abc", "", 7), &parts("abd", "", 7)), Some(2));
        assert_eq!(d(&parts("aé", "", 7), &parts("aè", "", 7)), Some(1));
        // A catalog appearing: the requests part where the messages began.
        let at = d(&parts("t", "", 7), &parts("t", "\n\ncat", 7));
        assert_eq!(at, Some(1 + system.len() + 2));
    }
}
