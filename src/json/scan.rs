//! A scanner over a tool schema's JSON text that the registry has already read: tokens with
//! their byte ranges, no values built. The search index's field reader (`search/fields.rs`:
//! the top-level parameters' names and descriptions) walks these tokens. Strings are skipped
//! to their closing quote eight bytes at a time (the reader's `string_stop`): they are most of
//! a schema's bytes. (Loading reads and measures schemas in its own one pass, `read.rs`, which
//! also checks the syntax this scanner takes as given.)
//!
//! The text is normally valid JSON (checked when the registry was loaded); on anything else
//! the scanner stops (and says so to the tests), never panics.

use super::read::string_stop;

/// A string's raw contents (escapes undecoded): `text[start..end]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Str {
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// It holds a `\u` escape (only a full parse can judge a lone surrogate).
    pub(crate) unicode_escape: bool,
}

/// One token of a JSON text; `,` and `:` are consumed between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Token {
    /// `{` (`object`) or `[`.
    Open { object: bool },
    /// `}` or `]`.
    Close,
    /// An object key, its `:` consumed.
    Key(Str),
    /// A string value.
    String(Str),
    /// A number or a literal, `text[start..end]`.
    Scalar { start: usize, end: usize },
}

/// Deeper than serde_json's recursion limit (128), so any text the registry accepted fits.
const MAX_DEPTH: usize = 128;

/// Tokens of a JSON text, in order.
pub(crate) struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
    depth: usize,
    /// Bit `k % 64` of word `k / 64`: the container at depth `k + 1` is an object. Two
    /// words rather than a `u128`: wasm has no 128-bit shift, and its helper calls measured
    /// 3% of a registry load.
    objects: [u64; MAX_DEPTH / 64],
    expect_key: bool,
    /// Read by the tests only: the one reader (`search/fields.rs`) scans texts the loader
    /// accepted, which the scanner reads through (a property test below).
    #[cfg_attr(not(test), allow(dead_code))]
    broken: bool,
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Scanner {
            b: text.as_bytes(),
            i: 0,
            depth: 0,
            objects: [0; MAX_DEPTH / 64],
            expect_key: false,
            broken: false,
        }
    }

    /// Containers open after the last token (1 inside the root object).
    pub(crate) fn depth(&self) -> usize {
        self.depth
    }

    /// Whether the text stopped being JSON (or ended inside a value) before its end.
    #[cfg(test)]
    pub(crate) fn broken(&self) -> bool {
        self.broken
    }

    /// After an `Open` token: moves past the container's matching close without making tokens
    /// of what it holds (for readers that need none of it), as if its `Close` was read.
    pub(crate) fn skip_container(&mut self) {
        let mut depth = 1usize;
        while let Some(&c) = self.b.get(self.i) {
            match c {
                b'"' => {
                    if self.string().is_none() {
                        self.stop();
                        return;
                    }
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        self.i += 1;
                        self.depth -= 1;
                        self.expect_key = false;
                        return;
                    }
                }
                _ => {}
            }
            self.i += 1;
        }
        self.stop();
    }

    #[inline(always)]
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn in_object(&self) -> bool {
        self.depth > 0 && {
            let k = self.depth - 1;
            self.objects[k / 64] & (1 << (k % 64)) != 0
        }
    }

    fn stop(&mut self) -> Option<Token> {
        self.broken = true;
        self.i = self.b.len();
        None
    }

    /// The string whose opening quote is at `self.i`, with `self.i` moved past it.
    #[inline(always)]
    fn string(&mut self) -> Option<Str> {
        let start = self.i + 1;
        let mut i = start;
        let mut unicode_escape = false;
        loop {
            i = string_stop(self.b, i)?;
            match self.b[i] {
                b'"' => {
                    self.i = i + 1;
                    return Some(Str {
                        start,
                        end: i,
                        unicode_escape,
                    });
                }
                b'\\' => {
                    unicode_escape |= self.b.get(i + 1) == Some(&b'u');
                    i += 2;
                }
                // A raw control character: not in text the registry read, skipped all the same.
                _ => i += 1,
            }
        }
    }
}

impl Iterator for Scanner<'_> {
    type Item = Token;

    #[inline(always)]
    fn next(&mut self) -> Option<Token> {
        loop {
            self.skip_ws();
            let Some(&c) = self.b.get(self.i) else {
                // The end of the text: complete only when every container was closed.
                self.broken |= self.depth > 0;
                return None;
            };
            match c {
                b',' => {
                    self.i += 1;
                    self.expect_key = self.in_object();
                }
                b'{' | b'[' => {
                    if self.depth == MAX_DEPTH {
                        return self.stop();
                    }
                    let object = c == b'{';
                    let (word, bit) = (self.depth / 64, self.depth % 64);
                    self.objects[word] =
                        (self.objects[word] & !(1 << bit)) | (u64::from(object) << bit);
                    self.depth += 1;
                    self.i += 1;
                    self.expect_key = object;
                    return Some(Token::Open { object });
                }
                b'}' | b']' => {
                    if self.depth == 0 {
                        return self.stop();
                    }
                    self.depth -= 1;
                    self.i += 1;
                    self.expect_key = false;
                    return Some(Token::Close);
                }
                b'"' => {
                    let Some(s) = self.string() else {
                        return self.stop();
                    };
                    if !self.expect_key {
                        return Some(Token::String(s));
                    }
                    self.skip_ws();
                    if self.b.get(self.i) != Some(&b':') {
                        return self.stop();
                    }
                    self.i += 1;
                    self.expect_key = false;
                    return Some(Token::Key(s));
                }
                _ => {
                    // A number or a literal: up to the delimiter after it.
                    let start = self.i;
                    while !matches!(
                        self.b.get(self.i),
                        Some(b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t') | None
                    ) {
                        self.i += 1;
                    }
                    if self.i == self.b.len() && self.depth > 0 {
                        return self.stop();
                    }
                    return Some(Token::Scalar { start, end: self.i });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> (Vec<(Token, usize)>, bool) {
        let mut s = Scanner::new(text);
        let mut out = Vec::new();
        while let Some(t) = s.next() {
            out.push((t, s.depth()));
        }
        (out, s.broken())
    }

    #[test]
    fn keys_values_and_depth() {
        let text = r#"{"a": [1, "x\u00e9"], "b": {"c": true}}"#;
        let (t, broken) = tokens(text);
        assert!(!broken);
        let shape: Vec<String> = t
            .iter()
            .map(|(t, d)| match t {
                Token::Open { object } => format!("{}{d}", if *object { "{" } else { "[" }),
                Token::Close => format!("}}{d}"),
                Token::Key(s) => format!("k:{}", &text[s.start..s.end]),
                Token::String(s) => format!("s:{}:{}", &text[s.start..s.end], s.unicode_escape),
                Token::Scalar { start, end } => format!("n:{}", &text[*start..*end]),
            })
            .collect();
        assert_eq!(
            shape,
            [
                "{1",
                "k:a",
                "[2",
                "n:1",
                "s:x\\u00e9:true",
                "}1",
                "k:b",
                "{2",
                "k:c",
                "n:true",
                "}1",
                "}0"
            ]
        );
    }

    #[test]
    fn broken_text_stops_and_says_so() {
        for text in [
            r#"{"a":"#,
            r#"{"a""#,
            "[",
            r#"{"a":tru"#,
            r#"{"a":"x"#,
            "}",
            r#"{"a" 1}"#,
        ] {
            let (_, broken) = tokens(text);
            assert!(broken, "{text}");
        }
        assert!(!tokens("7").1, "a bare scalar is complete");
        let deep = "[".repeat(200);
        assert!(tokens(&deep).1);
    }

    proptest::proptest! {
        /// Every text the loader's reader accepts, the scanner reads to its end without
        /// stopping, skipping containers or not: so the search index's field reader
        /// (`search/fields.rs`), which scans only schemas the loader accepted, always reads a
        /// schema's parameters whole.
        #[test]
        fn the_scanner_reads_through_what_the_reader_passes(parts in proptest::collection::vec(proptest::sample::select(vec![
            "{", "}", "[", "]", ",", ":", " ", "\"a\"", "\"b\"", "\"\\u00e9\"", "\"\\\"\"", "\"\\n\"",
            "1", "-0.5", "1e999", "-0", "true", "null", "false",
        ]), 0..24), skip_at in 0usize..8) {
            let text = parts.concat();
            if super::super::read::raw_of(&text).is_some() {
                proptest::prop_assert!(!tokens(&text).1, "{:?}", text);
                let mut s = Scanner::new(&text);
                let mut opened = 0;
                while let Some(t) = s.next() {
                    if matches!(t, Token::Open { .. }) {
                        opened += 1;
                        if opened == skip_at {
                            s.skip_container();
                        }
                    }
                }
                proptest::prop_assert!(!s.broken(), "skipping container {}: {:?}", skip_at, text);
            }
        }
    }
}
