//! A call's keyword options handed to the core's options value for that call, one by one under
//! their own (snake_case) names: the core checks each, names it in errors and decides every
//! default; this file keeps no key list.

use crate::*;
use tool_intent::turn::CallOptions;

/// The options of one call, as they are set.
pub(crate) struct Options<'py, O> {
    py: Python<'py>,
    options: O,
}

impl<'py, O: CallOptions> Options<'py, O> {
    pub(crate) fn new(py: Python<'py>) -> Self {
        Options {
            py,
            options: O::default(),
        }
    }

    fn set(mut self, name: &str, value: Option<Value>) -> PyResult<Self> {
        if let Some(v) = value {
            lib(self.py, self.options.set_named(name, &v))?;
        }
        Ok(self)
    }

    pub(crate) fn text(self, name: &str, value: Option<String>) -> PyResult<Self> {
        self.set(name, value.map(Value::String))
    }

    pub(crate) fn flag(self, name: &str, value: Option<bool>) -> PyResult<Self> {
        self.set(name, value.map(Value::Bool))
    }

    pub(crate) fn json(
        self,
        name: &'static str,
        value: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        match value.filter(|v| !v.is_none()) {
            Some(v) => {
                let v = option_json_value(self.py, v, name)?;
                self.set(name, Some(v))
            }
            None => Ok(self),
        }
    }

    /// The options, once keyword arguments the call does not take are refused as the core
    /// refuses a JS options key (`invalid_argument` on `options`, at `$.<key>`) instead of
    /// Python's plain `TypeError`.
    pub(crate) fn finish(mut self, unknown: Option<&Bound<'_, PyDict>>) -> PyResult<O> {
        if let Some((key, _)) = unknown.and_then(|d| d.iter().next()) {
            let key = key.extract::<String>()?;
            lib(self.py, self.options.set_named(&key, &Value::Null))?;
            // A keyword the call takes cannot arrive here: PyO3 binds it by name.
            return Err(py_err(
                self.py,
                &tool_intent::Error::internal("a keyword argument was given twice"),
            ));
        }
        Ok(self.options)
    }
}
