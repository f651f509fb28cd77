//! The one-pass reader of registry documents and tool lists.
//!
//! A registry of 1,000 tools is about 1.4 MB of JSON, most of it tool schemas that loading
//! keeps as text. The reader checks the syntax of the whole text (RFC 8259: no control
//! characters in strings, only the escapes it defines, its number grammar, nothing after the
//! value) and, in the same pass, measures every value it keeps unparsed ([`Measure`]: depth,
//! compact size, root type, whether only a full parse can judge it), so a schema is read
//! once. The levels it sees into are [`Node`]s: a document's members, its tool list, each
//! tool's members; below them values stay text ([`Raw`]).
//!
//! Errors name the line and column of the first bad byte (columns count bytes, from 1).
//! Strings are skipped to their next quote, backslash or control character eight bytes at a
//! time: they are most of a schema's bytes.

use std::borrow::Cow;

use crate::error::Error;

/// A value kept as text, with what the reader measured of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Raw<'a> {
    text: &'a str,
    pub(crate) measure: Measure<'a>,
}

impl<'a> Raw<'a> {
    /// The value's JSON text, without the whitespace around it.
    pub(crate) fn get(&self) -> &'a str {
        self.text
    }
}

/// Depth and compact size of a valid JSON value, and whether it holds what only a full parse
/// can judge: a `\\u` escape (a lone surrogate is refused by the parser, not by the reader)
/// or a number that may be out of range (an exponent, or over 300 digits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Measure<'a> {
    /// Containers nested (`{}` is 1, a string 0).
    pub(crate) depth: usize,
    /// Bytes outside strings that are not whitespace, plus every byte of every string.
    pub(crate) bytes: usize,
    pub(crate) needs_parse: bool,
    /// The root object's `type`: `None` when absent, `Some(Err(()))` when not a plain string.
    pub(crate) root_type: Option<std::result::Result<&'a str, ()>>,
}

/// The measure of a JSON text holding one value, `None` if it is not JSON.
#[cfg(test)]
fn measure(text: &str) -> Option<Measure<'_>> {
    raw_of(text).map(|raw| raw.measure)
}

/// A JSON text holding one value, kept as text; `None` if it is not JSON.
#[cfg(test)]
pub(crate) fn raw_of(text: &str) -> Option<Raw<'_>> {
    let mut reader = Reader::new(text);
    let raw = reader.raw().ok()?;
    reader.end().ok()?;
    Some(raw)
}

/// Where the text stopped being JSON, and why.
pub(super) struct Failure {
    pub(super) at: usize,
    pub(super) message: Cow<'static, str>,
}

impl Failure {
    pub(super) fn into_error(self, input: &'static str, text: &str) -> Error {
        let before = &text.as_bytes()[..self.at.min(text.len())];
        let line_start = before
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        Error::InvalidJson {
            input,
            line: 1 + before.iter().filter(|&&c| c == b'\n').count(),
            column: 1 + before.len() - line_start,
            message: self.message.into_owned(),
        }
    }
}

pub(super) type Step<T> = std::result::Result<T, Failure>;

/// A string's contents (escapes undecoded): `text[start..end]`.
pub(super) struct Span {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) escaped: bool,
    unicode_escape: bool,
}

/// Which containers are open, innermost last (a bit each: set for an object).
#[derive(Default)]
struct Open {
    words: Vec<u64>,
    len: usize,
}

impl Open {
    fn push(&mut self, object: bool) {
        let (word, bit) = (self.len / 64, self.len % 64);
        if word == self.words.len() {
            self.words.push(0);
        }
        self.words[word] = (self.words[word] & !(1 << bit)) | (u64::from(object) << bit);
        self.len += 1;
    }

    /// Whether the innermost container is an object (`None`: none is open).
    fn innermost(&self) -> Option<bool> {
        let k = self.len.checked_sub(1)?;
        Some(self.words[k / 64] & (1 << (k % 64)) != 0)
    }
}

pub(super) struct Reader<'a> {
    pub(super) text: &'a str,
    pub(super) b: &'a [u8],
    pub(super) i: usize,
    /// Whitespace bytes outside strings read so far.
    whitespace: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Reader {
            text,
            b: text.as_bytes(),
            i: 0,
            whitespace: 0,
        }
    }

    pub(super) fn fail<T>(&self, at: usize, message: &'static str) -> Step<T> {
        Err(self.failure(at, message))
    }

    pub(super) fn failure(&self, at: usize, message: &'static str) -> Failure {
        Failure {
            at,
            message: Cow::Borrowed(message),
        }
    }

    #[inline(always)]
    pub(super) fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
            self.whitespace += 1;
        }
    }

    pub(super) fn end(&mut self) -> Step<()> {
        self.ws();
        if self.i < self.b.len() {
            return self.fail(self.i, "trailing characters after the JSON value");
        }
        Ok(())
    }

    /// Expects `c` after optional whitespace.
    fn expect(&mut self, c: u8, message: &'static str) -> Step<()> {
        self.ws();
        if self.b.get(self.i) != Some(&c) {
            return self.fail(self.i, message);
        }
        self.i += 1;
        Ok(())
    }

    /// The string whose opening quote is at `self.i`, with `self.i` moved past it.
    #[inline(always)]
    pub(super) fn string(&mut self) -> Step<Span> {
        let start = self.i + 1;
        let (mut i, mut escaped, mut unicode_escape) = (start, false, false);
        loop {
            let Some(at) = string_stop(self.b, i) else {
                return self.fail(self.b.len(), "the text ends inside a string");
            };
            match self.b[at] {
                b'"' => {
                    self.i = at + 1;
                    return Ok(Span {
                        start,
                        end: at,
                        escaped,
                        unicode_escape,
                    });
                }
                b'\\' => {
                    escaped = true;
                    match self.b.get(at + 1) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i = at + 2,
                        Some(b'u') => {
                            let hex = self.b.get(at + 2..at + 6);
                            if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                                return self.fail(at, "a \\u escape needs four hex digits");
                            }
                            unicode_escape = true;
                            i = at + 6;
                        }
                        _ => return self.fail(at, "invalid escape in a string"),
                    }
                }
                _ => {
                    return self.fail(
                        at,
                        "control character (U+0000 to U+001F) in a string: write it as an escape",
                    )
                }
            }
        }
    }

    /// A number at `self.i`; whether it may be out of range.
    pub(super) fn number(&mut self) -> Step<bool> {
        let b = self.b;
        let start = self.i;
        let mut i = start + usize::from(b.get(start) == Some(&b'-'));
        let digits = |mut i: usize| {
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = digits(i + 1),
            _ => return self.fail(i, "invalid number"),
        }
        if b.get(i) == Some(&b'.') {
            if !b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                return self.fail(i + 1, "invalid number: a digit must follow the point");
            }
            i = digits(i + 1);
        }
        let mut exponent = false;
        if let Some(b'e' | b'E') = b.get(i) {
            exponent = true;
            i += 1;
            if let Some(b'+' | b'-') = b.get(i) {
                i += 1;
            }
            if !b.get(i).is_some_and(u8::is_ascii_digit) {
                return self.fail(i, "invalid number: a digit must follow the exponent");
            }
            i = digits(i);
        }
        self.i = i;
        Ok(exponent || i - start > 300)
    }

    pub(super) fn literal(&mut self, word: &'static [u8]) -> Step<()> {
        if !self.b[self.i..].starts_with(word) {
            return self.fail(self.i, "expected a JSON value");
        }
        self.i += word.len();
        Ok(())
    }

    /// An object key at `self.i` (after whitespace) and its colon.
    pub(super) fn key(&mut self) -> Step<Span> {
        self.ws();
        if self.b.get(self.i) != Some(&b'"') {
            return self.fail(self.i, "expected a key (a string)");
        }
        let key = self.string()?;
        self.expect(b':', "expected ':' after the key")?;
        Ok(key)
    }

    /// One value, kept as text and measured.
    pub(super) fn raw(&mut self) -> Step<Raw<'a>> {
        self.ws();
        let start = self.i;
        let whitespace = self.whitespace;
        let mut m = Measure {
            depth: 0,
            bytes: 0,
            needs_parse: false,
            root_type: None,
        };
        let mut open = Open::default();
        // The next value is the root object's `type`.
        let mut type_value_next = false;
        'value: loop {
            self.ws();
            let is_type_value = std::mem::take(&mut type_value_next);
            match self.b.get(self.i) {
                Some(&c @ (b'{' | b'[')) => {
                    let object = c == b'{';
                    self.i += 1;
                    open.push(object);
                    m.depth = m.depth.max(open.len);
                    if is_type_value {
                        m.root_type = Some(Err(()));
                    }
                    self.ws();
                    if self.b.get(self.i) == Some(if object { &b'}' } else { &b']' }) {
                        self.i += 1;
                        open.len -= 1;
                    } else if object {
                        let key = self.key()?;
                        m.needs_parse |= key.unicode_escape;
                        type_value_next = open.len == 1 && &self.b[key.start..key.end] == b"type";
                        continue 'value;
                    } else {
                        continue 'value;
                    }
                }
                Some(b'"') => {
                    let s = self.string()?;
                    m.needs_parse |= s.unicode_escape;
                    if is_type_value {
                        // Both ends sit beside a quote byte: char boundaries.
                        m.root_type = Some(Ok(&self.text[s.start..s.end]));
                    }
                }
                Some(b'-' | b'0'..=b'9') => {
                    m.needs_parse |= self.number()?;
                    if is_type_value {
                        m.root_type = Some(Err(()));
                    }
                }
                Some(c) => {
                    self.literal(match c {
                        b't' => b"true",
                        b'f' => b"false",
                        _ => b"null",
                    })?;
                    if is_type_value {
                        m.root_type = Some(Err(()));
                    }
                }
                None => return self.fail(self.i, "the text ends where a value was expected"),
            }
            // After a value: close what ends here, then the next member or element.
            loop {
                let Some(object) = open.innermost() else {
                    m.bytes = (self.i - start) - (self.whitespace - whitespace);
                    return Ok(Raw {
                        text: &self.text[start..self.i],
                        measure: m,
                    });
                };
                self.ws();
                match self.b.get(self.i) {
                    Some(b',') => {
                        self.i += 1;
                        if object {
                            let key = self.key()?;
                            m.needs_parse |= key.unicode_escape;
                            type_value_next =
                                open.len == 1 && &self.b[key.start..key.end] == b"type";
                        }
                        continue 'value;
                    }
                    Some(b'}') if object => {
                        self.i += 1;
                        open.len -= 1;
                    }
                    Some(b']') if !object => {
                        self.i += 1;
                        open.len -= 1;
                    }
                    _ if object => return self.fail(self.i, "expected ',' or '}' after a member"),
                    _ => return self.fail(self.i, "expected ',' or ']' after an element"),
                }
            }
        }
    }
}

/// The position of the first `"`, `\\` or control character at or after `from`, eight bytes
/// at a time (SWAR: the lowest flagged byte of a word is always a true match). The reader and
/// the schema scanner (`scan.rs`) skip string contents with it.
#[inline(always)]
pub(super) fn string_stop(b: &[u8], from: usize) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let equal = |v: u64, c: u8| {
        let x = v ^ (LO * u64::from(c));
        x.wrapping_sub(LO) & !x & HI
    };
    let mut i = from;
    while let Some(word) = b.get(i..i + 8).and_then(|c| <[u8; 8]>::try_from(c).ok()) {
        let v = u64::from_le_bytes(word);
        let m = equal(v, b'"') | equal(v, b'\\') | (v.wrapping_sub(LO * 0x20) & !v & HI);
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b.get(i..)?
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map(|k| i + k)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]

        /// Texts made of JSON's tokens and near-misses, in any order: the reader and
        /// serde_json agree on every one, and the reader never panics.
        #[test]
        fn agrees_with_serde_json_on_token_soup(parts in proptest::collection::vec(proptest::sample::select(vec![
            "{", "}", "[", "]", ",", ":", " ", "\n", "\"a\"", "\"\\u00e9\"", "\"\\ud800\"", "\"\\x\"",
            "\"\u{1}\"", "\"é\"", "1", "-0.5e3", "01", "1.", "-", "2E+", "true", "nul", "null", "false",
        ]), 0..24)) {
            let text = parts.concat();
            let serde = serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok();
            proptest::prop_assert_eq!(raw_of(&text).is_some(), serde, "{:?}", text);
        }
    }

    /// The reader accepts exactly what serde_json accepts, on valid texts and on texts broken
    /// one byte at a time.
    #[test]
    fn accepts_what_serde_json_accepts() {
        let valid = [
            r#"{"a": [1, -2.5e+3, 0, -0.0, 1E5, null, true, false, "x\"y\\z\n\t\u00e9\/"], "b": {}, "": []}"#,
            r#"[{"name": "t", "parameters": {"type": "object"}}, {"x": [[[]]]}]"#,
            "  7 ",
            r#""\ud800""#,
        ];
        let mut texts: Vec<String> = valid.iter().map(|t| t.to_string()).collect();
        for t in valid {
            for i in 0..t.len() {
                for c in [
                    "", "x", "1", "\"", ",", "}", "]", "{", "[", ":", "\u{1}", "\\", "e", "-", ".",
                    " ",
                ] {
                    if t.is_char_boundary(i) && t.is_char_boundary(i + 1) {
                        texts.push(format!("{}{c}{}", &t[..i], &t[i + 1..]));
                    }
                }
            }
        }
        for t in &texts {
            let serde = serde_json::from_str::<serde::de::IgnoredAny>(t).is_ok();
            assert_eq!(raw_of(t).is_some(), serde, "{t:?}");
        }
    }

    #[test]
    fn compact_size_depth_and_root_type() {
        for v in [
            serde_json::json!({"a": [1, -2.5, null, true, false, "x\"y\\z\n\t"], "b": {}, "": []}),
            serde_json::json!({}),
            serde_json::json!({"type": "object", "properties": {"q": {"type": "string", "description": "a { b ] c"}}}),
        ] {
            let text = serde_json::to_string(&v).unwrap();
            assert_eq!(measure(&text).unwrap().bytes, text.len(), "{text}");
            let pretty = serde_json::to_string_pretty(&v).unwrap();
            assert_eq!(measure(&pretty).unwrap().bytes, text.len(), "{pretty}");
        }
        let m = |t: &'static str| measure(t).unwrap();
        assert_eq!(m(r#"{"a": {"b": [1]}}"#).depth, 3);
        assert_eq!(m(r#"{"a": "{{{{"}"#).depth, 1);
        assert_eq!(m(r#"{"a\"{": "x\\", "b": [["\""]]}"#).depth, 3);
        assert!(measure(&"[".repeat(300)).is_none());
        let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
        assert_eq!(measure(&deep).unwrap().depth, 300);
        for (text, risky) in [
            (r#"{"a": true, "b": false, "c": 1.5, "d": -2}"#, false),
            (r#"{"a": 1e5}"#, true),
            (r#"{"a": 2.0E-3}"#, true),
            (r#"{"a": "\u00e9"}"#, true),
            (r#"{"\u00e9": 1}"#, true),
            (r#"{"a": "\n"}"#, false),
        ] {
            assert_eq!(m(text).needs_parse, risky, "{text}");
        }
        let long = format!("{{\"a\": {}}}", "9".repeat(301));
        assert!(measure(&long).unwrap().needs_parse);
        let root = |t: &'static str| m(t).root_type;
        assert_eq!(
            root(r#"{"type": "object", "properties": {"type": {"type": "string"}}}"#),
            Some(Ok("object"))
        );
        assert_eq!(
            root(r#"{"properties": {"type": "x"}, "type":"dict"}"#),
            Some(Ok("dict"))
        );
        assert_eq!(root(r#"{"properties": {"type": "string"}}"#), None);
        assert_eq!(root(r#"{"type": ["object", "null"]}"#), Some(Err(())));
        assert_eq!(root(r#"{"type": 1}"#), Some(Err(())));
        assert_eq!(root(r#"{"description": "type", "x": "type"}"#), None);
    }

    #[test]
    fn string_stop_finds_the_first_special_byte() {
        for text in [
            "0123456789\"",
            "\\",
            "abcdefgh",
            "abcdefg\\",
            "é\"xxxxxxxxxx",
            "abcdefghij\u{1f}k\"",
            "\u{7f}\u{80}abcdefgh\n",
        ] {
            let want = text
                .bytes()
                .position(|c| c == b'"' || c == b'\\' || c < 0x20);
            assert_eq!(string_stop(text.as_bytes(), 0), want, "{text:?}");
        }
    }
}
