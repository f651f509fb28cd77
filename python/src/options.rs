//! A call's keyword options as the options object the core reads.

use crate::*;

/// A call's keyword options as the options object the core reads (JS writes the same object),
/// so both bindings share one reader and its errors: an option at fault is named by its
/// Python keyword.
pub(crate) struct Options(serde_json::Map<String, Value>);

impl Options {
    pub(crate) fn new() -> Self {
        Options(serde_json::Map::new())
    }

    pub(crate) fn text(mut self, key: &str, value: Option<String>) -> Self {
        if let Some(v) = value {
            self.0.insert(key.to_string(), Value::String(v));
        }
        self
    }

    pub(crate) fn flag(mut self, key: &str, value: Option<bool>) -> Self {
        if let Some(v) = value {
            self.0.insert(key.to_string(), Value::Bool(v));
        }
        self
    }

    pub(crate) fn count(mut self, key: &str, value: Option<usize>) -> Self {
        if let Some(v) = value {
            self.0.insert(key.to_string(), Value::from(v));
        }
        self
    }

    pub(crate) fn json(
        mut self,
        py: Python<'_>,
        key: &'static str,
        value: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let v = json_value(py, value, key)?;
        if !v.is_null() {
            self.0.insert(key.to_string(), v);
        }
        Ok(self)
    }

    /// Keyword arguments the call does not take: the core's options reader refuses them as
    /// it refuses a JS options key (`invalid_argument` on `options`, at `$.<key>`), instead of
    /// Python's plain `TypeError`.
    pub(crate) fn unknown(mut self, unknown: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        for (key, _) in unknown.into_iter().flat_map(|d| d.iter()) {
            self.0.insert(key.extract::<String>()?, Value::Null);
        }
        Ok(self)
    }

    pub(crate) fn value(self) -> Value {
        Value::Object(self.0)
    }

    /// The turn request of `tools_override` and these options.
    pub(crate) fn request(
        self,
        py: Python<'_>,
        tools_override: Option<&Bound<'_, PyAny>>,
        call: Call,
    ) -> PyResult<(tool_intent::TurnRequest, CallOptions)> {
        let o = json_value(py, tools_override, "tools_override")?;
        lib(
            py,
            tool_intent::TurnRequest::from_values(&o, &self.value(), call),
        )
    }
}
