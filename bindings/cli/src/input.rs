//! The command line's inputs and outputs: its error type (a library error blamed on the flag
//! it came from, or I/O), reading a file or inline text up to the input limit, warnings on
//! stderr, and pretty JSON on stdout.

use std::path::PathBuf;

use tool_intent::Error;

/// Errors of the CLI: a library error about one flag (named first), a flag's value the
/// command line itself cannot take, or I/O. Each message names the flag first.
pub(crate) enum CliError {
    /// A library error; `.0` names the flag or file it came from.
    In(String, Error),
    /// A flag's value of the wrong form (`--mcp` without `=`): the library's code for it.
    Usage(String),
    Io(String),
    /// Not an error: a report whose findings make the exit status 1.
    Findings(String),
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::In(place, e) => write!(f, "error [{}]: {place}: {e}", e.code()),
            CliError::Usage(m) => write!(f, "error [invalid_argument]: {m}"),
            CliError::Io(m) => write!(f, "error [io]: {m}"),
            CliError::Findings(report) => f.write_str(report),
        }
    }
}

pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A file's text, read up to the input limit whatever the file is: a regular file, a
/// pipe, `/dev/stdin` or a device (whose `stat` size says nothing, so the limit is on the
/// bytes read: `/dev/zero` stops after 64 MiB with this error, not at the memory's end).
pub(crate) fn read_file(path: &PathBuf, flag: &str) -> Result<String, CliError> {
    use std::io::Read;
    let limit = tool_intent::limits::LIMITS.max_input_bytes;
    let too_large = |size: String| {
        CliError::Io(format!(
            "{flag}: {}: {size} bytes, larger than the {limit}-byte input limit",
            path.display()
        ))
    };
    let cannot =
        |e: std::io::Error| CliError::Io(format!("{flag}: cannot read {}: {e}", path.display()));
    let file = std::fs::File::open(path).map_err(cannot)?;
    // A regular file larger than the limit costs a `stat`, not a read.
    if let Ok(meta) = file.metadata() {
        if meta.is_file() && meta.len() > limit as u64 {
            return Err(too_large(meta.len().to_string()));
        }
    }
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() > limit {
        return Err(too_large(format!("more than {limit}")));
    }
    String::from_utf8(bytes).map_err(|e| {
        CliError::Io(format!(
            "{flag}: cannot read {}: not UTF-8 text (byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// JSON given inline or as @FILE, for `flag`. A file's path given without the `@` is not
/// JSON: it is said so, with the `@` it needs, rather than as a JSON error at column 1.
pub(crate) fn inline_or_file(text: &str, flag: &str) -> Result<String, CliError> {
    match text.strip_prefix('@') {
        Some(path) => read_file(&PathBuf::from(path), flag),
        // The path's `stat` first: inline JSON (up to the input limit) is parsed once, by the
        // library, unless it also names a file.
        None if std::path::Path::new(text).is_file()
            && serde_json::from_str::<serde_json::Value>(text).is_err() =>
        {
            Err(CliError::Usage(format!(
                "{flag}: {} is a file, and {flag} takes JSON text: put @ before the path to read the file",
                tool_intent::error::quoted(text),
            )))
        }
        None => Ok(text.to_string()),
    }
}

/// Attaches the flag a library call was made for to its error.
pub(crate) trait Flag<T> {
    fn flag(self, flag: &str) -> Result<T, CliError>;
}

impl<T> Flag<T> for Result<T, Error> {
    fn flag(self, flag: &str) -> Result<T, CliError> {
        self.map_err(|e| CliError::In(flag.to_string(), e))
    }
}

/// Warnings on stderr, one line each.
pub(crate) fn warn(warnings: &[tool_intent::Warning]) {
    for w in warnings {
        eprintln!(
            "tool-intent: warning [{}]: {}",
            w.code.as_str(),
            one_line(&w.message)
        );
    }
}

/// A per-turn call's error, blamed on the flag of the input it is about (`--mode`,
/// `--provider`, `--source`, `--query`, `--limit`, ...); `fallback` when the error names no
/// input of its own.
pub(crate) fn turn_flag<T>(r: Result<T, Error>, fallback: &str) -> Result<T, CliError> {
    r.map_err(|e| {
        let flag = match (e.input(), e.path()) {
            (Some("mode"), _) => "--mode",
            (Some("provider"), _) => "--provider",
            (Some("source"), _) => "--source",
            (Some("state"), _) => "--state",
            (Some("profile"), _) => "--profile",
            (Some("view"), _) => "--view",
            (Some("tool_changes"), _) => "--tool-changes",
            (Some("cache_control"), _) => "--cache-control",
            (Some("tools_override"), _) => "--override",
            (Some("tool_search arguments"), Some("$.limit")) | (Some("limit"), _) => "--limit",
            (Some("tool_search arguments" | "tool_search query"), _) => "--query",
            _ => fallback,
        };
        CliError::In(flag.to_string(), e)
    })
}

/// JSON for people (indented, a newline at the end). serde_json fails only on a map key that
/// is not a string or a failing `Serialize`; the library's output types have neither, so a
/// failure is a defect, said as `internal`, never printed as `null`.
pub(crate) fn pretty(v: &impl serde::Serialize) -> Result<String, CliError> {
    let mut s = serde_json::to_string_pretty(v).map_err(|e| {
        CliError::In(
            "output".to_string(),
            Error::internal(format!("serde_json refused an output value: {e}")),
        )
    })?;
    s.push('\n');
    Ok(s)
}
