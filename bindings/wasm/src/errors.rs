//! Library errors as JS `Error`s named `ToolIntentError`, with `code`, `argument` (camelCase)
//! and `path`.

use crate::*;

/// The core's argument names that JS spells otherwise (the intent's and two options'), for
/// the message and `argument`. Every other name an error carries is one word or the binding's
/// own, camelCase already; a unit test below holds this table to the core's names, and the
/// JS argument-error test finds any message that still spells one the Rust way.
const JS_SPELLING: [(&str, &str); 3] = [
    ("tools_override", "toolsOverride"),
    ("tool_changes", "toolChanges"),
    ("cache_control", "cacheControl"),
];

pub(crate) fn js_error(e: Error) -> JsValue {
    let e = match JS_SPELLING.iter().find(|(rust, _)| e.input() == Some(rust)) {
        Some((_, js)) => e.with_input(js),
        None => e,
    };
    let err = js_sys::Error::new(&e.to_string());
    err.set_name("ToolIntentError");
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(&err, &k.into(), &v);
    };
    set("code", e.code().into());
    if let Some(argument) = e.input() {
        set("argument", argument.into());
    }
    if let Some(path) = e.path() {
        set("path", path.into());
    }
    err.into()
}

pub(crate) fn lib<T>(r: tool_intent::Result<T>) -> Result<T, JsValue> {
    r.map_err(js_error)
}

#[cfg(test)]
mod tests {
    use super::JS_SPELLING;
    use tool_intent::turn::{
        js_key, BudgetOptions, CacheReportOptions, CallOptions, SearchOptions, TurnRequest,
    };
    use tool_intent::ToolsOverride;

    #[test]
    fn every_core_name_js_spells_otherwise_is_respelled() {
        let intent = ToolsOverride::from_json_str("[").unwrap_err();
        let names = [
            &[intent.input().unwrap()][..],
            TurnRequest::NAMES,
            SearchOptions::NAMES,
            BudgetOptions::NAMES,
            CacheReportOptions::NAMES,
        ];
        let mut respelled: Vec<_> = names
            .into_iter()
            .flatten()
            .filter(|name| js_key(name) != **name)
            .map(|name| (*name, js_key(name)))
            .collect();
        respelled.sort();
        respelled.dedup();
        let mut table: Vec<_> = JS_SPELLING
            .iter()
            .map(|(r, j)| (*r, j.to_string()))
            .collect();
        table.sort();
        assert_eq!(respelled, table);
    }
}
