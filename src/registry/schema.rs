//! Validating a tool's JSON Schema without building it: one pass of the schema scanner
//! (`json/scan.rs`, shared with the search index's field reader) measures the nesting depth
//! and the compact size (bytes outside strings that are not whitespace, plus every byte of
//! every string) and checks that the root is an object.

use serde_json::value::RawValue;
use serde_json::Value;

use crate::error::{Error, JsonPath, Result};
#[cfg(test)]
use crate::json::quote_or_backslash;
use crate::json::{value_of, Scanner, Token};
use crate::limits::LIMITS;

/// Depth and compact size of a valid JSON text, and whether it holds what only a full parse
/// can judge: a `\\u` escape (a lone surrogate is refused by the parser, not by the first
/// pass) or a number that may be out of range (an exponent, or over 300 digits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Measure<'a> {
    pub(crate) depth: usize,
    pub(crate) bytes: usize,
    pub(crate) needs_parse: bool,
    /// The root object's `type`: `None` when absent, `Some(Err(()))` when not a plain string.
    pub(crate) root_type: Option<Result<&'a [u8], ()>>,
}

/// Measures a JSON text the parser has already validated, through the one schema scanner
/// ([`Scanner`]).
pub(crate) fn measure(text: &str) -> Measure<'_> {
    let b = text.as_bytes();
    let mut scan = Scanner::new(text);
    let (mut max_depth, mut needs_parse) = (0usize, false);
    // The value after the root object's `type` key decides `root_type`.
    let (mut type_value_next, mut root_type) = (false, None);
    while let Some(token) = scan.next() {
        let is_type_value = std::mem::take(&mut type_value_next);
        match token {
            Token::Open { .. } => {
                max_depth = max_depth.max(scan.depth());
                if is_type_value {
                    root_type = Some(Err(()));
                }
            }
            Token::Close => {}
            Token::Key(k) => {
                needs_parse |= k.unicode_escape;
                type_value_next = scan.depth() == 1 && &b[k.start..k.end] == b"type";
            }
            Token::String(v) => {
                needs_parse |= v.unicode_escape;
                if is_type_value {
                    root_type = Some(Ok(&b[v.start..v.end]));
                }
            }
            Token::Scalar { start, end } => {
                // A number with an exponent, or of over 300 digits, may be out of range.
                let scalar = &b[start..end];
                let number = scalar
                    .first()
                    .is_some_and(|c| c.is_ascii_digit() || *c == b'-');
                needs_parse |= number
                    && (scalar.len() > 300 || scalar.iter().any(|c| matches!(c, b'e' | b'E')));
                if is_type_value {
                    root_type = Some(Err(()));
                }
            }
        }
    }
    Measure {
        depth: max_depth,
        bytes: b.len() - scan.whitespace(),
        needs_parse,
        root_type,
    }
}

/// What loading does with a schema that passed the checks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// Its root is `"type": "object"`: kept as it is.
    Object,
    /// Its root type is missing or `"dict"`: sent with `"type": "object"` instead.
    Normalised(Value),
}

/// Checks a tool's schema: a JSON object within the size and depth limits that parses (so
/// parsing it on first use cannot fail), whose root type is `object` or can be made so
/// (missing, or Python's `dict`). Any other root type is refused: providers reject the
/// whole request for it. The path is made only for an error.
pub(crate) fn check(raw: &RawValue, path: impl Fn() -> JsonPath) -> Result<Verdict> {
    let text = raw.get();
    if !text.starts_with('{') {
        return Err(match value_of(raw) {
            Ok(v) => Error::expected("document", &path(), "a JSON Schema object", &v),
            Err(m) => Error::value("document", &path(), format!("unreadable value: {m}")),
        });
    }
    let m = measure(text);
    if m.depth > LIMITS.max_schema_depth {
        return Err(Error::limit(
            "document",
            &path(),
            format!(
                // The scan stops at its own depth limit: a deeper schema is "at least" that.
                "schema nests {}{} levels deep, at most {} are accepted",
                if m.depth >= crate::json::MAX_DEPTH {
                    "at least "
                } else {
                    ""
                },
                m.depth,
                LIMITS.max_schema_depth
            ),
        ));
    }
    if m.bytes > LIMITS.max_schema_bytes {
        return Err(Error::limit(
            "document",
            &path(),
            format!(
                "schema of {} bytes, at most {} are accepted",
                m.bytes, LIMITS.max_schema_bytes
            ),
        ));
    }
    let normalise = match m.root_type {
        Some(Ok(b"object")) => false,
        None | Some(Ok(b"dict")) => true,
        Some(other) => {
            let found = match other {
                Ok(t) => format!("\"{}\"", String::from_utf8_lossy(t)),
                Err(()) => "a value that is not a type name".to_string(),
            };
            return Err(Error::value(
                "document",
                &path().key("type"),
                format!("the schema's root type must be \"object\" (providers refuse anything else), found {found}"),
            ));
        }
    };
    if !m.needs_parse && !normalise {
        return Ok(Verdict::Object);
    }
    let mut value = value_of(raw)
        .map_err(|e| Error::value("document", &path(), format!("unreadable value: {e}")))?;
    if !normalise {
        return Ok(Verdict::Object);
    }
    if let Value::Object(map) = &mut value {
        map.insert("type".to_string(), Value::from("object"));
    }
    Ok(Verdict::Normalised(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_schema_deeper_than_the_scan_says_at_least() {
        let deep = |n: usize| {
            format!(
                "{}{{}}{}",
                r#"{"type":"object","properties":{"a":"#.repeat(n),
                "}}".repeat(n)
            )
        };
        let check_text = |t: &str| {
            let raw = serde_json::value::RawValue::from_string(t.to_string()).unwrap();
            check(&raw, JsonPath::root).unwrap_err().to_string()
        };
        let e = check_text(&deep(20));
        assert!(e.contains("nests 41 levels deep"), "{e}");
        let e = check_text(&deep(5_000));
        assert!(e.contains("nests at least 128 levels deep"), "{e}");
    }

    #[test]
    fn compact_size_matches_serialisation_for_canonical_text() {
        for v in [
            json!({"a": [1, -2.5, null, true, false, "x\"y\\z\n\t"], "b": {}, "": []}),
            json!({}),
            json!({"type": "object", "properties": {"q": {"type": "string", "description": "a { b ] c"}}}),
        ] {
            let text = serde_json::to_string(&v).unwrap();
            assert_eq!(measure(&text).bytes, text.len(), "{text}");
            let pretty = serde_json::to_string_pretty(&v).unwrap();
            assert_eq!(measure(&pretty).bytes, text.len(), "{pretty}");
        }
        assert_eq!(measure(r#"{"a": {"b": [1]}}"#).depth, 3);
        assert_eq!(measure(r#"{"a": "{{{{"}"#).depth, 1);
        for (text, risky) in [
            (r#"{"a": true, "b": false, "c": 1.5, "d": -2}"#, false),
            (r#"{"a": 1e5}"#, true),
            (r#"{"a": 2.0E-3}"#, true),
            (r#"{"a": "\u00e9"}"#, true),
            (r#"{"a": "\n"}"#, false),
        ] {
            assert_eq!(measure(text).needs_parse, risky, "{text}");
        }
        let long = format!("{{\"a\": {}}}", "9".repeat(301));
        assert!(measure(&long).needs_parse);
        let root = |t: &'static str| measure(t).root_type;
        assert_eq!(
            root(r#"{"type": "object", "properties": {"type": {"type": "string"}}}"#),
            Some(Ok(&b"object"[..]))
        );
        assert_eq!(
            root(r#"{"properties": {"type": "x"}, "type":"dict"}"#),
            Some(Ok(&b"dict"[..]))
        );
        assert_eq!(root(r#"{"properties": {"type": "string"}}"#), None);
        assert_eq!(root(r#"{"type": ["object", "null"]}"#), Some(Err(())));
        assert_eq!(root(r#"{"description": "type", "x": "type"}"#), None);
        assert_eq!(measure(r#"{"a\"{": "x\\", "b": [["\""]]}"#).depth, 3);
        for text in [
            "0123456789\"",
            "\\",
            "abcdefgh",
            "abcdefg\\",
            "é\"xxxxxxxxxx",
        ] {
            let want = text.bytes().position(|c| c == b'"' || c == b'\\');
            assert_eq!(quote_or_backslash(text.as_bytes(), 0), want, "{text}");
        }
    }
}
