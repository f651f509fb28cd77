//! A registry document seen as far down as loading needs: the document's members, its tool
//! list, each tool's members ([`Node`], [`RawObject`]); below them values stay text
//! ([`Raw`], measured by the reader in `read.rs` in the same pass).

use std::borrow::Cow;

use serde_json::Value;

use super::read::{Failure, Raw, Reader, Step};
use super::value::{decode_string, value_of_trusted};
use crate::error::Result;

/// An object's members in document order, values unread. A key given twice is kept in
/// [`RawObject::duplicate`] for the caller to report with its path.
#[derive(Debug, Default)]
pub(crate) struct RawObject<'a> {
    pub(crate) entries: Vec<(Cow<'a, str>, Raw<'a>)>,
    pub(crate) duplicate: Option<String>,
}

impl<'a> RawObject<'a> {
    /// The value of a key.
    pub(crate) fn get(&self, key: &str) -> Option<Raw<'a>> {
        self.entries
            .iter()
            .find(|(k, _)| k.as_ref() == key)
            .map(|(_, v)| *v)
    }
}

/// A JSON value seen one level deep: an object with unread members, an array of unread
/// elements (or, for a tool list, of elements themselves one level deep), or anything else
/// parsed (for error messages). The `tools` member of a document or of a `tools/list` result
/// is read as a tool list in the same pass.
#[derive(Debug)]
pub(crate) enum Node<'a> {
    Object {
        members: RawObject<'a>,
        /// The `tools` member of a document or `tools/list` result, read as a list (not in
        /// `members`).
        tools: Option<Box<Node<'a>>>,
    },
    Array(Vec<Raw<'a>>),
    Items(Vec<Node<'a>>),
    Other(Value),
}

impl<'a> Node<'a> {
    /// Reads a kept value one level deep.
    pub(crate) fn of(raw: Raw<'a>) -> std::result::Result<Node<'a>, String> {
        read("value", raw.get(), Level::Value).map_err(|e| e.to_string())
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

/// Reads a registry document in one pass: tools one level deep, every other member kept.
pub(crate) fn read_document<'a>(input: &'static str, text: &'a str) -> Result<Node<'a>> {
    read(input, super::strip_bom(text), Level::Document)
}

/// Reads a tool list (an MCP `tools/list` result or an array) in one pass.
pub(crate) fn read_tool_list<'a>(input: &'static str, text: &'a str) -> Result<Node<'a>> {
    read(input, super::strip_bom(text), Level::List)
}

fn read<'a>(input: &'static str, text: &'a str, level: Level) -> Result<Node<'a>> {
    let mut reader = Reader::new(text);
    reader
        .node(level)
        .and_then(|node| reader.end().map(|()| node))
        .map_err(|failure| failure.into_error(input, text))
}

impl<'a> Reader<'a> {
    /// One value, read `level` deep.
    fn node(&mut self, level: Level) -> Step<Node<'a>> {
        self.ws();
        match self.b.get(self.i) {
            Some(b'{') => self.object(level),
            Some(b'[') => self.array(level),
            _ => {
                let raw = self.raw()?;
                let start = self.i - raw.get().len();
                value_of_trusted(raw.get())
                    .map(Node::Other)
                    .map_err(|failure| Failure {
                        at: start + failure.at,
                        message: failure.message,
                    })
            }
        }
    }

    fn object(&mut self, level: Level) -> Step<Node<'a>> {
        self.i += 1;
        let mut members = RawObject::default();
        let mut tools = None;
        self.ws();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Ok(Node::Object { members, tools });
        }
        loop {
            let key = self.key()?;
            let key: Cow<'a, str> = if key.escaped {
                Cow::Owned(decode_string(self.text, &key)?)
            } else {
                Cow::Borrowed(&self.text[key.start..key.end])
            };
            let seen = members.entries.iter().any(|(e, _)| *e == key)
                || (key == "tools" && tools.is_some());
            if seen && members.duplicate.is_none() {
                members.duplicate = Some(key.to_string());
            }
            if level != Level::Value && key == "tools" && !seen {
                tools = Some(Box::new(self.node(Level::List)?));
            } else {
                members.entries.push((key, self.raw()?));
            }
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Node::Object { members, tools });
                }
                _ => return self.fail(self.i, "expected ',' or '}' after a member"),
            }
        }
    }

    fn array(&mut self, level: Level) -> Step<Node<'a>> {
        self.i += 1;
        let (mut raws, mut items) = (Vec::new(), Vec::new());
        self.ws();
        if self.b.get(self.i) != Some(&b']') {
            loop {
                if level == Level::Value {
                    raws.push(self.raw()?);
                } else {
                    items.push(self.node(Level::Value)?);
                }
                self.ws();
                match self.b.get(self.i) {
                    Some(b',') => self.i += 1,
                    Some(b']') => break,
                    _ => return self.fail(self.i, "expected ',' or ']' after an element"),
                }
            }
        }
        self.i += 1;
        Ok(match level {
            Level::Value => Node::Array(raws),
            Level::List | Level::Document => Node::Items(items),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    fn shallow(text: &str) -> Result<Node<'_>> {
        read("t", super::super::strip_bom(text), Level::Value)
    }

    #[test]
    fn shallow_keeps_order_and_finds_duplicates() {
        let Node::Object { members: o, .. } = shallow(r#"{"b":1,"a":{"x":[1]},"b":2}"#).unwrap()
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
        assert!(matches!(shallow("\u{feff}[1, 2]").unwrap(), Node::Array(a) if a.len() == 2));
        let e = shallow("{\"a\": [1,}").unwrap_err();
        assert_eq!(e.code(), "invalid_json");
        let e = read_document("registry", "{\n  \"a\": [1 2]}").unwrap_err();
        let Error::InvalidJson { line, column, .. } = e else {
            panic!("{e}")
        };
        assert_eq!((line, column), (2, 11));
    }

    #[test]
    fn escaped_keys_are_unescaped() {
        let Node::Object { members: o, .. } = shallow(r#"{"a\"b":1}"#).unwrap() else {
            panic!("object expected")
        };
        assert_eq!(o.entries[0].0, "a\"b");
        // A lone surrogate in a key read as a key is refused there.
        assert_eq!(
            shallow(r#"{"\ud800":1}"#).unwrap_err().code(),
            "invalid_json"
        );
    }

    #[test]
    fn a_documents_and_a_tools_list_results_tools_are_read_as_lists() {
        let Node::Object {
            tools: Some(list),
            members,
        } = read_tool_list("t", r#"{"tools": [{"name": "a"}], "nextCursor": null}"#).unwrap()
        else {
            panic!("object expected")
        };
        assert!(matches!(*list, Node::Items(ref items) if items.len() == 1));
        assert_eq!(members.entries.len(), 1);
    }
}
