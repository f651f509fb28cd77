//! A call's keyword options handed to the core's options value for that call, one by one under
//! their own (snake_case) names: the core checks each, names it in errors and decides every
//! default; this file keeps no key list. A call whose options several methods share (a
//! turn's) takes them as `**options` ([`Keywords`]), read by name in one place.

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

/// A call's `**options` as Python gave them: each taken out by name as the call reads it, so
/// what is left are the keywords the call does not take (refused by [`Options::finish`]).
pub(crate) struct Keywords<'py>(Option<Bound<'py, PyDict>>);

impl<'py> Keywords<'py> {
    /// A copy of the keywords (the caller's dict is left as it was).
    pub(crate) fn new(given: Option<&Bound<'py, PyDict>>) -> PyResult<Self> {
        Ok(Keywords(given.map(|d| d.copy()).transpose()?))
    }

    /// Keyword `name`'s value, taken out; `None` when it was not given.
    pub(crate) fn take(&mut self, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(dict) = &self.0 else {
            return Ok(None);
        };
        let value = dict.get_item(name)?;
        if value.is_some() {
            dict.del_item(name)?;
        }
        Ok(value)
    }

    /// Keyword `name` read by its typed reader (`args`: a wrong type names the argument);
    /// `None` when it was not given.
    pub(crate) fn read<T>(
        &mut self,
        name: &str,
        reader: fn(&Bound<'py, PyAny>) -> PyResult<Option<T>>,
    ) -> PyResult<Option<T>> {
        match self.take(name)? {
            Some(value) => reader(&value),
            None => Ok(None),
        }
    }

    /// The keywords no read took.
    pub(crate) fn rest(&self) -> Option<&Bound<'py, PyDict>> {
        self.0.as_ref()
    }
}
