//! The `Registry` class (and `RegistryChange`, what a server change returns).

use crate::*;

/// A registry after a change to its servers: `registry` (the new one) and `diff`
/// (`{added, removed, changed}` wire names).
#[wasm_bindgen]
pub struct RegistryChange {
    registry: CoreRegistry,
    diff: tool_intent::RegistryDiff,
}

#[wasm_bindgen]
impl RegistryChange {
    /// The new registry.
    #[wasm_bindgen(getter)]
    pub fn registry(&self) -> Registry {
        Registry {
            inner: self.registry.clone(),
        }
    }

    /// Tools added, removed and changed, by wire name, and the annotation presets they moved.
    #[wasm_bindgen(getter)]
    pub fn diff(&self) -> Result<JsRegistryDiff, JsValue> {
        out(&self.diff)
    }
}

pub(crate) fn change(
    result: tool_intent::Result<tool_intent::RegistryChange>,
) -> Result<RegistryChange, JsValue> {
    let c = lib(result)?;
    Ok(RegistryChange {
        registry: c.registry,
        diff: c.diff,
    })
}

/// A registry parsed once and kept on the wasm side; each call passes only the small intent.
/// The JS class is `Registry`, with the Rust handle's method names in camelCase.
#[wasm_bindgen]
pub struct Registry {
    pub(crate) inner: CoreRegistry,
}

#[wasm_bindgen]
impl Registry {
    /// Loads a registry: our format, an MCP `tools/list` result or a bare tool array, as JSON
    /// text (fastest, byte-exact) or as a plain object.
    #[wasm_bindgen(js_name = fromJson)]
    pub fn from_json(document: &JsRegistryInput) -> Result<Registry, JsValue> {
        let text = json_text(document, "document")?;
        Ok(Registry {
            inner: lib(CoreRegistry::from_json_str(&text).map_err(|e| e.with_input("document")))?,
        })
    }

    /// The registry compiled into the library.
    pub fn embedded() -> Registry {
        Registry {
            inner: CoreRegistry::embedded(),
        }
    }

    /// Sets one MCP server's tools from its `tools/list` result (adds the server or replaces
    /// its tools): `{registry, diff}`, this registry unchanged.
    #[wasm_bindgen(js_name = setMcpServer)]
    pub fn set_mcp_server(
        &self,
        server: &JsText,
        #[wasm_bindgen(js_name = "toolsList")] tools_list: &JsRegistryInput,
    ) -> Result<RegistryChange, JsValue> {
        let server = text_in(server, "server")?;
        let text = json_text(tools_list, "toolsList")?;
        change(
            self.inner
                .set_mcp_server(&server, &text)
                .map_err(|e| match e.input() {
                    Some("server") => e,
                    _ => e.with_input("toolsList"),
                }),
        )
    }

    /// Sets many servers in one build: `servers` is `[{name, tools}]` (each `tools` a
    /// `tools/list` result or its JSON text).
    #[wasm_bindgen(js_name = setMcpServers)]
    pub fn set_mcp_servers(&self, servers: &JsServerLists) -> Result<RegistryChange, JsValue> {
        change(
            self.inner
                .set_mcp_servers_value(&json_in(servers, "servers")?)
                .map_err(|e| e.with_input("servers")),
        )
    }

    /// Removes a server and its tools: `{registry, diff}`.
    #[wasm_bindgen(js_name = removeMcpServer)]
    pub fn remove_mcp_server(&self, server: &JsText) -> Result<RegistryChange, JsValue> {
        change(self.inner.remove_mcp_server(&text_in(server, "server")?))
    }

    /// This registry with all-MiniLM-L6-v2's weights (the bytes of its `model.safetensors`)
    /// for `search(query, { ranker: "model" })`; registries made from it keep them. The
    /// content and fingerprint do not change. Loading copies the 91 MB into the module.
    #[cfg(feature = "hybrid")]
    #[wasm_bindgen(js_name = withModel)]
    pub fn with_model(&self, model: &JsBytes) -> Result<Registry, JsValue> {
        let bytes = convert::bytes_in(model, "model")?;
        let model = lib(tool_intent::search::ModelRanker::from_safetensors(&bytes))?;
        Ok(Registry {
            inner: self.inner.clone().with_model(model),
        })
    }

    /// `sha256:<hex>` of the registry's content: what `beginTurn` stamps a turn with.
    #[wasm_bindgen(js_name = fingerprint)]
    pub fn registry_fingerprint(&self) -> String {
        self.inner.fingerprint().to_string()
    }

    /// A turn boundary: loads recorded so far join the array from now on, and the turn's
    /// calls run on this registry until the next boundary.
    #[wasm_bindgen(js_name = beginTurn)]
    pub fn begin_turn(&self, state: &JsTurnStateIn) -> Result<JsTurnState, JsValue> {
        out(&self.inner.begin_turn(&state_in(state)?))
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether the registry has no tool (never after loading: `tool_search` is always there).
    #[wasm_bindgen(js_name = isEmpty)]
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// What loading left out or changed: `[{code, origin, message}]`.
    pub fn warnings(&self) -> Result<JsWarnings, JsValue> {
        out(self.inner.warnings())
    }

    /// Every tool's name, title and description, in registry order.
    #[wasm_bindgen(js_name = toolInfos)]
    pub fn tool_infos(&self) -> Result<JsToolInfos, JsValue> {
        out(&self.inner.tool_infos())
    }

    /// One tool's full definition `{name, description, parameters, ...}`.
    #[wasm_bindgen(js_name = toolDefinition)]
    pub fn tool_definition(&self, name: &JsText) -> Result<JsToolDefinition, JsValue> {
        out(&lib(self.inner.tool_definition(&text_in(name, "name")?))?)
    }

    /// Preset names.
    #[wasm_bindgen(js_name = toolsetNames)]
    pub fn toolset_names(&self) -> Vec<String> {
        self.inner.toolset_names().map(String::from).collect()
    }

    /// Source names.
    #[wasm_bindgen(js_name = sourceNames)]
    pub fn source_names(&self) -> Vec<String> {
        self.inner.source_names().map(String::from).collect()
    }

    /// The registry document in our format (JSON text).
    #[wasm_bindgen(js_name = toJson)]
    pub fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// Starts a turn: the registry version the turn runs on and the expansion of its
    /// request, made once; the turn's calls are methods of the returned `Turn`.
    pub fn turn(
        &self,
        #[wasm_bindgen(js_name = "toolsOverride")] tools_override: &JsToolsOverride,
        options: Option<JsTurnOptions>,
    ) -> Result<Turn, JsValue> {
        let request = request(tools_override, options.as_deref())?;
        Ok(Turn {
            inner: lib(self.inner.turn(&request))?,
        })
    }

    /// Plans a turn in one call (`registry.turn(toolsOverride, options).plan()`).
    #[wasm_bindgen(js_name = planTurn)]
    pub fn plan_turn(
        &self,
        #[wasm_bindgen(js_name = "toolsOverride")] tools_override: &JsToolsOverride,
        options: Option<JsTurnOptions>,
    ) -> Result<JsTurnPlan, JsValue> {
        self.turn(tools_override, options)?.plan()
    }

    /// What a provider would refuse in this registry, and what the library changes for it:
    /// `{provider, findings: [{tool, rule, refused, message}]}` (no findings: clean). In the
    /// packages tool-intent-exact and tool-intent-hybrid; the core package reads the provider,
    /// then refuses the call by name (a turn's plan still warns of each tool it leaves out).
    pub fn check(&self, provider: &JsProviderName) -> Result<JsProviderCheck, JsValue> {
        let provider = lib(tool_intent::Provider::parse(&text_in(
            provider, "provider",
        )?))?;
        #[cfg(feature = "check")]
        return out(&self.inner.check(provider));
        #[cfg(not(feature = "check"))]
        {
            let _ = provider;
            Err(js_error(tool_intent::Error::argument(
                "provider",
                "registry.check is not in this build: npm tool-intent-exact or tool-intent-hybrid",
            )))
        }
    }

    /// Replays a scripted session against this registry for one provider and mode and
    /// reports, per turn, where the request stops matching the previous one and the tokens
    /// written to the prompt cache again. `toolsOverride` is the session's intent before the
    /// script changes it; options: `source`, `profile`, `state`, `provider`, `mode`,
    /// `counter`.
    #[wasm_bindgen(js_name = cacheReport)]
    pub fn cache_report(
        &self,
        script: &JsCacheScript,
        #[wasm_bindgen(js_name = "toolsOverride")] tools_override: &JsToolsOverride,
        options: Option<JsCacheReportOptions>,
    ) -> Result<JsCacheReport, JsValue> {
        let script = lib(CacheScript::from_value(&json_in(script, "script")?)
            .map_err(|e| e.with_input("script")))?;
        let tools_override = lib(ToolsOverride::from_value(&json_in(
            tools_override,
            "toolsOverride",
        )?))?;
        let report: CacheReportOptions = call_options(options.as_deref())?;
        let request = TurnRequest {
            tools_override,
            ..report.request
        };
        let counter = lib(shared_counter(report.counter))?;
        out(&lib(self.inner.cache_report(&script, &request, counter))?)
    }
}
