//! JSON reading shared by every loader: text to values with the input named in errors, a
//! leading UTF-8 byte-order mark accepted, and the one-pass reader of registry documents
//! (`read.rs`: order-keeping views of objects whose member values stay text, so a registry's
//! schemas are checked without being built).

mod node;
mod read;
mod scan;
pub(crate) use node::{read_document, read_tool_list, Node, RawObject};
#[cfg(test)]
pub(crate) use read::raw_of;
pub(crate) use read::Raw;
pub(crate) use scan::{Scanner, Str, Token};
use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::error::{Error, JsonPath, Result};

/// Text without a leading UTF-8 byte-order mark (editors on Windows write one).
pub(crate) fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Parses JSON text given as `input` (named in the error), as every input of the library is
/// read: a leading byte-order mark is accepted, and a key given twice in one object is an
/// error with its path (keeping either copy silently could turn a deny into an allow).
/// Public (`tool_intent::json::parse`) for bindings that receive JSON text.
pub fn parse(input: &'static str, text: &str) -> Result<Value> {
    let duplicate = Cell::new(None);
    let mut de = serde_json::Deserializer::from_str(strip_bom(text));
    let seed = Strict {
        path: Some(JsonPath::root()),
        duplicate: &duplicate,
    };
    let parsed = de::DeserializeSeed::deserialize(seed, &mut de).and_then(|v| de.end().map(|()| v));
    if let Some(path) = duplicate.take() {
        return Err(Error::value(input, &path, "key given twice"));
    }
    parsed.map_err(|e| match lone_surrogate(text, &e) {
        Some(escape) => Error::InvalidJson {
            input,
            line: e.line(),
            column: e.column(),
            message: format!(
                "{escape} is half of a UTF-16 surrogate pair without its other half, not a character (JSON text must be Unicode)"
            ),
        },
        None => Error::invalid_json(input, &e),
    })
}

/// The `\uD800`-style escape of a lone surrogate at a parse error, if that is what stopped it
/// (serde_json says only "unexpected end of hex escape" or "lone leading surrogate").
fn lone_surrogate(text: &str, e: &serde_json::Error) -> Option<String> {
    if e.classify() != serde_json::error::Category::Syntax {
        return None;
    }
    let line_start = text
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    let end = (line_start + e.column()).min(text.len());
    let window = text.get(end.saturating_sub(14)..end).unwrap_or("");
    // The escape at fault is the last surrogate escape before the error (a high half may be
    // followed by an escape that is not its low half).
    window
        .match_indices("\\u")
        .filter_map(|(at, _)| window.get(at + 2..at + 6))
        .filter(|hex| u16::from_str_radix(hex, 16).is_ok_and(|u| (0xD800..=0xDFFF).contains(&u)))
        .last()
        .map(|hex| format!("\\u{hex}"))
}

/// Parses JSON text that is known to be valid (a schema the loader checked), keeping the
/// last of keys given twice as `serde_json::Value` does. One visitor for every value the
/// crate builds keeps the wasm module small.
pub(crate) fn parse_trusted(text: &str) -> serde_json::Result<Value> {
    let duplicate = Cell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let seed = Strict {
        path: None,
        duplicate: &duplicate,
    };
    let value = de::DeserializeSeed::deserialize(seed, &mut de)?;
    de.end()?;
    Ok(value)
}

/// A value built like `serde_json::Value`; with a path, the first key given twice is noted
/// in `duplicate` (the parse then stops: the error is raised by [`parse`]).
struct Strict<'c> {
    path: Option<JsonPath>,
    duplicate: &'c Cell<Option<JsonPath>>,
}

impl<'de> de::DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
            let path = match &self.path {
                Some(p) if out.contains_key(k.as_ref()) => {
                    self.duplicate.set(Some(p.key(&k)));
                    return Err(de::Error::custom("key given twice"));
                }
                Some(p) => Some(p.key(&k)),
                None => None,
            };
            let v = map.next_value_seed(Strict {
                path,
                duplicate: self.duplicate,
            })?;
            out.insert(k.into_owned(), v);
        }
        Ok(Value::Object(out))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Strict {
            path: self.path.as_ref().map(|p| p.index(out.len())),
            duplicate: self.duplicate,
        })? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
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

/// An object key, borrowed from the text when it holds no escapes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Key<'a>(pub(crate) Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
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
