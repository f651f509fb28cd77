//! Glob patterns over tool names: `*` matches any run of characters, `?` exactly one, every
//! other character itself. Users write them against namespaced names (`mcp__github__*`).
//!
//! Matching uses the classic single-backtrack-point algorithm, so it runs in
//! O(pattern × name) in the worst case and never recurses: a hostile `*a*a*a*…b` cannot blow
//! up. Names are at most 64 bytes and patterns at most `LIMITS.max_pattern_bytes` bytes.

/// Whether a pattern contains glob metacharacters (otherwise it is a plain tool name).
pub fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?'])
}

/// The literal before the one trailing `*` of a `prefix*` pattern (no other `*` or `?`): the
/// shape of a server's glob, matched by a range of the sorted name index.
pub(crate) fn literal_prefix(pattern: &str) -> Option<&str> {
    let prefix = pattern.strip_suffix('*')?;
    (!prefix.contains(['*', '?'])).then_some(prefix)
}

/// Case-sensitive match of `name` against `pattern`.
pub fn matches(pattern: &str, name: &str) -> bool {
    match_bytes(pattern.as_bytes(), name.as_bytes(), false)
}

/// ASCII-case-insensitive match, used where a pattern denies (a deny must not be dodged by
/// spelling a name in another case).
pub(crate) fn matches_ignore_case(pattern: &str, name: &str) -> bool {
    match_bytes(pattern.as_bytes(), name.as_bytes(), true)
}

fn match_bytes(pattern: &[u8], name: &[u8], fold: bool) -> bool {
    // The common shape `prefix*` (a server's tools) is a prefix test.
    if let Some((b'*', prefix)) = pattern.split_last() {
        if !prefix.iter().any(|&b| b == b'*' || b == b'?') {
            return name.len() >= prefix.len()
                && if fold {
                    name[..prefix.len()].eq_ignore_ascii_case(prefix)
                } else {
                    name.starts_with(prefix)
                };
        }
    }
    let eq = |a: u8, b: u8| {
        if fold {
            a.eq_ignore_ascii_case(&b)
        } else {
            a == b
        }
    };
    // `?` is treated as one byte; names are ASCII by registry validation.
    let (mut p, mut n) = (0usize, 0usize);
    let mut star: Option<usize> = None;
    let mut star_n = 0usize;
    while n < name.len() {
        if p < pattern.len()
            && (pattern[p] == b'?' || (pattern[p] != b'*' && eq(pattern[p], name[n])))
        {
            p += 1;
            n += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some(p);
            star_n = n;
            p += 1;
        } else if let Some(s) = star {
            p = s + 1;
            star_n += 1;
            n = star_n;
        } else {
            return false;
        }
    }
    while p < pattern.len() && pattern[p] == b'*' {
        p += 1;
    }
    p == pattern.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_and_wildcards() {
        assert!(matches("read_file", "read_file"));
        assert!(!matches("read_file", "read_files"));
        assert!(matches("mcp__github__*", "mcp__github__create_issue"));
        assert!(!matches("mcp__github__*", "mcp__git__status"));
        assert!(matches("*_file", "write_file"));
        assert!(matches("???p", "grep"));
        assert!(!matches("???p", "grp"));
        assert!(matches("*", ""));
        assert!(matches("mcp__*", "mcp__"));
        assert!(!matches("mcp__*", "mcp_"));
        assert!(matches_ignore_case("MCP__G*", "mcp__github__x"));
        assert!(!matches("MCP__G*", "mcp__github__x"));
        assert!(matches("a*b*c", "axxbyyc"));
        assert!(!matches("a*b*c", "axxbyy"));
    }

    #[test]
    fn case_folding_only_where_asked() {
        assert!(!matches("Shell", "shell"));
        assert!(matches_ignore_case("SHELL", "shell"));
        assert!(matches_ignore_case("MCP__*", "mcp__x__y"));
    }

    #[test]
    fn pathological_pattern_is_fast_and_correct() {
        let pattern = "*a".repeat(100) + "b";
        let name = "a".repeat(64);
        assert!(!matches(&pattern, &name));
        assert!(is_glob(&pattern));
        assert!(!is_glob("plain_name"));
    }
}
