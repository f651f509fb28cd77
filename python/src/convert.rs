//! Values across the boundary: Python arguments as the JSON text the core reads, results as
//! Python values with snake_case keys.

use crate::*;

/// A Python argument as JSON text: a `str` as it is, `bytes` or `bytearray` as UTF-8 text (as
/// `json.loads` takes them: a file's or a response's bytes need no decoding first), anything
/// else as `json.dumps` writes it (NaN and infinities refused, as JSON has none).
pub(crate) fn json_text(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    input: &'static str,
) -> PyResult<String> {
    lib(py, json_text_or_error(py, value, input)?)
}

/// [`json_text`], with a value that is not JSON as the core's error about `input` (at `$`)
/// rather than a Python exception, for a caller that names the error otherwise.
fn json_text_or_error(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    input: &'static str,
) -> PyResult<tool_intent::Result<String>> {
    let not_json = |message: String| tool_intent::Error::InvalidValue {
        input,
        path: tool_intent::JsonPath::root(),
        message,
    };
    if value.is_instance_of::<PyString>() {
        return Ok(value.extract::<String>().map_err(|_| {
            not_json(
                "the str holds a lone surrogate (half of a character), which is not text"
                    .to_string(),
            )
        }));
    }
    if value.is_instance_of::<pyo3::types::PyBytes>()
        || value.is_instance_of::<pyo3::types::PyByteArray>()
    {
        let bytes: Vec<u8> = value.extract()?;
        return Ok(utf8_text(bytes, input));
    }
    // `json.dumps(value, allow_nan=False)` makes this encoder on every call (it keeps one
    // only for the default options); one kept here is what it would make, and each JSON
    // argument crosses about 1 µs sooner (timeit, a 320-byte turn state: 7.5 → 6.3 µs).
    static ENCODE: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    let encode = ENCODE.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("allow_nan", false)?;
        let encoder = py
            .import("json")?
            .getattr("JSONEncoder")?
            .call((), Some(&kwargs))?;
        Ok(encoder.getattr("encode")?.unbind())
    })?;
    Ok(match encode.bind(py).call1((value,)) {
        Ok(text) => Ok(text.extract()?),
        Err(e) => Err(not_json(format!(
            "cannot be converted to JSON: {}",
            tool_intent::error::escaped(&e.value(py).to_string())
        ))),
    })
}

/// Bytes as the UTF-8 text JSON is exchanged in (RFC 8259, section 8.1); other bytes are
/// `invalid_json` at the line and column of the first byte that is not UTF-8.
fn utf8_text(bytes: Vec<u8>, input: &'static str) -> tool_intent::Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        // The prefix is valid UTF-8 (read as it is); its lines and characters place the byte.
        let before = String::from_utf8_lossy(valid);
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        tool_intent::Error::InvalidJson {
            input,
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
            message: "the bytes are not UTF-8 text (JSON text is UTF-8)".to_string(),
        }
    })
}

/// A keyword option holding JSON (`profile`, `state`), read as JS reads the member `name` of
/// its options object: a `str` is a string value (not JSON text), and a value that is not
/// JSON is `invalid_argument` on the option at its path, as the core names a bad option.
pub(crate) fn option_json_value(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    name: &'static str,
) -> PyResult<Value> {
    let key = tool_intent::turn::js_key(name);
    // An error at the options object itself (what `json.dumps` refused, text that does not
    // parse) is put at the option's member; one inside it already has its path there.
    let at_option = |e: tool_intent::Error| {
        let at_member = |message: String| tool_intent::Error::InvalidValue {
            input: "options",
            path: tool_intent::JsonPath::root().key(&key),
            message,
        };
        let e = match e {
            tool_intent::Error::InvalidValue { path, message, .. } if path.as_str() == "$" => {
                at_member(message)
            }
            tool_intent::Error::InvalidJson { message, .. } => at_member(message),
            other => other,
        };
        py_err(py, &tool_intent::turn::option_error(e))
    };
    let object = pyo3::types::PyDict::new(py);
    object.set_item(&key, value)?;
    let read = json_text_or_error(py, object.as_any(), "options")?
        .and_then(|text| tool_intent::json::parse("options", &text));
    let member = match read.map_err(at_option)? {
        Value::Object(mut members) => members.remove(&key),
        _ => None,
    };
    member.ok_or_else(|| {
        py_err(
            py,
            &tool_intent::Error::internal("json.dumps wrote a one-member dict without its member"),
        )
    })
}

pub(crate) fn json_value(
    py: Python<'_>,
    value: Option<&Bound<'_, PyAny>>,
    input: &'static str,
) -> PyResult<Value> {
    match value {
        None => Ok(Value::Null),
        Some(v) if v.is_none() => Ok(Value::Null),
        // The core's reader: the same BOM and duplicate-key rules as every other surface.
        Some(v) => lib(
            py,
            tool_intent::json::parse(input, &json_text(py, v, input)?),
        ),
    }
}

/// JSON text as Python values.
pub(crate) fn loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    static LOADS: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    let loads = LOADS.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("json")?.getattr("loads")?.unbind())
    })?;
    loads.bind(py).call1((text,))
}

/// A result as Python values with snake_case keys: the core's JSON (what JS and the CLI read) is
/// camelCase, Python's idiom is snake_case. Values under the keys the core and the migration
/// call data (`tool_intent::json::DATA_KEYS`, `tool_intent_migrate::DATA_KEYS`) cross
/// unchanged. The result crosses as the JSON text JS parses, read straight into Python values
/// in its order ([`PyValues`]), so every dict keeps the key order JS sees: a provider output
/// sent on from Python is the same bytes as from JS (serde_json's `Value` sorts the keys).
pub(crate) fn to_py<'py>(
    py: Python<'py>,
    result: &impl serde::Serialize,
) -> PyResult<Bound<'py, PyAny>> {
    text_to_py(py, &json_out(py, result)?)
}

/// JSON text the core wrote (a search outcome with its provider output) as Python values
/// with snake_case keys, as [`to_py`].
pub(crate) fn text_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    read_py(py, text, true)
}

/// A core value that is data throughout (a tool definition, a stored row, an intent) as
/// Python values, keys as they are.
pub(crate) fn py_value<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    read_py(py, &json_out(py, value)?, false)
}

fn json_out(py: Python<'_>, result: &impl serde::Serialize) -> PyResult<String> {
    lib(py, result_text(result))
}

/// A core result's JSON text, for [`text_to_py`] (made where the GIL is released).
pub(crate) fn result_text(result: &impl serde::Serialize) -> tool_intent::Result<String> {
    serde_json::to_string(result)
        .map_err(|e| tool_intent::Error::internal(format!("a result does not serialise: {e}")))
}

fn read_py<'py>(py: Python<'py>, text: &str, snake: bool) -> PyResult<Bound<'py, PyAny>> {
    use serde::de::DeserializeSeed;
    let mut reader = serde_json::Deserializer::from_str(text);
    PyValues { py, snake }
        .deserialize(&mut reader)
        .and_then(|value| reader.end().map(|()| value))
        .map_err(|e| {
            py_err(
                py,
                &tool_intent::Error::internal(format!(
                    "the core wrote JSON that does not read: {e}"
                )),
            )
        })
}

/// Reads JSON into Python values as it goes, in the text's order (`json.loads` and a walk
/// renaming its keys measured a third slower on a 10,000-tool budget); `snake` renames the
/// keys of result types, not those under a data key.
#[derive(Clone, Copy)]
struct PyValues<'py> {
    py: Python<'py>,
    snake: bool,
}

/// A Python error (out of memory) inside the reader, as serde's error.
fn py_fault<E: serde::de::Error>(e: PyErr) -> E {
    E::custom(e)
}

impl<'de, 'py> serde::de::DeserializeSeed<'de> for PyValues<'py> {
    type Value = Bound<'py, PyAny>;

    fn deserialize<D: serde::Deserializer<'de>>(self, reader: D) -> Result<Self::Value, D::Error> {
        reader.deserialize_any(self)
    }
}

impl<'de, 'py> serde::de::Visitor<'de> for PyValues<'py> {
    type Value = Bound<'py, PyAny>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(self.py.None().into_bound(self.py))
    }

    fn visit_bool<E>(self, b: bool) -> Result<Self::Value, E> {
        Ok(pyo3::types::PyBool::new(self.py, b).to_owned().into_any())
    }

    fn visit_i64<E>(self, n: i64) -> Result<Self::Value, E> {
        let Ok(n) = n.into_pyobject(self.py);
        Ok(n.into_any())
    }

    fn visit_u64<E>(self, n: u64) -> Result<Self::Value, E> {
        let Ok(n) = n.into_pyobject(self.py);
        Ok(n.into_any())
    }

    fn visit_f64<E>(self, n: f64) -> Result<Self::Value, E> {
        let Ok(n) = n.into_pyobject(self.py);
        Ok(n.into_any())
    }

    fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
        Ok(PyString::new(self.py, text).into_any())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut items: A,
    ) -> Result<Self::Value, A::Error> {
        let list = pyo3::types::PyList::empty(self.py);
        while let Some(item) = items.next_element_seed(self)? {
            list.append(item).map_err(py_fault)?;
        }
        Ok(list.into_any())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut members: A,
    ) -> Result<Self::Value, A::Error> {
        let dict = PyDict::new(self.py);
        while let Some(key) = members.next_key::<std::borrow::Cow<'de, str>>()? {
            let (key, inner) = if self.snake {
                let data = tool_intent::json::DATA_KEYS
                    .iter()
                    .chain(&tool_intent_migrate::DATA_KEYS)
                    .any(|d| *d == key);
                (std::borrow::Cow::Owned(snake_case(&key)), !data)
            } else {
                (key, false)
            };
            let value = members.next_value_seed(PyValues {
                snake: inner,
                ..self
            })?;
            dict.set_item(key.as_ref(), value).map_err(py_fault)?;
        }
        Ok(dict.into_any())
    }
}

pub(crate) fn snake_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A Python argument as the core value it stands for, errors naming the Python argument.
pub(crate) fn arg<T>(
    py: Python<'_>,
    value: Option<&Bound<'_, PyAny>>,
    name: &'static str,
    read: impl FnOnce(&Value) -> tool_intent::Result<T>,
) -> PyResult<T> {
    let v = json_value(py, value, name)?;
    lib(py, read(&v).map_err(|e| e.with_input(name)))
}
