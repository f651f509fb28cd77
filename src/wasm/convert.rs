//! Values across the wasm boundary: JS strings to UTF-8 text through `TextEncoder.encodeInto`,
//! JS values to JSON text through `JSON.stringify`, results back through `JSON.parse`.

use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::{js_error, lib};
use crate::Error;

#[wasm_bindgen]
extern "C" {
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(
        this: &TextEncoder,
        input: &js_sys::JsString,
        into: &js_sys::Uint8Array,
    ) -> EncodeResult;
    type EncodeResult;
    #[wasm_bindgen(method, getter)]
    fn read(this: &EncodeResult) -> f64;
    #[wasm_bindgen(method, getter)]
    fn written(this: &EncodeResult) -> f64;
}

thread_local! {
    static ENCODER: TextEncoder = TextEncoder::new();
}

/// A JS string's UTF-8 text (lone surrogates become U+FFFD, as in every other route).
fn string_text(value: &JsValue) -> String {
    let whole: &js_sys::JsString = value.unchecked_ref();
    let units = whole.length() as usize;
    // ASCII needs one byte per UTF-16 unit; anything else grows the buffer below.
    let mut buf: Vec<u8> = Vec::with_capacity(units);
    let mut read = 0usize;
    while read < units {
        let rest = if read == 0 {
            whole.clone()
        } else {
            whole.slice(read as u32, units as u32)
        };
        let spare = buf.capacity() - buf.len();
        // SAFETY: the view covers only the vector's spare capacity and is used before anything
        // can allocate in wasm memory (which could move or detach it); `written` bytes are
        // initialised by encodeInto before the length is set.
        let result = unsafe {
            let view = js_sys::Uint8Array::view_mut_raw(buf.as_mut_ptr().add(buf.len()), spare);
            ENCODER.with(|e| e.encode_into(&rest, &view))
        };
        let (r, w) = (result.read() as usize, result.written() as usize);
        // SAFETY: encodeInto wrote `w` ≤ `spare` bytes into the spare capacity.
        unsafe { buf.set_len(buf.len() + w.min(spare)) };
        read += r;
        if read < units {
            // At most three bytes per remaining unit (a surrogate pair is four for two).
            buf.reserve((units - read) * 3);
        }
    }
    String::from_utf8(buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The JSON text of a JS argument: a string as it is, anything else through JSON.stringify
/// (`undefined` reads as `null`).
pub(super) fn json_text(value: &JsValue, input: &'static str) -> Result<String, JsValue> {
    if value.is_string() {
        return Ok(string_text(value));
    }
    if value.is_undefined() {
        return Ok("null".to_string());
    }
    let text = js_sys::JSON::stringify(value).map_err(|e| {
        let why = e
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_else(|| "not representable as JSON".to_string());
        js_error(&Error::InvalidValue {
            input,
            path: crate::JsonPath::root(),
            message: format!("cannot be converted to JSON: {why}"),
        })
    })?;
    Ok(if text.is_string() {
        string_text(&text)
    } else {
        "null".to_string()
    })
}

/// A JS argument as a JSON value.
pub(super) fn json_in(value: &JsValue, input: &'static str) -> Result<Value, JsValue> {
    lib(crate::json::parse(input, &json_text(value, input)?))
}

/// Options objects are never JSON text; `undefined` and `null` are the defaults.
pub(super) fn options_in(value: Option<&JsValue>) -> Result<Value, JsValue> {
    match value {
        None => Ok(Value::Null),
        Some(v) if v.is_undefined() || v.is_null() => Ok(Value::Null),
        Some(v) if v.is_string() => Err(js_error(&Error::InvalidValue {
            input: "options",
            path: crate::JsonPath::root(),
            message: "expected an options object, found a string".to_string(),
        })),
        Some(v) => json_in(v, "options"),
    }
}

/// A result as a JS value, through the engine's JSON.parse.
pub(super) fn out<T: Serialize + ?Sized, J: JsCast>(value: &T) -> Result<J, JsValue> {
    // Serialising our own result types cannot fail (no maps with non-string keys).
    let text =
        lib(serde_json::to_string(value).map_err(|_| Error::internal("serialising a result")))?;
    parse_out(&text)
}

pub(super) fn parse_out<J: JsCast>(text: &str) -> Result<J, JsValue> {
    js_sys::JSON::parse(text).map(JsCast::unchecked_into)
}
