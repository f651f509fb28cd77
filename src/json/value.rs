//! JSON text to `serde_json::Value`, by the reader's own syntax rules (`read.rs`): the crate's
//! one parser. serde_json stays the value type and the writer, but its deserializer is not
//! linked: a second parser (with its correctly rounded float reader and its error words) cost
//! the wasm module about 16 KB gzip, and two parsers could disagree on what is JSON.
//!
//! What this adds to the reader's syntax check is what only building a value finds: a `\u`
//! escape that is half a UTF-16 surrogate pair (RFC 8259 §8.2: such text is not Unicode), a
//! number too large for an `f64`, nesting deeper than [`MAX_DEPTH`], and, when asked, a key
//! given twice in one object. Numbers are read as serde_json reads them (integers as `u64` or
//! `i64`, `-0` and the rest as `f64`, correctly rounded by the standard library's parser),
//! which `tests` checks against serde_json itself.

use serde_json::{Map, Number, Value};

use super::number::parse_f64;
use super::read::{Failure, Reader, Span};
use crate::error::JsonPath;

/// Containers that may nest: 127, serde_json's recursion limit (128, counting the root's
/// level). Deeper text is refused rather than risking the stack (in wasm a stack overflow
/// kills the module).
const MAX_DEPTH: usize = 127;

/// Why text is not a value.
pub(super) enum Refusal {
    /// Not JSON, or JSON no value can hold (a lone surrogate, a number out of range).
    Syntax(Failure),
    /// A key given twice in one object, at `path` (only when keys are checked).
    Duplicate { path: JsonPath },
}

/// A step of the path to a duplicate, innermost first while it unwinds.
enum Step {
    Key(String),
    Index(usize),
}

enum Stop {
    Syntax(Failure),
    Duplicate(Vec<Step>),
}

impl From<Failure> for Stop {
    fn from(failure: Failure) -> Self {
        Stop::Syntax(failure)
    }
}

impl Stop {
    /// The stop seen from the container holding the value at `step`.
    fn within(self, step: impl FnOnce() -> Step) -> Stop {
        match self {
            Stop::Duplicate(mut steps) => {
                steps.push(step());
                Stop::Duplicate(steps)
            }
            syntax => syntax,
        }
    }
}

/// The value of `text` (one JSON value, whitespace around it); a key given twice is refused
/// with its path.
pub(super) fn value_of_text(text: &str) -> Result<Value, Refusal> {
    build(text, true).map_err(|stop| match stop {
        Stop::Syntax(failure) => Refusal::Syntax(failure),
        Stop::Duplicate(steps) => Refusal::Duplicate {
            path: steps
                .iter()
                .rev()
                .fold(JsonPath::root(), |path, step| match step {
                    Step::Key(key) => path.key(key),
                    Step::Index(index) => path.index(*index),
                }),
        },
    })
}

/// The value of `text`, keeping the last of keys given twice (as serde_json keeps it): for
/// text the crate checked or wrote itself.
pub(super) fn value_of_trusted(text: &str) -> Result<Value, Failure> {
    build(text, false).map_err(|stop| match stop {
        Stop::Syntax(failure) => failure,
        // Keys are not checked here, so no duplicate stops the build; still a reason.
        Stop::Duplicate(_) => Failure {
            at: 0,
            message: "key given twice".into(),
        },
    })
}

fn build(text: &str, check_keys: bool) -> Result<Value, Stop> {
    let mut builder = Builder {
        reader: Reader::new(text),
        check_keys,
    };
    let value = builder.value(0)?;
    builder.reader.end()?;
    Ok(value)
}

/// The decoded contents of a string the reader has checked (`span` inside `text`).
pub(super) fn decode_string(text: &str, span: &Span) -> Result<String, Failure> {
    let raw = &text[span.start..span.end];
    if !span.escaped {
        return Ok(raw.to_string());
    }
    // One pass over the bytes: a `str::find` per escape restarts its search each time, and
    // JSON text inside a string (a stored tools array) has an escape every few bytes. A
    // backslash and every escape are ASCII, so each slice below starts and ends on a
    // character boundary.
    let mut out = String::with_capacity(raw.len());
    let mut copied = 0;
    let mut at = 0;
    while let Some(&byte) = raw.as_bytes().get(at) {
        if byte != b'\\' {
            at += 1;
            continue;
        }
        out.push_str(&raw[copied..at]);
        let escape = &raw[at..];
        let failure = |message: String| Failure {
            at: span.start + at,
            message: message.into(),
        };
        let consumed = match escape.as_bytes().get(1) {
            Some(b'u') => {
                let (c, len) = unicode_escape(escape).map_err(failure)?;
                out.push(c);
                len
            }
            Some(&c @ (b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't')) => {
                out.push(match c {
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    other => char::from(other),
                });
                2
            }
            // The reader refuses these before a span is made; refused here too, not skipped.
            _ => return Err(failure("invalid escape in a string".to_string())),
        };
        at += consumed;
        copied = at;
    }
    out.push_str(&raw[copied..]);
    Ok(out)
}

/// The character of a `\uXXXX` escape (with its low half when it is a surrogate pair's high
/// half) and the bytes it took, or why it is no character.
fn unicode_escape(escape: &str) -> Result<(char, usize), String> {
    let unit = |at: usize| {
        escape
            .get(at..at + 4)
            .filter(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|hex| u16::from_str_radix(hex, 16).ok().map(|u| (hex, u)))
    };
    let Some((hex, high)) = unit(2) else {
        return Err("a \\u escape needs four hex digits".to_string());
    };
    if let Some(c) = char::from_u32(u32::from(high)) {
        return Ok((c, 6));
    }
    // A surrogate: only a high half followed by an escaped low half makes a character.
    let low = match escape.get(6..8) {
        Some("\\u") => unit(8).map(|(_, u)| u),
        _ => None,
    };
    let pair = match low {
        Some(low @ 0xDC00..=0xDFFF) if (0xD800..=0xDBFF).contains(&high) => {
            char::from_u32(0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(low) - 0xDC00))
        }
        _ => None,
    };
    pair.map(|c| (c, 12)).ok_or_else(|| {
        format!(
            "\\u{hex} is half of a UTF-16 surrogate pair without its other half, not a character (JSON text must be Unicode)"
        )
    })
}

/// A number the reader checked, as serde_json reads it; `None` when out of an `f64`'s range.
fn number(text: &str) -> Option<Value> {
    if !text.bytes().any(|c| matches!(c, b'.' | b'e' | b'E')) {
        if text.starts_with('-') {
            // `-0` is a float in serde_json (an integer cannot hold its sign).
            if let Ok(n @ (i64::MIN..=-1)) = text.parse::<i64>() {
                return Some(Value::from(n));
            }
        } else if let Ok(n) = text.parse::<u64>() {
            return Some(Value::from(n));
        }
    }
    parse_f64(text)
        .and_then(Number::from_f64)
        .map(Value::Number)
}

struct Builder<'a> {
    reader: Reader<'a>,
    check_keys: bool,
}

impl Builder<'_> {
    fn value(&mut self, depth: usize) -> Result<Value, Stop> {
        let r = &mut self.reader;
        r.ws();
        let at = r.i;
        match r.b.get(at) {
            Some(&c @ (b'{' | b'[')) => {
                if depth == MAX_DEPTH {
                    return Err(Stop::from(
                        r.failure(at, "nested too deeply (over 127 levels)"),
                    ));
                }
                r.i += 1;
                if c == b'{' {
                    self.object(depth + 1)
                } else {
                    self.array(depth + 1)
                }
            }
            Some(b'"') => {
                let span = r.string()?;
                Ok(Value::String(decode_string(r.text, &span)?))
            }
            Some(b'-' | b'0'..=b'9') => {
                r.number()?;
                match number(&r.text[at..r.i]) {
                    Some(value) => Ok(value),
                    None => Err(Stop::from(r.failure(at, "number out of range"))),
                }
            }
            Some(b't') => r
                .literal(b"true")
                .map(|()| Value::Bool(true))
                .map_err(Stop::from),
            Some(b'f') => r
                .literal(b"false")
                .map(|()| Value::Bool(false))
                .map_err(Stop::from),
            Some(_) => r.literal(b"null").map(|()| Value::Null).map_err(Stop::from),
            None => Err(Stop::from(
                r.failure(at, "the text ends where a value was expected"),
            )),
        }
    }

    /// The members of an object whose `{` was read.
    fn object(&mut self, depth: usize) -> Result<Value, Stop> {
        let mut map = Map::new();
        if self.closes(b'}') {
            return Ok(Value::Object(map));
        }
        loop {
            let span = self.reader.key()?;
            let key = decode_string(self.reader.text, &span)?;
            if self.check_keys && map.contains_key(&key) {
                return Err(Stop::Duplicate(vec![Step::Key(key)]));
            }
            let value = match self.value(depth) {
                Ok(value) => value,
                Err(stop) => return Err(stop.within(|| Step::Key(key))),
            };
            map.insert(key, value);
            if self.next_or_close(b'}', "expected ',' or '}' after a member")? {
                return Ok(Value::Object(map));
            }
        }
    }

    /// The elements of an array whose `[` was read.
    fn array(&mut self, depth: usize) -> Result<Value, Stop> {
        let mut items = Vec::new();
        if self.closes(b']') {
            return Ok(Value::Array(items));
        }
        loop {
            match self.value(depth) {
                Ok(value) => items.push(value),
                Err(stop) => {
                    let index = items.len();
                    return Err(stop.within(|| Step::Index(index)));
                }
            }
            if self.next_or_close(b']', "expected ',' or ']' after an element")? {
                return Ok(Value::Array(items));
            }
        }
    }

    /// Whether the container ends here, empty (its `close` is read if so).
    fn closes(&mut self, close: u8) -> bool {
        let r = &mut self.reader;
        r.ws();
        let closed = r.b.get(r.i) == Some(&close);
        r.i += usize::from(closed);
        closed
    }

    /// After a member or element: `,` (false: another follows) or `close` (true: the
    /// container ended), anything else refused with `message`.
    fn next_or_close(&mut self, close: u8, message: &'static str) -> Result<bool, Stop> {
        let r = &mut self.reader;
        r.ws();
        match r.b.get(r.i) {
            Some(b',') => {
                r.i += 1;
                Ok(false)
            }
            Some(&c) if c == close => {
                r.i += 1;
                Ok(true)
            }
            _ => Err(Stop::from(r.failure(r.i, message))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Option<Value> {
        value_of_trusted(text).ok()
    }

    /// serde_json (with `float_roundtrip`, as a dev-dependency) is the reference: the same
    /// texts are values, and the same values.
    fn serde(text: &str) -> Option<Value> {
        serde_json::from_str::<Value>(text).ok()
    }

    #[test]
    fn numbers_read_as_serde_json_reads_them() {
        for text in [
            "0",
            "-0",
            "1",
            "-1",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "0.1",
            "-0.0",
            "1e5",
            "1E-5",
            "2.5e+3",
            "1e308",
            "1.7976931348623157e308",
            "1e-400",
            "4.9e-324",
            "123456789012345678901234567890",
            "0.30000000000000004",
            "9007199254740993",
            "2.2250738585072011e-308",
        ] {
            assert_eq!(parsed(text), serde(text), "{text}");
            let v = parsed(text).unwrap();
            assert_eq!(v.to_string(), serde(text).unwrap().to_string(), "{text}");
        }
        for text in ["1e309", "-1e400", "1.8e308"] {
            assert!(parsed(text).is_none() && serde(text).is_none(), "{text}");
        }
    }

    #[test]
    fn strings_decode_every_escape() {
        let text = r#""a\"b\\c\/d\b\f\n\r\t\u00e9\u20AC\ud83d\ude00\u0000""#;
        assert_eq!(parsed(text), serde(text));
        for lone in [
            r#""\ud800""#,
            r#""\udc00""#,
            r#""\ud800\u0041""#,
            r#""\ud800\ud800""#,
            r#""\ud800x""#,
        ] {
            assert!(parsed(lone).is_none() && serde(lone).is_none(), "{lone}");
        }
    }

    #[test]
    fn nesting_stops_where_serde_json_stops() {
        for depth in [1, 127, 128, 129, 500] {
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            assert_eq!(parsed(&text).is_some(), serde(&text).is_some(), "{depth}");
            let text = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
            assert_eq!(parsed(&text).is_some(), serde(&text).is_some(), "{depth}");
        }
    }

    #[test]
    fn a_duplicate_names_its_path_or_the_last_copy_wins() {
        let text = r#"{"a": [0, {"b": 1, "c": {"d": 1, "d": 2}}]}"#;
        match value_of_text(text) {
            Err(Refusal::Duplicate { path }) => assert_eq!(path.to_string(), "$.a[1].c.d"),
            _ => panic!("the duplicate was not found"),
        }
        assert_eq!(parsed(text), serde(text));
        assert_eq!(parsed(text).unwrap()["a"][1]["c"]["d"], 2);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]

        /// Texts made of JSON's tokens and near-misses: the same texts parse, to the same
        /// values, and nothing panics.
        #[test]
        fn agrees_with_serde_json_on_token_soup(parts in proptest::collection::vec(proptest::sample::select(vec![
            "{", "}", "[", "]", ",", ":", " ", "\n", "\"a\"", "\"b\"", "\"\\u00e9\"", "\"\\ud800\"",
            "\"\\ud83d\\ude00\"", "\"\\x\"", "\"\u{1}\"", "\"é\"", "1", "-0.5e3", "01", "1.", "-", "2E+",
            "1e999", "-0", "true", "nul", "null", "false",
        ]), 0..24)) {
            let text = parts.concat();
            proptest::prop_assert_eq!(parsed(&text), serde(&text), "{:?}", text);
        }

        /// What the registry reader accepts and measures as needing no full parse (no `\u`
        /// escape, no exponent, no 300-digit number), within the nesting limit, always builds:
        /// so re-reading a loaded schema (`registry/tool.rs`) cannot fail.
        #[test]
        fn what_the_reader_passes_always_builds(parts in proptest::collection::vec(proptest::sample::select(vec![
            "{", "}", "[", "]", ",", ":", " ", "\"a\"", "\"b\"", "\"\\u00e9\"", "\"\\ud800\"", "\"\\n\"",
            "1", "-0.5", "1e999", "-0", "true", "null", "false",
        ]), 0..24)) {
            let text = parts.concat();
            if let Some(raw) = super::super::read::raw_of(&text) {
                if !raw.measure.needs_parse && raw.measure.depth <= MAX_DEPTH {
                    proptest::prop_assert!(value_of_trusted(&text).is_ok(), "{:?}", text);
                }
            }
        }

        /// Any f64 written by serde_json reads back to the same bits, as serde_json reads it.
        #[test]
        fn floats_round_trip(bits in proptest::num::u64::ANY) {
            let f = f64::from_bits(bits);
            if let Some(n) = Number::from_f64(f) {
                let text = n.to_string();
                proptest::prop_assert_eq!(parsed(&text), serde(&text), "{}", text);
            }
        }
    }
}
