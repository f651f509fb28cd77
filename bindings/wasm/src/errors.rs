//! Library errors as JS `Error`s named `ToolIntentError`, with `code`, `argument` (camelCase)
//! and `path`.

use crate::*;

pub(crate) fn js_error(e: &Error) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    err.set_name("ToolIntentError");
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(&err, &k.into(), &v);
    };
    set("code", e.code().into());
    if let Some(input) = e.input() {
        set("argument", camel_case(input).into());
    }
    if let Some(path) = e.path() {
        set("path", path.into());
    }
    err.into()
}

/// An argument name as JS spells it (`tools_override` → `toolsOverride`).
pub(crate) fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

pub(crate) fn lib<T>(r: tool_intent::Result<T>) -> Result<T, JsValue> {
    r.map_err(|e| js_error(&e))
}

// The platform's UTF-8 encoder writes a JS string straight into wasm memory: one native pass,
// no intermediate buffer (measured faster than the generated glue's per-character loop).
