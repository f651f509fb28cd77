//! The `TurnPlan` class: what one turn sends, converted on first access.

use crate::*;

/// The result of the per-turn call: the core's plan, kept as the one planning made it. The
/// payload, the catalog text and the fingerprint are plain strings; the name lists (`array`,
/// `catalog`, `promoted`, `renamed`, `warnings`, `provider`, `mode`) are converted on first
/// access, so a server that only sends the request converts nothing it does not use.
/// `plan["payload"]` works as for a dict, and `to_dict()` gives every field.
#[pyclass(frozen, module = "tool_intent")]
pub(crate) struct TurnPlan {
    /// The core's plan (it owns its names).
    pub(crate) plan: tool_intent::TurnPlan,
    pub(crate) parsed: pyo3::sync::PyOnceLock<Py<PyAny>>,
}

impl TurnPlan {
    pub(crate) fn summary<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, PyAny>> {
        self.parsed
            .get_or_try_init(py, || {
                loads(py, &lib(py, self.plan.to_json())?).map(Bound::unbind)
            })
            .map(|v| v.bind(py))
    }
}

#[pymethods]
impl TurnPlan {
    pub(crate) fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        match key {
            "payload" => Ok(PyString::new(py, &self.plan.payload).into_any()),
            "catalog_text" => Ok(PyString::new(py, &self.plan.catalog_text).into_any()),
            "request_fields" => Ok(PyString::new(py, &self.plan.request_fields).into_any()),
            "changes" => Ok(PyString::new(py, &self.plan.changes).into_any()),
            "fingerprint" => Ok(PyString::new(py, &self.plan.fingerprint).into_any()),
            _ => self.summary(py)?.get_item(key),
        }
    }

    /// `sha256:<hex>` of `payload`.
    #[getter]
    pub(crate) fn fingerprint(&self) -> &str {
        &self.plan.fingerprint
    }

    /// The exact provider tools-array JSON.
    #[getter]
    pub(crate) fn payload(&self) -> &str {
        &self.plan.payload
    }

    /// The catalog text for the system prompt ("" when there is none).
    #[getter]
    pub(crate) fn catalog_text(&self) -> &str {
        &self.plan.catalog_text
    }

    /// Top-level request fields the tools need besides `tools`, as JSON object text ("" when
    /// none): OpenAI Chat's `web_search_options`, Gemini's `toolConfig`.
    #[getter]
    pub(crate) fn request_fields(&self) -> &str {
        &self.plan.request_fields
    }

    /// With `tool_changes="messages"`: the items to append to the conversation after the
    /// turn's newest user message, as JSON array text ("" when nothing changed).
    #[getter]
    pub(crate) fn changes(&self) -> &str {
        &self.plan.changes
    }

    /// With `tool_changes="messages"`: the turn state to keep (the conversation's record
    /// after this turn's change message); `None` otherwise.
    #[getter]
    pub(crate) fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary(py)?
            .get_item("state")
            .or_else(|_| Ok(py.None().into_bound(py)))
    }

    /// The provider betas the request needs (`[]` unless Anthropic with change messages).
    #[getter]
    pub(crate) fn betas(&self) -> Vec<&'static str> {
        self.plan.betas()
    }

    /// Every field as a dict (the names, warnings, provider, mode, fingerprint, payload and
    /// catalog text).
    pub(crate) fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        // Parsed anew from the plan's JSON: the caller may change the dict and its lists
        // without changing what `plan["array"]` returns.
        let d = loads(py, &lib(py, self.plan.to_json())?)?;
        d.set_item("payload", &self.plan.payload)?;
        d.set_item("catalog_text", &self.plan.catalog_text)?;
        d.set_item("request_fields", &self.plan.request_fields)?;
        d.set_item("changes", &self.plan.changes)?;
        Ok(d)
    }

    #[getter]
    pub(crate) fn array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary(py)?.get_item("array")
    }

    #[getter]
    pub(crate) fn catalog<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary(py)?.get_item("catalog")
    }

    #[getter]
    pub(crate) fn promoted<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary(py)?.get_item("promoted")
    }

    #[getter]
    pub(crate) fn renamed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary(py)?.get_item("renamed")
    }

    #[getter]
    pub(crate) fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary(py)?.get_item("warnings")
    }

    pub(crate) fn __repr__(&self) -> String {
        format!(
            "TurnPlan(fingerprint={:?}, payload: {} bytes)",
            self.plan.fingerprint,
            self.plan.payload.len()
        )
    }
}
