//! The `Registry` class: a registry parsed once, with the Rust handle's methods.

use crate::*;

/// A registry parsed once; each call passes only the small intent. The methods carry the
/// Rust handle's names (`turn`, `plan_turn`, `cache_report`, ...); a turn's calls are
/// methods of the [`Turn`] it returns.
#[pyclass(frozen, module = "tool_intent")]
pub(crate) struct Registry {
    pub(crate) inner: tool_intent::Registry,
}

#[pymethods]
impl Registry {
    /// The registry compiled into the library.
    #[staticmethod]
    pub(crate) fn embedded() -> Self {
        Registry {
            inner: tool_intent::Registry::embedded(),
        }
    }

    /// Loads a registry: our format, an MCP `tools/list` result or a bare tool array, as JSON
    /// text or as Python values.
    #[staticmethod]
    pub(crate) fn from_json(py: Python<'_>, document: &Bound<'_, PyAny>) -> PyResult<Self> {
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
    pub(crate) fn with_model(
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
    pub(crate) fn set_mcp_server<'py>(
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
    pub(crate) fn set_mcp_servers<'py>(
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
    pub(crate) fn remove_mcp_server<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::server)] server: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let changed = py.detach(|| self.inner.remove_mcp_server(&server));
        change_dict(py, lib(py, changed)?)
    }

    /// `sha256:<hex>` of the registry's content: what `begin_turn` stamps a turn with.
    pub(crate) fn fingerprint(&self, py: Python<'_>) -> String {
        py.detach(|| self.inner.fingerprint().to_string())
    }

    /// A turn boundary: loads recorded so far join the array from now on, and the turn's
    /// calls run on this registry until the next boundary.
    #[pyo3(signature = (state=None))]
    pub(crate) fn begin_turn<'py>(
        &self,
        py: Python<'py>,
        state: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let state = arg(py, state, "state", tool_intent::TurnState::from_value)?;
        let next = py.detach(|| self.inner.begin_turn(&state));
        to_py(py, &next)
    }

    /// Number of tools.
    pub(crate) fn __len__(&self) -> usize {
        self.inner.len()
    }

    pub(crate) fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Registry({} tools, fingerprint={:?})",
            self.inner.len(),
            self.fingerprint(py)
        )
    }

    /// What loading left out or changed: `[{code, origin, message}]` (a method, as in Rust
    /// and JS).
    pub(crate) fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.warnings())
    }

    /// Every tool as a UI lists it: `[{name, title?, description, source_name?, default,
    /// deferrable, overlay}]`, registry order.
    pub(crate) fn tool_infos<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = py.detach(|| result_text(&self.inner.tool_infos()));
        text_to_py(py, &lib(py, text)?)
    }

    /// One tool's full definition (`{name, description, parameters, ...}`).
    pub(crate) fn tool_definition<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::name)] name: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let definition = lib(py, self.inner.tool_definition(&name))?;
        py_value(py, &definition)
    }

    /// Preset names.
    pub(crate) fn toolset_names(&self) -> Vec<String> {
        self.inner.toolset_names().map(String::from).collect()
    }

    /// Source names.
    pub(crate) fn source_names(&self) -> Vec<String> {
        self.inner.source_names().map(String::from).collect()
    }

    /// The registry document in our format (JSON text).
    pub(crate) fn to_json(&self, py: Python<'_>) -> String {
        // A 10,000-tool document takes a quarter of a second: other threads run meanwhile.
        py.detach(|| self.inner.to_json())
    }

    /// Pickling (a process pool, `multiprocessing`): the registry's document, read back by
    /// `Registry.from_json`, which decides as this registry does (trusted servers included).
    /// A registry with the model's weights is refused rather than sent without them: pickle
    /// one without and call `with_model` where it is read.
    pub(crate) fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        #[cfg(feature = "hybrid")]
        if self.inner.model().is_some() {
            return Err(py_err(
                py,
                &tool_intent::Error::argument(
                    "registry",
                    "a registry with the model's weights does not pickle (they are 91 MB): \
                     pickle it before with_model, and call with_model where it is read",
                ),
            ));
        }
        let from_json = py.get_type::<Registry>().getattr("from_json")?;
        Ok((from_json, (self.to_json(py),)))
    }

    /// A registry is a value no call changes: a copy is the registry itself.
    pub(crate) fn __copy__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    pub(crate) fn __deepcopy__<'py>(
        slf: PyRef<'py, Self>,
        _memo: &Bound<'py, PyAny>,
    ) -> PyRef<'py, Self> {
        slf
    }

    /// Starts a turn: the registry version the turn runs on and the expansion of its request,
    /// made once; the turn's calls (`plan`, `search`, `resolve`, `budget`) are methods of the
    /// returned `Turn`. Options left `None` take the core's defaults (provider `anthropic`,
    /// mode `catalog`, view `frozen`).
    #[pyo3(signature = (tools_override=None, **options),
           text_signature = "($self, tools_override=None, *, source=None, profile=None, state=None, provider=None, mode=None, tool_changes=None, cache_control=None, view=None)")]
    pub(crate) fn turn<'py>(
        &self,
        py: Python<'py>,
        tools_override: Option<&Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Turn> {
        let request = turn_request(py, tools_override, options)?;
        let turn = py.detach(|| self.inner.turn(&request));
        Ok(Turn::new(lib(py, turn)?))
    }

    /// Plans a turn in one call (`registry.turn(tools_override, **options).plan()`): a
    /// [`TurnPlan`] (`payload` is the exact provider JSON text; `array`, `catalog`,
    /// `promoted`, `renamed`, `warnings`, `provider`, `mode` as on the other surfaces).
    #[pyo3(signature = (tools_override=None, **options),
           text_signature = "($self, tools_override=None, *, source=None, profile=None, state=None, provider=None, mode=None, tool_changes=None, cache_control=None, view=None)")]
    pub(crate) fn plan_turn<'py>(
        &self,
        py: Python<'py>,
        tools_override: Option<&Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<TurnPlan> {
        self.turn(py, tools_override, options)?.plan(py)
    }

    /// What a provider would refuse in this registry, and what the library changes for it:
    /// `{provider, findings: [{tool, rule, refused, message}]}` (no findings: clean).
    pub(crate) fn check<'py>(
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
    #[pyo3(signature = (script, tools_override=None, **options),
           text_signature = "($self, script, tools_override=None, *, source=None, profile=None, state=None, provider=None, mode=None, tool_changes=None, counter=None)")]
    pub(crate) fn cache_report<'py>(
        &self,
        py: Python<'py>,
        script: &Bound<'py, PyAny>,
        tools_override: Option<&Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let script = arg(
            py,
            Some(script),
            "script",
            tool_intent::cache_report::CacheScript::from_value,
        )?;
        let tools_override = arg(
            py,
            tools_override,
            "tools_override",
            tool_intent::ToolsOverride::from_value,
        )?;
        let mut kw = Keywords::new(options)?;
        let options: CacheReportOptions = request_options(Options::new(py), &mut kw)?
            .text("counter", kw.read("counter", args::opt_counter)?)?
            .finish(kw.rest())?;
        let request = tool_intent::TurnRequest {
            tools_override,
            ..options.request
        };
        let report = py.detach(|| {
            let counter = tool_intent::counter::shared_counter(options.counter)?;
            self.inner.cache_report(&script, &request, counter)
        });
        let report = lib(py, report)?;
        to_py(py, &report)
    }
}

/// `{"registry": Registry, "diff": {...}}` of a change.
pub(crate) fn change_dict<'py>(
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

/// The turn request of `tools_override` and a turn's `**options` (`Registry.turn`,
/// `plan_turn`, `SharedRegistry.turn`), read by the core.
pub(crate) fn turn_request<'py>(
    py: Python<'py>,
    tools_override: Option<&Bound<'py, PyAny>>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<tool_intent::TurnRequest> {
    let tools_override = arg(
        py,
        tools_override,
        "tools_override",
        tool_intent::ToolsOverride::from_value,
    )?;
    let mut kw = Keywords::new(options)?;
    let options: tool_intent::TurnRequest = request_options(Options::new(py), &mut kw)?
        .flag(
            "cache_control",
            kw.read("cache_control", args::opt_cache_control)?,
        )?
        .text("view", kw.read("view", args::opt_view)?)?
        .finish(kw.rest())?;
    Ok(tool_intent::TurnRequest {
        tools_override,
        ..options
    })
}

/// The options of a turn request, which every call that makes a turn takes (`source`,
/// `profile`, `state`, `provider`, `mode`, `tool_changes`), read from `kw`.
fn request_options<'py, O: tool_intent::turn::CallOptions>(
    options: Options<'py, O>,
    kw: &mut Keywords<'py>,
) -> PyResult<Options<'py, O>> {
    options
        .text("source", kw.read("source", args::source)?)?
        .json("profile", kw.take("profile")?.as_ref())?
        .json("state", kw.take("state")?.as_ref())?
        .text("provider", kw.read("provider", args::opt_provider)?)?
        .text("mode", kw.read("mode", args::opt_mode)?)?
        .text(
            "tool_changes",
            kw.read("tool_changes", args::opt_tool_changes)?,
        )
}
