//! What of a tool is indexed, field by field: its own name, its MCP server's name, its
//! description, and its parameters' names and descriptions.
//!
//! Parameters are read straight from the schema's JSON text by the schema scanner
//! (`json/scan.rs`), looking at the top-level `properties` only and building no values:
//! parsing every schema of a 10,000-tool registry into `serde_json::Value`s took two thirds
//! of the index build, and the parsed values would be thrown away. The text was validated as
//! JSON when the tool was loaded, and the scanner reads through every text the loader accepts
//! (`json::scan::tests::the_scanner_reads_through_what_the_reader_passes`), so each schema's
//! parameters are read whole.

use crate::json::{Scanner, Str, Token};
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
    parameters(tool.schema_text(), &mut field);
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

/// The top-level `properties` of a schema object: each name, and each `description` string,
/// read from the schema scanner's tokens. (A text that is not a JSON object yields none: the
/// loader lets no such schema in.)
fn parameters(text: &str, field: &mut impl FnMut(usize, &str)) {
    // Raw string contents as `&str`: they start after a quote and end before one, both ASCII,
    // so slicing `text` there is at char boundaries (no UTF-8 validation per string).
    let raw = |s: Str| text.get(s.start..s.end).unwrap_or("");
    let mut scratch = String::new();
    let mut scan = Scanner::new(text);
    if scan.next() != Some(Token::Open { object: true }) {
        return;
    }
    // Depth 1: the root's keys; 2: inside `properties`; 3: inside one parameter.
    let (mut properties_next, mut in_properties, mut description_next) = (false, false, false);
    while let Some(token) = scan.next() {
        let depth = scan.depth();
        let (was_properties, was_description) = (
            std::mem::take(&mut properties_next),
            std::mem::take(&mut description_next),
        );
        match token {
            Token::Key(k) if depth == 1 => properties_next = raw(k) == "properties",
            Token::Open { object: true } if depth == 2 && was_properties => in_properties = true,
            Token::Close if depth == 1 => in_properties = false,
            // Containers that hold no parameter name or description: skipped unread.
            Token::Open { .. } if depth == 2 || depth > 3 || (depth == 3 && !in_properties) => {
                scan.skip_container()
            }
            Token::Key(k) if depth == 2 && in_properties => {
                field(PARAMETER_NAME, decode(raw(k), &mut scratch))
            }
            Token::Key(k) if depth == 3 && in_properties => {
                description_next = raw(k) == "description"
            }
            Token::String(v) if depth == 3 && in_properties && was_description => {
                field(PARAMETER_DESCRIPTION, decode(raw(v), &mut scratch))
            }
            _ => {}
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
        parameters(schema, &mut |f, t: &str| out.push((f, t.to_string())));
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
        // indexed, nothing after it. (The loader lets no such schema in; this holds the reader
        // to "no panic" on any text all the same.)
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
            parameters(broken, &mut |_, t: &str| read.push(t.to_string()));
            assert_eq!(read, before_the_break, "{broken}");
        }
    }
}
