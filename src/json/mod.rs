//! JSON reading shared by every loader: text to values with the input named in errors, a
//! leading UTF-8 byte-order mark accepted, and borrowed, order-keeping views of objects
//! whose member values stay unparsed (`RawObject`) so a registry's schemas can be
//! validated without being built.

mod scan;
pub(crate) use scan::{Scanner, Str, Token, MAX_DEPTH};
use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
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
pub(crate) fn value_of(raw: &RawValue) -> Result<Value, String> {
    parse("value", raw.get()).map_err(|e| match e {
        Error::InvalidValue { path, message, .. } => format!("{message} (at {path} inside it)"),
        other => other.to_string(),
    })
}

/// A raw value that is a JSON string, as text (escape-free strings are copied without the
/// parser); `Ok(Err(v))` holds any other value, parsed, for the error message.
pub(crate) fn string_of(raw: &RawValue) -> Result<Result<String, Value>, String> {
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

/// An object's members in document order, values unparsed. A key given twice is kept in
/// [`RawObject::duplicate`] for the caller to report with its path.
#[derive(Debug, Default)]
pub(crate) struct RawObject<'a> {
    pub(crate) entries: Vec<(Cow<'a, str>, &'a RawValue)>,
    pub(crate) duplicate: Option<String>,
}

impl<'a> RawObject<'a> {
    /// The value of a key.
    pub(crate) fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.entries
            .iter()
            .find(|(k, _)| k.as_ref() == key)
            .map(|(_, v)| *v)
    }
}

/// A JSON value seen one level deep: an object with unparsed members, an array of unparsed
/// elements (or, for a tool list, of elements themselves one level deep), or anything else
/// parsed (for error messages). A registry document's `tools` member is read as a list in the
/// same pass.
#[derive(Debug)]
pub(crate) enum Node<'a> {
    Object {
        members: RawObject<'a>,
        /// The `tools` member of a document, read as a list (not in `members`).
        tools: Option<Box<Node<'a>>>,
    },
    Array(Vec<&'a RawValue>),
    Items(Vec<Node<'a>>),
    Other(Value),
}

impl<'a> Node<'a> {
    /// Reads a raw value one level deep (an escaped key may still fail, see [`value_of`]).
    pub(crate) fn of(raw: &'a RawValue) -> Result<Node<'a>, String> {
        read_at(Level::Value, raw.get()).map_err(|e| e.to_string())
    }

    /// The value itself, for "found ..." in messages.
    pub(crate) fn describe_value(&self) -> Value {
        match self {
            Node::Object { .. } => Value::Object(Default::default()),
            Node::Array(_) | Node::Items(_) => Value::Array(Vec::new()),
            Node::Other(v) => v.clone(),
        }
    }
}

/// How deep a read goes: a value one level; a list also one level into each element; a
/// document also reads its `tools` member as a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Value,
    List,
    Document,
}

fn read_at<'a>(level: Level, text: &'a str) -> serde_json::Result<Node<'a>> {
    let mut de = serde_json::Deserializer::from_str(text);
    let node = de::DeserializeSeed::deserialize(level, &mut de)?;
    de.end()?;
    Ok(node)
}

impl<'de> de::DeserializeSeed<'de> for Level {
    type Value = Node<'de>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Level {
    type Value = Node<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node<'de>, A::Error> {
        let mut members = RawObject {
            entries: Vec::with_capacity(map.size_hint().unwrap_or(6).min(64)),
            duplicate: None,
        };
        let mut tools = None;
        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
            let seen =
                members.entries.iter().any(|(e, _)| *e == k) || (k == "tools" && tools.is_some());
            if seen && members.duplicate.is_none() {
                members.duplicate = Some(k.to_string());
            }
            if self == Level::Document && k == "tools" && !seen {
                tools = Some(Box::new(map.next_value_seed(Level::List)?));
            } else {
                members.entries.push((k, map.next_value()?));
            }
        }
        Ok(Node::Object { members, tools })
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node<'de>, A::Error> {
        let capacity = seq.size_hint().unwrap_or(0).min(4096);
        if self == Level::Value {
            let mut items = Vec::with_capacity(capacity);
            while let Some(v) = seq.next_element::<&'de RawValue>()? {
                items.push(v);
            }
            return Ok(Node::Array(items));
        }
        let mut items = Vec::with_capacity(capacity);
        while let Some(v) = seq.next_element_seed(Level::Value)? {
            items.push(v);
        }
        Ok(Node::Items(items))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Node<'de>, E> {
        Ok(Node::Other(Value::Bool(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Node<'de>, E> {
        Ok(Node::Other(Value::from(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Node<'de>, E> {
        Ok(Node::Other(Value::from(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Node<'de>, E> {
        Ok(Node::Other(Value::from(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Node<'de>, E> {
        Ok(Node::Other(Value::String(v.to_string())))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Node<'de>, E> {
        Ok(Node::Other(Value::Null))
    }
}

/// Reads a registry document in one pass (syntax checked throughout): tools one level deep,
/// every other member raw.
pub(crate) fn read_document<'a>(input: &'static str, text: &'a str) -> Result<Node<'a>> {
    read_at(Level::Document, strip_bom(text)).map_err(|e| Error::invalid_json(input, &e))
}

/// Reads a tool list (an MCP `tools/list` result or an array) in one pass.
pub(crate) fn read_tool_list<'a>(input: &'static str, text: &'a str) -> Result<Node<'a>> {
    read_at(Level::List, strip_bom(text)).map_err(|e| Error::invalid_json(input, &e))
}

/// Reads a whole value one level deep.
/// The position of the first `"` or `\\` at or after `from`, eight bytes at a time (SWAR: the
/// lowest flagged byte of a word is always a true match). Scanners of JSON text use it to
/// skip string contents: the schema measure at load and the search index.
pub(crate) fn quote_or_backslash(b: &[u8], from: usize) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let flag = |v: u64, c: u8| {
        let x = v ^ (LO * u64::from(c));
        x.wrapping_sub(LO) & !x & HI
    };
    let mut i = from;
    while let Some(word) = b.get(i..i + 8).and_then(|c| <[u8; 8]>::try_from(c).ok()) {
        let v = u64::from_le_bytes(word);
        let m = flag(v, b'"') | flag(v, b'\\');
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b.get(i..)?
        .iter()
        .position(|&c| c == b'"' || c == b'\\')
        .map(|k| i + k)
}

#[cfg(test)]
fn shallow_document<'a>(input: &'static str, text: &'a str) -> Result<Node<'a>> {
    read_at(Level::Value, strip_bom(text)).map_err(|e| Error::invalid_json(input, &e))
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
    fn shallow_keeps_order_and_finds_duplicates() {
        let Node::Object { members: o, .. } =
            shallow_document("t", r#"{"b":1,"a":{"x":[1]},"b":2}"#).unwrap()
        else {
            panic!("object expected")
        };
        let keys: Vec<&str> = o.entries.iter().map(|(k, _)| k.as_ref()).collect();
        assert_eq!(keys, ["b", "a", "b"]);
        assert_eq!(o.duplicate.as_deref(), Some("b"));
        assert_eq!(o.get("a").unwrap().get(), r#"{"x":[1]}"#);
    }

    #[test]
    fn bom_is_accepted_and_syntax_errors_have_positions() {
        assert!(matches!(
            shallow_document("t", "\u{feff}[1, 2]").unwrap(),
            Node::Array(a) if a.len() == 2
        ));
        let e = shallow_document("registry", "{\"a\": [1,}").unwrap_err();
        assert_eq!(e.code(), "invalid_json");
        assert_eq!(parse("override", "\u{feff}null").unwrap(), Value::Null);
    }

    #[test]
    fn strings_are_read_with_or_without_escapes() {
        let raw = |t: &str| serde_json::from_str::<Box<RawValue>>(t).unwrap();
        assert_eq!(string_of(&raw(r#""plain""#)), Ok(Ok("plain".to_string())));
        assert_eq!(
            string_of(&raw(r#""a\"b\u00e9""#)),
            Ok(Ok("a\"bé".to_string()))
        );
        assert_eq!(string_of(&raw("3")), Ok(Err(Value::from(3))));
        // The first pass accepts a lone surrogate escape; reading the value refuses it.
        assert!(string_of(&raw(r#""\ud800""#)).is_err());
        assert!(value_of(&raw("1e999")).is_err());
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

    #[test]
    fn escaped_keys_are_unescaped() {
        let Node::Object { members: o, .. } = shallow_document("t", r#"{"a\"b":1}"#).unwrap()
        else {
            panic!("object expected")
        };
        assert_eq!(o.entries[0].0, "a\"b");
    }
}
