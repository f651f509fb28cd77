//! The `Turn` class: one turn's calls, and the turn request read from JS arguments.

use crate::*;

/// One turn: made by `registry.turn(toolsOverride, options)`, it holds the registry version,
/// the expansion and the state, and answers the turn's calls without expanding again.
#[wasm_bindgen]
pub struct Turn {
    pub(crate) inner: CoreTurn,
}

#[wasm_bindgen]
impl Turn {
    /// The turn's plan: `{payload, catalogText, requestFields, array, catalog, promoted,
    /// renamed, warnings, provider, mode, fingerprint}` (`payload` is the exact JSON text that was
    /// fingerprinted).
    pub fn plan(&self) -> Result<JsTurnPlan, JsValue> {
        let plan = lib(self.inner.plan())?;
        let object: JsValue = parse_out(&lib(plan.to_json_without_names())?)?;
        let set = |key: &str, value: &JsValue| js_sys::Reflect::set(&object, &key.into(), value);
        // Each name list crosses as one newline-joined string split by the engine (one
        // crossing, not one per name; a fraction of parsing the list as JSON at 1,000 names).
        // The core joins them; its newlines are exactly the separators (names hold none).
        let [array, catalog, promoted] = plan.joined_names();
        for (key, joined) in [
            ("array", array),
            ("catalog", catalog),
            ("promoted", promoted),
        ] {
            let list: JsValue = if joined.is_empty() {
                js_sys::Array::new().into()
            } else {
                js_sys::JsString::from(joined.as_str()).split("\n").into()
            };
            set(key, &list)?;
        }
        // The two long strings cross as strings, not as JSON text to be parsed again.
        set("payload", &plan.payload.as_str().into())?;
        set("catalogText", &plan.catalog_text.as_str().into())?;
        set("requestFields", &plan.request_fields.as_str().into())?;
        set("changes", &plan.changes.as_str().into())?;
        Ok(object.unchecked_into())
    }

    /// Runs `tool_search`: `{hits, notFound, text, state, warnings?, providerOutput?}`. The
    /// hits are recorded in the turn's state (`turn.state`), so a second search keeps the
    /// first's loads.
    pub fn search(
        &mut self,
        query: &JsText,
        options: Option<JsSearchOptions>,
    ) -> Result<JsSearchOutcome, JsValue> {
        let query = text_in(query, "query")?;
        let search: SearchOptions = call_options(options.as_deref())?;
        let ranker = lib(search.ranker_for(self.inner.registry()))?;
        let call = search.call(&query, &ranker);
        let outcome = lib(self.inner.search(&call).map_err(search_argument_error))?;
        parse_out(&lib(outcome.to_json())?)
    }

    /// Dispatch lookup: the full definition of a tool this turn may call, or a
    /// `tool_not_available` (`tool_removed`) error.
    pub fn resolve(&self, name: &JsText) -> Result<JsToolDefinition, JsValue> {
        let name = text_in(name, "name")?;
        out(&lib(self.inner.resolve(&name))?.to_value())
    }

    /// Token budget, half by half. `counter`: "estimate" (default) or, in the exact build,
    /// "o200k" / "cl100k".
    pub fn budget(&self, options: Option<JsBudgetOptions>) -> Result<JsBudget, JsValue> {
        let budget: BudgetOptions = call_options(options.as_deref())?;
        let counter = lib(shared_counter(budget.counter))?;
        out(&lib(self.inner.budget(counter))?)
    }

    /// The turn's state: the request's, with this turn's searches' loads recorded (persist it
    /// with the session).
    #[wasm_bindgen(getter)]
    pub fn state(&self) -> Result<JsTurnState, JsValue> {
        out(self.inner.state())
    }

    /// The turn's warnings: the expansion's, and `turn_registry_gone` when its version is no
    /// longer held.
    pub fn warnings(&self) -> Result<JsWarnings, JsValue> {
        out(&self.inner.warnings())
    }
}

/// A turn request from JS arguments (the options a turn accepts).
pub(crate) fn request(
    tools_override: &JsValue,
    options: Option<&JsValue>,
) -> Result<TurnRequest, JsValue> {
    let o = json_in(tools_override, "toolsOverride")?;
    lib(TurnRequest::from_values(&o, &options_in(options)?))
}

/// The options of a call, from its JS options object.
pub(crate) fn call_options<O: CallOptions>(options: Option<&JsValue>) -> Result<O, JsValue> {
    lib(O::from_object(&options_in(options)?))
}
