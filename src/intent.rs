//! The intent model: what a request or a session carries about its tool toggles.
//!
//! A [`ToolsOverride`] is one of
//! - `null` ([`ToolsOverride::Follow`]): follow the agent profile, then the source default,
//!   then `default_tools`;
//! - a list ([`ToolsOverride::Picked`]): hand-picked tool names; `[]` means no tools at all;
//! - an object ([`ToolsOverride::Intent`]): the toggles themselves, see [`Intent`].
//!
//! Anything else — a number, a string, a value of the wrong type under a known key — is an
//! [`Error::InvalidValue`] naming the JSON path (`$.disabled[0]`).
//!
//! **Canonical form.** [`ToolsOverride::to_canonical_json`] gives equal bytes for equal
//! intents: object keys in lexicographic order, keys whose value is `null` omitted,
//! `allowed`/`disabled` and hand-picked lists sorted and deduplicated. Unknown keys are kept
//! (a newer writer may know them) and reported as warnings at expansion time.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::error::{quoted, Error, JsonPath, Result};
use crate::limits::LIMITS;
use crate::sort::sorted_unique;
use crate::warning::{Warning, WarningCode};

/// The toggles of an intent object. Every field is optional; `None` means "not said".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Intent {
    /// `true`: base is `default_tools`; `false`: no tools at all; `None`: follow profile.
    pub enabled: Option<bool>,
    /// Preset name; the base becomes that preset's available tools.
    pub toolset: Option<String>,
    /// Names/globs that filter the base (never add).
    pub allowed: Option<Vec<String>>,
    /// Names/globs removed from the result (deny beats allow).
    pub disabled: Option<Vec<String>>,
    /// `true` adds the web-search overlay, `false` removes it.
    pub web_search: Option<bool>,
    /// Keys this version does not know, kept verbatim.
    pub unknown: BTreeMap<String, Value>,
}

/// What a request or session carries about its tools (see `docs/contract.md`, "Intent").
#[derive(Debug, Clone, Default, PartialEq)]
pub enum ToolsOverride {
    /// `null`: follow the profile / source default / `default_tools`.
    #[default]
    Follow,
    /// A hand-picked list of tool names (`[]` = no tools). Entries are literal names.
    Picked(Vec<String>),
    /// An intent object.
    Intent(Intent),
}

/// Known intent keys, in canonical (lexicographic) order.
pub const INTENT_KEYS: [&str; 5] = ["allowed", "disabled", "enabled", "toolset", "web_search"];

impl Intent {
    /// Adds an `unknown_intent_key` warning from `origin` for each key this version does not
    /// know (kept in the canonical form, ignored by the expansion): what a turn reports, and
    /// what `tool-intent canonical` says beside the form it prints.
    pub fn unknown_key_warnings(&self, origin: &str, warnings: &mut Vec<Warning>) {
        for key in self.unknown.keys() {
            warnings.push(Warning::new(
                WarningCode::UnknownIntentKey,
                origin,
                format!(
                    "intent key {} is not known to this version (known: {}); kept, ignored",
                    quoted(key),
                    crate::text::join(&INTENT_KEYS, ", ")
                ),
            ));
        }
    }
}

impl ToolsOverride {
    /// Parses an override from JSON text (`null`, a list or an intent object).
    pub fn from_json_str(text: &str) -> Result<Self> {
        Self::from_value(&crate::json::parse("tools_override", text)?)
    }

    /// Parses an override from a JSON value.
    pub fn from_value(value: &Value) -> Result<Self> {
        Self::from_value_at(value, &JsonPath::root())
    }

    /// Parses an override that sits at `path` inside a larger document.
    pub fn from_value_at(value: &Value, path: &JsonPath) -> Result<Self> {
        match value {
            Value::Null => Ok(ToolsOverride::Follow),
            Value::Array(_) => {
                let names = parse_pattern_list(value, path, "tools_override")?;
                Ok(ToolsOverride::Picked(names))
            }
            Value::Object(obj) => Intent::from_object(obj, path).map(ToolsOverride::Intent),
            other => Err(Error::expected(
                "tools_override",
                path,
                "null, a list of tool names or an intent object",
                other,
            )),
        }
    }

    /// The canonical JSON value (see the module docs).
    pub fn to_canonical_value(&self) -> Value {
        match self {
            ToolsOverride::Follow => Value::Null,
            ToolsOverride::Picked(names) => string_array(&sorted_unique(names)),
            ToolsOverride::Intent(intent) => intent.to_canonical_value(),
        }
    }

    /// The canonical JSON text: equal intents give equal bytes.
    pub fn to_canonical_json(&self) -> String {
        // serde_json's map is ordered by key (no `preserve_order`), which is the canonical order.
        crate::json_text::text(&self.to_canonical_value())
    }

    /// The canonical form as a value of this type.
    pub fn canonicalize(&self) -> ToolsOverride {
        match self {
            ToolsOverride::Follow => ToolsOverride::Follow,
            ToolsOverride::Picked(names) => ToolsOverride::Picked(sorted_unique(names)),
            ToolsOverride::Intent(i) => ToolsOverride::Intent(i.canonicalize()),
        }
    }

    /// Whether this is the "no tools" list `[]`.
    pub fn is_nothing(&self) -> bool {
        matches!(self, ToolsOverride::Picked(n) if n.is_empty())
    }
}

impl Intent {
    fn from_object(obj: &Map<String, Value>, path: &JsonPath) -> Result<Self> {
        let mut intent = Intent::default();
        for (key, value) in obj {
            let p = path.key(key);
            match key.as_str() {
                "enabled" => intent.enabled = opt_bool(value, &p)?,
                "web_search" => intent.web_search = opt_bool(value, &p)?,
                "toolset" => {
                    intent.toolset = match value {
                        Value::Null => None,
                        Value::String(s) if s.len() > LIMITS.max_toolset_name_bytes => {
                            return Err(Error::limit(
                                "tools_override",
                                &p,
                                format!(
                                    "preset name of {} bytes, at most {} are accepted",
                                    s.len(),
                                    LIMITS.max_toolset_name_bytes
                                ),
                            ))
                        }
                        Value::String(s) => Some(s.clone()),
                        other => {
                            return Err(Error::expected(
                                "tools_override",
                                &p,
                                "a preset name string or null",
                                other,
                            ))
                        }
                    }
                }
                "allowed" | "disabled" => {
                    let list = match value {
                        Value::Null => None,
                        v => Some(parse_pattern_list(v, &p, "tools_override")?),
                    };
                    if key == "allowed" {
                        intent.allowed = list;
                    } else {
                        intent.disabled = list;
                    }
                }
                _ => {
                    if intent.unknown.len() >= LIMITS.max_unknown_intent_keys {
                        return Err(Error::limit(
                            "tools_override",
                            &p,
                            format!(
                                "more than {} unknown intent keys",
                                LIMITS.max_unknown_intent_keys
                            ),
                        ));
                    }
                    intent.unknown.insert(key.clone(), value.clone());
                }
            }
        }
        Ok(intent)
    }

    /// Canonical form: sorted, deduplicated lists; `null` unknown keys dropped.
    pub fn canonicalize(&self) -> Intent {
        Intent {
            enabled: self.enabled,
            toolset: self.toolset.clone(),
            allowed: self.allowed.as_ref().map(|l| sorted_unique(l)),
            disabled: self.disabled.as_ref().map(|l| sorted_unique(l)),
            web_search: self.web_search,
            unknown: {
                // Inserted one by one rather than collected: `collect` into a map sorts with
                // a stable sort of its own instantiation (size in the wasm module).
                let mut unknown = BTreeMap::new();
                for (k, v) in self.unknown.iter().filter(|(_, v)| !v.is_null()) {
                    unknown.insert(k.clone(), v.clone());
                }
                unknown
            },
        }
    }

    /// The canonical JSON object.
    pub fn to_canonical_value(&self) -> Value {
        let c = self.canonicalize();
        let mut o = Map::new();
        for (k, v) in c.unknown {
            o.insert(k, v);
        }
        if let Some(b) = c.enabled {
            o.insert("enabled".into(), Value::Bool(b));
        }
        if let Some(t) = c.toolset {
            o.insert("toolset".into(), Value::String(t));
        }
        if let Some(a) = c.allowed {
            o.insert("allowed".into(), string_array(&a));
        }
        if let Some(d) = c.disabled {
            o.insert("disabled".into(), string_array(&d));
        }
        if let Some(w) = c.web_search {
            o.insert("web_search".into(), Value::Bool(w));
        }
        Value::Object(o)
    }

    /// Whether the intent says nothing at all (behaves like `null`).
    pub fn is_empty(&self) -> bool {
        self.canonicalize() == Intent::default()
    }
}

fn opt_bool(value: &Value, path: &JsonPath) -> Result<Option<bool>> {
    match value {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        other => Err(Error::expected(
            "tools_override",
            path,
            "true, false or null",
            other,
        )),
    }
}

/// Parses an array of tool names and globs (an intent's lists, a preset, a source ceiling).
pub(crate) fn parse_pattern_list(
    value: &Value,
    path: &JsonPath,
    input: &'static str,
) -> Result<Vec<String>> {
    let items = value
        .as_array()
        .ok_or_else(|| Error::expected(input, path, "an array of tool names or globs", value))?;
    if items.len() > LIMITS.max_patterns {
        return Err(Error::limit(
            input,
            path,
            format!(
                "{} entries, at most {} are accepted",
                items.len(),
                LIMITS.max_patterns
            ),
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::String(s) if s.len() > LIMITS.max_pattern_bytes => Err(Error::limit(
                input,
                &path.index(i),
                format!(
                    "pattern of {} bytes, at most {} are accepted",
                    s.len(),
                    LIMITS.max_pattern_bytes
                ),
            )),
            Value::String(s) if s.is_empty() => {
                Err(Error::value(input, &path.index(i), "empty tool name"))
            }
            Value::String(s) => Ok(s.clone()),
            other => Err(Error::expected(
                input,
                &path.index(i),
                "a tool name or glob string",
                other,
            )),
        })
        .collect()
}

pub(crate) fn string_array(list: &[String]) -> Value {
    Value::Array(list.iter().cloned().map(Value::String).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_the_four_shapes() {
        assert_eq!(
            ToolsOverride::from_value(&json!(null)).unwrap(),
            ToolsOverride::Follow
        );
        assert!(ToolsOverride::from_value(&json!([])).unwrap().is_nothing());
        assert_eq!(
            ToolsOverride::from_value(&json!(["b", "a"])).unwrap(),
            ToolsOverride::Picked(vec!["b".into(), "a".into()])
        );
        let i = ToolsOverride::from_value(&json!({"enabled": true, "web_search": true})).unwrap();
        assert!(matches!(
            i,
            ToolsOverride::Intent(Intent {
                enabled: Some(true),
                web_search: Some(true),
                ..
            })
        ));
    }

    #[test]
    fn errors_name_the_json_path() {
        let e = ToolsOverride::from_json_str(r#"{"disabled":[1]}"#).unwrap_err();
        assert_eq!(e.path(), Some("$.disabled[0]"));
        assert!(e.to_string().contains("disabled"), "{e}");
        let e = ToolsOverride::from_json_str(r#"{"enabled":"yes"}"#).unwrap_err();
        assert_eq!(e.path(), Some("$.enabled"));
        let e = ToolsOverride::from_json_str("42").unwrap_err();
        assert_eq!(e.path(), Some("$"));
        let e = ToolsOverride::from_json_str("{").unwrap_err();
        assert_eq!(e.code(), "invalid_json");
        let e = ToolsOverride::from_json_str(r#"["a", {"x":1}]"#).unwrap_err();
        assert_eq!(e.path(), Some("$[1]"));
    }

    #[test]
    fn canonical_json_is_sorted_deduplicated_and_drops_nulls() {
        let a = ToolsOverride::from_json_str(
            r#"{"web_search":true,"disabled":["b","a","b"],"enabled":null,"toolset":"research","x-new":1}"#,
        )
        .unwrap();
        assert_eq!(
            a.to_canonical_json(),
            r#"{"disabled":["a","b"],"toolset":"research","web_search":true,"x-new":1}"#
        );
        let b = ToolsOverride::from_json_str(
            r#"{"x-new":1,"toolset":"research","disabled":["a","b"],"web_search":true}"#,
        )
        .unwrap();
        assert_eq!(a.to_canonical_json(), b.to_canonical_json());
        assert_eq!(
            ToolsOverride::from_json_str(r#"{"enabled":null}"#)
                .unwrap()
                .to_canonical_json(),
            "{}"
        );
    }

    #[test]
    fn unknown_keys_survive_round_trip() {
        let o =
            ToolsOverride::from_json_str(r#"{"enabled":true,"channel_limits":{"slack":["a"]}}"#)
                .unwrap();
        let again = ToolsOverride::from_json_str(&o.to_canonical_json()).unwrap();
        assert_eq!(o, again);
        assert!(o.to_canonical_json().contains("channel_limits"));
    }
}
