//! The one error type of the crate.
//!
//! Every error caused by bad input says which **input** it is about ([`Error::input`]:
//! `override`, `registry`, `options`, `state`, ...) and, where the input is JSON, the JSON
//! path of the offending value ([`Error::path`]: `$.tools[3].name`, `$.disabled[0]`). A path
//! is always a JSON path rooted at that input; the input's name is never folded into it.
//! Each variant has a stable machine-readable [`Error::code`]; the wasm layer copies code,
//! input and path onto the JS `Error` (`error.code`, `error.argument`, `error.path`), the CLI
//! prints the message on one line after the flag it came from.
//!
//! Warnings (unknown tool names, unknown preset, unknown intent keys) are not errors: they
//! never fail a turn and live in [`crate::Warning`].

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

/// Everything that can go wrong in this crate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The text is not JSON at all.
    #[error("{input} is not valid JSON (line {line}, column {column}): {message}")]
    InvalidJson {
        /// The input the text was given as (`override`, `registry`, ...).
        input: &'static str,
        /// 1-based line of the first bad character.
        line: usize,
        /// 1-based column of the first bad character.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// The JSON parsed but a value has the wrong type or shape.
    #[error("invalid {input} at {path}: {message}")]
    InvalidValue {
        /// The input holding the value.
        input: &'static str,
        /// Where in that input.
        path: JsonPath,
        /// What was expected and found.
        message: String,
    },
    /// The registry is well-formed JSON but breaks a registry rule (duplicate or unsafe name,
    /// a reference to a tool that does not exist).
    #[error("invalid registry at {path}: {message}")]
    InvalidRegistry {
        /// Which argument held the document (`document`, `tools_list`, ...).
        input: &'static str,
        /// Where in the registry document.
        path: JsonPath,
        /// The rule that was broken.
        message: String,
    },
    /// A size limit that keeps hostile input cheap was exceeded.
    #[error("limit exceeded in {input} at {path}: {message}")]
    LimitExceeded {
        /// The input that is too large.
        input: &'static str,
        /// Where in that input.
        path: JsonPath,
        /// The size found and the limit.
        message: String,
    },
    /// The request names a source the registry does not define.
    #[error("unknown source {} (known: {known})", quoted(name))]
    UnknownSource {
        /// The source asked for.
        name: String,
        /// The sources the registry defines, comma-separated.
        known: String,
    },
    /// A caller-supplied option is not one of the accepted values.
    #[error("invalid {argument}{}: {message}", .path.as_ref().map(|p| format!(" at {p}")).unwrap_or_default())]
    InvalidArgument {
        /// The argument (`provider`, `mode`, `counter`, `options`, ...).
        argument: &'static str,
        /// Where inside the argument, when it is a JSON value.
        path: Option<JsonPath>,
        /// What is accepted.
        message: String,
    },
    /// A tool call names a tool that is not available to this session.
    #[error("tool not available: {} ({reason})", quoted(name))]
    ToolNotAvailable {
        /// The name the call used.
        name: String,
        /// Why it is not available.
        reason: String,
    },
    /// A tool call names a tool that was declared when the turn began but has been removed
    /// from the registry since (its MCP server stopped listing it; it leaves the array at the
    /// next turn boundary), or, with `tool_changes: messages`, a tool the conversation was
    /// offered and a change message has withdrawn (the model may still remember it).
    #[error("{}", removed_message(name, server.as_deref(), *withdrawn))]
    ToolRemoved {
        /// The name the call used.
        name: String,
        /// The MCP server it came from, if any.
        server: Option<String>,
        /// Withdrawn by a change message of the conversation (`tool_changes: messages`)
        /// rather than removed from the registry mid-turn.
        withdrawn: bool,
    },
    /// A tool call names a tool the provider runs itself (`"builtin"` for this provider): the
    /// agent server must not run it.
    #[error("tool {} is run by {provider} itself (a built-in of the registry for this provider); the agent server does not run it", quoted(name))]
    ProviderExecuted {
        /// The name the call used.
        name: String,
        /// The provider that runs it.
        provider: String,
    },
    /// The database layer failed (native only).
    #[error("database error: {message}")]
    Database {
        /// What was being done, and the driver's message.
        message: String,
        /// The driver's error, kept for callers that inspect it.
        #[source]
        source: Option<SourceError>,
    },
    /// A registry version store (native only) cannot give what was asked; `fault` is the
    /// error's code (`docs/fleet.md`).
    #[error("{message}")]
    Store {
        /// Why.
        fault: StoreFault,
        /// What was asked, and what the store said.
        message: String,
    },
    /// A defect in this library (a broken internal invariant), never caused by input alone.
    #[error("internal error: {message}")]
    Internal {
        /// What went wrong.
        message: String,
    },
}

/// Why a registry version store failed ([`Error::Store`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreFault {
    /// The store cannot be reached or refused the operation (`store_unavailable`).
    Unavailable,
    /// A turn state names a registry version the store does not hold (`unknown_version`).
    UnknownVersion,
    /// A stored version does not rebuild to its fingerprint, or the store's own records are
    /// not what this library writes (a row or table edited, restored in part) (`corrupt_version`).
    CorruptVersion,
    /// The store was written by a newer release of this library (`store_schema_newer`).
    NewerSchema,
}

impl StoreFault {
    /// The error code of the fault.
    pub fn code(self) -> &'static str {
        match self {
            StoreFault::Unavailable => "store_unavailable",
            StoreFault::UnknownVersion => "unknown_version",
            StoreFault::CorruptVersion => "corrupt_version",
            StoreFault::NewerSchema => "store_schema_newer",
        }
    }
}

/// A driver's error as people read it: its text, then the text of each source it does not
/// already hold. tokio-postgres says only "error connecting to server" and keeps "Connection
/// refused (os error 111)" in its source, which a message built from `Display` alone loses.
/// At most 8 sources are read.
pub fn with_sources(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    for _ in 0..8 {
        let Some(s) = source else { break };
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text
}

/// An underlying error kept as the [`std::error::Error::source`] of an [`Error`]. Compared
/// by message so that [`Error`] stays `PartialEq`.
#[derive(Debug, Clone)]
pub struct SourceError(Arc<dyn std::error::Error + Send + Sync>);

impl SourceError {
    /// Wraps an error.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        SourceError(Arc::new(error))
    }
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for SourceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.0)
    }
}

impl PartialEq for SourceError {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

impl Eq for SourceError {}

impl Error {
    /// A stable identifier for the kind of error, safe to match on from JS and scripts.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidJson { .. } => "invalid_json",
            Error::InvalidValue { .. } => "invalid_value",
            Error::InvalidRegistry { .. } => "invalid_registry",
            Error::LimitExceeded { .. } => "limit_exceeded",
            Error::UnknownSource { .. } => "unknown_source",
            Error::InvalidArgument { .. } => "invalid_argument",
            Error::ToolNotAvailable { .. } => "tool_not_available",
            Error::ToolRemoved { .. } => "tool_removed",
            Error::ProviderExecuted { .. } => "provider_executed",
            Error::Database { .. } => "database",
            Error::Store { fault, .. } => fault.code(),
            Error::Internal { .. } => "internal",
        }
    }

    /// The JSON path of the bad value inside [`Error::input`], where there is one.
    pub fn path(&self) -> Option<&str> {
        match self {
            Error::InvalidValue { path, .. }
            | Error::InvalidRegistry { path, .. }
            | Error::LimitExceeded { path, .. } => Some(path.as_str()),
            Error::InvalidArgument { path, .. } => path.as_ref().map(JsonPath::as_str),
            Error::InvalidJson { .. } => Some("$"),
            Error::UnknownSource { .. }
            | Error::ToolNotAvailable { .. }
            | Error::ToolRemoved { .. }
            | Error::ProviderExecuted { .. }
            | Error::Database { .. }
            | Error::Store { .. }
            | Error::Internal { .. } => None,
        }
    }

    /// The input or argument the error is about (`override`, `registry`, `source`, ...).
    pub fn input(&self) -> Option<&'static str> {
        match self {
            Error::InvalidJson { input, .. }
            | Error::InvalidValue { input, .. }
            | Error::LimitExceeded { input, .. } => Some(input),
            Error::InvalidRegistry { input, .. } => Some(input),
            Error::InvalidArgument { argument, .. } => Some(argument),
            Error::UnknownSource { .. } => Some("source"),
            Error::ToolNotAvailable { .. }
            | Error::ToolRemoved { .. }
            | Error::ProviderExecuted { .. }
            | Error::Database { .. }
            | Error::Store { .. }
            | Error::Internal { .. } => None,
        }
    }

    /// The same error about another input: what a binding uses when its argument has
    /// another name than the core's (Python's `tools_override` for the core's `override`).
    /// Errors that are not about an input's value are returned unchanged.
    pub fn with_input(self, name: &'static str) -> Error {
        match self {
            Error::InvalidJson {
                line,
                column,
                message,
                ..
            } => Error::InvalidJson {
                input: name,
                line,
                column,
                message,
            },
            Error::InvalidValue { path, message, .. } => Error::InvalidValue {
                input: name,
                path,
                message,
            },
            Error::LimitExceeded { path, message, .. } => Error::LimitExceeded {
                input: name,
                path,
                message,
            },
            Error::InvalidArgument { path, message, .. } => Error::InvalidArgument {
                argument: name,
                path,
                message,
            },
            Error::InvalidRegistry { path, message, .. } => Error::InvalidRegistry {
                input: name,
                path,
                message,
            },
            other => other,
        }
    }

    pub(crate) fn value(input: &'static str, path: &JsonPath, message: impl Into<String>) -> Self {
        Error::InvalidValue {
            input,
            path: path.clone(),
            message: message.into(),
        }
    }

    /// "expected {expected}, found {what the value is}" at a path.
    pub(crate) fn expected(
        input: &'static str,
        path: &JsonPath,
        expected: &str,
        found: &Value,
    ) -> Self {
        Error::value(
            input,
            path,
            format!("expected {expected}, found {}", describe(found)),
        )
    }

    pub(crate) fn registry(path: &JsonPath, message: impl Into<String>) -> Self {
        Error::InvalidRegistry {
            input: "document",
            path: path.clone(),
            message: message.into(),
        }
    }

    pub(crate) fn limit(input: &'static str, path: &JsonPath, message: impl Into<String>) -> Self {
        Error::LimitExceeded {
            input,
            path: path.clone(),
            message: message.into(),
        }
    }

    /// `invalid_argument` on `argument` (no path inside it): what a binding says of an argument
    /// it cannot use.
    pub fn argument(argument: &'static str, message: impl Into<String>) -> Self {
        Error::InvalidArgument {
            argument,
            path: None,
            message: message.into(),
        }
    }

    /// `unknown option "x" (known: a, b)` on `options`, at `$.x`: an options object (or a
    /// keyword argument) named a key the call does not take.
    pub fn unknown_option<S: AsRef<str>>(key: &str, known: &[S]) -> Self {
        Error::InvalidArgument {
            argument: "options",
            path: Some(JsonPath::root().key(key)),
            message: format!(
                "unknown option {} (known: {})",
                quoted(key),
                crate::text::join(known, ", ")
            ),
        }
    }

    /// A defect of this library or of a binding (a broken internal invariant).
    pub fn internal(message: impl Into<String>) -> Self {
        Error::Internal {
            message: message.into(),
        }
    }
}

/// Crate-wide result alias.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A JSONPath-style location (`$`, `$.tools[3].name`, `$.toolsets["my preset"]`). Built only
/// from the root by [`JsonPath::key`] and [`JsonPath::index`], so it is always a path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JsonPath(String);

impl JsonPath {
    /// The document root, `$`.
    pub fn root() -> Self {
        JsonPath("$".to_string())
    }

    /// The path of a member of this object.
    pub fn key(&self, key: &str) -> Self {
        let plain = key.bytes().next().is_some_and(|b| !b.is_ascii_digit())
            && key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        let mut out = String::with_capacity(self.0.len() + key.len() + 4);
        out.push_str(&self.0);
        if plain {
            out.push('.');
            out.push_str(key);
        } else {
            out.push('[');
            let start = out.len();
            crate::json_text::write_string(key, &mut out);
            // A path is shown in messages (it still reads back as the same key).
            if out[start..].chars().any(hides_text) {
                let written = out.split_off(start);
                out.push_str(&json_shown(&written));
            }
            out.push(']');
        }
        JsonPath(out)
    }

    /// The first member key of a path that starts with one (`profile` of
    /// `$.profile.disabled[0]`) and the rest of the path, rooted (`$.disabled[0]`).
    pub fn split_first_key(&self) -> Option<(&str, JsonPath)> {
        let rest = self.0.strip_prefix("$.")?;
        let end = rest.find(['.', '[']).unwrap_or(rest.len());
        Some((&rest[..end], JsonPath(format!("${}", &rest[end..]))))
    }

    /// The path of an element of this array (written without the formatting machinery:
    /// loaders make one per tool).
    pub fn index(&self, index: usize) -> Self {
        let mut digits = [0u8; 20];
        let mut n = index;
        let mut start = digits.len();
        loop {
            start -= 1;
            digits[start] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let mut out = String::with_capacity(self.0.len() + 2 + digits.len() - start);
        out.push_str(&self.0);
        out.push('[');
        for &d in &digits[start..] {
            out.push(char::from(d));
        }
        out.push(']');
        JsonPath(out)
    }

    /// `rest`, a path from a value's root, continued from this path to that value.
    pub(crate) fn join(&self, rest: &JsonPath) -> JsonPath {
        let mut out = self.0.clone();
        out.push_str(rest.0.strip_prefix('$').unwrap_or(&rest.0));
        JsonPath(out)
    }

    /// The path as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A path as messages show it: whole up to 256 bytes; a longer one (a long key) as its first
/// 128 and last 64 bytes with the full length said, as `quoted` cuts a name, so one hostile key
/// cannot make a message as long as the input. `as_str` (and `Error::path`) keep it whole.
impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = &self.0;
        if path.len() <= 256 {
            return f.write_str(path);
        }
        let mut head = 128;
        while !path.is_char_boundary(head) {
            head -= 1;
        }
        let mut tail = path.len() - 64;
        while !path.is_char_boundary(tail) {
            tail += 1;
        }
        write!(
            f,
            "{}…{} ({} bytes)",
            &path[..head],
            &path[tail..],
            path.len()
        )
    }
}

/// Whether a character would reorder, hide or break the rest of a line when shown raw: a
/// control character, a bidirectional or zero-width format character (Unicode's bidi controls:
/// U+061C, U+200E-F, U+202A-E, U+2066-9), or a line or paragraph separator (U+2028-9, line
/// ends to JavaScript).
pub(crate) fn hides_text(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

/// The four lowercase hex digits of a character of the Basic Multilingual Plane (every one
/// `hides_text` matches is there).
fn push_hex4(c: char, out: &mut String) {
    let code = c as u32;
    for shift in [12, 8, 4, 0] {
        out.push(char::from_digit((code >> shift) & 15, 16).unwrap_or('0'));
    }
}

/// Text shown unquoted, as `quoted` writes it between its quotes, uncut: a warning's origin
/// (`source:<name>`), and what a binding takes from its runtime (what JS threw, an object's
/// `Symbol.toStringTag`, what Python's `json.dumps` raised, a class's name). A newline is
/// written `\n`, so the text stays on one line.
pub fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_escaped(text, &mut out);
    out
}

/// Compact JSON text as it is shown to people: JSON writes bidirectional and zero-width
/// characters raw, so they are written as `\uXXXX` escapes here, which read back as the same
/// value (in compact JSON text they, and any control character, can only stand inside a
/// string).
pub(crate) fn json_shown(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if hides_text(c) {
            out.push_str("\\u");
            push_hex4(c, &mut out);
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` with the characters `hides_text` matches, quotes and backslashes escaped.
fn push_escaped(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if hides_text(c) => {
                out.push_str("\\u{");
                push_hex4(c, out);
                out.push('}');
            }
            c => out.push(c),
        }
    }
}

/// A name or text as messages show it: in quotes, with control and bidirectional-format
/// characters escaped (they would reorder or hide the rest of a terminal line), and cut after
/// 64 characters with the full length said.
pub fn quoted(text: &str) -> String {
    const SHOWN: usize = 64;
    let cut = text.char_indices().nth(SHOWN).map(|(at, _)| at);
    let mut out = String::with_capacity(text.len().min(SHOWN * 2) + 2);
    out.push('"');
    push_escaped(&text[..cut.unwrap_or(text.len())], &mut out);
    match cut {
        Some(_) => out.push_str(&format!("…\" ({} bytes)", text.len())),
        None => out.push('"'),
    }
    out
}

/// The first five names of a list, quoted, then "and N more": how a summary warning names
/// what it is about without growing with the list.
pub(crate) fn some_names<S: AsRef<str>>(names: &[S]) -> String {
    const SHOWN: usize = 5;
    let shown: Vec<String> = names
        .iter()
        .take(SHOWN)
        .map(|n| quoted(n.as_ref()))
        .collect();
    let more = names.len().saturating_sub(SHOWN);
    if more > 0 {
        format!("{} and {more} more", crate::text::join(&shown, ", "))
    } else {
        crate::text::join(&shown, ", ")
    }
}

/// A short description of a JSON value's type for messages ("number 1", "an object").
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => if *b { "boolean true" } else { "boolean false" }.to_string(),
        // A number's text is short (serde_json writes the shortest form).
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => format!("string {}", quoted(s)),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

fn removed_message(name: &str, server: Option<&str>, withdrawn: bool) -> String {
    if withdrawn {
        return format!(
            "tool {} was withdrawn from this conversation by a tool change; it is no longer callable",
            quoted(name)
        );
    }
    format!(
        "tool {} was removed from the registry during this turn{}; it is no longer callable and leaves the tool list at the next turn",
        quoted(name),
        server
            .map(|s| format!(" (MCP server {} no longer lists it)", quoted(s)))
            .unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drivers_error_keeps_the_sources_it_does_not_show() {
        // A driver error whose text leaves its cause to `source()`, wrapped as the store does.
        #[derive(Debug)]
        struct Connect(std::io::Error);
        impl fmt::Display for Connect {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("error connecting to server")
            }
        }
        impl std::error::Error for Connect {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        assert_eq!(
            with_sources(&Connect(refused)),
            "error connecting to server: refused"
        );
        // A source that repeats what is shown already (SourceError shows its inner error).
        let kept = SourceError::new(std::io::Error::other("disk full"));
        assert_eq!(with_sources(&kept), "disk full");
    }

    #[test]
    fn paths_render_like_jsonpath() {
        let p = JsonPath::root().key("tools").index(3).key("name");
        assert_eq!(p.as_str(), "$.tools[3].name");
        assert_eq!(
            JsonPath::root().index(0).index(1234567).as_str(),
            "$[0][1234567]"
        );
        assert_eq!(
            JsonPath::root().key("1a").key("").as_str(),
            "$[\"1a\"][\"\"]"
        );
        assert_eq!(
            JsonPath::root().key("toolsets").key("my preset").as_str(),
            "$.toolsets[\"my preset\"]"
        );
    }

    #[test]
    fn codes_are_stable() {
        let e = Error::value("override", &JsonPath::root().key("disabled").index(0), "x");
        assert_eq!(e.code(), "invalid_value");
        assert_eq!(e.path(), Some("$.disabled[0]"));
        assert_eq!(e.input(), Some("override"));
        assert_eq!(e.to_string(), "invalid override at $.disabled[0]: x");
        let e = Error::argument("provider", "no");
        assert_eq!(e.path(), None);
        assert_eq!(e.input(), Some("provider"));
        assert_eq!(e.to_string(), "invalid provider: no");
        assert_eq!(Error::internal("x").code(), "internal");
    }

    #[test]
    fn expected_helper_describes_the_value() {
        let e = Error::expected(
            "override",
            &JsonPath::root().key("enabled"),
            "true, false or null",
            &Value::from("yes"),
        );
        assert_eq!(
            e.to_string(),
            "invalid override at $.enabled: expected true, false or null, found string \"yes\""
        );
    }

    #[test]
    fn quoted_escapes_controls_and_bidi_and_cuts_long_text() {
        assert_eq!(quoted("plain"), "\"plain\"");
        assert_eq!(
            quoted("a\u{1b}[31mb\u{202e}c\"d"),
            "\"a\\u{001b}[31mb\\u{202e}c\\\"d\""
        );
        let long = "x".repeat(10_000);
        let q = quoted(&long);
        assert!(q.len() < 100 && q.ends_with("…\" (10000 bytes)"), "{q}");
        assert_eq!(quoted(&"é".repeat(64)), format!("\"{}\"", "é".repeat(64)));
        assert_eq!(
            escaped("web\u{1b}[2J\u{202e}ui"),
            "web\\u{001b}[2J\\u{202e}ui"
        );
    }

    #[test]
    fn a_long_path_is_shown_cut_and_kept_whole() {
        let key = format!("é{}z", "k".repeat(10_000));
        let path = JsonPath::root().index(3).key(&key).key("type");
        assert_eq!(path.as_str().len(), 10_016);
        let shown = path.to_string();
        assert!(shown.starts_with("$[3][\"é") && shown.ends_with("kz\"].type (10016 bytes)"));
        assert!(shown.len() < 256, "{shown}");
        let short = JsonPath::root().key("tools").index(1);
        assert_eq!(short.to_string(), short.as_str());
    }

    #[test]
    fn a_path_escapes_what_json_leaves_raw_and_reads_back_as_the_key() {
        let key = "a\u{1b}\u{202e}\u{2066}b\u{feff}\u{e9}";
        let path = JsonPath::root().key(key);
        assert_eq!(path.as_str(), "$[\"a\\u001b\\u202e\\u2066b\\ufeff\u{e9}\"]");
        let inner = &path.as_str()[2..path.as_str().len() - 1];
        assert_eq!(serde_json::from_str::<String>(inner).unwrap(), key);
        assert_eq!(JsonPath::root().key("a b").as_str(), "$[\"a b\"]");
    }

    #[test]
    fn some_names_cuts_after_five() {
        assert_eq!(some_names(&["a", "b"]), "\"a\", \"b\"");
        let seven = ["a", "b", "c", "d", "e", "f", "g"];
        assert_eq!(
            some_names(&seven),
            "\"a\", \"b\", \"c\", \"d\", \"e\" and 2 more"
        );
    }

    #[test]
    fn source_error_is_kept() {
        use std::error::Error as _;
        let io = std::io::Error::other("disk on fire");
        let e = Error::Database {
            message: "open".into(),
            source: Some(SourceError::new(io)),
        };
        assert!(e.source().unwrap().to_string().contains("disk on fire"));
    }
}
