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
    static DUMPS: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    let dumps = DUMPS.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("json")?.getattr("dumps")?.unbind())
    })?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("allow_nan", false)?;
    match dumps.bind(py).call((value,), Some(&kwargs)) {
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
        // The core's reader: the same BOM and duplicate-key rules as every other surface.
        Some(v) => lib(py, tool_intent::read_json(input, &json_text(py, v, input)?)),
    }
}

/// JSON text as Python values.
fn loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    static LOADS: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    let loads = LOADS.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("json")?.getattr("loads")?.unbind())
    })?;
    loads.bind(py).call1((text,))
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

    /// The per-turn call: a [`TurnPlan`] (`payload` is the exact provider JSON text; `array`,
    /// `catalog`, `promoted`, `renamed`, `warnings`, `provider`, `mode` as on the other
    /// surfaces).
    #[pyo3(signature = (tools_override=None, *, profile=None, source=None, state=None, loaded=None, provider="anthropic", mode="catalog", cache_control=false))]
    #[allow(clippy::too_many_arguments)]
    fn plan_turn<'py>(
        slf: &Bound<'py, Self>,
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
        let turn = Turn {
            tools_override,
            profile,
            source,
            state,
            loaded,
            provider,
            mode,
            cache_control,
        };
        let (request, _) = turn.request(py, json!({}), Call::Turn)?;
        let plan = lib(py, tool_intent::plan_turn(&slf.get().inner, &request))?;
        Ok(TurnPlan {
            registry: slf.clone().unbind(),
            request,
            fingerprint: plan.fingerprint.clone(),
            payload: plan.payload,
            catalog_text: plan.catalog_text,
            summary_text: pyo3::sync::PyOnceLock::new(),
            parsed: pyo3::sync::PyOnceLock::new(),
        }
        .into_pyobject(py)?
        .into_any())
    }

    /// Runs `tool_search` for a turn: `({hits, notFound, text}, new_state)`; the new state
    /// has the hits recorded as loaded (they join the array at the next `begin_turn`).
    #[pyo3(signature = (query, tools_override=None, *, limit=None, profile=None, source=None, state=None, provider="anthropic", mode="catalog"))]
    #[allow(clippy::too_many_arguments)]
    fn tool_search<'py>(
        &self,
        py: Python<'py>,
        query: &str,
        tools_override: Option<&Bound<'py, PyAny>>,
        limit: Option<usize>,
        profile: Option<&Bound<'py, PyAny>>,
        source: Option<&str>,
        state: Option<&Bound<'py, PyAny>>,
        provider: &str,
        mode: &str,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let turn = Turn {
            tools_override,
            profile,
            source,
            state,
            loaded: None,
            provider,
            mode,
            cache_control: false,
        };
        let extra = json!({ "limit": limit });
        let (request, options) = turn.request(py, extra, Call::Search)?;
        let outcome = lib(
            py,
            tool_intent::search_turn(&self.inner, &request, query, options.limit),
        )?;
        let result = loads(py, &to_text(&outcome.result))?;
        if let Some(output) = &outcome.provider_output {
            // native-client mode: the provider-shaped result (tool_reference blocks, or a
            // tool_search_output item).
            result.set_item("providerOutput", loads(py, &output.to_string())?)?;
        }
        let state = loads(py, &to_text(&outcome.state))?;
        Ok((result, state))
    }

    /// Dispatch: the full definition of a tool this turn may call (`source_name` is the name
    /// to send to its MCP server when it differs), or `ToolIntentError` `tool_not_available`.
    #[pyo3(signature = (name, tools_override=None, *, profile=None, source=None))]
    fn resolve<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        tools_override: Option<&Bound<'py, PyAny>>,
        profile: Option<&Bound<'py, PyAny>>,
        source: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let turn = Turn {
            tools_override,
            profile,
            source,
            state: None,
            loaded: None,
            provider: "anthropic",
            mode: "catalog",
            cache_control: false,
        };
        let (request, _) = turn.request(py, json!({}), Call::Turn)?;
        let tool = lib(py, tool_intent::resolve_tool(&self.inner, &request, name))?;
        loads(py, &tool_intent::tool_to_value(tool).to_string())
    }

    /// The token budget of a turn, half by half (`counter`: "estimate", or "o200k" /
    /// "cl100k" when the core is built with exact tokens).
    #[pyo3(signature = (tools_override=None, *, counter="estimate", profile=None, source=None, state=None, loaded=None, provider="anthropic", mode="catalog"))]
    #[allow(clippy::too_many_arguments)]
    fn budget<'py>(
        &self,
        py: Python<'py>,
        tools_override: Option<&Bound<'py, PyAny>>,
        counter: &str,
        profile: Option<&Bound<'py, PyAny>>,
        source: Option<&str>,
        state: Option<&Bound<'py, PyAny>>,
        loaded: Option<Vec<String>>,
        provider: &str,
        mode: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let turn = Turn {
            tools_override,
            profile,
            source,
            state,
            loaded,
            provider,
            mode,
            cache_control: false,
        };
        let (request, options) = turn.request(py, json!({ "counter": counter }), Call::Budget)?;
        let kind = options
            .counter
            .unwrap_or(tool_intent::CounterKind::Estimate);
        let counter = lib(py, tool_intent::shared_counter(kind))?;
        let budget = lib(py, tool_intent::budget_turn(&self.inner, &request, counter))?;
        loads(py, &to_text(&budget))
    }
}

/// The arguments every per-turn method shares.
struct Turn<'a, 'py> {
    tools_override: Option<&'a Bound<'py, PyAny>>,
    profile: Option<&'a Bound<'py, PyAny>>,
    source: Option<&'a str>,
    state: Option<&'a Bound<'py, PyAny>>,
    loaded: Option<Vec<String>>,
    provider: &'a str,
    mode: &'a str,
    cache_control: bool,
}

impl Turn<'_, '_> {
    /// The core's request, from the same options object the JS surface uses.
    fn request(
        self,
        py: Python<'_>,
        mut extra: Value,
        call: Call,
    ) -> PyResult<(TurnRequest, tool_intent::CallOptions)> {
        let o = json_value(py, self.tools_override, "override")?;
        let options = extra
            .as_object_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        let mut options = Value::Object(options);
        options["profile"] = json_value(py, self.profile, "profile")?;
        options["source"] = json!(self.source);
        options["state"] = json_value(py, self.state, "state")?;
        options["loaded"] = json!(self.loaded.unwrap_or_default());
        options["provider"] = json!(self.provider);
        options["mode"] = json!(self.mode);
        options["cacheControl"] = json!(self.cache_control);
        lib(py, TurnRequest::from_values(&o, &options, call))
    }
}

/// A result as JSON text (our result types always serialise).
fn to_text(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_string())
}

/// A turn boundary: what was loaded so far joins the array from now on.
#[pyfunction]
#[pyo3(signature = (state=None))]
fn begin_turn<'py>(
    py: Python<'py>,
    state: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let state = lib(
        py,
        tool_intent::TurnState::from_value(&json_value(py, state, "state")?),
    )?;
    loads(py, &to_text(&tool_intent::begin_turn(&state)))
}

/// Records loaded tools (in load order, each once).
#[pyfunction]
fn record_loaded<'py>(
    py: Python<'py>,
    state: Option<&Bound<'py, PyAny>>,
    names: Vec<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let state = lib(
        py,
        tool_intent::TurnState::from_value(&json_value(py, state, "state")?),
    )?;
    loads(py, &to_text(&tool_intent::record_loaded(&state, &names)))
}

/// The intent a writer stores for UI toggles (never an expanded list):
/// `build_intent(web_search=True, toolset="research")`.
#[pyfunction]
#[pyo3(signature = (**toggles))]
fn build_intent<'py>(
    py: Python<'py>,
    toggles: Option<&Bound<'py, pyo3::types::PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let value = match toggles {
        Some(t) => json_value(py, Some(t.as_any()), "toggles")?,
        None => json!({}),
    };
    let toggles = lib(py, tool_intent::Toggles::from_value(&value))?;
    loads(py, &tool_intent::build_intent(&toggles).to_canonical_json())
}

/// The server's `_normalize_tools_value`: `(tools_enabled, tools_override)` for a writer's value.
#[pyfunction]
fn normalize_tools_value<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
) -> PyResult<(Option<bool>, Bound<'py, PyAny>)> {
    let normalized = lib(
        py,
        tool_intent::NormalizedTools::of(&json_value(py, Some(value), "tools value")?),
    )?;
    Ok((
        normalized.tools_enabled,
        loads(py, &normalized.tools_override.to_string())?,
    ))
}

/// The override a stored session row stands for (`tools_override` may be JSON text, as a
/// database column holds it; missing columns read as null).
#[pyfunction]
fn tools_override_from_config<'py>(
    py: Python<'py>,
    row: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let row = lib(
        py,
        tool_intent::SessionRunConfig::from_value(&json_value(py, Some(row), "session config")?),
    )?;
    loads(
        py,
        &tool_intent::tools_override_from_config(&row).to_canonical_json(),
    )
}

/// The session row (the four columns) to store for an override.
#[pyfunction]
fn session_row<'py>(
    py: Python<'py>,
    tools_override: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let o = lib(
        py,
        tool_intent::ToolsOverride::from_value(&json_value(py, tools_override, "override")?),
    )?;
    loads(
        py,
        &tool_intent::SessionRunConfig::from_override(&o)
            .to_value()
            .to_string(),
    )
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

/// The result of the per-turn call. The payload, the catalog text and the fingerprint are
/// plain strings; the name lists (`array`, `catalog`, `promoted`, `renamed`, `warnings`,
/// `provider`, `mode`) are made on first access (the plan is made again for them: the core is
/// a pure function of registry and request), so a server that only sends the request pays for
/// no conversion it does not use. `plan["payload"]` works as for
/// a dict, and `to_dict()` gives every field.
#[pyclass(frozen, module = "tool_intent")]
struct TurnPlan {
    /// The registry and request the plan came from: the name lists are planned again from
    /// them on first read (a pure function of both, so they are the same lists).
    registry: Py<Registry>,
    request: TurnRequest,
    #[pyo3(get)]
    fingerprint: String,
    #[pyo3(get)]
    payload: String,
    #[pyo3(get)]
    catalog_text: String,
    /// The plan's JSON, made on first need (by `plan[key]`, a name-list attribute or
    /// `to_dict()`), then read from here.
    summary_text: pyo3::sync::PyOnceLock<String>,
    parsed: pyo3::sync::PyOnceLock<Py<PyAny>>,
}

impl TurnPlan {
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, PyAny>> {
        self.parsed
            .get_or_try_init(py, || loads(py, self.summary_json(py)?).map(Bound::unbind))
            .map(|v| v.bind(py))
    }

    fn summary_json(&self, py: Python<'_>) -> PyResult<&str> {
        self.summary_text
            .get_or_try_init(py, || {
                let registry = &self.registry.bind(py).get().inner;
                Ok(lib(py, tool_intent::plan_turn(registry, &self.request))?.to_json())
            })
            .map(String::as_str)
    }
}

#[pymethods]
impl TurnPlan {
    fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        match key {
            "payload" => Ok(PyString::new(py, &self.payload).into_any()),
            "catalog_text" => Ok(PyString::new(py, &self.catalog_text).into_any()),
            "fingerprint" => Ok(PyString::new(py, &self.fingerprint).into_any()),
            _ => self.summary(py)?.get_item(key),
        }
    }

    /// Every field as a dict (the names, warnings, provider, mode, fingerprint, payload and
    /// catalog text).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        // Parsed anew from the plan's JSON (planned once): the caller may change the dict
        // and its lists without changing what `plan["array"]` returns.
        let d = loads(py, self.summary_json(py)?)?;
        d.set_item("payload", &self.payload)?;
        d.set_item("catalog_text", &self.catalog_text)?;
        Ok(d)
    }

    #[getter]
    fn array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary(py)?.get_item("array")
    }

    #[getter]
    fn catalog<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary(py)?.get_item("catalog")
    }

    #[getter]
    fn promoted<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary(py)?.get_item("promoted")
    }

    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary(py)?.get_item("warnings")
    }

    fn __repr__(&self) -> String {
        format!(
            "TurnPlan(fingerprint={:?}, payload: {} bytes)",
            self.fingerprint,
            self.payload.len()
        )
    }
}

/// A session's stored tools configuration (the `tools_enabled`, `tools_override`,
/// `web_search` and `toolset` columns), as the server's session store reads and writes it.
#[pyclass(frozen, module = "tool_intent")]
struct SessionRunConfig {
    inner: tool_intent::SessionRunConfig,
}

#[pymethods]
impl SessionRunConfig {
    /// The configuration a session stores for an override (what a writer calls after
    /// `build_intent`): an intent is stored as intent, never as an expanded list.
    #[staticmethod]
    #[pyo3(signature = (tools_override=None))]
    fn from_override(py: Python<'_>, tools_override: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let o = lib(
            py,
            tool_intent::ToolsOverride::from_value(&json_value(py, tools_override, "override")?),
        )?;
        Ok(SessionRunConfig {
            inner: tool_intent::SessionRunConfig::from_override(&o),
        })
    }

    /// Reads a stored row: a dict of the columns (missing columns read as NULL), or its JSON
    /// text. `tools_override` may be the column's JSON text or its parsed value.
    #[staticmethod]
    fn from_row(py: Python<'_>, row: &Bound<'_, PyAny>) -> PyResult<Self> {
        let value = json_value(py, Some(row), "session row")?;
        Ok(SessionRunConfig {
            inner: lib(py, tool_intent::SessionRunConfig::from_value(&value))?,
        })
    }

    /// The row to store: `{tools_enabled, tools_override, web_search, toolset}` with
    /// `tools_override` as canonical JSON text (or None), ready for an SQL parameter list.
    fn to_row<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut row = self.inner.to_value();
        if let Some(o) = row.get_mut("tools_override") {
            if !o.is_null() {
                *o = Value::String(o.to_string());
            }
        }
        loads(py, &row.to_string())
    }

    /// The override a turn expands for this row (what `tools_override_from_config` returns).
    fn resolved_override<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(
            py,
            &tool_intent::tools_override_from_config(&self.inner).to_canonical_json(),
        )
    }

    #[getter]
    fn tools_enabled(&self) -> Option<bool> {
        self.inner.tools_enabled
    }

    #[getter]
    fn web_search(&self) -> Option<bool> {
        self.inner.web_search
    }

    #[getter]
    fn toolset(&self) -> Option<String> {
        self.inner.toolset.clone()
    }

    #[getter]
    fn tools_override<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner
            .tools_override
            .as_ref()
            .map(|o| loads(py, &o.to_canonical_json()))
            .transpose()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<SessionRunConfig>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __repr__(&self) -> String {
        format!("SessionRunConfig({})", self.inner.to_value())
    }
}

/// The registry a call was given, or the embedded one.
fn registry_or_embedded(
    registry: Option<&Registry>,
) -> std::borrow::Cow<'_, tool_intent::Registry> {
    match registry {
        Some(r) => std::borrow::Cow::Borrowed(&r.inner),
        None => std::borrow::Cow::Owned(tool_intent::Registry::embedded()),
    }
}

/// Migrates legacy snapshot rows of a SQLite session table to intents, keeping the originals
/// in a backup table (the same run as `tool-intent migrate`). Returns the report as a dict.
#[pyfunction]
#[pyo3(signature = (db_path, registry=None, *, table="sessions", dry_run=false))]
fn migrate<'py>(
    py: Python<'py>,
    db_path: std::path::PathBuf,
    registry: Option<&Registry>,
    table: &str,
    dry_run: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let registry = registry_or_embedded(registry);
    let options = tool_intent::migrate::MigrateOptions {
        table: table.to_string(),
        dry_run,
    };
    let report = lib(
        py,
        tool_intent::migrate::migrate(&db_path, &registry, &options, &mut |_, _| {}),
    )?;
    loads(py, &to_text(&report))
}

/// Restores every row a migration rewrote from its backup table.
#[pyfunction]
#[pyo3(signature = (db_path, *, table="sessions"))]
fn undo<'py>(
    py: Python<'py>,
    db_path: std::path::PathBuf,
    table: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let report = lib(py, tool_intent::migrate::undo(&db_path, table))?;
    loads(py, &to_text(&report))
}

/// The rows that still hold a legacy snapshot: `[{rowid, matched, intent}]`.
#[pyfunction]
#[pyo3(signature = (db_path, registry=None, *, table="sessions"))]
fn audit<'py>(
    py: Python<'py>,
    db_path: std::path::PathBuf,
    registry: Option<&Registry>,
    table: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let registry = registry_or_embedded(registry);
    let rows = lib(py, tool_intent::migrate::audit(&db_path, table, &registry))?;
    loads(py, &to_text(&rows))
}

#[pymodule]
fn _tool_intent(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Registry>()?;
    m.add_class::<SessionRunConfig>()?;
    m.add_class::<TurnPlan>()?;
    m.add_function(wrap_pyfunction!(migrate, m)?)?;
    m.add_function(wrap_pyfunction!(undo, m)?)?;
    m.add_function(wrap_pyfunction!(audit, m)?)?;
    m.add_function(wrap_pyfunction!(fingerprint, m)?)?;
    m.add_function(wrap_pyfunction!(canonical_intent, m)?)?;
    m.add_function(wrap_pyfunction!(begin_turn, m)?)?;
    m.add_function(wrap_pyfunction!(record_loaded, m)?)?;
    m.add_function(wrap_pyfunction!(build_intent, m)?)?;
    m.add_function(wrap_pyfunction!(normalize_tools_value, m)?)?;
    m.add_function(wrap_pyfunction!(tools_override_from_config, m)?)?;
    m.add_function(wrap_pyfunction!(session_row, m)?)?;
    m.add("ToolIntentError", m.py().get_type::<ToolIntentError>())?;
    Ok(())
}
