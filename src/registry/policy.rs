//! Reading the policy parts of a registry document: presets (`toolsets`), overlays, source
//! policies and the history of earlier defaults. Names are checked against the tools later,
//! when the registry is built.

use serde_json::Value;

use super::library_tools::WEB_SEARCH_OVERLAY;
use super::tool::{HistoryVersion, SourcePolicy};
use crate::error::{quoted, Error, JsonPath, Result};
use crate::intent::{parse_pattern_list, ToolsOverride};
use crate::limits::LIMITS;

/// `{"name": [patterns]}` in key order.
pub(crate) fn parse_named_lists(
    value: &Value,
    path: &JsonPath,
) -> Result<Vec<(String, Vec<String>)>> {
    let obj = value
        .as_object()
        .ok_or_else(|| Error::expected("document", path, "an object of name → list", value))?;
    obj.iter()
        .map(|(k, v)| {
            let p = path.key(k);
            // A name no intent can hold would be a preset nobody can select.
            name_fits(k, &p, "a preset name", "an intent's \"toolset\"")?;
            Ok((k.clone(), parse_pattern_list(v, &p, "document")?))
        })
        .collect()
}

/// `{"web_search": [patterns] | "name"}`: the only overlay an intent can switch.
pub(crate) fn parse_overlays(value: &Value, path: &JsonPath) -> Result<Vec<(String, Vec<String>)>> {
    let obj = value
        .as_object()
        .ok_or_else(|| Error::expected("document", path, "an object of overlay → tools", value))?;
    obj.iter()
        .map(|(k, v)| {
            let p = path.key(k);
            if k != WEB_SEARCH_OVERLAY {
                return Err(Error::registry(
                    &p,
                    format!(
                        "unknown overlay {} (intents can switch only \"web_search\")",
                        quoted(k)
                    ),
                ));
            }
            let list = match v {
                Value::String(s) => vec![s.clone()],
                other => parse_pattern_list(other, &p, "document")?,
            };
            Ok((k.clone(), list))
        })
        .collect()
}

/// A preset's or a source's name: 1 to [`LIMITS.max_toolset_name_bytes`] bytes (an intent's
/// `toolset` holds no more, and a source's name travels in each warning from its default).
fn name_fits(name: &str, path: &JsonPath, what: &str, named_by: &str) -> Result<()> {
    if name.is_empty() || name.len() > LIMITS.max_toolset_name_bytes {
        return Err(Error::registry(
            path,
            format!(
                "{what} is 1 to {} bytes ({named_by} names it), this one is {}",
                LIMITS.max_toolset_name_bytes,
                name.len()
            ),
        ));
    }
    Ok(())
}

/// `{"source": {"default": override, "deny": [patterns]}}`.
pub(crate) fn parse_sources(value: &Value, path: &JsonPath) -> Result<Vec<SourcePolicy>> {
    let obj = value
        .as_object()
        .ok_or_else(|| Error::expected("document", path, "an object of source → policy", value))?;
    obj.iter()
        .map(|(name, v)| {
            let p = path.key(name);
            // A warning from the source's default carries its name (`source:<name>`).
            name_fits(name, &p, "a source name", "a request's \"source\"")?;
            let policy = v
                .as_object()
                .ok_or_else(|| Error::expected("document", &p, "{\"default\", \"deny\"}", v))?;
            for key in policy.keys() {
                if key != "default" && key != "deny" {
                    return Err(Error::registry(
                        &p.key(key),
                        format!(
                            "unknown source key {} (expected \"default\" or \"deny\")",
                            quoted(key)
                        ),
                    ));
                }
            }
            let default = match policy.get("default") {
                None => ToolsOverride::Follow,
                Some(d) => ToolsOverride::from_value_at(d, &p.key("default"))
                    .map_err(|e| registry_error(e, &p.key("default")))?,
            };
            let deny = match policy.get("deny") {
                None | Some(Value::Null) => Vec::new(),
                Some(d) => parse_pattern_list(d, &p.key("deny"), "document")?,
            };
            Ok(SourcePolicy {
                name: name.clone(),
                default,
                deny,
            })
        })
        .collect()
}

/// An override error inside a registry document is an error of the registry.
fn registry_error(e: Error, at: &JsonPath) -> Error {
    match e {
        Error::InvalidValue { path, message, .. } => Error::value("document", &path, message),
        Error::LimitExceeded { path, message, .. } => Error::limit("document", &path, message),
        other => Error::value("document", at, other.to_string()),
    }
}

/// `[{"version", "default_tools", "toolsets"}]`, oldest first.
pub(crate) fn parse_history(value: &Value, path: &JsonPath) -> Result<Vec<HistoryVersion>> {
    let items = value
        .as_array()
        .ok_or_else(|| Error::expected("document", path, "an array of versions", value))?;
    items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let p = path.index(i);
            let o = v
                .as_object()
                .ok_or_else(|| Error::expected("document", &p, "an object", v))?;
            let version = match o.get("version") {
                Some(Value::String(s)) => s.clone(),
                None => format!("#{i}"),
                Some(other) => {
                    return Err(Error::expected(
                        "document",
                        &p.key("version"),
                        "a string",
                        other,
                    ))
                }
            };
            let default_tools = match o.get("default_tools") {
                None | Some(Value::Null) => None,
                Some(d) => Some(parse_pattern_list(d, &p.key("default_tools"), "document")?),
            };
            let toolsets = match o.get("toolsets") {
                None | Some(Value::Null) => Vec::new(),
                Some(t) => parse_named_lists(t, &p.key("toolsets"))?,
            };
            Ok(HistoryVersion {
                version,
                default_tools,
                toolsets,
            })
        })
        .collect()
}
