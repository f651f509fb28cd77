//! JSON reading shared by every loader: text to values with the input named in errors, a
//! leading UTF-8 byte-order mark accepted, and the one-pass reader of registry documents
//! (`read.rs`: order-keeping views of objects whose member values stay text, so a registry's
//! schemas are checked without being built).

mod node;
mod number;
mod read;
mod scan;
mod value;
pub(crate) use node::{read_document, read_tool_list, Node, RawObject};
#[cfg(test)]
pub(crate) use read::raw_of;
pub(crate) use read::Raw;
pub(crate) use scan::{Scanner, Str, Token};
use serde_json::Value;

use crate::error::{Error, Result};
use value::Refusal;

/// Keys of the library's JSON output whose values are data, not field names: a tool_search's
/// `providerOutput` (a provider's wire format) and a conversation record's `known` (tool
/// names). A binding that renames keys for its language's idiom (Python's snake_case) leaves
/// everything under these as it is.
pub const DATA_KEYS: [&str; 2] = ["providerOutput", "known"];

/// Text without a leading UTF-8 byte-order mark (editors on Windows write one).
pub(crate) fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Parses JSON text given as `input` (named in the error), as every input of the library is
/// read: a leading byte-order mark is accepted, and a key given twice in one object is an
/// error with its path (keeping either copy silently could turn a deny into an allow).
/// Public (`tool_intent::json::parse`) for bindings that receive JSON text.
pub fn parse(input: &'static str, text: &str) -> Result<Value> {
    let text = strip_bom(text);
    value::value_of_text(text).map_err(|refusal| match refusal {
        Refusal::Syntax(failure) => failure.into_error(input, text),
        Refusal::Duplicate { path } => Error::value(input, &path, "key given twice"),
    })
}

/// Parses JSON text that is known to be valid or read as providers read it (a tool's schema, a
/// payload the crate rendered), keeping the last of keys given twice as `JSON.parse` does. The
/// error is the reason, for the caller to report as its own defect or input error.
pub(crate) fn parse_trusted(text: &str) -> std::result::Result<Value, String> {
    value::value_of_trusted(text).map_err(|failure| failure.into_error("value", text).to_string())
}

/// A raw value parsed (a name, a flag, a policy). The document's first pass checked its
/// syntax but not what only a full parse finds (a lone surrogate in a `\\u` escape, a number
/// out of range, a key given twice), so this can fail; the error is a message.
pub(crate) fn value_of(raw: Raw<'_>) -> Result<Value, String> {
    parse("value", raw.get()).map_err(|e| match e {
        Error::InvalidValue { path, message, .. } => format!("{message} (at {path} inside it)"),
        other => other.to_string(),
    })
}

/// A raw value that is a JSON string, as text (escape-free strings are copied without the
/// parser); `Ok(Err(v))` holds any other value, parsed, for the error message.
pub(crate) fn string_of(raw: Raw<'_>) -> Result<Result<String, Value>, String> {
    let text = raw.get();
    match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(inner) if !inner.contains('\\') => Ok(Ok(inner.to_string())),
        _ => Ok(match value_of(raw)? {
            Value::String(s) => Ok(s),
            other => Err(other),
        }),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_lone_surrogate_is_named() {
        for text in [
            r#"{"disabled":["\ud800"]}"#,
            r#"["\uDC00x"]"#,
            r#"["\ud800\u0041"]"#,
        ] {
            let e = super::parse("override", text).unwrap_err();
            assert_eq!(e.code(), "invalid_json");
            assert!(e.to_string().contains("surrogate pair"), "{text}: {e}");
        }
        // Other escapes keep serde_json's words.
        let e = super::parse("override", r#"["\u12"]"#).unwrap_err();
        assert!(!e.to_string().contains("surrogate"), "{e}");
        assert!(super::parse("override", r#"["\ud83d\ude00"]"#).is_ok());
    }

    use super::*;

    #[test]
    fn json_errors_report_line_and_column() {
        let e = parse("override", "{\n  \"a\": }").unwrap_err();
        assert_eq!(e.code(), "invalid_json");
        let Error::InvalidJson { line, column, .. } = &e else {
            panic!("{e:?}");
        };
        assert_eq!((*line, *column), (2, 8), "{e}");
        assert!(
            e.to_string()
                .starts_with("override is not valid JSON (line 2, column 8): "),
            "{e}"
        );
    }

    #[test]
    fn a_bom_is_accepted() {
        assert_eq!(parse("override", "\u{feff}null").unwrap(), Value::Null);
    }

    #[test]
    fn strings_are_read_with_or_without_escapes() {
        let raw = |t: &'static str| raw_of(t).unwrap();
        assert_eq!(string_of(raw(r#""plain""#)), Ok(Ok("plain".to_string())));
        assert_eq!(
            string_of(raw(r#""a\"b\u00e9""#)),
            Ok(Ok("a\"bé".to_string()))
        );
        assert_eq!(string_of(raw("3")), Ok(Err(Value::from(3))));
        // The reader accepts a lone surrogate escape; reading the value refuses it.
        assert!(string_of(raw(r#""\ud800""#)).is_err());
        assert!(value_of(raw("1e999")).is_err());
    }

    #[test]
    fn a_key_given_twice_is_an_error_with_its_path() {
        let e = parse("override", r#"{"a": [{"deny": ["shell"], "deny": []}]}"#).unwrap_err();
        assert_eq!((e.code(), e.path()), ("invalid_value", Some("$.a[0].deny")));
        assert!(e.to_string().contains("given twice"), "{e}");
        assert_eq!(
            parse("x", r#"{"a": 1, "b": {"a": 2}}"#).unwrap()["b"]["a"],
            2
        );
        assert_eq!(parse("x", "[1, 2").unwrap_err().code(), "invalid_json");
    }
}
