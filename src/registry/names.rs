//! Provider-valid wire names for MCP tools.
//!
//! Providers accept tool names matching `^[a-zA-Z0-9_-]{1,64}$`; MCP servers name tools as
//! they like (`math.factorial`, 60-character names, `calculate_BMI` beside `calculate_bmi`),
//! and their lists change while sessions run. A wire name is therefore a function of the
//! server's name and the tool's own name **only**, never of the other tools: no change to a
//! server's list can hand an existing wire name to another tool (a call, a loaded list or a
//! hand-pick naming it keeps reaching the tool it meant).
//!
//! The namespaced name `mcp__<server>__<tool>` is the wire name when it is provider-safe, has
//! no ASCII capital and does not end like a hashed name (`_` + 8 lowercase hex digits).
//! Otherwise the wire name is the namespaced name with every character outside
//! `[A-Za-z0-9_-]` replaced by `_`, cut to 55 bytes, then `_` and the first 8 hex digits of the
//! SHA-256 of the namespaced name. So kept names are distinct ignoring case (they have no
//! capitals), a kept name never equals a hashed one (the suffix), and two hashed names
//! collide only if 32 bits of SHA-256 do (the registry then leaves the later tool out with a
//! warning). Capitals are hashed because names must stay unique ignoring case (a deny matches
//! ignoring case, and a provider might compare that way): keeping `calculate_BMI` would make
//! `calculate_bmi`'s name depend on whether its twin exists.
//!
//! The source name stays with the tool (`Tool::source_name`) for dispatch.
//!
//! Server names, the namespace (`mcp__<server>__<tool>`, a server's glob) and the provider
//! name rule live here too: the loader and the server calls both read them, and this file
//! reads neither.

use sha2::{Digest, Sha256};

use crate::error::{quoted, Error, JsonPath, Result};

/// Longest server name: its wire names keep `mcp__<server>__` before any cut (55 bytes).
const MAX_SERVER_NAME: usize = 32;

/// The name a server's tool gets in the registry before wire-name mapping.
pub(crate) fn namespaced(server: &str, tool: &str) -> String {
    format!("mcp__{server}__{tool}")
}

/// The glob that matches every tool of a server.
pub(crate) fn server_glob(server: &str) -> String {
    format!("mcp__{server}__*")
}

/// Whether a registry name belongs to a server.
pub(crate) fn belongs_to(name: &str, server: &str) -> bool {
    name.strip_prefix("mcp__")
        .and_then(|rest| rest.strip_prefix(server))
        .is_some_and(|rest| rest.starts_with("__"))
}

/// Server names are letters, digits, `-` and `_`, at most 32 bytes, without `__` (the
/// namespace separator) and not starting or ending with `_` (so `mcp__<server>__` names one
/// server: `a_` would make `mcp__a___x` ambiguous).
pub(crate) fn check_server_name(server: &str, path: &JsonPath) -> Result<()> {
    let ok = !server.is_empty()
        && server.len() <= MAX_SERVER_NAME
        && server
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        // A byte-pair scan, not `contains("__")`: a substring search links the standard
        // library's two-way searcher into the wasm module for this one check.
        && !server.as_bytes().windows(2).any(|pair| pair == b"__")
        && !server.starts_with('_')
        && !server.ends_with('_');
    if ok {
        Ok(())
    } else {
        Err(Error::registry(path, server_name_rule(server)))
    }
}

pub(crate) fn server_name_rule(server: &str) -> String {
    format!(
        "server name {} must be 1 to {MAX_SERVER_NAME} letters, digits, '-' or '_' (no \"__\", no '_' at either end)",
        quoted(server)
    )
}

/// The server of a namespaced name (`mcp__<server>__<tool>` → `<server>`).
pub(crate) fn server_of(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("mcp__")?;
    // A byte scan: this runs for every tool of a registry on each server change.
    let at = rest.as_bytes().windows(2).position(|w| w == b"__")?;
    rest.get(..at)
}

/// Whether a name satisfies `^[a-zA-Z0-9_-]{1,64}$`, the strictest provider rule.
pub(crate) fn is_provider_safe_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Bytes a hashed wire name keeps of its candidate (55 + `_` + 8 hex = 64).
const KEPT: usize = 55;

/// The wire name of a server's tool (see the module docs).
pub(crate) fn wire_name(server: &str, tool: &str) -> String {
    let name = namespaced(server, tool);
    if keeps_its_name(&name) {
        name
    } else {
        hashed(&name)
    }
}

fn keeps_its_name(name: &str) -> bool {
    is_provider_safe_name(name)
        && !name.bytes().any(|b| b.is_ascii_uppercase())
        && !looks_hashed(name)
}

/// Ends with `_` and 8 lowercase hex digits, the shape of a hashed name's tail.
fn looks_hashed(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() > 9
        && b[b.len() - 9] == b'_'
        && b[b.len() - 8..]
            .iter()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
}

fn hashed(source: &str) -> String {
    let digest = Sha256::digest(source.as_bytes());
    let mut out: String = source
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(KEPT)
        .collect();
    out.push('_');
    for b in &digest[..4] {
        for nibble in [b >> 4, b & 15] {
            out.push(char::from_digit(u32::from(nibble), 16).unwrap_or('0'));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_lowercase_names_are_kept_and_others_hashed() {
        assert_eq!(wire_name("m", "factorial"), "mcp__m__factorial");
        let mapped = wire_name("m", "math.factorial");
        assert!(mapped.starts_with("mcp__m__math_factorial_"), "{mapped}");
        assert_eq!(mapped.len(), "mcp__m__math_factorial_".len() + 8);
        // The mapped name never takes the clean twin's name, whoever arrives first.
        assert_ne!(mapped, wire_name("m", "math_factorial"));
    }

    #[test]
    fn case_twins_get_names_distinct_ignoring_case() {
        let lower = wire_name("b", "calculate_bmi");
        let upper = wire_name("b", "calculate_BMI");
        assert_eq!(lower, "mcp__b__calculate_bmi");
        assert!(upper.starts_with("mcp__b__calculate_BMI_"), "{upper}");
        assert_ne!(lower.to_ascii_lowercase(), upper.to_ascii_lowercase());
    }

    #[test]
    fn a_name_shaped_like_a_hash_is_hashed_itself() {
        let hashed_one = wire_name("s", "get.item");
        let tail = hashed_one.trim_start_matches("mcp__s__");
        // A server listing a tool literally named like that hashed wire name does not get it.
        let impostor = wire_name("s", tail);
        assert_ne!(impostor, hashed_one);
        assert!(impostor.starts_with(&hashed_one), "{impostor}");
        assert!(looks_hashed(&hashed_one));
        assert!(!looks_hashed("mcp__s__get_item"));
        assert!(!looks_hashed("mcp__s__x_DEADBEEF"));
    }

    #[test]
    fn long_names_are_cut_with_a_hash() {
        let w = wire_name("s", &"x".repeat(60));
        assert_eq!(w.len(), 64);
        assert!(is_provider_safe_name(&w));
        assert!(w.starts_with("mcp__s__xxx"));
        // Multi-byte characters count once each before the cut and map to one `_`.
        let w = wire_name("s", &"é".repeat(70));
        assert_eq!(w.len(), 64);
        assert!(is_provider_safe_name(&w), "{w}");
    }
}
