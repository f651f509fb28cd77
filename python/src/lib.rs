//! The Python binding of tool-intent: arguments in, one core call, values out. JSON-valued
//! arguments cross as `json.dumps` text, read by the core's reader (the same duplicate-key and
//! limit rules as every surface); results cross as the JSON text JS parses, read straight
//! into Python values (`convert::to_py`: snake_case keys for result types; `py_value`: stored
//! documents and tool definitions as they are), so Python's dicts hold the keys in the order
//! JS and the native CLI show them (a plan's name lists are read lazily). Errors become
//! `tool_intent.ToolIntentError` (a `ValueError`) with `.code`, `.argument` and `.path`.
//! Nothing is decided here.
//!
//! Written against PyO3 0.30 (`Bound` API, `create_exception!`, `#[pyo3(signature)]`). A
//! call that takes keyword options catches the others in `**unknown` to name them in its
//! error (a turn's calls take all of theirs as `**options`, read by name in one function:
//! `registry::turn_request`); its `text_signature` shows only the options it takes, which
//! `help()`, IDEs and `inspect.signature` read, and mypy's stubtest holds to the stubs
//! (python/tests/test_types.py).

use std::sync::Mutex;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use serde_json::Value;
use tool_intent::turn::{search_argument_error, BudgetOptions, CacheReportOptions, SearchOptions};

mod args;
mod convert;
mod migrate;
mod options;
mod plan;
mod registry;
mod session;
mod shared;
mod turn;

pub(crate) use convert::*;
pub(crate) use options::{Keywords, Options};
pub(crate) use plan::TurnPlan;
pub(crate) use registry::Registry;
pub(crate) use session::SessionRunConfig;
pub(crate) use turn::Turn;

create_exception!(_tool_intent, ToolIntentError, PyValueError);

/// A library error as a Python exception with the error's code, argument and JSON path (or,
/// should setting one of them fail, that failure: never an error without its code).
pub(crate) fn py_err(py: Python<'_>, e: &tool_intent::Error) -> PyErr {
    let err = ToolIntentError::new_err(e.to_string());
    let value = err.value(py);
    let fields = value
        .setattr("code", e.code())
        .and_then(|()| value.setattr("argument", e.input()))
        .and_then(|()| value.setattr("path", e.path()));
    match fields {
        Ok(()) => err,
        Err(failed) => failed,
    }
}

pub(crate) fn lib<T>(py: Python<'_>, r: tool_intent::Result<T>) -> PyResult<T> {
    r.map_err(|e| py_err(py, &e))
}

/// Runs `f` on the value behind `lock` with the GIL released. The handles Python threads share
/// (a `Turn`, whose search records a load while another thread resolves a parallel tool call;
/// a `SharedRegistry`, one store connection) take their calls in turn this way, where a
/// `&mut self` method would fail the second thread with PyO3's "Already mutably borrowed".
pub(crate) fn locked<T: Send, U: Send>(
    py: Python<'_>,
    lock: &Mutex<T>,
    f: impl FnOnce(&mut T) -> tool_intent::Result<U> + Send,
) -> PyResult<U> {
    let done = py.detach(|| lock.lock().map(|mut value| f(&mut value)).map_err(|_| ()));
    match done {
        Ok(result) => lib(py, result),
        Err(()) => Err(poisoned(py)),
    }
}

/// A lock a thread panicked in: the core does not panic (its tests and fuzzing hold it to
/// that), so this is a defect, reported as one rather than as the value left half-changed.
pub(crate) fn poisoned(py: Python<'_>) -> PyErr {
    py_err(
        py,
        &tool_intent::Error::internal("a thread panicked while it used this object"),
    )
}

#[pymodule]
#[cfg_attr(feature = "hybrid", pyo3(name = "_tool_intent_hybrid"))]
fn _tool_intent(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Registry>()?;
    m.add_class::<SessionRunConfig>()?;
    m.add_class::<TurnPlan>()?;
    m.add_class::<Turn>()?;
    m.add_class::<shared::SharedRegistry>()?;
    m.add_function(wrap_pyfunction!(migrate::migrate, m)?)?;
    m.add_function(wrap_pyfunction!(migrate::undo, m)?)?;
    m.add_function(wrap_pyfunction!(migrate::audit, m)?)?;
    m.add_function(wrap_pyfunction!(session::fingerprint, m)?)?;
    m.add_function(wrap_pyfunction!(session::canonical_intent, m)?)?;
    m.add_function(wrap_pyfunction!(session::record_loaded, m)?)?;
    m.add_function(wrap_pyfunction!(session::build_intent, m)?)?;
    m.add_function(wrap_pyfunction!(session::normalize_tools_value, m)?)?;
    m.add_function(wrap_pyfunction!(session::count_tokens, m)?)?;
    m.add("ToolIntentError", m.py().get_type::<ToolIntentError>())?;
    Ok(())
}
