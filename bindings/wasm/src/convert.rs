//! Values across the wasm boundary: JS strings to UTF-8 text through `TextEncoder.encodeInto`,
//! JS values to JSON text through `JSON.stringify`, results back through `JSON.parse`.
//!
//! Every JS function called on a caller's value is imported with `catch`: a getter, a
//! `toJSON` or a Proxy trap that throws, or a revoked Proxy (a finished Immer draft), makes
//! the call an `Err` here, never an exception that unwinds through the module's frames. Such
//! an unwind skips the module's stack and reference-slot bookkeeping, and a few hundred of
//! them corrupt it for good ("memory access out of bounds", "table index is out of bounds" on
//! every later call of every registry).

use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::{js_error, lib};
use tool_intent::turn::option_error;
use tool_intent::Error;

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
    type WellFormed;
    #[wasm_bindgen(method, js_name = isWellFormed)]
    fn is_well_formed(this: &WellFormed) -> bool;
    /// `Object.prototype.toString.call(value)`: `[object Map]`, whatever the object's own
    /// `toString` says. Throws for a revoked Proxy, or when a `Symbol.toStringTag` getter does.
    #[wasm_bindgen(js_namespace = ["Object", "prototype", "toString"], js_name = call, catch)]
    fn object_tag_of(value: &JsValue) -> Result<js_sys::JsString, JsValue>;
    /// `Array.isArray`: throws for a revoked Proxy.
    #[wasm_bindgen(js_namespace = Array, js_name = isArray, catch)]
    fn is_array_of(value: &JsValue) -> Result<bool, JsValue>;
    /// `Object.entries`: runs getters and Proxy traps, which may throw.
    #[wasm_bindgen(js_namespace = Object, js_name = entries, catch)]
    fn entries_of(value: &JsValue) -> Result<js_sys::Array, JsValue>;
    /// `Object.keys`: runs a Proxy's `ownKeys` trap, which may throw; no getter.
    #[wasm_bindgen(js_namespace = Object, js_name = keys, catch)]
    fn keys_of(value: &JsValue) -> Result<js_sys::Array, JsValue>;
}

/// The message of what JS threw: an `Error`'s, else `otherwise`.
fn thrown_message(thrown: &JsValue, otherwise: &str) -> String {
    thrown
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_else(|| otherwise.to_string())
}

/// The error for a value whose reading threw (a getter, a Proxy trap, a revoked Proxy).
fn threw(input: &'static str, thrown: &JsValue) -> JsValue {
    let why = thrown_message(thrown, "a value that is not an Error");
    js_error(&Error::InvalidValue {
        input,
        path: tool_intent::JsonPath::root(),
        message: format!("reading the value threw ({why}); pass plain data"),
    })
}

/// `Object.prototype.toString.call(value)`, or the error naming `input` if it threw.
fn object_tag(value: &JsValue, input: &'static str) -> Result<String, JsValue> {
    object_tag_of(value)
        .map(String::from)
        .map_err(|e| threw(input, &e))
}

/// `Array.isArray(value)`, or the error naming `input` if it threw.
fn is_array(value: &JsValue, input: &'static str) -> Result<bool, JsValue> {
    is_array_of(value).map_err(|e| threw(input, &e))
}

/// An array's items (`Object.entries`: a Proxy's traps run there, and may throw), in order.
fn items(value: &JsValue, input: &'static str) -> Result<Vec<JsValue>, JsValue> {
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
fn string_text(value: &JsValue, input: &'static str) -> Result<String, JsValue> {
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
        return Err(js_error(&Error::InvalidArgument {
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
fn js_kind(value: &JsValue, input: &'static str) -> Result<String, JsValue> {
    if value.as_f64().is_some_and(|f| !f.is_finite()) {
        return Ok("non-finite number".into());
    }
    let kind = value.js_typeof().as_string().unwrap_or_default();
    if kind != "object" || value.is_null() {
        return Ok(if value.is_null() { "null".into() } else { kind });
    }
    // `[object Date]` → `Date` (prefix and suffix stripped, not trimmed by pattern: a
    // pattern trim links the standard library's substring searcher).
    let tag = object_tag(value, input)?;
    let inner = tag.strip_prefix("[object ").unwrap_or(&tag);
    Ok(inner.strip_suffix(']').unwrap_or(inner).to_string())
}

/// A string argument (a name, a query, a provider): anything else is an error naming it.
pub(super) fn text_in(value: &JsValue, input: &'static str) -> Result<String, JsValue> {
    if !value.is_string() {
        return Err(js_error(&Error::InvalidArgument {
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
        _ => Err(js_error(&Error::InvalidArgument {
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
            Ok(kind) => js_error(&Error::InvalidArgument {
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
            js_error(&Error::InvalidArgument {
                argument: input,
                path: Some(at),
                message: "the name holds a lone UTF-16 surrogate, which is not text".to_string(),
            })
        })?);
    }
    Ok(names)
}

/// Inputs that are whole documents (a registry, a tools list, a server list): their members
/// are not checked one by one, which would call into wasm for each of thousands of values
/// (pass JSON text for those, the fast and exact route).
const DOCUMENTS: [&str; 3] = ["document", "tools_list", "servers"];

/// The JSON text of a JS argument: a string as it is, `undefined` as `null`, a plain value
/// (object, array, number, boolean, null) through JSON.stringify. A function, a symbol, a
/// bigint or an object JSON cannot represent faithfully (a Map, a Set) is an error naming the
/// argument, at the top and, outside whole documents, in any member: JSON.stringify would
/// make it `null`, `{}` or nothing at all without a word. (`undefined` members vanish, as in
/// JSON.)
pub(super) fn json_text(value: &JsValue, input: &'static str) -> Result<String, JsValue> {
    if value.is_string() {
        return string_text(value, input);
    }
    if value.is_undefined() {
        return Ok("null".to_string());
    }
    // A member of an options object that JSON has no form for is an error of that option
    // (`profile` at `$.disabled`, not `options` at `$.profile.disabled`), as in Python.
    let not_json = |kind: &str, path: tool_intent::JsonPath| {
        js_error(&option_error(Error::InvalidValue {
            input,
            path,
            message: format!("expected JSON text or a plain JSON value, found {kind}"),
        }))
    };
    if !fits_json(value, input)? {
        return Err(not_json(
            &js_kind(value, input)?,
            tool_intent::JsonPath::root(),
        ));
    }
    let stringified = if DOCUMENTS.contains(&input) {
        js_sys::JSON::stringify(value)
    } else {
        let mut bad = false;
        let mut check = |_key: js_sys::JsString, member: JsValue| {
            // A member whose tag cannot be read (a revoked Proxy) is not plain data either.
            if member.is_undefined() || fits_json(&member, input).unwrap_or(false) {
                Ok(Some(member))
            } else {
                bad = true;
                Err(wasm_bindgen::JsError::new("not JSON"))
            }
        };
        let text = js_sys::JSON::stringify_with_replacer_func(value, &mut check, None);
        if bad {
            // Only now, on the way to an error: where the member is.
            let (path, kind) = first_not_json(value, tool_intent::JsonPath::root(), 0, input)?
                .unwrap_or_else(|| (tool_intent::JsonPath::root(), "value".to_string()));
            return Err(not_json(&kind, path));
        }
        text
    };
    let text = match stringified {
        Ok(text) => text,
        // A throwing getter or `toJSON`, a Proxy trap, a cycle: named by the member it is in
        // (an option's own name for an options object, as Python names it).
        Err(e) => return Err(not_stringified(value, input, &e)),
    };
    string_text(&text, input)
}

/// The error for a value JSON.stringify threw on: for an options object, at the first member
/// that throws alone (so a cyclic `state` is an error of `state`, as Python names it); else at
/// the root.
fn not_stringified(value: &JsValue, input: &'static str, thrown: &JsValue) -> JsValue {
    let why = |e: &JsValue| thrown_message(e, "not representable as JSON");
    let mut path = tool_intent::JsonPath::root();
    let mut message = why(thrown);
    // An options object's member is an option of its own: the error is that option's.
    if let Some(keys) = (input == "options").then(|| keys_of(value).ok()).flatten() {
        for key in keys.iter() {
            let member = js_sys::Reflect::get(value, &key)
                .and_then(|member| js_sys::JSON::stringify(&member).map(|_| ()));
            if let Err(e) = member {
                path = path.key(&key.as_string().unwrap_or_default());
                message = why(&e);
                break;
            }
        }
    }
    js_error(&option_error(Error::InvalidValue {
        input,
        path,
        message: format!("cannot be converted to JSON: {message}"),
    }))
}

/// Whether JSON carries a value as it is: null, a boolean, a finite number, a string that is
/// text, an array or a plain object (a Map or a Set would be written `{}`; a Date has become
/// its string by `toJSON` before a replacer sees it). Called for every member of an input, so
/// it asks the cheap questions first and makes no string for a scalar. An error when reading
/// the value throws.
fn fits_json(member: &JsValue, input: &'static str) -> Result<bool, JsValue> {
    if member.is_string() {
        return Ok(member.unchecked_ref::<WellFormed>().is_well_formed());
    }
    if let Some(number) = member.as_f64() {
        return Ok(number.is_finite());
    }
    if member.is_null() || member.as_bool().is_some() {
        return Ok(true);
    }
    Ok(member.is_object()
        && (is_array(member, input)? || object_tag(member, input)? == "[object Object]"))
}

/// The path and kind of the first member (depth first, in key order) that JSON cannot carry.
fn first_not_json(
    value: &JsValue,
    path: tool_intent::JsonPath,
    depth: usize,
    input: &'static str,
) -> Result<Option<(tool_intent::JsonPath, String)>, JsValue> {
    let fits = match fits_json(value, input) {
        Ok(fits) => fits,
        // Reading it threw: this is the member, and what it is cannot be asked.
        Err(_) => return Ok(Some((path, "a value whose reading threw".to_string()))),
    };
    if !value.is_undefined() && !fits {
        let kind = if value.is_string() {
            "a string with a lone UTF-16 surrogate".to_string()
        } else {
            js_kind(value, input)?
        };
        return Ok(Some((path, kind)));
    }
    // JSON.stringify itself stops at a cycle or great depth; so does this search.
    if depth > 64 || !value.is_object() {
        return Ok(None);
    }
    if is_array(value, input)? {
        for (i, item) in items(value, input)?.iter().enumerate() {
            if let Some(found) = first_not_json(item, path.index(i), depth + 1, input)? {
                return Ok(Some(found));
            }
        }
        return Ok(None);
    }
    for entry in entries_of(value).map_err(|e| threw(input, &e))?.iter() {
        let pair: &js_sys::Array = entry.unchecked_ref();
        let key = pair.get(0).as_string().unwrap_or_default();
        if let Some(found) = first_not_json(&pair.get(1), path.key(&key), depth + 1, input)? {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

/// A JS argument as a JSON value.
pub(super) fn json_in(value: &JsValue, input: &'static str) -> Result<Value, JsValue> {
    lib(tool_intent::json::parse(input, &json_text(value, input)?))
}

/// Options objects are never JSON text; `undefined` and `null` are the defaults.
pub(super) fn options_in(value: Option<&JsValue>) -> Result<Value, JsValue> {
    match value {
        None => Ok(Value::Null),
        Some(v) if v.is_undefined() || v.is_null() => Ok(Value::Null),
        Some(v) if v.is_string() => Err(js_error(&Error::InvalidValue {
            input: "options",
            path: tool_intent::JsonPath::root(),
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
