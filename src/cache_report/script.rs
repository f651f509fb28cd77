//! The cache-report script: its JSON, read with the path of every bad member, and the limits
//! that keep the largest accepted script to seconds and bounded memory.

use serde_json::Value;

use crate::error::{Error, JsonPath, Result};
use crate::intent::ToolsOverride;

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
    /// MCP servers taken out of the registry before the turn (after `add_servers`).
    pub remove_servers: Vec<String>,
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
                    "unknown member {} (known: about, systemPromptBytes, messageBytes, turns)",
                    crate::error::quoted(key)
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
            "removeServer" => {
                let name = value
                    .as_str()
                    .ok_or_else(|| Error::expected(INPUT, &at, "a server name", value))?;
                out.remove_servers.push(name.to_string());
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
                    format!(
                    "unknown turn member {} (known: override, addServer, removeServer, searches)",
                    crate::error::quoted(key)
                ),
                ))
            }
        }
    }
    Ok(out)
}
