//! Typed reads of Python arguments (`#[pyo3(from_py_with = ...)]`): a wrong type, an
//! out-of-range number or a `str` that is not text (a lone surrogate) is a `ToolIntentError`
//! with code `invalid_argument` naming the argument, never PyO3's own `TypeError` or
//! `OverflowError`, which carry no code.

use pyo3::prelude::*;
#[cfg(feature = "hybrid")]
use pyo3::types::PyBytes;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString, PyTuple};

use crate::py_err;

/// What a Python value is, for messages.
fn kind(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| tool_intent::error::escaped(&n.to_string()))
        .unwrap_or_else(|_| "an object".to_string())
}

fn wrong(
    value: &Bound<'_, PyAny>,
    argument: &'static str,
    path: Option<tool_intent::JsonPath>,
    message: String,
) -> PyErr {
    py_err(
        value.py(),
        &tool_intent::Error::InvalidArgument {
            argument,
            path,
            message,
        },
    )
}

/// A `str` as UTF-8 text.
pub(crate) fn text(value: &Bound<'_, PyAny>, argument: &'static str) -> PyResult<String> {
    let Ok(s) = value.cast::<PyString>() else {
        return Err(wrong(
            value,
            argument,
            None,
            format!("expected a str, found {}", kind(value)),
        ));
    };
    s.to_cow().map(|c| c.into_owned()).map_err(|_| {
        wrong(
            value,
            argument,
            None,
            "the str holds a lone surrogate (half of a character), which is not text".to_string(),
        )
    })
}

/// `model`: `bytes` (a `model.safetensors` file's content), copied.
#[cfg(feature = "hybrid")]
pub(crate) fn model(value: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    match value.cast::<PyBytes>() {
        Ok(b) => Ok(b.as_bytes().to_vec()),
        Err(_) => Err(wrong(
            value,
            "model",
            None,
            format!("expected bytes (the file's content), found {}", kind(value)),
        )),
    }
}

/// A `str` or `None`.
pub(crate) fn opt_text(
    value: &Bound<'_, PyAny>,
    argument: &'static str,
) -> PyResult<Option<String>> {
    if value.is_none() {
        return Ok(None);
    }
    text(value, argument).map(Some)
}

/// A `bool` (not an int standing for one).
pub(crate) fn flag(value: &Bound<'_, PyAny>, argument: &'static str) -> PyResult<bool> {
    match value.cast::<PyBool>() {
        Ok(b) => Ok(b.is_true()),
        Err(_) => Err(wrong(
            value,
            argument,
            None,
            format!("expected True or False, found {}", kind(value)),
        )),
    }
}

/// A `bool` or `None`.
pub(crate) fn opt_flag(value: &Bound<'_, PyAny>, argument: &'static str) -> PyResult<Option<bool>> {
    if value.is_none() {
        return Ok(None);
    }
    flag(value, argument).map(Some)
}

/// `search`'s `limit`: an `int` (not a bool) goes to the core, which judges its range and says
/// so as it does to JS; any other type is refused here in the same words, with Python's name
/// for the type.
pub(crate) fn opt_limit<'py>(value: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    if value.is_none() {
        return Ok(None);
    }
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(wrong(
            value,
            "limit",
            None,
            format!(
                "expected an integer from 1 to {}, found {}",
                tool_intent::registry::MAX_SEARCH_LIMIT,
                kind(value)
            ),
        ));
    }
    Ok(Some(value.clone()))
}

/// A non-negative `int` (not a bool) or `None`.
pub(crate) fn opt_count(
    value: &Bound<'_, PyAny>,
    argument: &'static str,
) -> PyResult<Option<usize>> {
    if value.is_none() {
        return Ok(None);
    }
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(wrong(
            value,
            argument,
            None,
            format!("expected a non-negative int, found {}", kind(value)),
        ));
    }
    match value.extract::<i64>() {
        Ok(n) if n >= 0 => usize::try_from(n)
            .map(Some)
            .map_err(|_| wrong(value, argument, None, format!("{n} is out of range"))),
        Ok(n) => Err(wrong(
            value,
            argument,
            None,
            format!("expected a non-negative int, found {n}"),
        )),
        Err(_) => Err(wrong(
            value,
            argument,
            None,
            "the int is out of range".to_string(),
        )),
    }
}

/// A list (or tuple) of `str` names; an item at fault is named by its path (`$[1]`).
pub(crate) fn names(value: &Bound<'_, PyAny>, argument: &'static str) -> PyResult<Vec<String>> {
    let items: Vec<Bound<'_, PyAny>> = if let Ok(list) = value.cast::<PyList>() {
        list.iter().collect()
    } else if let Ok(tuple) = value.cast::<PyTuple>() {
        tuple.iter().collect()
    } else {
        return Err(wrong(
            value,
            argument,
            None,
            format!("expected a list of names, found {}", kind(value)),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            text(item, argument).map_err(|_| {
                let at = tool_intent::JsonPath::root().index(i);
                let why = if item.is_instance_of::<PyString>() {
                    "the name holds a lone surrogate, which is not text".to_string()
                } else {
                    format!("expected a str name, found {}", kind(item))
                };
                wrong(item, argument, Some(at), why)
            })
        })
        .collect()
}

/// A database: a path (`str` or `os.PathLike`) or a `postgresql://` URL.
pub(crate) fn database(
    value: &Bound<'_, PyAny>,
    argument: &'static str,
) -> PyResult<tool_intent_migrate::Database> {
    let spec = path_or_url(value, argument, "postgresql://")?;
    crate::lib(value.py(), tool_intent_migrate::Database::parse(&spec))
}

/// A registry version store: a path (`str` or `os.PathLike`) or a `postgres://` URL, as text.
pub(crate) fn store_spec(value: &Bound<'_, PyAny>, argument: &'static str) -> PyResult<String> {
    path_or_url(value, argument, "postgres://")
}

/// A path (`str` or `os.PathLike`, through `os.fspath`) or a URL, as text; `url` names the
/// URL's scheme in the error.
fn path_or_url(value: &Bound<'_, PyAny>, argument: &'static str, url: &str) -> PyResult<String> {
    let fspath = value
        .py()
        .import("os")
        .and_then(|os| os.getattr("fspath"))
        .and_then(|f| f.call1((value,)));
    match fspath {
        Ok(p) if p.is_instance_of::<PyString>() => text(&p, argument),
        _ => Err(wrong(
            value,
            argument,
            None,
            format!(
                "expected a file path (str or os.PathLike) or a {url} URL, found {}",
                kind(value)
            ),
        )),
    }
}

/// A number (an `int` or a `float`, not a bool), or `None`: hours, whose range the core checks.
pub(crate) fn opt_hours(value: &Bound<'_, PyAny>, argument: &'static str) -> PyResult<Option<f64>> {
    if value.is_none() {
        return Ok(None);
    }
    let number = if value.is_instance_of::<PyBool>() {
        None
    } else {
        value.extract::<f64>().ok()
    };
    // The range (finite, 0 or more) is the core's to judge: `Retention::from_options`.
    match number {
        Some(h) => Ok(Some(h)),
        None => Err(wrong(
            value,
            argument,
            None,
            format!(
                "expected a number of hours, 0 or more, found {}",
                kind(value)
            ),
        )),
    }
}

/// The core registry a Python `Registry` holds, or `None` for any other value.
pub(crate) fn as_registry(value: &Bound<'_, PyAny>) -> Option<tool_intent::Registry> {
    value
        .cast::<crate::Registry>()
        .ok()
        .map(|r| r.get().inner.clone())
}

/// A `Registry`; anything else is a `ToolIntentError` naming the argument.
pub(crate) fn registry_arg(
    value: &Bound<'_, PyAny>,
    argument: &'static str,
) -> PyResult<tool_intent::Registry> {
    as_registry(value).ok_or_else(|| {
        wrong(
            value,
            argument,
            None,
            format!("expected a Registry, found {}", kind(value)),
        )
    })
}

/// A `Registry`, or `None` for the embedded one (the migration's `registry`).
pub(crate) fn registry_or_embedded(value: &Bound<'_, PyAny>) -> PyResult<tool_intent::Registry> {
    if value.is_none() {
        return Ok(tool_intent::Registry::embedded());
    }
    as_registry(value).ok_or_else(|| {
        wrong(
            value,
            "registry",
            None,
            format!("expected a Registry or None, found {}", kind(value)),
        )
    })
}

/// The `change` of `SharedRegistry.change`: a callable.
pub(crate) fn change_function(value: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    if value.is_callable() {
        return Ok(value.clone().unbind());
    }
    Err(wrong(
        value,
        "change",
        None,
        format!(
            "expected a function from the newest Registry to the next, found {}",
            kind(value)
        ),
    ))
}

/// The `progress` of `migrate`: None, or a callable given `(done, total)`.
pub(crate) fn progress_function(value: &Bound<'_, PyAny>) -> PyResult<Option<Py<PyAny>>> {
    if value.is_none() {
        return Ok(None);
    }
    if value.is_callable() {
        return Ok(Some(value.clone().unbind()));
    }
    Err(wrong(
        value,
        "progress",
        None,
        format!(
            "expected a function of (done, total) or None, found {}",
            kind(value)
        ),
    ))
}

/// A keyword option the call does not take: `invalid_argument` on `options` at `$.<key>`, as
/// the core's options reader says it for the calls it reads.
pub(crate) fn refuse_unknown(
    py: Python<'_>,
    unknown: Option<&Bound<'_, PyDict>>,
    known: &[&str],
) -> PyResult<()> {
    let Some((key, _)) = unknown.and_then(|d| d.iter().next()) else {
        return Ok(());
    };
    let key = key.extract::<String>()?;
    Err(py_err(py, &tool_intent::Error::unknown_option(&key, known)))
}

/// One extractor per argument name, for `#[pyo3(from_py_with = ...)]` (which passes the value
/// alone): `provider: String = text("provider")` makes `fn provider(v) -> PyResult<String>`.
macro_rules! extractors {
    ($($fn_name:ident: $ty:ty = $reader:ident($argument:literal);)*) => {$(
        pub(crate) fn $fn_name(value: &Bound<'_, PyAny>) -> PyResult<$ty> {
            $reader(value, $argument)
        }
    )*};
}

extractors! {
    provider: String = text("provider");
    opt_provider: Option<String> = opt_text("provider");
    opt_mode: Option<String> = opt_text("mode");
    opt_tool_changes: Option<String> = opt_text("tool_changes");
    opt_view: Option<String> = opt_text("view");
    opt_counter: Option<String> = opt_text("counter");
    opt_ranker: Option<String> = opt_text("ranker");
    query: String = text("query");
    name: String = text("name");
    server: String = text("server");
    opt_table: Option<String> = opt_text("table");
    text_arg: String = text("text");
    source: Option<String> = opt_text("source");
    batch_size: Option<usize> = opt_count("batch_size");
    opt_cache_control: Option<bool> = opt_flag("cache_control");
    opt_abstain: Option<bool> = opt_flag("abstain");
    opt_dry_run: Option<bool> = opt_flag("dry_run");
    name_list: Vec<String> = names("names");
    db: tool_intent_migrate::Database = database("db");
    store: String = store_spec("store");
    opt_keep_newest: Option<usize> = opt_count("keep_newest");
    opt_keep_hours: Option<f64> = opt_hours("keep_hours");
    initial: tool_intent::Registry = registry_arg("initial");
    registry: tool_intent::Registry = registry_arg("registry");
}
