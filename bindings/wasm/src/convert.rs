//! Values across the wasm boundary: JS strings to UTF-8 text through `TextEncoder.encodeInto`,
//! names and bytes, results back through `JSON.parse` (JS values to JSON text: `json_in.rs`).
//!
//! Every JS function called on a caller's value is imported with `catch`: a getter, a
//! `toJSON` or a Proxy trap that throws, or a revoked Proxy (a finished Immer draft), makes
//! the call an `Err` here, never an exception that unwinds through the module's frames. Such
//! an unwind skips the module's stack and reference-slot bookkeeping, and a few hundred of
//! them corrupt it for good ("memory access out of bounds", "table index is out of bounds" on
//! every later call of every registry).

use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::{js_error, lib};
use tool_intent::Error;

// The platform's UTF-8 encoder writes a JS string straight into wasm memory: one native pass,
// no intermediate buffer (measured faster than the generated glue's per-character loop).
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

#[wasm_bindgen]
extern "C" {
    /// A JS string, for `String.prototype.isWellFormed` (ES2024; Node 20, Chrome 111): true
    /// when it holds no lone surrogate.
    pub(super) type WellFormed;
    #[wasm_bindgen(method, js_name = isWellFormed)]
    pub(super) fn is_well_formed(this: &WellFormed) -> bool;
    /// `Object.prototype.toString.call(value)`: `[object Map]`, whatever the object's own
    /// `toString` says. Throws for a revoked Proxy, or when a `Symbol.toStringTag` getter does.
    #[wasm_bindgen(js_namespace = ["Object", "prototype", "toString"], js_name = call, catch)]
    fn object_tag_of(value: &JsValue) -> Result<js_sys::JsString, JsValue>;
    /// `Array.isArray`: throws for a revoked Proxy.
    #[wasm_bindgen(js_namespace = Array, js_name = isArray, catch)]
    fn is_array_of(value: &JsValue) -> Result<bool, JsValue>;
    /// `Object.entries`: runs getters and Proxy traps, which may throw.
    #[wasm_bindgen(js_namespace = Object, js_name = entries, catch)]
    pub(super) fn entries_of(value: &JsValue) -> Result<js_sys::Array, JsValue>;
}

/// The message of what JS threw, escaped (a cycle's message spans lines and names a
/// property): an `Error`'s, else `otherwise`.
pub(super) fn thrown_message(thrown: &JsValue, otherwise: &str) -> String {
    thrown
        .dyn_ref::<js_sys::Error>()
        .map(|e| tool_intent::error::escaped(&String::from(e.message())))
        .unwrap_or_else(|| otherwise.to_string())
}

/// The error for a value whose reading threw (a getter, a Proxy trap, a revoked Proxy).
pub(super) fn threw(input: &'static str, thrown: &JsValue) -> JsValue {
    let why = thrown_message(thrown, "a value that is not an Error");
    js_error(Error::InvalidValue {
        input,
        path: tool_intent::JsonPath::root(),
        message: format!("reading the value threw ({why}); pass plain data"),
    })
}

/// `Object.prototype.toString.call(value)`, or the error naming `input` if it threw.
pub(super) fn object_tag(value: &JsValue, input: &'static str) -> Result<String, JsValue> {
    object_tag_of(value)
        .map(String::from)
        .map_err(|e| threw(input, &e))
}

/// `Array.isArray(value)`, or the error naming `input` if it threw.
pub(super) fn is_array(value: &JsValue, input: &'static str) -> Result<bool, JsValue> {
    is_array_of(value).map_err(|e| threw(input, &e))
}

/// An array's items (`Object.entries`: a Proxy's traps run there, and may throw), in order.
pub(super) fn items(value: &JsValue, input: &'static str) -> Result<Vec<JsValue>, JsValue> {
    let entries = entries_of(value).map_err(|e| threw(input, &e))?;
    Ok(entries
        .iter()
        .map(|pair| pair.unchecked_ref::<js_sys::Array>().get(1))
        .collect())
}

thread_local! {
    static ENCODER: TextEncoder = TextEncoder::new();
}

/// A JS string's UTF-8 text; a string holding a lone UTF-16 surrogate is not text, and is an
/// error naming `input` rather than a silent U+FFFD.
pub(super) fn string_text(value: &JsValue, input: &'static str) -> Result<String, JsValue> {
    let whole: &js_sys::JsString = value.unchecked_ref();
    if !value.unchecked_ref::<WellFormed>().is_well_formed() {
        // Only now, on the way to an error: where the lone half is.
        let at = char::decode_utf16(whole.iter())
            .scan(0usize, |units, c| {
                let here = *units;
                *units += c.as_ref().map_or(1, |c| c.len_utf16());
                Some((here, c.is_err()))
            })
            .find(|(_, bad)| *bad)
            .map_or(0, |(at, _)| at);
        return Err(js_error(Error::InvalidArgument {
            argument: input,
            path: None,
            message: format!(
                "the string holds a lone UTF-16 surrogate (half of a character) at index {at}, which is not text"
            ),
        }));
    }
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
    // SAFETY: the string is well-formed UTF-16 (checked above), which TextEncoder encodes to
    // valid UTF-8, and encodeInto writes whole characters only (`read` never ends inside a
    // surrogate pair), so every chunk appended is valid UTF-8. Checking again measured 4% of
    // a registry load.
    Ok(unsafe { String::from_utf8_unchecked(buf) })
}

/// What a JS value is, for messages: `typeof`, or the class of an object (NaN and the
/// infinities, which JSON writes as `null`, are "non-finite number").
pub(super) fn js_kind(value: &JsValue, input: &'static str) -> Result<String, JsValue> {
    if value.as_f64().is_some_and(|f| !f.is_finite()) {
        return Ok("non-finite number".into());
    }
    let kind = value.js_typeof().as_string().unwrap_or_default();
    if kind != "object" || value.is_null() {
        return Ok(if value.is_null() { "null".into() } else { kind });
    }
    // `[object Date]` → `Date` (prefix and suffix stripped, not trimmed by pattern: a
    // pattern trim links the standard library's substring searcher). A `Symbol.toStringTag`
    // may be any text: shown escaped.
    let tag = object_tag(value, input)?;
    let inner = tag.strip_prefix("[object ").unwrap_or(&tag);
    Ok(tool_intent::error::escaped(
        inner.strip_suffix(']').unwrap_or(inner),
    ))
}

/// A string argument (a name, a query, a provider): anything else is an error naming it.
pub(super) fn text_in(value: &JsValue, input: &'static str) -> Result<String, JsValue> {
    if !value.is_string() {
        return Err(js_error(Error::InvalidArgument {
            argument: input,
            path: None,
            message: format!("expected a string, found {}", js_kind(value, input)?),
        }));
    }
    string_text(value, input)
}

/// A `Uint8Array` argument (a file's bytes), copied into the module: anything else is an
/// error naming it.
#[cfg(feature = "hybrid")]
pub(super) fn bytes_in(value: &JsValue, input: &'static str) -> Result<Vec<u8>, JsValue> {
    // `ArrayBuffer.isView` first: a Proxy of a Uint8Array passes `instanceof` but is no typed
    // array (copying from it throws); isView reads an internal slot and never throws.
    match value.dyn_ref::<js_sys::Uint8Array>() {
        Some(array) if js_sys::ArrayBuffer::is_view(value) => Ok(array.to_vec()),
        _ => Err(js_error(Error::InvalidArgument {
            argument: input,
            path: None,
            message: format!(
                "expected a Uint8Array (the file's bytes), found {}",
                js_kind(value, input)?
            ),
        })),
    }
}

/// An optional string argument: `undefined` and `null` are absent.
pub(super) fn opt_text_in(value: &JsValue, input: &'static str) -> Result<Option<String>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    text_in(value, input).map(Some)
}

/// A list of names: an array of strings, errors at the item's path.
pub(super) fn names_in(value: &JsValue, input: &'static str) -> Result<Vec<String>, JsValue> {
    let wrong = |path: Option<tool_intent::JsonPath>, value: &JsValue| -> JsValue {
        match js_kind(value, input) {
            Ok(kind) => js_error(Error::InvalidArgument {
                argument: input,
                path,
                message: format!("expected an array of names, found {kind}"),
            }),
            Err(e) => e,
        }
    };
    if !is_array(value, input)? {
        return Err(wrong(None, value));
    }
    let items = items(value, input)?;
    let mut names = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let at = tool_intent::JsonPath::root().index(i);
        if !item.is_string() {
            return Err(wrong(Some(at), &item));
        }
        names.push(string_text(&item, input).map_err(|_| {
            js_error(Error::InvalidArgument {
                argument: input,
                path: Some(at),
                message: "the name holds a lone UTF-16 surrogate, which is not text".to_string(),
            })
        })?);
    }
    Ok(names)
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
