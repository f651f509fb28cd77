//! Session run config: what a database row stores about a session's tools, and the one
//! function every writer uses to build it.
//!
//! A row has four fields (`docs/contract.md`, "Session rows"): `tools_enabled` (bool|null), `tools_override` (intent
//! object | hand-picked list | null), `web_search` (bool|null) and `toolset` (string|null).
//! A row written before a field existed reads back as null without error.
//!
//! Writers — web UI, TUI client, chat channels — hand the user's [`Toggles`] to
//! [`build_intent`] and store [`SessionRunConfig::from_override`] of the result. Nothing here
//! ever produces an expanded list of tool names: a list is stored only when the user
//! hand-picked tools. Readers call [`SessionRunConfig::to_override`] to get the override that
//! the expander takes.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{Error, JsonPath, Result};
use crate::intent::{Intent, ToolsOverride};

/// The stored row (JSON field names are the column names).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionRunConfig {
    /// The master switch column.
    pub tools_enabled: Option<bool>,
    /// The intent column (an intent object or a hand-picked list).
    pub tools_override: Option<ToolsOverride>,
    /// The web-search column.
    pub web_search: Option<bool>,
    /// The preset column.
    pub toolset: Option<String>,
}

/// What a user toggled in a UI. Every field is optional; absent means "not touched".
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Toggles {
    /// The master switch: `false` turns every tool off.
    pub tools_enabled: Option<bool>,
    /// A preset chip (`research`, `full`, ...).
    pub toolset: Option<String>,
    /// The web-search switch.
    pub web_search: Option<bool>,
    /// Per-tool or glob disables.
    pub disabled: Vec<String>,
    /// Names/globs to keep from the base (filter).
    pub allowed: Option<Vec<String>>,
    /// An explicit hand-pick of a few tools; when set, the other toggles are ignored.
    pub picked: Option<Vec<String>>,
}

impl Toggles {
    /// Reads toggles from a JSON value (snake_case or camelCase keys; unknown keys refused;
    /// `null` reads as "not touched").
    pub fn from_value(value: &Value) -> Result<Toggles> {
        const INPUT: &str = "toggles";
        let root = JsonPath::root();
        let obj = value
            .as_object()
            .ok_or_else(|| Error::expected(INPUT, &root, "an object of toggles", value))?;
        let mut t = Toggles::default();
        // A toggle of two words is read in either spelling, and errors name it as it was
        // written; both spellings at once would leave one of the two values unread, so the
        // second is refused as a key given twice (keys are read in order: `webSearch` before
        // `web_search`).
        let mut spelled: [Option<&str>; 2] = [None; 2];
        let written = |slot: &mut Option<_>, key, path: &JsonPath| match slot.replace(key) {
            Some(_) => Err(Error::value(INPUT, path, "key given twice")),
            None => Ok(()),
        };
        for (key, v) in obj {
            let path = root.key(key);
            let flag = || match v {
                Value::Null => Ok(None),
                Value::Bool(b) => Ok(Some(*b)),
                other => Err(Error::expected(INPUT, &path, "true, false or null", other)),
            };
            let list = || match v {
                Value::Null => Ok(None),
                v => crate::intent::parse_pattern_list(v, &path, INPUT).map(Some),
            };
            match key.as_str() {
                "tools_enabled" | "toolsEnabled" => {
                    written(&mut spelled[0], key.as_str(), &path)?;
                    t.tools_enabled = flag()?
                }
                "web_search" | "webSearch" => {
                    written(&mut spelled[1], key.as_str(), &path)?;
                    t.web_search = flag()?
                }
                "toolset" => {
                    t.toolset = match v {
                        Value::Null => None,
                        Value::String(s) => Some(s.clone()),
                        other => {
                            return Err(Error::expected(
                                INPUT,
                                &path,
                                "a preset name or null",
                                other,
                            ))
                        }
                    }
                }
                "disabled" => t.disabled = list()?.unwrap_or_default(),
                "allowed" => t.allowed = list()?,
                "picked" => t.picked = list()?,
                _ => {
                    return Err(Error::value(
                        INPUT,
                        &path,
                        // Both spellings are read on every surface (JS writes camelCase).
                        format!("unknown toggle {} (known: tools_enabled or toolsEnabled, toolset, web_search or webSearch, disabled, allowed, picked)", crate::error::quoted(key)),
                    ));
                }
            }
        }
        // A hand-pick replaces every other toggle: refuse the mix instead of dropping the
        // other toggles without a word.
        if t.picked.is_some() {
            // The other toggle named as the caller wrote it.
            let others = [
                (
                    spelled[0].unwrap_or("tools_enabled"),
                    t.tools_enabled.is_some(),
                ),
                ("toolset", t.toolset.is_some()),
                (spelled[1].unwrap_or("web_search"), t.web_search.is_some()),
                ("disabled", !t.disabled.is_empty()),
                ("allowed", t.allowed.is_some()),
            ];
            if let Some((other, _)) = others.iter().find(|(_, set)| *set) {
                return Err(Error::value(
                    INPUT,
                    &root.key("picked"),
                    format!("a hand-pick replaces every other toggle; send either picked or {other}, not both"),
                ));
            }
        }
        Ok(t)
    }

    /// Reads toggles from JSON text.
    pub fn from_json_str(text: &str) -> Result<Toggles> {
        Toggles::from_value(&crate::json::parse("toggles", text)?)
    }
}

/// Builds the canonical intent for a set of toggles. Never expands anything.
pub fn build_intent(toggles: &Toggles) -> ToolsOverride {
    if let Some(picked) = &toggles.picked {
        // Toggles::from_value refuses a pick together with other toggles.
        return ToolsOverride::Picked(picked.clone()).canonicalize();
    }
    if toggles.tools_enabled == Some(false) {
        return ToolsOverride::Picked(Vec::new());
    }
    let intent = Intent {
        enabled: toggles.tools_enabled,
        toolset: toggles.toolset.clone().filter(|t| !t.is_empty()),
        allowed: toggles.allowed.clone(),
        disabled: if toggles.disabled.is_empty() {
            None
        } else {
            Some(toggles.disabled.clone())
        },
        web_search: toggles.web_search,
        unknown: Default::default(),
    };
    if intent.is_empty() {
        ToolsOverride::Follow
    } else {
        ToolsOverride::Intent(intent.canonicalize())
    }
}

/// The server's `_normalize_tools_value`: maps a writer's `tools` value onto the
/// `tools_enabled` and `tools_override` columns of a row (the other two stay null).
///
/// `null` → (null, null); `true`/`false` → (bool, null); a list → (true, list); an intent
/// object → (its `enabled`, the object, canonical); `[]` → (false, null) — "no tools" is the
/// switch.
pub fn normalize_tools_value(value: &Value) -> Result<SessionRunConfig> {
    let (tools_enabled, tools_override) = match value {
        Value::Bool(b) => (Some(*b), None),
        other => match ToolsOverride::from_value_at(other, &JsonPath::root())
            .map_err(|e| e.with_input("tools value"))?
        {
            ToolsOverride::Follow => (None, None),
            o if o.is_nothing() => (Some(false), None),
            o @ ToolsOverride::Picked(_) => (Some(true), Some(o.canonicalize())),
            ToolsOverride::Intent(i) => (i.enabled, Some(ToolsOverride::Intent(i.canonicalize()))),
        },
    };
    Ok(SessionRunConfig {
        tools_enabled,
        tools_override,
        ..Default::default()
    })
}

impl SessionRunConfig {
    /// The server's `tools_override_from_config`: the override this stored row stands for.
    ///
    /// `tools_enabled = false` → `[]`; a hand-picked list → that list unchanged; otherwise an
    /// intent object built from the stored intent (if any) and the `toolset` / `web_search`
    /// columns, `enabled` set when the switch is on. Never a materialised list.
    pub fn to_override(&self) -> ToolsOverride {
        let config = self;
        if config.tools_enabled == Some(false) {
            return ToolsOverride::Picked(Vec::new());
        }
        let mut intent = match &config.tools_override {
            Some(ToolsOverride::Picked(list)) => return ToolsOverride::Picked(list.clone()),
            Some(ToolsOverride::Intent(i)) => i.clone(),
            Some(ToolsOverride::Follow) | None => Intent::default(),
        };
        if config.tools_enabled == Some(true) && intent.enabled.is_none() {
            intent.enabled = Some(true);
        }
        if intent.toolset.is_none() {
            intent.toolset = config.toolset.clone().filter(|t| !t.is_empty());
        }
        if intent.web_search.is_none() {
            intent.web_search = config.web_search;
        }
        ToolsOverride::Intent(intent.canonicalize())
    }
}

impl SessionRunConfig {
    /// The row to store for an override built by [`build_intent`].
    pub fn from_override(tools_override: &ToolsOverride) -> SessionRunConfig {
        let mut config = SessionRunConfig::default();
        match tools_override {
            ToolsOverride::Follow => {}
            o if o.is_nothing() => config.tools_enabled = Some(false),
            ToolsOverride::Picked(_) => {
                config.tools_enabled = Some(true);
                config.tools_override = Some(tools_override.clone());
            }
            ToolsOverride::Intent(i) => {
                let mut rest = i.canonicalize();
                config.tools_enabled = rest.enabled;
                config.web_search = rest.web_search.take();
                config.toolset = rest.toolset.take();
                rest.enabled = None;
                if !rest.is_empty() {
                    config.tools_override = Some(ToolsOverride::Intent(rest));
                }
            }
        }
        config
    }

    /// Reads a row from a JSON object of columns; missing columns read as null.
    pub fn from_value(value: &Value) -> Result<SessionRunConfig> {
        let root = JsonPath::root();
        let obj = value.as_object().ok_or_else(|| {
            Error::expected("session config", &root, "an object of columns", value)
        })?;
        let get = |k: &str| obj.get(k).unwrap_or(&Value::Null);
        let opt_bool = |k: &str| -> Result<Option<bool>> {
            match get(k) {
                Value::Null => Ok(None),
                Value::Bool(b) => Ok(Some(*b)),
                // SQLite stores booleans as 0/1.
                Value::Number(n) if n.as_u64() == Some(0) => Ok(Some(false)),
                Value::Number(n) if n.as_u64() == Some(1) => Ok(Some(true)),
                other => Err(Error::expected(
                    "session config",
                    &root.key(k),
                    "a boolean or null",
                    other,
                )),
            }
        };
        let tools_override = match get("tools_override") {
            Value::Null => None,
            // A column of JSON text, as databases store it.
            Value::String(text) => {
                // Read as every override is read (a key given twice is an error), so a row
                // means what `plan_turn` would make of the same text.
                let parsed: Value = crate::json::parse("override", text).map_err(|e| {
                    Error::value(
                        "session config",
                        &root.key("tools_override"),
                        format!("stored JSON text: {e}"),
                    )
                })?;
                Some(ToolsOverride::from_value_at(
                    &parsed,
                    &root.key("tools_override"),
                )?)
            }
            v => Some(ToolsOverride::from_value_at(
                v,
                &root.key("tools_override"),
            )?),
        };
        let toolset = match get("toolset") {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            other => {
                return Err(Error::expected(
                    "session config",
                    &root.key("toolset"),
                    "a string or null",
                    other,
                ))
            }
        };
        Ok(SessionRunConfig {
            tools_enabled: opt_bool("tools_enabled")?,
            tools_override: tools_override.filter(|o| !matches!(o, ToolsOverride::Follow)),
            web_search: opt_bool("web_search")?,
            toolset,
        })
    }

    /// Reads a row from JSON text.
    pub fn from_json_str(text: &str) -> Result<SessionRunConfig> {
        Self::from_value(&crate::json::parse("session config", text)?)
    }

    /// The row as a JSON object of the four columns (nulls included, so a writer can store
    /// every column).
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert(
            "tools_enabled".into(),
            self.tools_enabled.map(Value::Bool).unwrap_or(Value::Null),
        );
        o.insert(
            "tools_override".into(),
            self.tools_override
                .as_ref()
                .map(ToolsOverride::to_canonical_value)
                .unwrap_or(Value::Null),
        );
        o.insert(
            "web_search".into(),
            self.web_search.map(Value::Bool).unwrap_or(Value::Null),
        );
        o.insert(
            "toolset".into(),
            self.toolset
                .clone()
                .map(Value::String)
                .unwrap_or(Value::Null),
        );
        Value::Object(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn normalize_maps_writer_values() {
        let columns = |v: Value| {
            let row = normalize_tools_value(&v).unwrap();
            assert_eq!((&row.web_search, &row.toolset), (&None, &None));
            (row.tools_enabled, row.tools_override)
        };
        assert_eq!(columns(json!(true)), (Some(true), None));
        assert_eq!(columns(json!(null)), (None, None));
        assert_eq!(columns(json!([])), (Some(false), None));
        assert_eq!(
            columns(json!(["web_search"])),
            (
                Some(true),
                Some(ToolsOverride::Picked(vec!["web_search".into()]))
            )
        );
        assert_eq!(
            columns(json!({"enabled": true, "disabled": ["b", "a"]})).1,
            Some(
                ToolsOverride::from_value(&json!({"enabled": true, "disabled": ["a", "b"]}))
                    .unwrap()
            )
        );
        let e = normalize_tools_value(&json!(7)).unwrap_err();
        assert_eq!(e.input(), Some("tools value"));
    }

    #[test]
    fn row_round_trip_keeps_every_field() {
        let row = SessionRunConfig {
            tools_enabled: Some(true),
            tools_override: Some(
                ToolsOverride::from_value(&json!({"disabled": ["shell"], "x": 1})).unwrap(),
            ),
            web_search: Some(true),
            toolset: Some("research".into()),
        };
        let again = SessionRunConfig::from_value(&row.to_value()).unwrap();
        assert_eq!(again, row);
    }

    #[test]
    fn bad_columns_name_their_path() {
        let e = SessionRunConfig::from_value(&json!({"tools_enabled": "yes"})).unwrap_err();
        assert_eq!(e.path(), Some("$.tools_enabled"));
        let e = SessionRunConfig::from_value(&json!({"tools_override": "{oops"})).unwrap_err();
        assert_eq!(e.path(), Some("$.tools_override"));
        // A key given twice is refused, as plan_turn refuses the same text.
        let twice = r#"{"enabled":true,"enabled":false}"#;
        let e = SessionRunConfig::from_value(&json!({"tools_override": twice})).unwrap_err();
        assert_eq!(e.path(), Some("$.tools_override"));
        assert!(e.to_string().contains("given twice"), "{e}");
        assert!(ToolsOverride::from_json_str(twice).is_err());
    }

    /// A toggle's errors name the keys as the caller can write them: JS writes camelCase.
    #[test]
    fn toggle_errors_name_keys_as_written() {
        let message = |v: Value| Toggles::from_value(&v).unwrap_err().to_string();
        let unknown = message(json!({"webSerch": true}));
        assert!(
            unknown.contains(r#"unknown toggle "webSerch""#),
            "{unknown}"
        );
        assert!(unknown.contains("web_search or webSearch"), "{unknown}");
        let mix = message(json!({"picked": ["a"], "webSearch": true}));
        assert!(
            mix.ends_with("send either picked or webSearch, not both"),
            "{mix}"
        );
        let mix = message(json!({"picked": ["a"], "tools_enabled": true}));
        assert!(
            mix.ends_with("send either picked or tools_enabled, not both"),
            "{mix}"
        );
        // Both spellings are read, one at a time: both at once would leave a value unread.
        for key in ["webSearch", "web_search"] {
            let t = Toggles::from_value(&json!({ key: true })).unwrap();
            assert_eq!(t.web_search, Some(true));
        }
        let e = Toggles::from_value(&json!({"web_search": true, "webSearch": false})).unwrap_err();
        // Keys are read in order, so the second spelling is the one named.
        assert_eq!(e.path(), Some("$.web_search"));
        assert!(e.to_string().ends_with("key given twice"), "{e}");
        let e = Toggles::from_value(&json!({"toolsEnabled": null, "tools_enabled": true}));
        assert_eq!(e.unwrap_err().path(), Some("$.tools_enabled"));
    }

    #[test]
    fn build_intent_prefers_hand_pick_and_master_switch() {
        let picked = Toggles {
            picked: Some(vec!["b".into(), "a".into()]),
            web_search: Some(true),
            ..Default::default()
        };
        assert_eq!(build_intent(&picked).to_canonical_json(), r#"["a","b"]"#);
        let off = Toggles {
            tools_enabled: Some(false),
            web_search: Some(true),
            ..Default::default()
        };
        assert_eq!(build_intent(&off).to_canonical_json(), "[]");
        assert_eq!(build_intent(&Toggles::default()), ToolsOverride::Follow);
    }
}
