//! The Python binding of tool-intent: arguments in, one core call, values out. Values cross
//! as JSON text (`json.dumps` / `json.loads` on the Python side of the boundary), so Python
//! reads exactly what the native CLI prints; errors become `tool_intent.ToolIntentError` (a
//! `ValueError`) with `.code`, `.argument` and `.path`. Nothing is decided here.
//!
//! Written against PyO3 0.30 (`Bound` API, `create_exception!`, `#[pyo3(signature)]`).

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use serde_json::{json, Value};
use tool_intent::{Call, TurnRequest};

create_exception!(_tool_intent, ToolIntentError, PyValueError);

/// A library error as a Python exception with the error's code, argument and JSON path.
fn py_err(py: Python<'_>, e: &tool_intent::Error) -> PyErr {
    let err = ToolIntentError::new_err(e.to_string());
    let value = err.value(py);
    let _ = value.setattr("code", e.code());
    let _ = value.setattr("argument", e.input());
    let _ = value.setattr("path", e.path());
    err
}

fn lib<T>(py: Python<'_>, r: tool_intent::Result<T>) -> PyResult<T> {
    r.map_err(|e| py_err(py, &e))
}

/// A Python argument as JSON text: a `str` as it is, anything else through `json.dumps`
/// (NaN and infinities refused, as JSON has none).
fn json_text(py: Python<'_>, value: &Bound<'_, PyAny>, input: &'static str) -> PyResult<String> {
    if value.is_instance_of::<PyString>() {
        return value.extract::<String>();
    }
    let json = py.import("json")?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("allow_nan", false)?;
    match json.call_method("dumps", (value,), Some(&kwargs)) {
        Ok(text) => Ok(text.extract()?),
        Err(e) => Err(py_err(
            py,
            &tool_intent::Error::InvalidValue {
                input,
                path: tool_intent::JsonPath::root(),
                message: format!("cannot be converted to JSON: {}", e.value(py)),
            },
        )),
    }
}

fn json_value(
    py: Python<'_>,
    value: Option<&Bound<'_, PyAny>>,
    input: &'static str,
) -> PyResult<Value> {
    match value {
        None => Ok(Value::Null),
        Some(v) if v.is_none() => Ok(Value::Null),
        Some(v) => {
            let text = json_text(py, v, input)?;
            serde_json::from_str(&text).map_err(|e| {
                py_err(
                    py,
                    &tool_intent::Error::InvalidJson {
                        input,
                        line: e.line(),
                        column: e.column(),
                        message: e.to_string(),
                    },
                )
            })
        }
    }
}

/// JSON text as Python values.
fn loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// A registry parsed once; each call passes only the small intent.
#[pyclass(frozen, module = "tool_intent")]
struct Registry {
    inner: tool_intent::Registry,
}

#[pymethods]
impl Registry {
    /// The registry compiled into the library.
    #[staticmethod]
    fn embedded() -> Self {
        Registry {
            inner: tool_intent::Registry::embedded(),
        }
    }

    /// Loads a registry: our format, an MCP `tools/list` result or a bare tool array, as JSON
    /// text or as Python values.
    #[staticmethod]
    fn from_json(py: Python<'_>, document: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = json_text(py, document, "registry")?;
        Ok(Registry {
            inner: lib(py, tool_intent::Registry::from_json_str(&text))?,
        })
    }

    /// A new registry with one MCP server's tools merged in as `mcp__<name>__<tool>`.
    fn merge_mcp_server(
        &self,
        py: Python<'_>,
        name: &str,
        tools_list: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let text = json_text(py, tools_list, "tools list")?;
        Ok(Registry {
            inner: lib(py, self.inner.merge_mcp_server_json(name, &text))?,
        })
    }

    /// Number of tools.
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// What loading left out or changed: `[{code, origin, message}]`.
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(
            py,
            &serde_json::to_string(self.inner.warnings()).unwrap_or_else(|_| "[]".into()),
        )
    }

    /// The per-turn call: `{array, catalog, promoted, renamed, warnings, provider, mode,
    /// fingerprint, payload, catalog_text}`; `payload` is the exact provider JSON text.
    #[pyo3(signature = (tools_override=None, *, profile=None, source=None, state=None, loaded=None, provider="anthropic", mode="catalog", cache_control=false))]
    #[allow(clippy::too_many_arguments)]
    fn plan_turn<'py>(
        &self,
        py: Python<'py>,
        tools_override: Option<&Bound<'py, PyAny>>,
        profile: Option<&Bound<'py, PyAny>>,
        source: Option<&str>,
        state: Option<&Bound<'py, PyAny>>,
        loaded: Option<Vec<String>>,
        provider: &str,
        mode: &str,
        cache_control: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let o = json_value(py, tools_override, "override")?;
        let options = json!({
            "profile": json_value(py, profile, "profile")?,
            "source": source,
            "state": json_value(py, state, "state")?,
            "loaded": loaded.unwrap_or_default(),
            "provider": provider,
            "mode": mode,
            "cacheControl": cache_control,
        });
        let (request, _) = lib(py, TurnRequest::from_values(&o, &options, Call::Turn))?;
        let plan = lib(py, tool_intent::plan_turn(&self.inner, &request))?;
        let result = loads(py, &plan.to_json())?;
        result.set_item("payload", &plan.payload)?;
        result.set_item("catalog_text", &plan.catalog_text)?;
        Ok(result)
    }
}

/// `sha256:<hex>` of a text's UTF-8 bytes.
#[pyfunction]
fn fingerprint(text: &str) -> String {
    tool_intent::fingerprint(text.as_bytes())
}

/// The canonical JSON text of an override (equal intents give equal bytes).
#[pyfunction]
fn canonical_intent(py: Python<'_>, tools_override: &Bound<'_, PyAny>) -> PyResult<String> {
    let text = json_text(py, tools_override, "override")?;
    Ok(lib(py, tool_intent::ToolsOverride::from_json_str(&text))?.to_canonical_json())
}

#[pymodule]
fn _tool_intent(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Registry>()?;
    m.add_function(wrap_pyfunction!(fingerprint, m)?)?;
    m.add_function(wrap_pyfunction!(canonical_intent, m)?)?;
    m.add("ToolIntentError", m.py().get_type::<ToolIntentError>())?;
    Ok(())
}
