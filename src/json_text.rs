//! Compact JSON text of values, byte for byte what `serde_json::to_string` writes, without
//! going through `Display for Value`: that impl adapts a formatter into an `io::Write` whose
//! error is `io::Error::new(Other, "fmt error")`, which links a boxed string error and its
//! `Debug` (the standard library's `escape_debug` and Unicode tables) into the wasm module
//! (about 1.2 KB gzip). Writing into a `String` cannot fail, so nothing here returns an error.
//! A leaf: `error.rs` writes the keys of JSON paths with it.

use serde_json::Value;

/// The compact JSON text of a value (object members in the map's order: sorted by key, as
/// serde_json keeps them without `preserve_order`).
pub(crate) fn text(value: &Value) -> String {
    let mut out = String::new();
    write(value, &mut out);
    out
}

/// A string as a JSON string literal.
pub(crate) fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    write_string(text, &mut out);
    out
}

pub(crate) fn write(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        // serde_json's `Display for Number` is its writer's number (itoa, shortest float).
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write(item, out);
            }
            out.push('}');
        }
    }
}

/// serde_json's escapes: `"` and `\`, the five short forms, other controls as `\u00xx`
/// (lowercase hex); everything else, DEL and non-ASCII included, as is.
pub(crate) fn write_string(text: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        // `i` is at an ASCII byte, so both cuts fall on character boundaries.
        out.push_str(&text[start..i]);
        if escape.is_empty() {
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(&text[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn reference(value: &Value) -> String {
        serde_json::to_string(value).unwrap()
    }

    #[test]
    fn writes_what_serde_json_writes() {
        let values = [
            json!(null),
            json!([
                true,
                false,
                0,
                -1,
                u64::MAX,
                i64::MIN,
                1.5,
                -0.0,
                1e300,
                5e-324,
                0.1
            ]),
            json!({"b": {"": []}, "a": "x\"y\\z\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}é😀\u{2028}"}),
            json!({}),
            json!([[], {}, [[{}]]]),
        ];
        for value in values {
            assert_eq!(text(&value), reference(&value));
        }
        assert_eq!(string("a\u{1}b"), "\"a\\u0001b\"");
    }

    fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::btree_map(any::<String>(), inner, 0..8)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn any_value_is_written_as_serde_json_writes_it(value in any_value()) {
            prop_assert_eq!(text(&value), reference(&value));
        }
    }
}
