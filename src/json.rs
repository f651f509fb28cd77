//! JSON reading shared by every loader: text to values with the input named in errors, a
//! leading UTF-8 byte-order mark accepted, and borrowed, order-keeping views of objects
//! whose member values stay unparsed ([`RawObject`]) so a registry's schemas can be
//! validated without being built.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::error::{Error, Result};

/// Text without a leading UTF-8 byte-order mark (editors on Windows write one).
pub(crate) fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Parses JSON text given as `input` (named in the error).
pub(crate) fn parse(input: &'static str, text: &str) -> Result<Value> {
    serde_json::from_str(strip_bom(text)).map_err(|e| Error::invalid_json(input, &e))
}

/// A small raw value parsed for inspection (a name, a flag, a policy).
pub(crate) fn value_of(raw: &RawValue) -> Value {
    // The raw text was produced by the parser that validated the whole document.
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
}

/// A raw value that is a JSON string, as text (escape-free strings are copied without the
/// parser); `Err` holds any other value, parsed, for the error message.
pub(crate) fn string_of(raw: &RawValue) -> Result<String, Value> {
    let text = raw.get();
    match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(inner) if !inner.contains('\\') => Ok(inner.to_string()),
        _ => match value_of(raw) {
            Value::String(s) => Ok(s),
            other => Err(other),
        },
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
/// elements, or anything else parsed (for error messages).
#[derive(Debug)]
pub(crate) enum Shallow<'a> {
    Object(RawObject<'a>),
    Array(Vec<&'a RawValue>),
    Other(Value),
}

impl<'a> Shallow<'a> {
    /// Reads a raw value one level deep.
    pub(crate) fn of(raw: &'a RawValue) -> Shallow<'a> {
        let text = raw.get();
        // The raw text is valid JSON (checked when the document was read).
        serde_json::from_str::<Shallow<'a>>(text).unwrap_or(Shallow::Other(Value::Null))
    }

    /// The value itself, for "found ..." in messages.
    pub(crate) fn describe_value(&self) -> Value {
        match self {
            Shallow::Object(_) => Value::Object(Default::default()),
            Shallow::Array(_) => Value::Array(Vec::new()),
            Shallow::Other(v) => v.clone(),
        }
    }
}

struct ShallowVisitor;

impl<'de> Deserialize<'de> for Shallow<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ShallowVisitor)
    }
}

impl<'de> Visitor<'de> for ShallowVisitor {
    type Value = Shallow<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shallow<'de>, A::Error> {
        let mut object = RawObject::default();
        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
            let v: &'de RawValue = map.next_value()?;
            if object.duplicate.is_none() && object.entries.iter().any(|(e, _)| *e == k) {
                object.duplicate = Some(k.to_string());
            }
            object.entries.push((k, v));
        }
        Ok(Shallow::Object(object))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shallow<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element::<&'de RawValue>()? {
            items.push(v);
        }
        Ok(Shallow::Array(items))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Shallow<'de>, E> {
        Ok(Shallow::Other(Value::Bool(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Shallow<'de>, E> {
        Ok(Shallow::Other(Value::from(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Shallow<'de>, E> {
        Ok(Shallow::Other(Value::from(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Shallow<'de>, E> {
        Ok(Shallow::Other(Value::from(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Shallow<'de>, E> {
        Ok(Shallow::Other(Value::String(v.to_string())))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Shallow<'de>, E> {
        Ok(Shallow::Other(Value::Null))
    }
}

/// A list of tools as read in the same pass as its document: each element one level deep,
/// or the value that stood where the list was expected (an MCP result object, a mistake).
#[derive(Debug)]
pub(crate) enum ToolList<'a> {
    Items(Vec<Shallow<'a>>),
    Other(Shallow<'a>),
}

impl<'de> Deserialize<'de> for ToolList<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ListVisitor;
        impl<'de> Visitor<'de> for ListVisitor {
            type Value = ToolList<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of tools")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ToolList<'de>, A::Error> {
                ListVisitorFor.visit_seq(seq)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ToolList<'de>, A::Error> {
                ShallowVisitor.visit_map(map).map(ToolList::Other)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<ToolList<'de>, E> {
                Ok(ToolList::Other(Shallow::Other(Value::Bool(v))))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ToolList<'de>, E> {
                Ok(ToolList::Other(Shallow::Other(Value::from(v))))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ToolList<'de>, E> {
                Ok(ToolList::Other(Shallow::Other(Value::from(v))))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<ToolList<'de>, E> {
                Ok(ToolList::Other(Shallow::Other(Value::from(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ToolList<'de>, E> {
                Ok(ToolList::Other(Shallow::Other(Value::String(
                    v.to_string(),
                ))))
            }
            fn visit_unit<E: de::Error>(self) -> Result<ToolList<'de>, E> {
                Ok(ToolList::Other(Shallow::Other(Value::Null)))
            }
        }
        deserializer.deserialize_any(ListVisitor)
    }
}

/// A registry document read in one pass: the `tools` member (or the bare array) read one level
/// into each tool, every other member left as raw text.
#[derive(Debug)]
pub(crate) enum Document<'a> {
    Object {
        tools: Option<ToolList<'a>>,
        members: RawObject<'a>,
    },
    Array(Vec<Shallow<'a>>),
    Other(Value),
}

impl<'de> Deserialize<'de> for Document<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DocVisitor;
        impl<'de> Visitor<'de> for DocVisitor {
            type Value = Document<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a registry document")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Document<'de>, A::Error> {
                let mut members = RawObject::default();
                let mut tools = None;
                while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
                    let seen = members.entries.iter().any(|(e, _)| *e == k)
                        || (k == "tools" && tools.is_some());
                    if seen && members.duplicate.is_none() {
                        members.duplicate = Some(k.to_string());
                    }
                    if k == "tools" && !seen {
                        tools = Some(map.next_value::<ToolList<'de>>()?);
                    } else {
                        let v: &'de RawValue = map.next_value()?;
                        members.entries.push((k, v));
                    }
                }
                Ok(Document::Object { tools, members })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Document<'de>, A::Error> {
                match ListVisitorFor.visit_seq(seq)? {
                    ToolList::Items(items) => Ok(Document::Array(items)),
                    ToolList::Other(_) => Ok(Document::Other(Value::Null)),
                }
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Document<'de>, E> {
                Ok(Document::Other(Value::Bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Document<'de>, E> {
                Ok(Document::Other(Value::from(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Document<'de>, E> {
                Ok(Document::Other(Value::from(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Document<'de>, E> {
                Ok(Document::Other(Value::from(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Document<'de>, E> {
                Ok(Document::Other(Value::String(v.to_string())))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Document<'de>, E> {
                Ok(Document::Other(Value::Null))
            }
        }
        deserializer.deserialize_any(DocVisitor)
    }
}

/// The sequence half of [`ToolList`]'s visitor, shared with [`Document`].
struct ListVisitorFor;

impl ListVisitorFor {
    fn visit_seq<'de, A: SeqAccess<'de>>(self, mut seq: A) -> Result<ToolList<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element::<Shallow<'de>>()? {
            items.push(v);
        }
        Ok(ToolList::Items(items))
    }
}

/// Reads a registry document in one pass, validating all of its syntax on the way.
pub(crate) fn read_document<'a>(input: &'static str, text: &'a str) -> Result<Document<'a>> {
    serde_json::from_str::<Document<'a>>(strip_bom(text))
        .map_err(|e| Error::invalid_json(input, &e))
}

/// Reads a tool list (an MCP `tools/list` result or an array) in one pass.
pub(crate) fn read_tool_list<'a>(input: &'static str, text: &'a str) -> Result<ToolList<'a>> {
    serde_json::from_str::<ToolList<'a>>(strip_bom(text))
        .map_err(|e| Error::invalid_json(input, &e))
}

/// Reads a whole value one level deep, validating all of its syntax on the way.
#[cfg(test)]
fn shallow_document<'a>(input: &'static str, text: &'a str) -> Result<Shallow<'a>> {
    serde_json::from_str::<Shallow<'a>>(strip_bom(text)).map_err(|e| Error::invalid_json(input, &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_keeps_order_and_finds_duplicates() {
        let Shallow::Object(o) = shallow_document("t", r#"{"b":1,"a":{"x":[1]},"b":2}"#).unwrap()
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
            Shallow::Array(a) if a.len() == 2
        ));
        let e = shallow_document("registry", "{\"a\": [1,}").unwrap_err();
        assert_eq!(e.code(), "invalid_json");
        assert_eq!(parse("override", "\u{feff}null").unwrap(), Value::Null);
    }

    #[test]
    fn strings_are_read_with_or_without_escapes() {
        let raw = |t: &str| serde_json::from_str::<Box<RawValue>>(t).unwrap();
        assert_eq!(string_of(&raw(r#""plain""#)), Ok("plain".to_string()));
        assert_eq!(string_of(&raw(r#""a\"b\u00e9""#)), Ok("a\"bé".to_string()));
        assert_eq!(string_of(&raw("3")), Err(Value::from(3)));
    }

    #[test]
    fn escaped_keys_are_unescaped() {
        let Shallow::Object(o) = shallow_document("t", r#"{"a\"b":1}"#).unwrap() else {
            panic!("object expected")
        };
        assert_eq!(o.entries[0].0, "a\"b");
    }
}
