//! The one error type of the crate.
//!
//! Every variant that is caused by bad input carries the JSON path of the offending value
//! (`$.tools[3].name`, `$.disabled[0]`), so a caller can point a user at it. Each variant has a
//! stable machine-readable [`Error::code`]; the wasm layer copies it onto the JS `Error` as
//! `error.code` and the path as `error.path`, the CLI prints the message on one line.
//!
//! Warnings (unknown tool names, unknown preset, unknown intent keys) are not errors: they
//! never fail a turn and live in [`crate::expand::Warning`].

use std::fmt;

/// Everything that can go wrong in this crate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The text is not JSON at all.
    #[error("{what} is not valid JSON (line {line}, column {column}): {message}")]
    InvalidJson {
        what: &'static str,
        line: usize,
        column: usize,
        message: String,
    },
    /// The JSON parsed but a value has the wrong type or shape.
    #[error("invalid {what} at {path}: {message}")]
    InvalidValue {
        what: &'static str,
        path: JsonPath,
        message: String,
    },
    /// The registry is well-formed JSON but breaks a registry rule (duplicate or unsafe name,
    /// a reference to a tool that does not exist).
    #[error("invalid registry at {path}: {message}")]
    InvalidRegistry { path: JsonPath, message: String },
    /// A size limit that keeps hostile input cheap was exceeded.
    #[error("limit exceeded at {path}: {message}")]
    LimitExceeded { path: JsonPath, message: String },
    /// The request names a source the registry does not define.
    #[error("unknown source \"{name}\" (known: {known})")]
    UnknownSource { name: String, known: String },
    /// A caller-supplied option is not one of the accepted values.
    #[error("invalid argument {path}: {message}")]
    InvalidArgument { path: JsonPath, message: String },
    /// A tool call names a tool that is not available to this session.
    #[error("tool not available: \"{name}\" ({reason})")]
    ToolNotAvailable { name: String, reason: String },
    /// The database layer failed (native only).
    #[error("database error: {message}")]
    Database { message: String },
}

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
            Error::Database { .. } => "database",
        }
    }

    /// The JSON path of the bad value, where there is one.
    pub fn path(&self) -> Option<&str> {
        match self {
            Error::InvalidValue { path, .. }
            | Error::InvalidRegistry { path, .. }
            | Error::LimitExceeded { path, .. }
            | Error::InvalidArgument { path, .. } => Some(path.as_str()),
            Error::InvalidJson { .. } => Some("$"),
            Error::UnknownSource { .. } => Some("source"),
            Error::ToolNotAvailable { .. } | Error::Database { .. } => None,
        }
    }

    pub(crate) fn invalid_json(what: &'static str, err: &serde_json::Error) -> Self {
        Error::InvalidJson {
            what,
            line: err.line(),
            column: err.column(),
            message: strip_position(&err.to_string()),
        }
    }

    pub(crate) fn value(what: &'static str, path: &JsonPath, message: impl Into<String>) -> Self {
        Error::InvalidValue {
            what,
            path: path.clone(),
            message: message.into(),
        }
    }

    pub(crate) fn registry(path: &JsonPath, message: impl Into<String>) -> Self {
        Error::InvalidRegistry {
            path: path.clone(),
            message: message.into(),
        }
    }

    pub(crate) fn limit(path: &JsonPath, message: impl Into<String>) -> Self {
        Error::LimitExceeded {
            path: path.clone(),
            message: message.into(),
        }
    }

    pub(crate) fn argument(name: &str, message: impl Into<String>) -> Self {
        Error::InvalidArgument {
            path: JsonPath::from_raw(name),
            message: message.into(),
        }
    }
}

/// serde_json appends " at line X column Y"; we report those as fields.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// Crate-wide result alias.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A JSONPath-style location (`$`, `$.tools[3].name`, `$.toolsets["my preset"]`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JsonPath(String);

impl JsonPath {
    /// The document root, `$`.
    pub fn root() -> Self {
        JsonPath("$".to_string())
    }

    /// A path taken as it is (for CLI flags and option names).
    pub fn from_raw(raw: &str) -> Self {
        JsonPath(raw.to_string())
    }

    /// The path of a member of this object.
    pub fn key(&self, key: &str) -> Self {
        let plain = !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            && !key.starts_with(|c: char| c.is_ascii_digit());
        if plain {
            JsonPath(format!("{}.{}", self.0, key))
        } else {
            JsonPath(format!(
                "{}[{}]",
                self.0,
                serde_json::Value::String(key.to_string())
            ))
        }
    }

    /// The path of an element of this array.
    pub fn index(&self, index: usize) -> Self {
        JsonPath(format!("{}[{}]", self.0, index))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A short description of a JSON value's type for messages ("found number 1").
pub(crate) fn describe(value: &serde_json::Value) -> String {
    use serde_json::Value;
    let shown = |v: &Value| {
        let s = v.to_string();
        if s.chars().count() > 40 {
            let cut: String = s.chars().take(37).collect();
            format!("{cut}...")
        } else {
            s
        }
    };
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(_) => format!("number {}", shown(value)),
        Value::String(_) => format!("string {}", shown(value)),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_like_jsonpath() {
        let p = JsonPath::root().key("tools").index(3).key("name");
        assert_eq!(p.as_str(), "$.tools[3].name");
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
        assert_eq!(e.to_string(), "invalid override at $.disabled[0]: x");
    }

    #[test]
    fn json_errors_report_line_and_column() {
        let err = serde_json::from_str::<serde_json::Value>("{\n  \"a\": }").unwrap_err();
        let e = Error::invalid_json("override", &err);
        assert_eq!(e.code(), "invalid_json");
        let text = e.to_string();
        assert!(text.contains("line 2"), "{text}");
        assert!(!text.contains(" at line "), "{text}");
    }
}
