//! Validating a tool's JSON Schema without building it: one pass over its text measures the
//! nesting depth and the compact size (bytes outside strings that are not whitespace, plus
//! every byte of every string) and checks that the root is an object.

use serde_json::value::RawValue;

use crate::error::{Error, JsonPath, Result};
use crate::json::value_of;
use crate::limits::LIMITS;

/// Depth and compact size of a valid JSON text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Measure {
    pub(crate) depth: usize,
    pub(crate) bytes: usize,
}

/// Measures a JSON text the parser has already validated.
pub(crate) fn measure(text: &str) -> Measure {
    let (mut depth, mut max_depth, mut bytes) = (0usize, 0usize, 0usize);
    let mut in_string = false;
    let mut escaped = false;
    for &b in text.as_bytes() {
        if in_string {
            bytes += 1;
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                max_depth = max_depth.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        bytes += 1;
    }
    Measure {
        depth: max_depth,
        bytes,
    }
}

/// Checks a tool's schema: a JSON object within the size and depth limits.
pub(crate) fn check(raw: &RawValue, path: &JsonPath) -> Result<()> {
    let text = raw.get();
    if !text.starts_with('{') {
        return Err(Error::expected(
            "registry",
            path,
            "a JSON Schema object",
            &value_of(raw),
        ));
    }
    let m = measure(text);
    if m.depth > LIMITS.max_schema_depth {
        return Err(Error::limit(
            "registry",
            path,
            format!(
                "schema nests {} levels deep, at most {} are accepted",
                m.depth, LIMITS.max_schema_depth
            ),
        ));
    }
    if m.bytes > LIMITS.max_schema_bytes {
        return Err(Error::limit(
            "registry",
            path,
            format!(
                "schema of {} bytes, at most {} are accepted",
                m.bytes, LIMITS.max_schema_bytes
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
    }
}
