//! What a conversation has been told about its tools, kept in the turn state
//! ([`crate::TurnState::conversation`]) so the next turn's change message says only what
//! changed: the `tools` array it declared, every tool it can name (declared there or added by
//! value in a change message) with the fingerprint of the definition it was given, what is
//! offered now, and which deferred tools its catalog lists. No session row holds any of it
//! (the design note's red line): a row stores intent, this is the conversation's own history,
//! as the loads are.
//!
//! The declared array is stored by name: an entry is the bytes a registry version renders for
//! its tool's recorded definition (the fingerprint names the version's rendering, and
//! `+defer_loading` the flag), so each turn renders it again from the versions it holds
//! (`record_check.rs`) instead of carrying it. On Bedrock Converse, which declares every tool
//! a session could be offered, that is a state of 205 KB instead of 1.76 MB at 1,000 tools
//! (`benches/expansion.rs`, `plan_changes`). How a change block names a tool is derived
//! again on every turn too, so it is written empty. Only the entry carrying Anthropic's
//! `cache_control` keeps its bytes (the flag is not part of a definition), as did every entry
//! in states written before 2026-12-07, which are still read.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use crate::error::{quoted, Error, JsonPath, Result};
use crate::limits::LIMITS;
use crate::provider::entry::push_with_flags;
use crate::provider::Provider;

const INPUT: &str = "state";

/// How the conversation knows one tool. Two are equal when what a state stores of them is
/// (`reference` is derived again by each turn).
#[derive(Debug, Clone, Eq, serde::Serialize)]
pub struct KnownTool {
    /// `sha256:<hex>` of the definition the conversation was given (the array entry without
    /// `cache_control`), with `+defer_loading` when it was declared deferred. For an entry
    /// stored by name it picks the held registry version whose rendering the turn sends.
    pub definition: String,
    /// How a change block names it: the tool's name in the provider's entry (Anthropic
    /// `name`, Bedrock `toolSpec.name`), or for OpenAI Responses the `allowed_tools` entry
    /// as JSON text (`{"type":"function","name":…}`, `{"type":"web_search"}`). Derived from
    /// the registry on every turn (`record_check.rs`), so never read from a stored state and
    /// written empty: earlier releases require the member (and derive it again too), so a
    /// fleet in the middle of a rolling deploy keeps reading this release's states.
    /// Empty until a turn checks the record.
    #[serde(serialize_with = "written_empty")]
    pub(crate) reference: String,
    /// Its position in [`ConversationTools::tools`], or `None` when a change message added
    /// it by value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<usize>,
}

impl PartialEq for KnownTool {
    fn eq(&self, other: &Self) -> bool {
        self.definition == other.definition && self.entry == other.entry
    }
}

fn written_empty<S: Serializer>(_: &str, serializer: S) -> std::result::Result<S::Ok, S::Error> {
    serializer.serialize_str("")
}

/// The conversation's tool record (`tool_changes: messages`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ConversationTools {
    /// The provider the `tools` array was declared for (`None` in records written before
    /// releases said): a turn for another provider declares again (`tool_changes.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<Provider>,
    /// The `tools` array the conversation declared, entry by entry: the tool's name, or the
    /// entry's exact bytes (JSON text, so never a name) when it carries `cache_control` or
    /// was stored by an earlier release (`stored_entry` says which). It is only ever edited
    /// at its end or in place (a rewrite), so every name an earlier change block used stays
    /// declared.
    pub tools: Vec<String>,
    /// Every tool the conversation can name, by registry name.
    pub known: KnownTools,
    /// The tools offered after the last change message, sorted.
    pub offered: Vec<String>,
    /// The deferred tools the conversation's catalog lists, sorted.
    pub catalog: Vec<String>,
}

/// The tools a conversation can name, sorted by name (a sorted list rather than a `BTreeMap`:
/// the same order and lookups, in less of the wasm module). Written as a JSON object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KnownTools(Vec<(String, KnownTool)>);

impl KnownTools {
    fn position(&self, name: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(n, _)| n.as_str().cmp(name))
    }

    /// The tool of that name.
    pub fn get(&self, name: &str) -> Option<&KnownTool> {
        self.position(name).ok().map(|k| &self.0[k].1)
    }

    /// Every tool, by name in order, to change them.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (&String, &mut KnownTool)> {
        self.0.iter_mut().map(|(n, t)| (&*n, t))
    }

    /// The tool of that name, to change it.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut KnownTool> {
        self.position(name).ok().map(move |k| &mut self.0[k].1)
    }

    /// Whether the conversation can name it.
    pub fn contains_key(&self, name: &str) -> bool {
        self.position(name).is_ok()
    }

    /// Adds or replaces a tool.
    pub fn insert(&mut self, name: String, tool: KnownTool) {
        match self.position(&name) {
            Ok(k) => self.0[k].1 = tool,
            Err(k) => self.0.insert(k, (name, tool)),
        }
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// By name, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &KnownTool)> {
        self.0.iter().map(|(n, t)| (n, t))
    }
}

impl Serialize for KnownTools {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, tool) in &self.0 {
            map.serialize_entry(name, tool)?;
        }
        map.end()
    }
}

impl ConversationTools {
    /// Reads the record from a persisted state's `conversation` member (`path` is its path).
    pub fn from_value(value: &Value, path: &JsonPath) -> Result<ConversationTools> {
        let obj = value.as_object().ok_or_else(|| {
            Error::expected(
                INPUT,
                path,
                "a conversation record {tools, known, offered, catalog}",
                value,
            )
        })?;
        let mut record = ConversationTools::default();
        for (key, v) in obj {
            let at = path.key(key);
            match key.as_str() {
                "tools" => {
                    record.tools = string_list(
                        v,
                        &at,
                        ("a list of tool names or entries", "items", "a string"),
                        RECORD_MAX,
                    )?
                }
                "offered" => record.offered = sorted_names(v, &at)?,
                "catalog" => record.catalog = sorted_names(v, &at)?,
                "known" => record.known = known(v, &at)?,
                "provider" => {
                    record.provider = match v {
                        Value::Null => None,
                        Value::String(s) => Some(Provider::parse(s).map_err(|_| {
                            Error::expected(INPUT, &at, "a provider's wire name", v)
                        })?),
                        v => return Err(Error::expected(INPUT, &at, "a provider's wire name", v)),
                    }
                }
                _ => {
                    return Err(Error::value(
                        INPUT,
                        &at,
                        format!(
                            "unknown key {} (expected provider, tools, known, offered, catalog)",
                            quoted(key)
                        ),
                    ))
                }
            }
        }
        for (name, tool) in record.known.iter() {
            if let Some(k) = tool.entry.filter(|&k| k >= record.tools.len()) {
                return Err(Error::value(
                    INPUT,
                    &path.key("known").key(name).key("entry"),
                    format!(
                        "entry {k} is past the {} declared tools",
                        record.tools.len()
                    ),
                ));
            }
        }
        if let Some(name) = record
            .offered
            .iter()
            .find(|n| !record.known.contains_key(n))
        {
            return Err(Error::value(
                INPUT,
                &path.key("offered"),
                format!(
                    "{} is offered but not known to the conversation",
                    quoted(name)
                ),
            ));
        }
        Ok(record)
    }
}

/// One entry of a declared array: what a registry version renders for its tool and provider,
/// and the flags the renderer adds to it (`crate::provider::entry::push_with_flags`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DeclaredEntry<'r> {
    pub(crate) base: &'r str,
    pub(crate) deferred: bool,
    pub(crate) cache_control: bool,
}

impl DeclaredEntry<'_> {
    /// Appends the entry's bytes.
    pub(crate) fn push_to(&self, json: &mut String) {
        push_with_flags(json, self.base, self.deferred, self.cache_control);
    }
}

/// How the record stores the declared entry `entry` of the tool `name`: by name, unless it
/// carries Anthropic's `cache_control`, whose bytes are kept (a turn renders every other
/// entry again from the tool's recorded definition, `record_check.rs`).
pub(crate) fn stored_entry(name: &str, entry: DeclaredEntry<'_>) -> String {
    if entry.cache_control {
        let mut bytes = String::new();
        entry.push_to(&mut bytes);
        bytes
    } else {
        name.to_string()
    }
}

/// Whether a stored declared entry holds an entry's bytes rather than a tool's name (a tool
/// name matches `^[a-zA-Z0-9_-]{1,64}$`, an entry is a JSON object).
pub(crate) fn holds_bytes(stored: &str) -> bool {
    stored.starts_with('{')
}

/// A persisted state's list of strings: at most `max`, `nouns` of them (`"names"`), each `item`
/// (`"a tool name"`), the whole `list` (`"a list of tool names"`). `TurnState::from_value`
/// reads `loaded` and `frozen` with it too.
pub(crate) fn string_list(
    v: &Value,
    path: &JsonPath,
    (list, nouns, item): (&str, &str, &str),
    max: usize,
) -> Result<Vec<String>> {
    let items = v
        .as_array()
        .ok_or_else(|| Error::expected(INPUT, path, list, v))?;
    if items.len() > max {
        return Err(Error::limit(
            INPUT,
            path,
            format!("{} {nouns}, at most {max} are accepted", items.len()),
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, value)| {
            value
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| Error::expected(INPUT, &path.index(i), item, value))
        })
        .collect()
}

/// The most entries a record's lists hold: one per registry tool, plus `tool_search` and a
/// provider's search tool.
const RECORD_MAX: usize = LIMITS.max_tools + 2;

fn sorted_names(v: &Value, path: &JsonPath) -> Result<Vec<String>> {
    let names = string_list(
        v,
        path,
        ("a list of tool names", "items", "a string"),
        RECORD_MAX,
    )?;
    // Written sorted, each once: such a list is kept as read (one pass instead of a sort and a
    // copy of every name); one edited out of order or with a name twice is sorted again.
    if names.windows(2).all(|pair| pair[0] < pair[1]) {
        return Ok(names);
    }
    Ok(crate::sort::sorted_unique(&names))
}

fn known(v: &Value, path: &JsonPath) -> Result<KnownTools> {
    let obj = v
        .as_object()
        .ok_or_else(|| Error::expected(INPUT, path, "an object of known tools", v))?;
    if obj.len() > 2 * LIMITS.max_tools + 2 {
        return Err(Error::limit(
            INPUT,
            path,
            format!(
                "{} tools, at most {} are accepted",
                obj.len(),
                2 * LIMITS.max_tools + 2
            ),
        ));
    }
    let mut out = KnownTools::default();
    for (name, tool) in obj {
        let at = path.key(name);
        let fields = tool
            .as_object()
            .ok_or_else(|| Error::expected(INPUT, &at, "{definition, entry?}", tool))?;
        let text = |key: &str| -> Result<String> {
            match fields.get(key) {
                Some(Value::String(s)) => Ok(s.clone()),
                other => Err(Error::expected(
                    INPUT,
                    &at.key(key),
                    "a string",
                    other.unwrap_or(&Value::Null),
                )),
            }
        };
        // `reference`, which earlier releases wrote, is derived again.
        if let Some(extra) = fields
            .keys()
            .find(|k| !matches!(k.as_str(), "definition" | "reference" | "entry"))
        {
            return Err(Error::value(
                INPUT,
                &at.key(extra),
                format!("unknown key {} (expected definition, entry)", quoted(extra)),
            ));
        }
        let entry = match fields.get("entry") {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.as_u64().map(|k| k as usize).ok_or_else(|| {
                Error::expected(INPUT, &at.key("entry"), "a position in tools", v)
            })?),
        };
        out.insert(
            name.clone(),
            KnownTool {
                definition: text("definition")?,
                reference: String::new(),
                entry,
            },
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_record_round_trips_and_bad_members_name_their_path() {
        let root = JsonPath::root().key("conversation");
        let v = json!({
            "tools": ["{\"name\":\"a\"}"],
            "known": {"a": {"definition": "sha256:1", "entry": 0},
                      "b": {"definition": "sha256:2"}},
            "offered": ["b", "a"],
            "catalog": ["c"]
        });
        let record = ConversationTools::from_value(&v, &root).unwrap();
        assert_eq!(record.offered, ["a", "b"]);
        let written = serde_json::to_value(&record).unwrap();
        assert_eq!(
            ConversationTools::from_value(&written, &root).unwrap(),
            record
        );
        // A reference an earlier release stored is read past (a turn derives it again) and
        // written back empty: an earlier release reading the state requires the member.
        let mut old = v.clone();
        old["known"]["a"]["reference"] = json!("{\"forged\":1}");
        let read = ConversationTools::from_value(&old, &root).unwrap();
        assert_eq!(read, record);
        assert_eq!(read.known.get("a").unwrap().reference, "");
        assert_eq!(serde_json::to_value(&read).unwrap(), written);
        assert_eq!(written["known"]["a"]["reference"], "");
        // Derived by a turn, it is not part of the value a state round-trips.
        let mut checked = record.clone();
        checked.known.get_mut("a").unwrap().reference = "a".to_string();
        assert_eq!(checked, record);
        assert_eq!(serde_json::to_value(&checked).unwrap(), written);
        // Its tool names are data: a binding that renames keys leaves them (`json::DATA_KEYS`).
        assert!(written["known"]["a"].is_object());
        assert!(crate::json::DATA_KEYS.contains(&"known"));
        let e = ConversationTools::from_value(&json!({"tools": [1]}), &root).unwrap_err();
        assert_eq!(e.path(), Some("$.conversation.tools[0]"));
        let e = ConversationTools::from_value(
            &json!({"known": {"a": {"definition": "x", "entry": 3}}}),
            &root,
        )
        .unwrap_err();
        assert_eq!(e.path(), Some("$.conversation.known.a.entry"));
        let e = ConversationTools::from_value(&json!({"offered": ["zz"]}), &root).unwrap_err();
        assert_eq!(e.path(), Some("$.conversation.offered"));
        let e = ConversationTools::from_value(&json!({"x": 1}), &root).unwrap_err();
        assert_eq!(e.path(), Some("$.conversation.x"));
    }

    #[test]
    fn name_lists_read_back_sorted_and_each_once_however_they_were_stored() {
        let root = JsonPath::root().key("conversation");
        let known = json!({"a": {"definition": "sha256:1"}, "b": {"definition": "sha256:2"}});
        for (stored, read) in [
            (json!(["a", "b"]), vec!["a", "b"]),
            (json!(["b", "a"]), vec!["a", "b"]),
            (json!(["a", "a", "b"]), vec!["a", "b"]),
            (json!(["a", "b", "b"]), vec!["a", "b"]),
            (json!([]), vec![]),
        ] {
            let v = json!({"known": known, "offered": stored, "catalog": stored});
            let record = ConversationTools::from_value(&v, &root).unwrap();
            assert_eq!(record.offered, read, "{stored}");
            assert_eq!(record.catalog, read, "{stored}");
        }
    }
}
