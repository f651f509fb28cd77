//! Validating a tool's JSON Schema without building it: the document reader
//! (`json/read.rs`) measured the schema as it read it — the nesting depth, the compact size
//! (bytes outside strings that are not whitespace, plus every byte of every string), its root
//! type — so checking it reads no byte again.

use serde_json::Value;

use crate::error::{quoted, Error, JsonPath, Result};
use crate::json::{parse_trusted, value_of, Raw};
use crate::limits::LIMITS;

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
pub(crate) fn check(raw: Raw<'_>, path: impl Fn() -> JsonPath) -> Result<Verdict> {
    let text = raw.get();
    if !text.starts_with('{') {
        return Err(match value_of(raw) {
            Ok(v) => Error::expected("document", &path(), "a JSON Schema object", &v),
            Err(m) => Error::value("document", &path(), format!("unreadable value: {m}")),
        });
    }
    let m = raw.measure;
    if m.depth > LIMITS.max_schema_depth {
        return Err(Error::limit(
            "document",
            &path(),
            format!(
                "schema nests {} levels deep, at most {} are accepted",
                m.depth, LIMITS.max_schema_depth
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
        Some(Ok("object")) => false,
        None | Some(Ok("dict")) => true,
        Some(other) => {
            let found = match other {
                Ok(t) => quoted(t),
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
    // Read as `JSON.parse` and Python's `json` read it: a key given twice keeps its last value,
    // as a schema the reader keeps as text (no `\u` escape, no exponent) is read on first use;
    // payloads carry the schema as read, so a provider never sees the key twice.
    let mut value = parse_trusted(raw.get())
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
    use crate::json::raw_of;

    fn check_text(text: &str) -> Result<Verdict> {
        check(raw_of(text).expect("JSON"), JsonPath::root)
    }

    #[test]
    fn a_schema_too_deep_says_how_deep() {
        let deep = |n: usize| {
            format!(
                "{}{{}}{}",
                r#"{"type":"object","properties":{"a":"#.repeat(n),
                "}}".repeat(n)
            )
        };
        let e = check_text(&deep(20)).unwrap_err().to_string();
        assert!(e.contains("nests 41 levels deep"), "{e}");
        // Deeper than serde_json's recursion limit: measured all the same.
        let e = check_text(&deep(5_000)).unwrap_err().to_string();
        assert!(e.contains("nests 10001 levels deep"), "{e}");
    }

    #[test]
    fn the_root_type_decides() {
        assert_eq!(
            check_text(r#"{"type": "object"}"#).unwrap(),
            Verdict::Object
        );
        let Verdict::Normalised(v) = check_text(r#"{"type": "dict", "x": 1e2}"#).unwrap() else {
            panic!("normalised expected")
        };
        assert_eq!(v["type"], "object");
        assert!(matches!(check_text("{}").unwrap(), Verdict::Normalised(_)));
        for bad in [r#"{"type": "array"}"#, r#"{"type": ["object"]}"#] {
            let e = check_text(bad).unwrap_err();
            assert_eq!(e.path(), Some("$.type"), "{bad}: {e}");
        }
        assert_eq!(check_text("[]").unwrap_err().code(), "invalid_value");
        // What only a full parse finds is found at load.
        let e = check_text(r#"{"type": "object", "a": "\ud800"}"#).unwrap_err();
        assert!(e.to_string().contains("unreadable"), "{e}");
    }
}
