//! The stored run config (`SessionRunConfig`) and the module functions writers and
//! dispatchers call (`build_intent`, `record_loaded`, `fingerprint`, ...).

use crate::*;

/// Records loaded tools (in load order, each once).
#[pyfunction]
pub(crate) fn record_loaded<'py>(
    py: Python<'py>,
    state: Option<&Bound<'py, PyAny>>,
    #[pyo3(from_py_with = args::name_list)] names: Vec<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let state = arg(py, state, "state", tool_intent::TurnState::from_value)?;
    to_py(py, &lib(py, tool_intent::record_loaded(&state, &names))?)
}

/// The intent a writer stores for UI toggles (never an expanded list):
/// `build_intent(web_search=True, toolset="research")`.
#[pyfunction]
#[pyo3(signature = (**toggles))]
pub(crate) fn build_intent<'py>(
    py: Python<'py>,
    toggles: Option<&Bound<'py, pyo3::types::PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let toggles = match toggles {
        Some(t) => arg(
            py,
            Some(t.as_any()),
            "toggles",
            tool_intent::Toggles::from_value,
        )?,
        None => tool_intent::Toggles::default(),
    };
    py_value(
        py,
        &tool_intent::build_intent(&toggles).to_canonical_value(),
    )
}

/// The server's `_normalize_tools_value`: the row columns `{tools_enabled, tools_override,
/// web_search, toolset}` a writer's value stands for (the last two None).
#[pyfunction]
pub(crate) fn normalize_tools_value<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let row = arg(
        py,
        Some(value),
        "value",
        tool_intent::session::normalize_tools_value,
    )?;
    py_value(py, &row.to_value())
}

/// `sha256:<hex>` of a text's UTF-8 bytes.
#[pyfunction]
pub(crate) fn fingerprint(#[pyo3(from_py_with = args::text_arg)] text: String) -> String {
    tool_intent::fingerprint(text.as_bytes())
}

/// Tokens of a text by a counter ("estimate", "o200k" or "cl100k").
#[pyfunction]
#[pyo3(signature = (text, counter=None))]
pub(crate) fn count_tokens(
    py: Python<'_>,
    #[pyo3(from_py_with = args::text_arg)] text: String,
    #[pyo3(from_py_with = args::opt_counter)] counter: Option<String>,
) -> PyResult<usize> {
    // No counter named: the core's default (`CounterKind::default()`), as `budget` takes it.
    let kind = lib(
        py,
        counter
            .as_deref()
            .map(tool_intent::CounterKind::parse)
            .transpose(),
    )?
    .unwrap_or_default();
    let counted = py.detach(|| tool_intent::counter::shared_counter(kind).map(|c| c.count(&text)));
    lib(py, counted)
}

/// The canonical JSON text of an override (equal intents give equal bytes).
#[pyfunction]
pub(crate) fn canonical_intent(
    py: Python<'_>,
    tools_override: &Bound<'_, PyAny>,
) -> PyResult<String> {
    let o = arg(
        py,
        Some(tools_override),
        "tools_override",
        tool_intent::ToolsOverride::from_value,
    )?;
    Ok(o.to_canonical_json())
}

/// A session's stored tools configuration (the `tools_enabled`, `tools_override`,
/// `web_search` and `toolset` columns), as the server's session store reads and writes it.
#[pyclass(frozen, module = "tool_intent")]
pub(crate) struct SessionRunConfig {
    pub(crate) inner: tool_intent::SessionRunConfig,
}

#[pymethods]
impl SessionRunConfig {
    /// The configuration a session stores for an override (what a writer calls after
    /// `build_intent`): an intent is stored as intent, never as an expanded list.
    #[staticmethod]
    #[pyo3(signature = (tools_override=None))]
    pub(crate) fn from_override(
        py: Python<'_>,
        tools_override: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let o = arg(
            py,
            tools_override,
            "tools_override",
            tool_intent::ToolsOverride::from_value,
        )?;
        Ok(SessionRunConfig {
            inner: tool_intent::SessionRunConfig::from_override(&o),
        })
    }

    /// Reads a stored row: a dict of the columns (missing columns read as NULL), or its JSON
    /// text. `tools_override` may be the column's JSON text or its parsed value.
    #[staticmethod]
    pub(crate) fn from_row(py: Python<'_>, row: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(SessionRunConfig {
            inner: arg(
                py,
                Some(row),
                "row",
                tool_intent::SessionRunConfig::from_value,
            )?,
        })
    }

    /// The row to store: `{tools_enabled, tools_override, web_search, toolset}` with
    /// `tools_override` as canonical JSON text (or None), ready for an SQL parameter list.
    pub(crate) fn to_row<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut row = self.inner.to_value();
        if let Some(o) = row.get_mut("tools_override") {
            if !o.is_null() {
                *o = Value::String(o.to_string());
            }
        }
        py_value(py, &row)
    }

    /// The override a turn expands for this row (the server's `tools_override_from_config`).
    pub(crate) fn to_override<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py_value(py, &self.inner.to_override().to_canonical_value())
    }

    #[getter]
    pub(crate) fn tools_enabled(&self) -> Option<bool> {
        self.inner.tools_enabled
    }

    #[getter]
    pub(crate) fn web_search(&self) -> Option<bool> {
        self.inner.web_search
    }

    #[getter]
    pub(crate) fn toolset(&self) -> Option<String> {
        self.inner.toolset.clone()
    }

    #[getter]
    pub(crate) fn tools_override<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner
            .tools_override
            .as_ref()
            .map(|o| py_value(py, &o.to_canonical_value()))
            .transpose()
    }

    pub(crate) fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<SessionRunConfig>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    pub(crate) fn __repr__(&self) -> String {
        format!("SessionRunConfig({})", self.inner.to_value())
    }

    /// Pickling: the row's JSON text, read back by `SessionRunConfig.from_row`.
    pub(crate) fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let from_row = py.get_type::<SessionRunConfig>().getattr("from_row")?;
        Ok((from_row, (self.inner.to_value().to_string(),)))
    }
}
