//! The turn state: the per-session value that decides when loaded tools join the provider
//! array (the split itself is `split.rs`).
//!
//! The provider array of a turn is fixed at the turn boundary ([`Registry::begin_turn`]): a
//! load recorded mid-turn ([`record_loaded`]) joins the array at the next boundary, after the
//! resident tools, in load order. The array therefore only grows at its end, which keeps the
//! longest common prefix for prompt caches.
//!
//! [`TurnState`] is a plain value: callers persist it with the session and pass it in; every
//! function here returns a new value instead of mutating hidden state.

use serde::Serialize;
use serde_json::Value;

use super::record::ConversationTools;
use crate::error::{Error, JsonPath, Result};
use crate::limits::LIMITS;
use crate::registry::Registry;

/// Per-session deferral state, persisted with the session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TurnState {
    /// Tools loaded by `tool_search`, in load order, each once.
    pub loaded: Vec<String>,
    /// The copy of `loaded` taken at the last turn boundary: what the array shows this turn.
    pub frozen: Vec<String>,
    /// Number of turn boundaries passed.
    pub turn: u64,
    /// The fingerprint of the registry the current turn began on ([`Registry::begin_turn`]):
    /// the turn's calls run on that version while it is held, so a registry change waits for
    /// the next boundary. `None` before the first boundary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registry: Option<String>,
    /// With `tool_changes: messages`: what the conversation has been told about its tools
    /// (the declared array, what it can name, what is offered, what its catalog lists).
    /// `None` before its first turn in that mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation: Option<ConversationTools>,
}

/// Which loaded set a caller reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum View {
    /// The set frozen at the last turn boundary: what every provider call of a turn uses.
    #[default]
    Frozen,
    /// The live loaded set: for callers outside any turn (budgets, previews, tests).
    Live,
}

impl View {
    /// Reads `"frozen"` or `"live"`.
    pub fn parse(text: &str) -> Result<View> {
        match text {
            "frozen" => Ok(View::Frozen),
            "live" => Ok(View::Live),
            other => Err(Error::argument(
                "view",
                format!(
                    "unknown view {} (expected frozen or live)",
                    crate::error::quoted(other)
                ),
            )),
        }
    }
}

/// Records loads (from a `tool_search` call). Names already loaded keep their place.
///
/// A state holds at most `LIMITS.max_tools` loaded names, the limit
/// [`TurnState::from_value`] (and so `begin_turn` on a persisted state) applies: a load that
/// would pass it is `limit_exceeded` at `$.loaded`, never dropped. `tool_search` first forgets
/// loads of tools its registry no longer has, so a load of a registry tool always fits.
pub fn record_loaded<S: AsRef<str>>(state: &TurnState, names: &[S]) -> Result<TurnState> {
    let mut next = state.clone();
    for name in names {
        let name = name.as_ref();
        if next.loaded.iter().any(|n| n == name) {
            continue;
        }
        if next.loaded.len() >= LIMITS.max_tools {
            return Err(Error::limit(
                "state",
                &JsonPath::root().key("loaded"),
                format!(
                    "recording {} would make {} loaded tools, at most {} are kept",
                    crate::error::quoted(name),
                    next.loaded.len() + 1,
                    LIMITS.max_tools
                ),
            ));
        }
        next.loaded.push(name.to_string());
    }
    Ok(next)
}

impl TurnState {
    /// Reads a persisted state (`{loaded, frozen, turn, registry, conversation}`; missing fields and `null` read as
    /// empty). At most `LIMITS.max_tools` names per list.
    pub fn from_value(value: &Value) -> Result<TurnState> {
        const INPUT: &str = "state";
        let root = JsonPath::root();
        let obj = match value {
            Value::Null => return Ok(TurnState::default()),
            Value::Object(o) => o,
            other => {
                return Err(Error::expected(
                    INPUT,
                    &root,
                    "a turn state object {loaded, frozen, turn, registry, conversation}",
                    other,
                ))
            }
        };
        let mut state = TurnState::default();
        for (key, v) in obj {
            let path = root.key(key);
            match key.as_str() {
                "loaded" | "frozen" => {
                    let names = match v {
                        Value::Null => Vec::new(),
                        v => super::record::string_list(
                            v,
                            &path,
                            ("a list of tool names", "names", "a tool name"),
                            LIMITS.max_tools,
                        )?,
                    };
                    if key == "loaded" {
                        state.loaded = names;
                    } else {
                        state.frozen = names;
                    }
                }
                "turn" => {
                    state.turn = match v {
                        Value::Null => 0,
                        v => v.as_u64().ok_or_else(|| {
                            Error::expected(INPUT, &path, "a non-negative integer", v)
                        })?,
                    }
                }
                "conversation" => {
                    state.conversation = match v {
                        Value::Null => None,
                        v => Some(ConversationTools::from_value(v, &path)?),
                    }
                }
                "registry" => {
                    // Only what `begin_turn` writes: the stamp reaches warnings' text, so no
                    // other text may pass as one.
                    state.registry = match v {
                        Value::Null => None,
                        Value::String(s) if crate::registry::is_fingerprint(s) => Some(s.clone()),
                        v => {
                            return Err(Error::expected(
                                INPUT,
                                &path,
                                "a registry fingerprint (sha256: and 64 lowercase hex digits)",
                                v,
                            ))
                        }
                    }
                }
                _ => {
                    return Err(Error::value(
                        INPUT,
                        &path,
                        format!(
                        "unknown key {} (expected loaded, frozen, turn, registry, conversation)",
                        crate::error::quoted(key)
                    ),
                    ))
                }
            }
        }
        Ok(state)
    }

    /// The state without names the registry does not know (order kept).
    pub fn retain_known(mut self, registry: &Registry) -> TurnState {
        self.loaded.retain(|n| registry.index_of(n).is_some());
        self.frozen.retain(|n| registry.index_of(n).is_some());
        self
    }

    /// The state with its live loaded list cut to the names `registry` knows, each once (first
    /// place kept), when adding `new` names would pass the limit; `None` when they fit as it
    /// is. Every name left is a distinct registry tool, so with a registry tool added the list
    /// still fits (a registry holds at most `LIMITS.max_tools` tools besides `tool_search`).
    pub(crate) fn make_room(&self, registry: &Registry, new: usize) -> Option<TurnState> {
        if self.loaded.len() + new <= LIMITS.max_tools {
            return None;
        }
        let mut room = self.clone();
        let mut seen = crate::registry::ToolSet::empty(registry.len());
        room.loaded.retain(|n| match registry.index_of(n) {
            Some(i) if !seen.contains(i) => {
                seen.insert(i);
                true
            }
            _ => false,
        });
        Some(room)
    }

    /// Reads a persisted state from JSON text.
    pub fn from_json_str(text: &str) -> Result<TurnState> {
        TurnState::from_value(&crate::json::parse("state", text)?)
    }

    /// The loaded names the given view reads.
    pub fn loaded_for(&self, view: View) -> &[String] {
        match view {
            View::Frozen => &self.frozen,
            View::Live => &self.loaded,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn begin_turn_freezes_the_live_set() {
        let s = record_loaded(&TurnState::default(), &["a", "b", "a"]).unwrap();
        assert_eq!(s.loaded, ["a", "b"]);
        assert!(s.frozen.is_empty());
        let t = Registry::embedded().begin_turn(&s);
        assert_eq!(t.frozen, ["a", "b"]);
        assert_eq!(t.turn, 1);
        let u = record_loaded(&t, &["c"]).unwrap();
        assert_eq!(u.loaded_for(View::Frozen), ["a", "b"]);
        assert_eq!(u.loaded_for(View::Live), ["a", "b", "c"]);
    }

    #[test]
    fn turn_state_reads_rows_without_fields_and_round_trips() {
        assert_eq!(
            TurnState::from_json_str("{}").unwrap(),
            TurnState::default()
        );
        let s = Registry::embedded()
            .begin_turn(&record_loaded(&TurnState::default(), &["a", "b"]).unwrap());
        let again = TurnState::from_value(&serde_json::to_value(&s).unwrap()).unwrap();
        assert_eq!(again, s);
        let e = TurnState::from_json_str(r#"{"loaded":["a",1]}"#).unwrap_err();
        assert_eq!((e.input(), e.path()), (Some("state"), Some("$.loaded[1]")));
        let e = TurnState::from_json_str(r#"{"turn":-1}"#).unwrap_err();
        assert_eq!(e.path(), Some("$.turn"));
        let e = TurnState::from_json_str(r#"{"x":1}"#).unwrap_err();
        assert_eq!(e.path(), Some("$.x"));
        // A stamp is a fingerprint, never other text (it reaches warnings).
        for bad in ["sha256:1", "sha256:abc\ninjected", "md5:00"] {
            let doc = serde_json::json!({ "registry": bad });
            let e = TurnState::from_value(&doc).unwrap_err();
            assert_eq!(e.path(), Some("$.registry"), "{bad}");
        }
    }

    #[test]
    fn a_load_past_the_limit_is_an_error_as_begin_turn_makes_it() {
        let names: Vec<String> = (0..LIMITS.max_tools).map(|i| format!("t{i}")).collect();
        let full = record_loaded(&TurnState::default(), &names).unwrap();
        assert_eq!(full.loaded.len(), LIMITS.max_tools);
        // A name already there fits; a new one does not, and is not dropped in silence.
        assert_eq!(record_loaded(&full, &["t0"]).unwrap(), full);
        let e = record_loaded(&full, &["x"]).unwrap_err();
        assert_eq!((e.code(), e.path()), ("limit_exceeded", Some("$.loaded")));
        // The same limit as a persisted state's.
        let mut over = names.clone();
        over.push("x".into());
        assert!(record_loaded(&TurnState::default(), &over).is_err());
        let doc = serde_json::json!({ "loaded": over });
        let e = TurnState::from_value(&doc).unwrap_err();
        assert_eq!((e.code(), e.path()), ("limit_exceeded", Some("$.loaded")));
    }

    #[test]
    fn making_room_keeps_each_known_tool_once() {
        let r = Registry::embedded();
        let mut loaded: Vec<String> = vec!["memory".into(); 3];
        loaded.extend((0..LIMITS.max_tools).map(|i| format!("gone{i}")));
        loaded.push("send_message".into());
        let state = TurnState {
            loaded,
            ..Default::default()
        };
        let room = state.make_room(&r, 1).unwrap();
        assert_eq!(room.loaded, ["memory", "send_message"]);
        // Nothing is forgotten while the list has room.
        let small = TurnState {
            loaded: vec!["gone".into()],
            ..Default::default()
        };
        assert_eq!(small.make_room(&r, 1), None);
    }
}
