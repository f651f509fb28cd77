//! Provider-valid wire names for MCP tools.
//!
//! Providers accept tool names matching `^[a-zA-Z0-9_-]{1,64}$`; MCP servers name tools as
//! they like (`math.factorial`, 60-character names, `calculate_BMI` beside `calculate_bmi`).
//! An MCP tool's namespaced name (`mcp__<server>__<tool>`) becomes its **wire name** by these
//! rules, which depend only on the set of names, never on the order tools arrive in:
//!
//! 1. every character outside `[A-Za-z0-9_-]` becomes `_` (the candidate);
//! 2. tools whose candidates are equal ignoring ASCII case form a group. A lone member keeps
//!    its candidate; in a larger group a registry tool of our own format keeps its name,
//!    otherwise the smallest (byte order) member whose name needed no change keeps it;
//! 3. every other member, and every candidate over 64 bytes, becomes the candidate cut to 55
//!    bytes + `_` + the first 8 hex digits of the SHA-256 of its namespaced source name.
//!
//! The source name stays with the tool (`Tool::source_name`) for dispatch.

use sha2::{Digest, Sha256};

use super::load::is_provider_safe_name;

/// Bytes a hashed wire name keeps of its candidate (55 + `_` + 8 hex = 64).
const KEPT: usize = 55;

/// `[A-Za-z0-9_-]` kept, everything else `_` (one per character).
fn candidate(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn hashed(candidate: &str, source: &str) -> String {
    let digest = Sha256::digest(source.as_bytes());
    let mut out: String = candidate.chars().take(KEPT).collect();
    out.push('_');
    for b in &digest[..4] {
        for nibble in [b >> 4, b & 15] {
            out.push(char::from_digit(u32::from(nibble), 16).unwrap_or('0'));
        }
    }
    out
}

/// Wire names for a list of (name, lenient) pairs: strict names are kept as they are (they
/// were checked at load), lenient (MCP) names are mapped by the rules above.
pub(crate) fn wire_names(names: &[(&str, bool)]) -> Vec<String> {
    let candidates: Vec<String> = names
        .iter()
        .map(|&(n, lenient)| if lenient { candidate(n) } else { n.to_string() })
        .collect();
    // Groups of equal folded candidates: positions sorted by folded candidate, then runs.
    let folded: Vec<String> = candidates.iter().map(|c| c.to_ascii_lowercase()).collect();
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_unstable_by(|&a, &b| folded[a].cmp(&folded[b]).then(a.cmp(&b)));
    let mut out = candidates.clone();
    for members in order.chunk_by(|&a, &b| folded[a] == folded[b]) {
        let strict_holder = members.iter().any(|&i| !names[i].1);
        let keeper = if strict_holder {
            None
        } else if members.len() == 1 {
            Some(members[0])
        } else {
            members
                .iter()
                .copied()
                .filter(|&i| candidates[i] == names[i].0 && is_provider_safe_name(names[i].0))
                .min_by(|&a, &b| names[a].0.cmp(names[b].0))
        };
        for &i in members {
            let (source, lenient) = names[i];
            let keeps = !lenient || Some(i) == keeper;
            if lenient && (!keeps || !is_provider_safe_name(&out[i])) {
                out[i] = hashed(&candidates[i], source);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lenient(names: &[&str]) -> Vec<String> {
        let pairs: Vec<(&str, bool)> = names.iter().map(|n| (*n, true)).collect();
        wire_names(&pairs)
    }

    #[test]
    fn valid_names_are_kept_and_others_mapped() {
        let w = lenient(&["mcp__m__factorial", "mcp__m__math.factorial"]);
        assert_eq!(w[0], "mcp__m__factorial");
        assert_eq!(w[1], "mcp__m__math_factorial");
    }

    #[test]
    fn collisions_and_case_twins_are_disambiguated_by_hash() {
        let w = lenient(&[
            "mcp__b__calculate_bmi",
            "mcp__b__calculate_BMI",
            "mcp__b__a.b",
            "mcp__b__a_b",
        ]);
        // The smallest clean name keeps its name ("calculate_BMI" < "calculate_bmi").
        assert_eq!(w[1], "mcp__b__calculate_BMI");
        assert!(
            w[0].starts_with("mcp__b__calculate_bmi_") && w[0].len() == 30,
            "{}",
            w[0]
        );
        assert_eq!(w[3], "mcp__b__a_b");
        assert!(w[2].starts_with("mcp__b__a_b_"), "{}", w[2]);
        for n in &w {
            assert!(is_provider_safe_name(n), "{n}");
        }
    }

    #[test]
    fn long_names_are_cut_with_a_hash() {
        let long = format!("mcp__s__{}", "x".repeat(60));
        let w = lenient(&[&long]);
        assert_eq!(w[0].len(), 64);
        assert!(is_provider_safe_name(&w[0]));
    }

    #[test]
    fn strict_names_win_their_group() {
        let w = wire_names(&[("mcp__s__x", false), ("mcp__s__x", true)]);
        assert_eq!(w[0], "mcp__s__x");
        assert_ne!(w[1], "mcp__s__x");
    }

    #[test]
    fn names_do_not_depend_on_arrival_order() {
        let names = [
            "mcp__b__calculate_bmi",
            "mcp__b__calculate_BMI",
            "mcp__b__a.b",
            "mcp__b__a_b",
            "mcp__b__q?",
        ];
        let forward = lenient(&names);
        let mut reversed_names = names;
        reversed_names.reverse();
        let mut backward = lenient(&reversed_names);
        backward.reverse();
        assert_eq!(forward, backward);
    }
}
