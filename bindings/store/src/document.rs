//! A registry version as a store keeps it: the registry's own document
//! ([`Registry::to_value`], which loads back to the same fingerprint, server attribution and
//! trust decisions) with each tool replaced by `{"$tool": "<digest>"}` — the *skeleton* —
//! and the tools by digest, each kept once for every version that has it. A thousand versions
//! of a thousand-tool registry hold the thousand tools once (plus the tools that changed), not
//! a million copies.
//!
//! Rebuilding checks everything it reads: each tool's text against its digest, and the
//! loaded registry against the version's fingerprint. A row edited by hand, restored from
//! another backup or cut short is `corrupt_version`, never a registry with other bytes.

use serde_json::{Map, Value};
use tool_intent::error::StoreFault;
use tool_intent::{fingerprint, Error, Registry, Result};

/// The key of a tool's place in a skeleton.
const TOOL_KEY: &str = "$tool";

/// One version, split for storing.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredVersion {
    /// The registry's fingerprint (`Registry::fingerprint`), the version's address.
    pub fingerprint: String,
    /// The document with each tool as `{"$tool": digest}`.
    pub skeleton: String,
    /// Each distinct tool once: (digest, the tool's JSON text), in the order the document
    /// first names them.
    pub tools: Vec<(String, String)>,
}

impl StoredVersion {
    /// The digests the skeleton names, each once.
    pub fn digests(&self) -> Vec<&str> {
        self.tools.iter().map(|(d, _)| d.as_str()).collect()
    }
}

/// Splits `registry` for storing.
pub fn split(registry: &Registry) -> StoredVersion {
    let mut document = registry.to_value();
    let mut tools: Vec<(String, String)> = Vec::new();
    for_each_tool_list(&mut document, &mut |list| {
        for item in list.iter_mut() {
            if !item.is_object() {
                continue;
            }
            // A value's Display is its compact JSON text, the bytes `serde_json::to_string`
            // writes, and cannot fail (no silent empty body stands in for an error).
            let body = item.to_string();
            let digest = fingerprint(body.as_bytes());
            if !tools.iter().any(|(d, _)| *d == digest) {
                tools.push((digest.clone(), body));
            }
            let mut place = Map::new();
            place.insert(TOOL_KEY.into(), Value::String(digest));
            *item = Value::Object(place);
        }
    });
    StoredVersion {
        fingerprint: registry.fingerprint().to_string(),
        skeleton: document.to_string(),
        tools,
    }
}

/// The tool lists of a registry document: its own `tools` and each `mcp_servers[].tools`.
fn for_each_tool_list(document: &mut Value, f: &mut dyn FnMut(&mut Vec<Value>)) {
    if let Some(Value::Array(list)) = document.get_mut("tools") {
        f(list);
    }
    if let Some(Value::Array(servers)) = document.get_mut("mcp_servers") {
        for server in servers {
            if let Some(Value::Array(list)) = server.get_mut("tools") {
                f(list);
            }
        }
    }
}

/// The digests a stored skeleton names, each once, in order (for reading every tool of a
/// version in one query, and for `gc`).
pub fn digests_of(fingerprint: &str, skeleton: &str) -> Result<Vec<String>> {
    let mut document: Value = serde_json::from_str(skeleton)
        .map_err(|e| corrupt(fingerprint, format_args!("its document is not JSON ({e})")))?;
    let mut out: Vec<String> = Vec::new();
    for_each_tool_list(&mut document, &mut |list| {
        for item in list.iter() {
            if let Some(d) = item.get(TOOL_KEY).and_then(Value::as_str) {
                if !out.iter().any(|o| o == d) {
                    out.push(d.to_string());
                }
            }
        }
    });
    Ok(out)
}

fn corrupt(fingerprint: &str, what: impl std::fmt::Display) -> Error {
    Error::Store {
        fault: StoreFault::CorruptVersion,
        message: format!("registry version {fingerprint} in the store does not rebuild: {what}"),
    }
}

/// The registry of a stored version: the skeleton with each tool put back (`tool` gives a
/// digest's text, `None` when the store has none), loaded, and checked to have the version's
/// fingerprint. Any difference is `corrupt_version` naming the version.
pub fn rebuild(
    fingerprint_of_version: &str,
    skeleton: &str,
    tool: &mut dyn FnMut(&str) -> Result<Option<String>>,
) -> Result<Registry> {
    let fp = fingerprint_of_version;
    let mut document: Value = serde_json::from_str(skeleton)
        .map_err(|e| corrupt(fp, format_args!("its document is not JSON ({e})")))?;
    let mut fault: Option<Error> = None;
    for_each_tool_list(&mut document, &mut |list| {
        for item in list.iter_mut() {
            if fault.is_some() {
                return;
            }
            let Some(digest) = item
                .as_object()
                .filter(|o| o.len() == 1)
                .and_then(|o| o.get(TOOL_KEY))
                .and_then(Value::as_str)
                .map(str::to_string)
            else {
                fault = Some(corrupt(
                    fp,
                    "a tool list holds something other than a tool's digest",
                ));
                return;
            };
            let body = match tool(&digest) {
                Ok(Some(body)) => body,
                Ok(None) => {
                    fault = Some(corrupt(fp, format_args!("tool {digest} is missing")));
                    return;
                }
                Err(e) => {
                    fault = Some(e);
                    return;
                }
            };
            if fingerprint(body.as_bytes()) != digest {
                fault = Some(corrupt(
                    fp,
                    format_args!("the text of tool {digest} does not hash to it"),
                ));
                return;
            }
            match serde_json::from_str(&body) {
                Ok(value) => *item = value,
                Err(e) => {
                    fault = Some(corrupt(fp, format_args!("tool {digest} is not JSON ({e})")))
                }
            }
        }
    });
    if let Some(e) = fault {
        return Err(e);
    }
    let registry = Registry::from_value(&document)
        .map_err(|e| corrupt(fp, format_args!("its document does not load ({e})")))?;
    if registry.fingerprint() != fp {
        return Err(corrupt(
            fp,
            format_args!("it loads as {}", registry.fingerprint()),
        ));
    }
    Ok(registry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn with_servers() -> Registry {
        let github = include_str!("../../../tests/data/mcp/github.json");
        let memory = include_str!("../../../tests/data/mcp/memory.json");
        let r = Registry::embedded()
            .set_mcp_server("github", github)
            .unwrap()
            .registry;
        r.set_mcp_server("memory", memory).unwrap().registry
    }

    fn rebuilt(stored: &StoredVersion) -> Result<Registry> {
        let tools: BTreeMap<String, String> = stored.tools.iter().cloned().collect();
        rebuild(&stored.fingerprint, &stored.skeleton, &mut |d| {
            Ok(tools.get(d).cloned())
        })
    }

    #[test]
    fn a_version_rebuilds_to_the_same_fingerprint_and_plan() {
        let r = with_servers();
        let stored = split(&r);
        assert!(stored.tools.len() >= r.len() - 2, "{}", stored.tools.len());
        assert!(
            !stored.skeleton.contains("inputSchema"),
            "tools are out of the skeleton"
        );
        let back = rebuilt(&stored).unwrap();
        assert_eq!(back.fingerprint(), r.fingerprint());
        let request = tool_intent::TurnRequest {
            tools_override: tool_intent::ToolsOverride::from_json_str(r#"{"toolset":"full"}"#)
                .unwrap(),
            ..Default::default()
        };
        assert_eq!(
            back.plan_turn(&request).unwrap().payload,
            r.plan_turn(&request).unwrap().payload
        );
        // Split again: the same rows.
        assert_eq!(split(&back), stored);
        // Each body is the bytes earlier releases stored (`serde_json::to_string`), so their
        // digests still name the same rows.
        for (digest, body) in &stored.tools {
            let value: Value = serde_json::from_str(body).unwrap();
            assert_eq!(&serde_json::to_string(&value).unwrap(), body);
            assert_eq!(&fingerprint(body.as_bytes()), digest);
        }
        let skeleton: Value = serde_json::from_str(&stored.skeleton).unwrap();
        assert_eq!(serde_json::to_string(&skeleton).unwrap(), stored.skeleton);
    }

    #[test]
    fn two_versions_share_the_tools_they_have_in_common() {
        let r = with_servers();
        let next = r.remove_mcp_server("memory").unwrap().registry;
        let (a, b) = (split(&r), split(&next));
        let shared = b
            .digests()
            .iter()
            .filter(|d| a.digests().contains(d))
            .count();
        assert_eq!(
            shared,
            b.tools.len(),
            "every tool of the smaller version is shared"
        );
    }

    #[test]
    fn an_edited_row_is_a_corrupt_version_not_other_bytes() {
        let stored = split(&with_servers());
        let code = |e: Error| e.code();
        // A tool's text edited: its digest no longer matches.
        let mut tools: BTreeMap<String, String> = stored.tools.iter().cloned().collect();
        let first = stored.tools[0].0.clone();
        tools.insert(first.clone(), tools[&first].replace("Read", "Rread"));
        let e = rebuild(&stored.fingerprint, &stored.skeleton, &mut |d| {
            Ok(tools.get(d).cloned())
        })
        .unwrap_err();
        assert_eq!(code(e.clone()), "corrupt_version");
        assert!(e.to_string().contains(&stored.fingerprint), "{e}");
        // A tool missing.
        let e = rebuild(&stored.fingerprint, &stored.skeleton, &mut |_| Ok(None)).unwrap_err();
        assert!(e.to_string().contains("is missing"), "{e}");
        // The skeleton edited (a setting changed): it loads, to another fingerprint.
        let edited =
            stored
                .skeleton
                .replacen("\"default_tools\":[", "\"default_tools\":[\"grep\",", 1);
        assert_ne!(edited, stored.skeleton);
        let all: BTreeMap<String, String> = stored.tools.iter().cloned().collect();
        let e = rebuild(&stored.fingerprint, &edited, &mut |d| {
            Ok(all.get(d).cloned())
        })
        .unwrap_err();
        assert_eq!(e.code(), "corrupt_version");
        // Not JSON.
        let e = rebuild(&stored.fingerprint, "{", &mut |_| Ok(None)).unwrap_err();
        assert_eq!(e.code(), "corrupt_version");
    }
}
