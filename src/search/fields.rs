//! What of a tool is indexed, field by field: its own name, its MCP server's name, its
//! description, and its parameters' names and descriptions.
//!
//! Parameters are read straight from the schema's JSON text by a small scanner that looks at
//! the top-level `properties` only and skips everything else without building values:
//! parsing every schema of a 10,000-tool registry into `serde_json::Value`s took two thirds
//! of the index build, and the parsed values would be thrown away. The text was validated as
//! JSON when the tool was loaded; on anything unexpected the scanner stops (fewer words
//! indexed, never a panic).

use crate::json::quote_or_backslash;
use crate::registry::Tool;

/// The indexed fields, in order.
pub(super) const FIELDS: usize = 5;
pub(super) const NAME: usize = 0;
pub(super) const SERVER: usize = 1;
pub(super) const DESCRIPTION: usize = 2;
pub(super) const PARAMETER_NAME: usize = 3;
pub(super) const PARAMETER_DESCRIPTION: usize = 4;

/// Calls `field` with each indexed text of the tool and its field.
pub(super) fn for_each_field(tool: &Tool, mut field: impl FnMut(usize, &str)) {
    let (own, server) = own_name_and_server(tool);
    field(NAME, own);
    if let Some(server) = server {
        field(SERVER, server);
    }
    field(DESCRIPTION, &tool.description);
    let _ = parameters(tool.schema_text(), &mut field);
}

/// `mcp__github__create_issue` → (`create_issue` or the server's own name for it, `github`);
/// any other name is its own name, without a server.
pub(super) fn own_name_and_server(tool: &Tool) -> (&str, Option<&str>) {
    let Some(rest) = tool.name.strip_prefix("mcp__") else {
        return (&tool.name, None);
    };
    // (A byte scan: `split_once("__")` sets up a substring searcher, which showed in the
    // index build's profile.)
    match rest.as_bytes().windows(2).position(|w| w == b"__") {
        Some(at) => (
            tool.source.as_deref().unwrap_or(&rest[at + 2..]),
            Some(&rest[..at]),
        ),
        None => (&tool.name, None),
    }
}

/// The top-level `properties` of a schema object: each name, and each `description` string.
/// `None` when the text is not as expected (the caller ignores it).
fn parameters(text: &str, field: &mut impl FnMut(usize, &str)) -> Option<()> {
    let b = text.as_bytes();
    // Raw string contents as `&str`: they start after a quote and end before one, both ASCII,
    // so slicing `text` there is at char boundaries (no UTF-8 validation per string).
    let raw = |r: std::ops::Range<usize>| text.get(r).unwrap_or("");
    let mut scratch = String::new();
    let mut i = expect(b, 0, b'{')?;
    while let Some(key) = next_key(b, &mut i)? {
        if &b[key.clone()] == b"properties" && b.get(skip_ws(b, i)) == Some(&b'{') {
            i = skip_ws(b, i) + 1;
            while let Some(name) = next_key(b, &mut i)? {
                field(PARAMETER_NAME, decode(raw(name), &mut scratch));
                if b.get(skip_ws(b, i)) == Some(&b'{') {
                    i = skip_ws(b, i) + 1;
                    while let Some(key) = next_key(b, &mut i)? {
                        let at = skip_ws(b, i);
                        if &b[key.clone()] == b"description" && b.get(at) == Some(&b'"') {
                            let (text, end) = string(b, at)?;
                            field(PARAMETER_DESCRIPTION, decode(raw(text), &mut scratch));
                            i = end;
                        } else {
                            i = skip_value(b, at)?;
                        }
                    }
                } else {
                    i = skip_value(b, i)?;
                }
            }
        } else {
            i = skip_value(b, i)?;
        }
    }
    Some(())
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

fn expect(b: &[u8], i: usize, c: u8) -> Option<usize> {
    let i = skip_ws(b, i);
    (b.get(i) == Some(&c)).then_some(i + 1)
}

/// Inside an object, after `{` or a value: where the next key's raw contents are (escapes
/// undecoded), with `i` moved past its `:`; or `None` at the closing `}`.
fn next_key(b: &[u8], i: &mut usize) -> Option<Option<std::ops::Range<usize>>> {
    let mut at = skip_ws(b, *i);
    if b.get(at) == Some(&b',') {
        at = skip_ws(b, at + 1);
    }
    match b.get(at)? {
        b'}' => {
            *i = at + 1;
            Some(None)
        }
        b'"' => {
            let (key, end) = string(b, at)?;
            *i = expect(b, end, b':')?;
            Some(Some(key))
        }
        _ => None,
    }
}

/// Where the raw contents of the string starting at `b[at] == '"'` are, and the index after
/// it.
fn string(b: &[u8], at: usize) -> Option<(std::ops::Range<usize>, usize)> {
    let mut i = at + 1;
    loop {
        // Eight bytes at a time to the next quote or backslash: most of a schema's text is
        // string contents.
        i = quote_or_backslash(b, i)?;
        match b.get(i)? {
            b'"' => return Some((at + 1..i, i + 1)),
            _ => i += 2,
        }
    }
}

/// The index after the value starting at (or after whitespace from) `i`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    let mut i = skip_ws(b, i);
    match b.get(i)? {
        b'"' => Some(string(b, i)?.1),
        b'{' | b'[' => {
            let mut depth = 0usize;
            loop {
                match b.get(i)? {
                    b'"' => {
                        i = string(b, i)?.1;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        // A number or a literal: up to the delimiter after it.
        _ => {
            while !matches!(b.get(i)?, b',' | b'}' | b']') {
                i += 1;
            }
            Some(i)
        }
    }
}

/// A JSON string's raw contents as text: escapes become the character they stand for
/// (control characters and unpaired surrogates a space), which is all tokenising needs.
fn decode<'a>(text: &'a str, scratch: &'a mut String) -> &'a str {
    if !text.as_bytes().contains(&b'\\') {
        return text;
    }
    scratch.clear();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            scratch.push(c);
            continue;
        }
        let decoded = match chars.next() {
            Some('u') => {
                let mut code = 0;
                for _ in 0..4 {
                    code = code * 16 + chars.next().and_then(|c| c.to_digit(16)).unwrap_or(0);
                }
                char::from_u32(code)
                    .filter(|c| !c.is_control())
                    .unwrap_or(' ')
            }
            Some(c @ ('"' | '\\' | '/')) => c,
            _ => ' ',
        };
        scratch.push(decoded);
    }
    scratch
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(schema: &str) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        let ok = parameters(schema, &mut |f, t: &str| out.push((f, t.to_string())));
        assert!(ok.is_some(), "{schema}");
        out
    }

    #[test]
    fn reads_top_level_properties_only() {
        let schema = r#"{"type":"object","description":"skip me","properties":{"path":{"type":"string","description":"Where \"it\" is\nnow"},"deep":{"type":"object","properties":{"inner":{"description":"not top level"}}},"n":{"enum":[1,{"a":"]"}],"description":"count"}},"required":["path"]}"#;
        assert_eq!(
            texts(schema),
            [
                (PARAMETER_NAME, "path".to_string()),
                (PARAMETER_DESCRIPTION, "Where \"it\" is now".to_string()),
                (PARAMETER_NAME, "deep".to_string()),
                (PARAMETER_NAME, "n".to_string()),
                (PARAMETER_DESCRIPTION, "count".to_string()),
            ]
        );
        // Whitespace between tokens, and a unicode escape.
        assert_eq!(
            texts(r#"{ "properties" : { "caf\u00e9" : { "description" : "x" } } }"#),
            [
                (PARAMETER_NAME, "café".to_string()),
                (PARAMETER_DESCRIPTION, "x".to_string())
            ]
        );
        assert_eq!(texts(r#"{"type":"object"}"#), []);
    }

    #[test]
    fn stops_without_panicking_on_broken_text() {
        // (text, the fields read before the scanner stops): what came before the break is
        // indexed, nothing after it, and the scan reports that it stopped.
        for (broken, before_the_break) in [
            (r#"{"properties":{"a":"#, vec!["a"]),
            (r#"{"properties":{"a":{"description":"x"#, vec!["a"]),
            (
                r#"{"properties":{"a":{},"b":{"description":"y"},"c""#,
                vec!["a", "b", "y"],
            ),
            ("[", vec![]),
            ("", vec![]),
            (r#"{"a"#, vec![]),
            (r#"{"x":tru"#, vec![]),
        ] {
            let mut read = Vec::new();
            let finished = parameters(broken, &mut |_, t: &str| read.push(t.to_string()));
            assert_eq!(finished, None, "{broken}");
            assert_eq!(read, before_the_break, "{broken}");
        }
    }
}
