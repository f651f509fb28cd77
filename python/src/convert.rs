//! Values across the boundary: Python arguments as the JSON text the core reads, results as
//! Python values with snake_case keys.

use crate::*;

/// A Python argument as JSON text: a `str` as it is, `bytes` or `bytearray` as UTF-8 text (as
/// `json.loads` takes them: a file's or a response's bytes need no decoding first), anything
/// else through `json.dumps` (NaN and infinities refused, as JSON has none).
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
    static DUMPS: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    let dumps = DUMPS.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("json")?.getattr("dumps")?.unbind())
    })?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("allow_nan", false)?;
    Ok(match dumps.bind(py).call((value,), Some(&kwargs)) {
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

/// A result as Python values with snake_case keys, built straight from the value (no JSON text
/// on the way): the core's JSON (what JS and the CLI read) is camelCase, Python's idiom is
/// snake_case. Values under the keys the core and the migration call data
/// (`tool_intent::json::DATA_KEYS`, `tool_intent_migrate::DATA_KEYS`) cross unchanged.
pub(crate) fn to_py<'py>(
    py: Python<'py>,
    result: &impl serde::Serialize,
) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::to_value(result).map_err(|e| {
        py_err(
            py,
            &tool_intent::Error::internal(format!("a result does not serialise: {e}")),
        )
    })?;
    py_value(py, &value, true)
}

/// JSON text the core wrote (a search outcome with its provider output) as Python values
/// with snake_case keys.
pub(crate) fn text_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        py_err(
            py,
            &tool_intent::Error::internal(format!("the core wrote JSON that does not parse: {e}")),
        )
    })?;
    py_value(py, &value, true)
}

pub(crate) fn py_value<'py>(
    py: Python<'py>,
    value: &Value,
    snake: bool,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u), _) => u.into_pyobject(py)?.into_any(),
            (None, None, Some(f)) => f.into_pyobject(py)?.into_any(),
            // serde_json's numbers are one of the three (no arbitrary precision here).
            (None, None, None) => {
                return Err(py_err(
                    py,
                    &tool_intent::Error::internal(format!("a number with no value: {n}")),
                ))
            }
        },
        Value::String(text) => PyString::new(py, text).into_any(),
        Value::Array(items) => {
            let list = pyo3::types::PyList::empty(py);
            for item in items {
                list.append(py_value(py, item, snake)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = pyo3::types::PyDict::new(py);
            for (k, v) in map {
                if snake {
                    let data = tool_intent::json::DATA_KEYS
                        .iter()
                        .chain(&tool_intent_migrate::DATA_KEYS)
                        .any(|d| d == k);
                    dict.set_item(snake_case(k), py_value(py, v, !data)?)?;
                } else {
                    dict.set_item(k, py_value(py, v, false)?)?;
                }
            }
            dict.into_any()
        }
    })
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
