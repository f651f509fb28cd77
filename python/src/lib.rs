//! The Python binding of tool-intent: arguments in, one core call, values out. JSON-valued
//! arguments cross as `json.dumps` text, read by the core's reader (the same duplicate-key and
//! limit rules as every surface); results are built as Python values straight from the
//! core's values (`py_value`: snake_case keys for result types, stored documents and tool
//! definitions as they are), and only a plan's name lists go through `json.loads` (lazily,
//! from the text the core writes), so Python reads what the native CLI prints. Errors become
//! `tool_intent.ToolIntentError` (a `ValueError`) with `.code`, `.argument` and `.path`.
//! Nothing is decided here.
//!
//! Written against PyO3 0.30 (`Bound` API, `create_exception!`, `#[pyo3(signature)]`).

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use serde_json::Value;
use tool_intent::plan::{search_argument_error, Call, CallOptions};

mod args;

create_exception!(_tool_intent, ToolIntentError, PyValueError);

/// A library error as a Python exception with the error's code, argument and JSON path (or,
/// should setting one of them fail, that failure: never an error without its code).
fn py_err(py: Python<'_>, e: &tool_intent::Error) -> PyErr {
    let err = ToolIntentError::new_err(e.to_string());
    let value = err.value(py);
    let fields = value
        .setattr("code", e.code())
        .and_then(|()| value.setattr("argument", e.input()))
        .and_then(|()| value.setattr("path", e.path()));
    match fields {
        Ok(()) => err,
        Err(failed) => failed,
    }
}

fn lib<T>(py: Python<'_>, r: tool_intent::Result<T>) -> PyResult<T> {
    r.map_err(|e| py_err(py, &e))
}

/// A Python argument as JSON text: a `str` as it is, anything else through `json.dumps`
/// (NaN and infinities refused, as JSON has none).
fn json_text(py: Python<'_>, value: &Bound<'_, PyAny>, input: &'static str) -> PyResult<String> {
    if value.is_instance_of::<PyString>() {
        return value.extract::<String>().map_err(|_| {
            py_err(
                py,
                &tool_intent::Error::InvalidValue {
                    input,
                    path: tool_intent::JsonPath::root(),
                    message:
                        "the str holds a lone surrogate (half of a character), which is not text"
                            .to_string(),
                },
            )
        });
    }
    static DUMPS: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    let dumps = DUMPS.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("json")?.getattr("dumps")?.unbind())
    })?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("allow_nan", false)?;
    match dumps.bind(py).call((value,), Some(&kwargs)) {
        Ok(text) => Ok(text.extract()?),
        Err(e) => Err(py_err(
            py,
            &tool_intent::Error::InvalidValue {
                input,
                path: tool_intent::JsonPath::root(),
                message: format!("cannot be converted to JSON: {}", e.value(py)),
            },
        )),
    }
}

fn json_value(
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
fn loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    static LOADS: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    let loads = LOADS.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("json")?.getattr("loads")?.unbind())
    })?;
    loads.bind(py).call1((text,))
}

/// A result as Python values with snake_case keys, built straight from the value (no JSON text
/// on the way): the core's JSON (what JS and the CLI read) is camelCase, Python's idiom is
/// snake_case. Values under `KEEP` keys are data, not field names, and cross unchanged (a
/// provider's wire format, version names, stored intents).
fn to_py<'py>(py: Python<'py>, result: &impl serde::Serialize) -> PyResult<Bound<'py, PyAny>> {
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
fn text_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        py_err(
            py,
            &tool_intent::Error::internal(format!("the core wrote JSON that does not parse: {e}")),
        )
    })?;
    py_value(py, &value, true)
}

fn py_value<'py>(py: Python<'py>, value: &Value, snake: bool) -> PyResult<Bound<'py, PyAny>> {
    const KEEP: [&str; 4] = ["provider_output", "snapshots_rewritten", "intent", "known"];
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
                    let key = snake_case(k);
                    let keep = KEEP.contains(&key.as_str());
                    dict.set_item(key, py_value(py, v, !keep)?)?;
                } else {
                    dict.set_item(k, py_value(py, v, false)?)?;
                }
            }
            dict.into_any()
        }
    })
}

fn snake_case(key: &str) -> String {
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
fn arg<T>(
    py: Python<'_>,
    value: Option<&Bound<'_, PyAny>>,
    name: &'static str,
    read: impl FnOnce(&Value) -> tool_intent::Result<T>,
) -> PyResult<T> {
    let v = json_value(py, value, name)?;
    lib(py, read(&v).map_err(|e| e.with_input(name)))
}

/// A registry parsed once; each call passes only the small intent. The methods carry the
/// Rust handle's names (`turn`, `plan_turn`, `cache_report`, ...); a turn's calls are
/// methods of the [`Turn`] it returns.
#[pyclass(frozen, module = "tool_intent")]
struct Registry {
    inner: tool_intent::Registry,
}

#[pymethods]
impl Registry {
    /// The registry compiled into the library.
    #[staticmethod]
    fn embedded() -> Self {
        Registry {
            inner: tool_intent::Registry::embedded(),
        }
    }

    /// Loads a registry: our format, an MCP `tools/list` result or a bare tool array, as JSON
    /// text or as Python values.
    #[staticmethod]
    fn from_json(py: Python<'_>, document: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = json_text(py, document, "document")?;
        let loaded = py.detach(|| tool_intent::Registry::from_json_str(&text));
        Ok(Registry {
            inner: lib(py, loaded.map_err(|e| e.with_input("document")))?,
        })
    }

    /// This registry with all-MiniLM-L6-v2's weights (`model`: the bytes of its
    /// `model.safetensors`) for `turn.search(query, ranker="model")`; registries made from
    /// it keep them. The content and fingerprint do not change. In `tool-intent[hybrid]`.
    #[cfg(feature = "hybrid")]
    fn with_model(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = args::model)] model: Vec<u8>,
    ) -> PyResult<Self> {
        let loaded = py.detach(|| tool_intent::search::ModelRanker::from_safetensors(&model));
        Ok(Registry {
            inner: self.inner.clone().with_model(lib(py, loaded)?),
        })
    }

    /// Sets one MCP server's tools from its `tools/list` result (adds the server or replaces
    /// its tools): `{"registry": Registry, "diff": {"added", "removed", "changed"}}`; this
    /// registry is unchanged.
    fn set_mcp_server<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::server)] server: String,
        tools_list: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let text = json_text(py, tools_list, "tools_list")?;
        let changed = py
            .detach(|| self.inner.set_mcp_server(&server, &text))
            .map_err(|e| match e.input() {
                Some("server") => e,
                _ => e.with_input("tools_list"),
            });
        change_dict(py, lib(py, changed)?)
    }

    /// Sets many servers in one build: `servers` is a list of `{"name", "tools"}` (each
    /// `tools` a `tools/list` result or its JSON text).
    fn set_mcp_servers<'py>(
        &self,
        py: Python<'py>,
        servers: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let list = arg(py, Some(servers), "servers", |v| Ok(v.clone()))?;
        let changed = py
            .detach(|| self.inner.set_mcp_servers_value(&list))
            .map_err(|e| e.with_input("servers"));
        change_dict(py, lib(py, changed)?)
    }

    /// Removes a server and its tools: `{"registry", "diff"}`.
    fn remove_mcp_server<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::server)] server: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let changed = self.inner.remove_mcp_server(&server);
        change_dict(py, lib(py, changed)?)
    }

    /// `sha256:<hex>` of the registry's content: what `begin_turn` stamps a turn with.
    fn fingerprint(&self, py: Python<'_>) -> String {
        py.detach(|| self.inner.fingerprint().to_string())
    }

    /// A turn boundary: loads recorded so far join the array from now on, and the turn's
    /// calls run on this registry until the next boundary.
    #[pyo3(signature = (state=None))]
    fn begin_turn<'py>(
        &self,
        py: Python<'py>,
        state: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let state = arg(py, state, "state", tool_intent::TurnState::from_value)?;
        let next = py.detach(|| self.inner.begin_turn(&state));
        to_py(py, &next)
    }

    /// Number of tools.
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// What loading left out or changed: `[{code, origin, message}]` (a method, as in Rust
    /// and JS).
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.warnings())
    }

    /// Every tool as a UI lists it: `[{name, title?, description, source_name?, default,
    /// deferrable, overlay}]`, registry order.
    fn tool_infos<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.tool_infos())
    }

    /// One tool's full definition (`{name, description, parameters, ...}`).
    fn tool_definition<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::name)] name: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let definition = lib(py, self.inner.tool_definition(&name))?;
        py_value(py, &definition, false)
    }

    /// Preset names.
    fn toolset_names(&self) -> Vec<String> {
        self.inner.toolset_names().map(String::from).collect()
    }

    /// Source names.
    fn source_names(&self) -> Vec<String> {
        self.inner.source_names().map(String::from).collect()
    }

    /// The registry document in our format (JSON text).
    fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// Starts a turn: the registry version the turn runs on and the expansion of its request,
    /// made once; the turn's calls (`plan`, `search`, `resolve`, `budget`) are methods of the
    /// returned `Turn`. Options left `None` take the core's defaults (provider `anthropic`,
    /// mode `catalog`, view `frozen`).
    #[pyo3(signature = (tools_override=None, *, source=None, profile=None, state=None, provider=None, mode=None, tool_changes=None, cache_control=None, view=None, **unknown))]
    #[allow(clippy::too_many_arguments)]
    fn turn<'py>(
        &self,
        py: Python<'py>,
        tools_override: Option<&Bound<'py, PyAny>>,
        #[pyo3(from_py_with = args::source)] source: Option<String>,
        profile: Option<&Bound<'py, PyAny>>,
        state: Option<&Bound<'py, PyAny>>,
        #[pyo3(from_py_with = args::opt_provider)] provider: Option<String>,
        #[pyo3(from_py_with = args::opt_mode)] mode: Option<String>,
        #[pyo3(from_py_with = args::opt_tool_changes)] tool_changes: Option<String>,
        #[pyo3(from_py_with = args::opt_cache_control)] cache_control: Option<bool>,
        #[pyo3(from_py_with = args::opt_view)] view: Option<String>,
        unknown: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Turn> {
        let options = Options::new()
            .text("source", source)
            .json(py, "profile", profile)?
            .json(py, "state", state)?
            .text("provider", provider)
            .text("mode", mode)
            .text("toolChanges", tool_changes)
            .flag("cacheControl", cache_control)
            .text("view", view)
            .unknown(unknown)?;
        let (request, _) = options.request(py, tools_override, Call::Turn)?;
        let turn = py.detach(|| self.inner.turn(&request));
        Ok(Turn {
            inner: lib(py, turn)?,
        })
    }

    /// Plans a turn in one call (`registry.turn(tools_override, **options).plan()`): a
    /// [`TurnPlan`] (`payload` is the exact provider JSON text; `array`, `catalog`,
    /// `promoted`, `renamed`, `warnings`, `provider`, `mode` as on the other surfaces).
    #[pyo3(signature = (tools_override=None, *, source=None, profile=None, state=None, provider=None, mode=None, tool_changes=None, cache_control=None, view=None, **unknown))]
    #[allow(clippy::too_many_arguments)]
    fn plan_turn<'py>(
        &self,
        py: Python<'py>,
        tools_override: Option<&Bound<'py, PyAny>>,
        #[pyo3(from_py_with = args::source)] source: Option<String>,
        profile: Option<&Bound<'py, PyAny>>,
        state: Option<&Bound<'py, PyAny>>,
        #[pyo3(from_py_with = args::opt_provider)] provider: Option<String>,
        #[pyo3(from_py_with = args::opt_mode)] mode: Option<String>,
        #[pyo3(from_py_with = args::opt_tool_changes)] tool_changes: Option<String>,
        #[pyo3(from_py_with = args::opt_cache_control)] cache_control: Option<bool>,
        #[pyo3(from_py_with = args::opt_view)] view: Option<String>,
        unknown: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<TurnPlan> {
        self.turn(
            py,
            tools_override,
            source,
            profile,
            state,
            provider,
            mode,
            tool_changes,
            cache_control,
            view,
            unknown,
        )?
        .plan(py)
    }

    /// What a provider would refuse in this registry, and what the library changes for it:
    /// `{provider, findings: [{tool, rule, refused, message}]}` (no findings: clean).
    fn check<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::provider)] provider: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let provider = lib(py, tool_intent::Provider::parse(&provider))?;
        let report = py.detach(|| self.inner.check(provider));
        to_py(py, &report)
    }

    /// Replays a scripted session (`{turns: [...]}`, see the README's "Prompt cache") against
    /// this registry: per turn, where the request stops matching the previous one and the
    /// tokens written to the prompt cache again. `tools_override` is the session's intent
    /// before the script changes it.
    #[pyo3(signature = (script, tools_override=None, *, source=None, profile=None, state=None, provider=None, mode=None, tool_changes=None, counter=None, **unknown))]
    #[allow(clippy::too_many_arguments)]
    fn cache_report<'py>(
        &self,
        py: Python<'py>,
        script: &Bound<'py, PyAny>,
        tools_override: Option<&Bound<'py, PyAny>>,
        #[pyo3(from_py_with = args::source)] source: Option<String>,
        profile: Option<&Bound<'py, PyAny>>,
        state: Option<&Bound<'py, PyAny>>,
        #[pyo3(from_py_with = args::opt_provider)] provider: Option<String>,
        #[pyo3(from_py_with = args::opt_mode)] mode: Option<String>,
        #[pyo3(from_py_with = args::opt_tool_changes)] tool_changes: Option<String>,
        #[pyo3(from_py_with = args::opt_counter)] counter: Option<String>,
        unknown: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let script = arg(
            py,
            Some(script),
            "script",
            tool_intent::cache_report::CacheScript::from_value,
        )?;
        let options = Options::new()
            .text("source", source)
            .json(py, "profile", profile)?
            .json(py, "state", state)?
            .text("provider", provider)
            .text("mode", mode)
            .text("toolChanges", tool_changes)
            .text("counter", counter)
            .unknown(unknown)?;
        let (request, extra) = options.request(py, tools_override, Call::CacheReport)?;
        let report = py.detach(|| {
            let counter = tool_intent::counter::shared_counter(
                extra.counter.unwrap_or(tool_intent::CounterKind::Estimate),
            )?;
            self.inner.cache_report(&script, &request, counter)
        });
        let report = lib(py, report)?;
        to_py(py, &report)
    }
}

/// One turn: made by `registry.turn(tools_override, **options)`, it holds the registry
/// version, the expansion and the state, and answers the turn's calls without expanding
/// again. `search` records its loads in the turn's `state`.
#[pyclass(module = "tool_intent")]
struct Turn {
    inner: tool_intent::Turn,
}

#[pymethods]
impl Turn {
    /// The turn's plan: a [`TurnPlan`].
    fn plan(&self, py: Python<'_>) -> PyResult<TurnPlan> {
        // The GIL is released while the core works, so a threaded server runs turns in
        // parallel (the registry is shared read-only; its caches are thread-safe).
        let plan = py.detach(|| self.inner.plan());
        Ok(TurnPlan {
            plan: lib(py, plan)?,
            parsed: pyo3::sync::PyOnceLock::new(),
        })
    }

    /// Runs `tool_search`: `{hits, not_found, text, state, warnings?, provider_output?}`; the
    /// hits are recorded in the turn's `state` (they join the array at the next `begin_turn`). `ranker`: `"keyword"` (default), `"hybrid"` or `"model"`
    /// (installed with `pip install tool-intent[hybrid]`). `abstain=True`: a keyword query
    /// that names no tool and fits none well enough loads nothing, names the nearest tools
    /// in its text and warns `search_abstained`.
    #[pyo3(signature = (query, *, limit=None, ranker=None, abstain=None, **unknown))]
    fn search<'py>(
        &mut self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::query)] query: String,
        #[pyo3(from_py_with = args::limit)] limit: Option<usize>,
        #[pyo3(from_py_with = args::opt_ranker)] ranker: Option<String>,
        #[pyo3(from_py_with = args::opt_abstain)] abstain: Option<bool>,
        unknown: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = Options::new()
            .count("limit", limit)
            .text("ranker", ranker)
            .flag("abstain", abstain)
            .unknown(unknown)?;
        let extra = lib(py, CallOptions::from_value(&options.value(), Call::Search))?;
        let inner = &mut self.inner;
        let outcome = py.detach(|| {
            let ranker = extra.search_ranker(inner.registry())?;
            inner
                .search(&extra.search_call(&query, &ranker))
                .map_err(search_argument_error)
        });
        text_to_py(py, &lib(py, lib(py, outcome)?.to_json())?)
    }

    /// Dispatch: the full definition of a tool this turn may call (`source_name` is the name
    /// to send to its MCP server when it differs), or `ToolIntentError` `tool_not_available`
    /// (`tool_removed` for a tool its server removed since the turn began).
    fn resolve<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::name)] name: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let tool = lib(py, self.inner.resolve(&name))?;
        py_value(py, &tool.to_value(), false)
    }

    /// The token budget of the turn, half by half (`counter`: "estimate", or "o200k" /
    /// "cl100k" when the core is built with exact tokens).
    #[pyo3(signature = (*, counter=None, **unknown))]
    fn budget<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::opt_counter)] counter: Option<String>,
        unknown: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = Options::new().text("counter", counter).unknown(unknown)?;
        let extra = lib(py, CallOptions::from_value(&options.value(), Call::Budget))?;
        let budget = py.detach(|| {
            let counter = tool_intent::counter::shared_counter(
                extra.counter.unwrap_or(tool_intent::CounterKind::Estimate),
            )?;
            self.inner.budget(counter)
        });
        to_py(py, &lib(py, budget)?)
    }

    /// The turn's state: the request's, with this turn's searches' loads recorded (persist it
    /// with the session).
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.inner.state())
    }

    /// The turn's warnings: the expansion's, and `turn_registry_gone` when its version is no
    /// longer held.
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.warnings())
    }

    fn __repr__(&self) -> String {
        format!(
            "Turn(provider={:?}, mode={:?}, turn={})",
            self.inner.provider().as_str(),
            self.inner.mode().as_str(),
            self.inner.state().turn
        )
    }
}

/// A call's keyword options as the options object the core reads (JS writes the same object),
/// so both bindings share one reader and its errors: an option at fault is named by its
/// Python keyword.
struct Options(serde_json::Map<String, Value>);

impl Options {
    fn new() -> Self {
        Options(serde_json::Map::new())
    }

    fn text(mut self, key: &str, value: Option<String>) -> Self {
        if let Some(v) = value {
            self.0.insert(key.to_string(), Value::String(v));
        }
        self
    }

    fn flag(mut self, key: &str, value: Option<bool>) -> Self {
        if let Some(v) = value {
            self.0.insert(key.to_string(), Value::Bool(v));
        }
        self
    }

    fn count(mut self, key: &str, value: Option<usize>) -> Self {
        if let Some(v) = value {
            self.0.insert(key.to_string(), Value::from(v));
        }
        self
    }

    fn json(
        mut self,
        py: Python<'_>,
        key: &'static str,
        value: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let v = json_value(py, value, key)?;
        if !v.is_null() {
            self.0.insert(key.to_string(), v);
        }
        Ok(self)
    }

    /// Keyword arguments the call does not take: the core's options reader refuses them as
    /// it refuses a JS options key (`invalid_argument` on `options`, at `$.<key>`), instead of
    /// Python's plain `TypeError`.
    fn unknown(mut self, unknown: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        for (key, _) in unknown.into_iter().flat_map(|d| d.iter()) {
            self.0.insert(key.extract::<String>()?, Value::Null);
        }
        Ok(self)
    }

    fn value(self) -> Value {
        Value::Object(self.0)
    }

    /// The turn request of `tools_override` and these options.
    fn request(
        self,
        py: Python<'_>,
        tools_override: Option<&Bound<'_, PyAny>>,
        call: Call,
    ) -> PyResult<(tool_intent::TurnRequest, CallOptions)> {
        let o = json_value(py, tools_override, "tools_override")?;
        lib(
            py,
            tool_intent::TurnRequest::from_values(&o, &self.value(), call),
        )
    }
}

/// `{"registry": Registry, "diff": {...}}` of a change.
fn change_dict<'py>(
    py: Python<'py>,
    change: tool_intent::RegistryChange,
) -> PyResult<Bound<'py, PyAny>> {
    let dict = pyo3::types::PyDict::new(py);
    dict.set_item(
        "registry",
        Py::new(
            py,
            Registry {
                inner: change.registry,
            },
        )?,
    )?;
    dict.set_item("diff", to_py(py, &change.diff)?)?;
    Ok(dict.into_any())
}

/// Records loaded tools (in load order, each once).
#[pyfunction]
fn record_loaded<'py>(
    py: Python<'py>,
    state: Option<&Bound<'py, PyAny>>,
    #[pyo3(from_py_with = args::name_list)] names: Vec<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let state = arg(py, state, "state", tool_intent::TurnState::from_value)?;
    to_py(py, &lib(py, tool_intent::record_loaded(&state, &names))?)
}

/// The intent a writer stores for UI toggles (never an expanded list):
/// `build_intent(web_search=True, toolset="research")`.
#[pyfunction]
#[pyo3(signature = (**toggles))]
fn build_intent<'py>(
    py: Python<'py>,
    toggles: Option<&Bound<'py, pyo3::types::PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let toggles = match toggles {
        Some(t) => arg(
            py,
            Some(t.as_any()),
            "toggles",
            tool_intent::Toggles::from_value,
        )?,
        None => tool_intent::Toggles::default(),
    };
    py_value(
        py,
        &tool_intent::build_intent(&toggles).to_canonical_value(),
        false,
    )
}

/// The server's `_normalize_tools_value`: the row columns `{tools_enabled, tools_override,
/// web_search, toolset}` a writer's value stands for (the last two None).
#[pyfunction]
fn normalize_tools_value<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let row = arg(
        py,
        Some(value),
        "value",
        tool_intent::session::normalize_tools_value,
    )?;
    py_value(py, &row.to_value(), false)
}

/// `sha256:<hex>` of a text's UTF-8 bytes.
#[pyfunction]
fn fingerprint(#[pyo3(from_py_with = args::text_arg)] text: String) -> String {
    tool_intent::fingerprint(text.as_bytes())
}

/// Tokens of a text by a counter ("estimate", or "o200k" / "cl100k" with exact tokens).
#[pyfunction]
#[pyo3(signature = (text, counter=None))]
fn count_tokens(
    py: Python<'_>,
    #[pyo3(from_py_with = args::text_arg)] text: String,
    #[pyo3(from_py_with = args::opt_counter)] counter: Option<String>,
) -> PyResult<usize> {
    let kind = lib(
        py,
        tool_intent::CounterKind::parse(counter.as_deref().unwrap_or("estimate")),
    )?;
    let counted = py.detach(|| tool_intent::counter::shared_counter(kind).map(|c| c.count(&text)));
    lib(py, counted)
}

/// The canonical JSON text of an override (equal intents give equal bytes).
#[pyfunction]
fn canonical_intent(py: Python<'_>, tools_override: &Bound<'_, PyAny>) -> PyResult<String> {
    let o = arg(
        py,
        Some(tools_override),
        "tools_override",
        tool_intent::ToolsOverride::from_value,
    )?;
    Ok(o.to_canonical_json())
}

/// The result of the per-turn call: the core's plan, kept as the one planning made it. The
/// payload, the catalog text and the fingerprint are plain strings; the name lists (`array`,
/// `catalog`, `promoted`, `renamed`, `warnings`, `provider`, `mode`) are converted on first
/// access, so a server that only sends the request converts nothing it does not use.
/// `plan["payload"]` works as for a dict, and `to_dict()` gives every field.
#[pyclass(frozen, module = "tool_intent")]
struct TurnPlan {
    /// The core's plan (it owns its names).
    plan: tool_intent::TurnPlan,
    parsed: pyo3::sync::PyOnceLock<Py<PyAny>>,
}

impl TurnPlan {
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, PyAny>> {
        self.parsed
            .get_or_try_init(py, || {
                loads(py, &lib(py, self.plan.to_json())?).map(Bound::unbind)
            })
            .map(|v| v.bind(py))
    }
}

#[pymethods]
impl TurnPlan {
    fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        match key {
            "payload" => Ok(PyString::new(py, &self.plan.payload).into_any()),
            "catalog_text" => Ok(PyString::new(py, &self.plan.catalog_text).into_any()),
            "request_fields" => Ok(PyString::new(py, &self.plan.request_fields).into_any()),
            "changes" => Ok(PyString::new(py, &self.plan.changes).into_any()),
            "fingerprint" => Ok(PyString::new(py, &self.plan.fingerprint).into_any()),
            _ => self.summary(py)?.get_item(key),
        }
    }

    /// `sha256:<hex>` of `payload`.
    #[getter]
    fn fingerprint(&self) -> &str {
        &self.plan.fingerprint
    }

    /// The exact provider tools-array JSON.
    #[getter]
    fn payload(&self) -> &str {
        &self.plan.payload
    }

    /// The catalog text for the system prompt ("" when there is none).
    #[getter]
    fn catalog_text(&self) -> &str {
        &self.plan.catalog_text
    }

    /// Top-level request fields the tools need besides `tools`, as JSON object text ("" when
    /// none): OpenAI Chat's `web_search_options`, Gemini's `toolConfig`.
    #[getter]
    fn request_fields(&self) -> &str {
        &self.plan.request_fields
    }

    /// With `tool_changes="messages"`: the items to append to the conversation after the
    /// turn's newest user message, as JSON array text ("" when nothing changed).
    #[getter]
    fn changes(&self) -> &str {
        &self.plan.changes
    }

    /// With `tool_changes="messages"`: the turn state to keep (the conversation's record
    /// after this turn's change message); `None` otherwise.
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary(py)?
            .get_item("state")
            .or_else(|_| Ok(py.None().into_bound(py)))
    }

    /// The provider betas the request needs (`[]` unless Anthropic with change messages).
    #[getter]
    fn betas(&self) -> Vec<&'static str> {
        self.plan.betas()
    }

    /// Every field as a dict (the names, warnings, provider, mode, fingerprint, payload and
    /// catalog text).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        // Parsed anew from the plan's JSON: the caller may change the dict and its lists
        // without changing what `plan["array"]` returns.
        let d = loads(py, &lib(py, self.plan.to_json())?)?;
        d.set_item("payload", &self.plan.payload)?;
        d.set_item("catalog_text", &self.plan.catalog_text)?;
        d.set_item("request_fields", &self.plan.request_fields)?;
        d.set_item("changes", &self.plan.changes)?;
        Ok(d)
    }

    #[getter]
    fn array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary(py)?.get_item("array")
    }

    #[getter]
    fn catalog<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary(py)?.get_item("catalog")
    }

    #[getter]
    fn promoted<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary(py)?.get_item("promoted")
    }

    #[getter]
    fn renamed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary(py)?.get_item("renamed")
    }

    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary(py)?.get_item("warnings")
    }

    fn __repr__(&self) -> String {
        format!(
            "TurnPlan(fingerprint={:?}, payload: {} bytes)",
            self.plan.fingerprint,
            self.plan.payload.len()
        )
    }
}

/// A session's stored tools configuration (the `tools_enabled`, `tools_override`,
/// `web_search` and `toolset` columns), as the server's session store reads and writes it.
#[pyclass(frozen, module = "tool_intent")]
struct SessionRunConfig {
    inner: tool_intent::SessionRunConfig,
}

#[pymethods]
impl SessionRunConfig {
    /// The configuration a session stores for an override (what a writer calls after
    /// `build_intent`): an intent is stored as intent, never as an expanded list.
    #[staticmethod]
    #[pyo3(signature = (tools_override=None))]
    fn from_override(py: Python<'_>, tools_override: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let o = arg(
            py,
            tools_override,
            "tools_override",
            tool_intent::ToolsOverride::from_value,
        )?;
        Ok(SessionRunConfig {
            inner: tool_intent::SessionRunConfig::from_override(&o),
        })
    }

    /// Reads a stored row: a dict of the columns (missing columns read as NULL), or its JSON
    /// text. `tools_override` may be the column's JSON text or its parsed value.
    #[staticmethod]
    fn from_row(py: Python<'_>, row: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(SessionRunConfig {
            inner: arg(
                py,
                Some(row),
                "row",
                tool_intent::SessionRunConfig::from_value,
            )?,
        })
    }

    /// The row to store: `{tools_enabled, tools_override, web_search, toolset}` with
    /// `tools_override` as canonical JSON text (or None), ready for an SQL parameter list.
    fn to_row<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut row = self.inner.to_value();
        if let Some(o) = row.get_mut("tools_override") {
            if !o.is_null() {
                *o = Value::String(o.to_string());
            }
        }
        py_value(py, &row, false)
    }

    /// The override a turn expands for this row (the server's `tools_override_from_config`).
    fn to_override<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py_value(py, &self.inner.to_override().to_canonical_value(), false)
    }

    #[getter]
    fn tools_enabled(&self) -> Option<bool> {
        self.inner.tools_enabled
    }

    #[getter]
    fn web_search(&self) -> Option<bool> {
        self.inner.web_search
    }

    #[getter]
    fn toolset(&self) -> Option<String> {
        self.inner.toolset.clone()
    }

    #[getter]
    fn tools_override<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner
            .tools_override
            .as_ref()
            .map(|o| py_value(py, &o.to_canonical_value(), false))
            .transpose()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<SessionRunConfig>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __repr__(&self) -> String {
        format!("SessionRunConfig({})", self.inner.to_value())
    }
}

/// The `registry` argument of the migration calls: a `Registry`, or `None` for the embedded
/// one; anything else is a `ToolIntentError` naming it.
fn registry_arg(value: &Bound<'_, PyAny>) -> PyResult<tool_intent::Registry> {
    if value.is_none() {
        return Ok(tool_intent::Registry::embedded());
    }
    match value.cast::<Registry>() {
        Ok(r) => Ok(r.get().inner.clone()),
        Err(_) => Err(py_err(
            value.py(),
            &tool_intent::Error::InvalidArgument {
                argument: "registry",
                path: None,
                message: format!(
                    "expected a Registry or None, found {}",
                    value
                        .get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ),
            },
        )),
    }
}

/// Migrates legacy snapshot rows of a session table (a SQLite file or a `postgresql://` URL)
/// to intents, keeping the originals in a backup table (the same run as `tool-intent
/// migrate`). `batch_size`: rows per transaction (default: one transaction on SQLite, 1000 on
/// PostgreSQL). Returns the report as a dict.
#[pyfunction]
#[pyo3(signature = (db, registry=tool_intent::Registry::embedded(), *, table=String::from("sessions"), dry_run=false, batch_size=None, **unknown))]
fn migrate<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::db)] db: tool_intent_migrate::Database,
    #[pyo3(from_py_with = registry_arg)] registry: tool_intent::Registry,
    #[pyo3(from_py_with = args::table)] table: String,
    #[pyo3(from_py_with = args::dry_run)] dry_run: bool,
    #[pyo3(from_py_with = args::batch_size)] batch_size: Option<usize>,
    unknown: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    refuse_unknown(py, unknown, &["table", "dry_run", "batch_size"])?;
    let options = tool_intent_migrate::MigrateOptions {
        table,
        dry_run,
        batch_size,
    };
    let report = lib(
        py,
        py.detach(|| tool_intent_migrate::migrate(&db, &registry, &options, &mut |_, _| {})),
    )?;
    to_py(py, &report)
}

/// Restores the rows a migration rewrote from its backup table, each only if it still holds
/// what the migration wrote; rows written since are left alone and listed in
/// `rows_not_restored`.
#[pyfunction]
#[pyo3(signature = (db, *, table=String::from("sessions"), dry_run=false, batch_size=None, **unknown))]
fn undo<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::db)] db: tool_intent_migrate::Database,
    #[pyo3(from_py_with = args::table)] table: String,
    #[pyo3(from_py_with = args::dry_run)] dry_run: bool,
    #[pyo3(from_py_with = args::batch_size)] batch_size: Option<usize>,
    unknown: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    refuse_unknown(py, unknown, &["table", "dry_run", "batch_size"])?;
    let options = tool_intent_migrate::MigrateOptions {
        table,
        dry_run,
        batch_size,
    };
    let report = lib(py, py.detach(|| tool_intent_migrate::undo(&db, &options)))?;
    to_py(py, &report)
}

/// The rows that still hold a legacy snapshot: `[{rowid, matched, intent}]`.
#[pyfunction]
#[pyo3(signature = (db, registry=tool_intent::Registry::embedded(), *, table=String::from("sessions"), **unknown))]
fn audit<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::db)] db: tool_intent_migrate::Database,
    #[pyo3(from_py_with = registry_arg)] registry: tool_intent::Registry,
    #[pyo3(from_py_with = args::table)] table: String,
    unknown: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    refuse_unknown(py, unknown, &["table"])?;
    let rows = lib(
        py,
        py.detach(|| tool_intent_migrate::audit(&db, &table, &registry)),
    )?;
    to_py(py, &rows)
}

/// A keyword option the call does not take: `invalid_argument` on `options` at `$.<key>`, as
/// the core's options reader says it for the calls it reads.
fn refuse_unknown(
    py: Python<'_>,
    unknown: Option<&Bound<'_, PyDict>>,
    known: &[&str],
) -> PyResult<()> {
    let Some((key, _)) = unknown.and_then(|d| d.iter().next()) else {
        return Ok(());
    };
    let key = key.extract::<String>()?;
    lib(
        py,
        Err(tool_intent::Error::InvalidArgument {
            argument: "options",
            path: Some(tool_intent::JsonPath::root().key(&key)),
            message: format!("unknown option \"{key}\" (known: {})", known.join(", ")),
        }),
    )
}

#[pymodule]
#[cfg_attr(feature = "hybrid", pyo3(name = "_tool_intent_hybrid"))]
fn _tool_intent(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Registry>()?;
    m.add_class::<SessionRunConfig>()?;
    m.add_class::<TurnPlan>()?;
    m.add_class::<Turn>()?;
    m.add_function(wrap_pyfunction!(migrate, m)?)?;
    m.add_function(wrap_pyfunction!(undo, m)?)?;
    m.add_function(wrap_pyfunction!(audit, m)?)?;
    m.add_function(wrap_pyfunction!(fingerprint, m)?)?;
    m.add_function(wrap_pyfunction!(canonical_intent, m)?)?;
    m.add_function(wrap_pyfunction!(record_loaded, m)?)?;
    m.add_function(wrap_pyfunction!(build_intent, m)?)?;
    m.add_function(wrap_pyfunction!(normalize_tools_value, m)?)?;
    m.add_function(wrap_pyfunction!(count_tokens, m)?)?;
    m.add("ToolIntentError", m.py().get_type::<ToolIntentError>())?;
    Ok(())
}
