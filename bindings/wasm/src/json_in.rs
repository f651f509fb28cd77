//! JS values to JSON text through `JSON.stringify`, and to JSON values: a value JSON cannot
//! carry as it is (a Map, a function, a lone surrogate) is an error at its path, never the
//! `{}` or `null` JSON.stringify would make of it. Every JS function called on a caller's
//! value is imported with `catch` (see `convert.rs`).

use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::{
    entries_of, is_array, items, js_kind, object_tag, string_text, threw, thrown_message,
    WellFormed,
};
use super::{js_error, lib};
use tool_intent::turn::option_error;
use tool_intent::Error;

#[wasm_bindgen]
extern "C" {
    /// `Object.keys`: runs a Proxy's `ownKeys` trap, which may throw; no getter.
    #[wasm_bindgen(js_namespace = Object, js_name = keys, catch)]
    fn keys_of(value: &JsValue) -> Result<js_sys::Array, JsValue>;
}

/// Inputs that are whole documents (a registry, a tools list, a server list): their members
/// are not checked one by one, which would call into wasm for each of thousands of values
/// (pass JSON text for those, the fast and exact route).
const DOCUMENTS: [&str; 3] = ["document", "toolsList", "servers"];

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
        js_error(option_error(Error::InvalidValue {
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
    let member = (input == "options")
        .then(|| {
            member_at_fault(
                value,
                &|member| match member.and_then(|m| js_sys::JSON::stringify(&m)) {
                    Ok(_) => None,
                    Err(e) => Some(why(&e)),
                },
            )
        })
        .flatten();
    let (path, message) = match member {
        Some((key, message)) => (tool_intent::JsonPath::root().key(&key), message),
        None => (tool_intent::JsonPath::root(), why(thrown)),
    };
    js_error(option_error(Error::InvalidValue {
        input,
        path,
        message: format!("cannot be converted to JSON: {message}"),
    }))
}

/// The error for an options object whose JSON text the core's reader refused (JSON.stringify
/// wrote it, so only a limit refuses it: nesting past 127 levels): at the first member refused
/// alone, so it is an error of that option, as Python names it.
fn not_parsed(options: &JsValue, refused: Error) -> JsValue {
    let member = member_at_fault(options, &|member| {
        let text = js_sys::JSON::stringify(&member.ok()?).ok()?.as_string()?;
        match tool_intent::json::parse("options", &text).err()? {
            Error::InvalidJson { message, .. } => Some(message),
            other => Some(other.to_string()),
        }
    });
    js_error(match member {
        Some((key, message)) => option_error(Error::InvalidValue {
            input: "options",
            path: tool_intent::JsonPath::root().key(&key),
            message,
        }),
        None => refused,
    })
}

/// The first member of an options object that `refuses` (its key and why), if any; a member
/// whose getter throws comes to `refuses` as that error.
fn member_at_fault(
    options: &JsValue,
    refuses: &dyn Fn(Result<JsValue, JsValue>) -> Option<String>,
) -> Option<(String, String)> {
    keys_of(options).ok()?.iter().find_map(|key| {
        let why = refuses(js_sys::Reflect::get(options, &key))?;
        Some((key.as_string().unwrap_or_default(), why))
    })
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
        Some(v) if v.is_string() => Err(js_error(Error::InvalidValue {
            input: "options",
            path: tool_intent::JsonPath::root(),
            message: "expected an options object, found a string".to_string(),
        })),
        Some(v) => tool_intent::json::parse("options", &json_text(v, "options")?)
            .map_err(|refused| not_parsed(v, refused)),
    }
}
