//! The per-turn calls, as methods of [`Registry`]: what an agent server runs for every
//! request, and what the CLI, the wasm package and the Python module expose under the same
//! names. [`Registry::plan_turn`] expands a [`TurnRequest`] against the live registry, splits
//! it for the turn state, renders the provider payload and fingerprints it;
//! [`Registry::search`], [`Registry::resolve`] and [`Registry::budget`] answer the rest of a
//! turn (a `tool_search` call, dispatch, the token cost) for the same request, so no binding
//! orchestrates anything itself.
//!
//! Vocabulary (the same in Rust, JSON, JS and Python): the **array** is what the provider
//! receives as `tools`; the **catalog** is the deferred tools listed by name in the system
//! prompt; **promoted** tools were loaded by `tool_search` and sit at the end of the array.

use serde::Serialize;
use serde_json::Value;

use crate::budget::{self, Budget};
use crate::counter::TokenCounter;
use crate::error::{Error, Result};
use crate::expand::{expand, ExpandContext, Expansion};
use crate::intent::ToolsOverride;
use crate::registry::{Registry, Tool};
use crate::render::rules::{check_count, split_for};
use crate::render::{client_search_output, render_split, DeferralMode, Provider, RenderOptions};
use crate::search::{self, SearchCall, SearchResult};
use crate::turn::{TurnState, View};

mod boundary;
mod options;
use crate::warning::{Warning, WarningCode};
pub use options::{Call, CallOptions};

/// Everything one turn needs besides the registry.
#[derive(Debug, Clone, Default)]
pub struct TurnRequest {
    /// The session's (or request's) override.
    pub tools_override: ToolsOverride,
    /// The agent profile's tools setting; `None` = no profile setting.
    pub profile: Option<ToolsOverride>,
    /// The request's source (`webui`, `tui`, a channel).
    pub source: Option<String>,
    /// The session's turn state (the default for a new session): the one source of which
    /// tools `tool_search` loaded.
    pub state: TurnState,
    /// The target API.
    pub provider: Provider,
    /// How deferred tools reach the model.
    pub mode: DeferralMode,
    /// Explicit prompt caching: a cache breakpoint on the last non-deferred tool.
    pub cache_control: bool,
    /// Which loaded set the array shows.
    pub view: View,
}

/// One turn: names of every half, warnings, and the exact payload with its fingerprint.
/// Names borrow from the registry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TurnPlan<'r> {
    /// Names in the provider array, array order (in catalog mode resident then promoted; in
    /// native mode every declared tool and the provider's search tool).
    pub array: Vec<&'r str>,
    /// Names in the catalog text (deferred, not promoted), registry order; empty in native
    /// mode, which sends no catalog.
    pub catalog: Vec<&'r str>,
    /// Promoted tools (loaded by `tool_search`), load order.
    pub promoted: Vec<&'r str>,
    /// The renamed MCP tools among `array` and `catalog` (their servers' names hold
    /// characters providers refuse, are too long, or collide), in wire-name order.
    pub renamed: Vec<Renamed<'r>>,
    /// Warnings of the expansion and of the turn state.
    pub warnings: Vec<Warning>,
    /// The target API.
    pub provider: Provider,
    /// The deferral mode.
    pub mode: DeferralMode,
    /// `sha256:<hex>` of `payload`.
    pub fingerprint: String,
    /// The exact provider tools-array JSON.
    #[serde(skip)]
    pub payload: String,
    /// The catalog text for the system prompt ("" when there is none).
    #[serde(skip)]
    pub catalog_text: String,
}

/// A renamed MCP tool: its wire name, the name its server knows, and the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Renamed<'r> {
    /// The name in the payload and the catalog.
    pub wire: &'r str,
    /// The server's own name, for dispatch.
    pub source: &'r str,
    /// The MCP server the tool came from.
    pub server: &'r str,
}

/// A `tool_search` result with the turn state that records its loads.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchOutcome {
    /// The result handed back to the model.
    #[serde(flatten)]
    pub result: SearchResult,
    /// The turn state with the hits recorded as loaded.
    pub state: TurnState,
    /// In `native-client` mode: the provider-shaped result to send instead of `text`, as JSON
    /// text (Anthropic: `tool_reference` blocks for the `tool_result` content; OpenAI
    /// Responses: a `tool_search_output` item, to which the caller adds the call's `call_id`).
    #[serde(skip)]
    pub provider_output: Option<String>,
}

impl SearchOutcome {
    /// Compact JSON `{hits, notFound, text, state, providerOutput?}`, with the provider output
    /// written in as the JSON it already is (no parse and re-serialisation).
    pub fn to_json(&self) -> String {
        // Serialising our own plain structs cannot fail.
        let mut out = serde_json::to_string(self).unwrap_or_else(|_| "{}".to_string());
        if let Some(output) = &self.provider_output {
            out.pop();
            out.push_str(",\"providerOutput\":");
            out.push_str(output);
            out.push('}');
        }
        out
    }
}

impl Registry {
    /// Expands a request's override (with its profile and source) against this registry:
    /// the step under every per-turn call, for callers that inspect tool status themselves.
    /// Within a turn it runs on the registry version the turn began on (see
    /// [`Registry::begin_turn`]).
    pub fn expand(&self, request: &TurnRequest) -> Result<Expansion<'_>> {
        let (registry, gone) = self.for_turn(&request.state, request.view);
        let mut expansion = registry.expand_here(request)?;
        expansion.warnings.extend(gone);
        Ok(expansion)
    }

    fn expand_here(&self, request: &TurnRequest) -> Result<Expansion<'_>> {
        expand(
            self,
            &request.tools_override,
            ExpandContext {
                profile: request.profile.as_ref(),
                source: request.source.as_deref(),
            },
        )
    }

    /// Expands, splits and renders one turn: the production per-request call.
    pub fn plan_turn(&self, request: &TurnRequest) -> Result<TurnPlan<'_>> {
        let (registry, gone) = self.for_turn(&request.state, request.view);
        let mut plan = registry.plan_here(request)?;
        plan.warnings.extend(gone);
        Ok(plan)
    }

    fn plan_here(&self, request: &TurnRequest) -> Result<TurnPlan<'_>> {
        let expansion = self.expand_here(request)?;
        let state = &request.state;
        let options = RenderOptions {
            provider: request.provider,
            mode: request.mode,
            cache_control: request.cache_control,
            view: request.view,
        };
        let provider_split = split_for(
            &expansion,
            state,
            request.view,
            request.provider,
            request.mode,
        );
        let split = &provider_split.split;
        let payload = render_split(&expansion, split, &|i| provider_split.refused(i), options)?;
        // The catalog-mode array holds the tools sent in full (resident and promoted).
        check_count(request.provider, payload.array.len(), split.array.len())?;
        let mut warnings = expansion.warnings().to_vec();
        warnings.extend(provider_split.warnings.iter().cloned());
        // Loaded names that are not deferred tools here (removed from the registry, disabled
        // since): one summary, however many (a hostile state may carry thousands).
        let stale: Vec<&String> = state
            .loaded_for(request.view)
            .iter()
            .filter(|name| {
                self.index_of(name)
                    .is_none_or(|i| !expansion.is_deferred(i))
            })
            .collect();
        if !stale.is_empty() {
            warnings.push(Warning::new(
                WarningCode::UnknownLoadedTool,
                "loaded",
                format!(
                    "{} loaded name(s) are not deferred tools of this expansion and are ignored: {}",
                    stale.len(),
                    crate::error::some_names(&stale)
                ),
            ));
        }
        let array = match request.mode {
            DeferralMode::Catalog => expansion.name_refs(split.array.iter().copied()),
            DeferralMode::Native | DeferralMode::NativeClient => {
                payload_names(self, &payload.array)
            }
        };
        let catalog = match request.mode {
            DeferralMode::Catalog => expansion.name_refs(split.catalog.iter().copied()),
            DeferralMode::Native | DeferralMode::NativeClient => Vec::new(),
        };
        let mut renamed: Vec<Renamed<'_>> = split
            .array
            .iter()
            .chain(&split.catalog)
            .filter_map(|&i| self.tool(i).filter(|t| t.is_renamed()))
            .map(|t| Renamed {
                wire: &t.name,
                source: t.source_name(),
                server: crate::registry::server_of(&t.name).unwrap_or(""),
            })
            .collect();
        renamed.sort_unstable_by(|a, b| a.wire.cmp(b.wire));
        Ok(TurnPlan {
            array,
            catalog,
            renamed,
            promoted: expansion.name_refs(split.promoted.iter().copied()),
            warnings,
            provider: request.provider,
            mode: request.mode,
            fingerprint: payload.fingerprint,
            payload: payload.json,
            catalog_text: payload.catalog,
        })
    }

    /// Runs one `tool_search` call for a turn: the query against this request's deferred
    /// tools. The outcome's state has the hits recorded as loaded (they join the array at the
    /// next [`Registry::begin_turn`]). The search runs on the turn's registry version: a
    /// tool added mid-turn is not declared in this turn's array, so it is found from the
    /// next turn on.
    pub fn search(&self, request: &TurnRequest, call: &SearchCall<'_>) -> Result<SearchOutcome> {
        let (registry, gone) = self.for_turn(&request.state, request.view);
        let mut outcome = registry.search_here(request, call)?;
        outcome.result.warnings.extend(gone);
        Ok(outcome)
    }

    fn search_here(&self, request: &TurnRequest, call: &SearchCall<'_>) -> Result<SearchOutcome> {
        crate::render::check_mode(request.provider, request.mode)?;
        let expansion = self.expand_here(request)?;
        let judgements = crate::render::rules::judgements(self, request.provider);
        let refused = |i: usize| judgements.get(i).is_some_and(|j| j.refusal.is_some());
        let (result, state) = search::run(&expansion, &request.state, call, &refused)?;
        let provider_output = match request.mode {
            DeferralMode::NativeClient => Some(client_search_output(
                self,
                &result.hits,
                &result.text,
                request.provider,
            )?),
            _ => None,
        };
        // The state handed back keeps only names this registry knows: a state bloated with
        // unknown names shrinks at the first search instead of travelling on.
        Ok(SearchOutcome {
            result,
            state: state.retain_known(self),
            provider_output,
        })
    }

    /// Dispatch for a turn: the tool a call names, if this request may call it (a
    /// `tool_not_available` error otherwise). The turn's registry version decides what may be
    /// called; the definition returned is this (current) registry's, and a tool removed from
    /// it since the turn began answers `tool_removed`.
    pub fn resolve(&self, request: &TurnRequest, name: &str) -> Result<&Tool> {
        let (registry, _) = self.for_turn(&request.state, request.view);
        let declared = registry.expand_here(request)?.resolve(name)?;
        if std::ptr::eq(registry, self) {
            return Ok(declared);
        }
        self.tool_named(&declared.name)
            .map_err(|_| Error::ToolRemoved {
                name: declared.name.clone(),
                server: crate::registry::server_of(&declared.name).map(str::to_string),
            })
    }

    /// The token budget of a turn, half by half, as the request's mode sends it (counters:
    /// [`crate::counter::shared_counter`]).
    pub fn budget(&self, request: &TurnRequest, counter: &dyn TokenCounter) -> Result<Budget> {
        let (registry, _) = self.for_turn(&request.state, request.view);
        let expansion = registry.expand_here(request)?;
        budget::estimate(
            &expansion,
            &request.state,
            request.view,
            request.provider,
            request.mode,
            counter,
        )
    }
}

/// Payload names as registry-borrowed names (the provider's search tool by its static name).
fn payload_names<'r>(registry: &'r Registry, names: &[String]) -> Vec<&'r str> {
    names
        .iter()
        .map(|n| match registry.index_of(n) {
            Some(i) => registry.name(i),
            None if n == crate::render::ANTHROPIC_TOOL_SEARCH_NAME => {
                crate::render::ANTHROPIC_TOOL_SEARCH_NAME
            }
            None => crate::registry::TOOL_SEARCH,
        })
        .collect()
}

impl TurnPlan<'_> {
    /// Compact JSON of the names, warnings and fingerprint, byte-identical to
    /// `serde_json::to_string(self)` but written directly: plans of large registries list
    /// every tool name, and names are provider-safe (`[a-zA-Z0-9_-]`, checked at load), so
    /// they need no escaping. The payload and catalog text are not in it (they are strings a
    /// caller sends as they are).
    pub fn to_json(&self) -> String {
        let names = self.array.len() + self.catalog.len() + self.promoted.len();
        let mut out = String::with_capacity(256 + names * 40);
        let lists: [(&str, &[&str]); 3] = [
            ("{\"array\":", &self.array),
            (",\"catalog\":", &self.catalog),
            (",\"promoted\":", &self.promoted),
        ];
        for (key, list) in lists {
            out.push_str(key);
            push_names(&mut out, list);
        }
        out.push_str(",\"renamed\":[");
        for (k, r) in self.renamed.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            out.push_str("{\"wire\":");
            out.push_str(&Value::from(r.wire).to_string());
            out.push_str(",\"source\":");
            out.push_str(&Value::from(r.source).to_string());
            out.push_str(",\"server\":");
            out.push_str(&Value::from(r.server).to_string());
            out.push('}');
        }
        out.push(']');
        out.push_str(",\"warnings\":");
        out.push_str(&serde_json::to_string(&self.warnings).unwrap_or_else(|_| "[]".to_string()));
        out.push_str(",\"provider\":\"");
        out.push_str(self.provider.as_str());
        out.push_str("\",\"mode\":\"");
        out.push_str(self.mode.as_str());
        out.push_str("\",\"fingerprint\":\"");
        out.push_str(&self.fingerprint);
        out.push_str("\"}");
        out
    }
}

// push_str over push(char): measured faster in the size-optimised wasm build.
#[allow(clippy::single_char_add_str)]
fn push_names(out: &mut String, names: &[&str]) {
    out.push_str("[");
    let mut first = true;
    for name in names {
        if !first {
            out.push_str(",");
        }
        first = false;
        if name.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
            // Unreachable for registry names; kept total for any input.
            out.push_str(&Value::String((*name).to_string()).to_string());
        } else {
            out.push_str("\"");
            out.push_str(name);
            out.push_str("\"");
        }
    }
    out.push_str("]");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::record_loaded;
    use serde_json::json;

    fn loaded(names: &[&str]) -> TurnState {
        Registry::embedded().begin_turn(&record_loaded(&TurnState::default(), names).unwrap())
    }

    #[test]
    fn to_json_equals_the_serde_serialisation() {
        let r = Registry::embedded();
        for (o, state) in [
            ("null", TurnState::default()),
            (r#"{"toolset":"full","x":1}"#, loaded(&["memory", "nope"])),
            ("[]", TurnState::default()),
        ] {
            let req = TurnRequest {
                tools_override: ToolsOverride::from_json_str(o).unwrap(),
                state,
                ..Default::default()
            };
            let p = r.plan_turn(&req).unwrap();
            assert_eq!(p.to_json(), serde_json::to_string(&p).unwrap(), "{o}");
        }
    }

    #[test]
    fn search_outcome_json_carries_the_provider_output_as_json() {
        let r = Registry::embedded();
        let req = TurnRequest {
            mode: DeferralMode::NativeClient,
            ..Default::default()
        };
        let outcome = r.search(&req, &SearchCall::new("plan mode")).unwrap();
        let v: Value = serde_json::from_str(&outcome.to_json()).unwrap();
        assert_eq!(v["providerOutput"][0]["type"], "tool_reference");
        assert_eq!(v["hits"][0], "enter_plan_mode");
        let plain = r
            .search(&TurnRequest::default(), &SearchCall::new("plan mode"))
            .unwrap();
        let v: Value = serde_json::from_str(&plain.to_json()).unwrap();
        assert!(v.get("providerOutput").is_none());
        assert_eq!(v["state"]["loaded"], json!(plain.result.hits));
    }

    #[test]
    fn options_errors_name_the_option_path() {
        let e = TurnRequest::from_values(
            &json!(null),
            &json!({"profile": {"disabled": [1]}}),
            Call::Turn,
        )
        .unwrap_err();
        assert_eq!(e.input(), Some("options"));
        assert_eq!(e.path(), Some("$.profile.disabled[0]"));
        let e =
            TurnRequest::from_values(&json!(null), &json!({"state": {"turn": "x"}}), Call::Turn)
                .unwrap_err();
        assert_eq!(e.path(), Some("$.state.turn"));
        let e = TurnRequest::from_values(&json!(null), &json!({"provider": "x"}), Call::Turn)
            .unwrap_err();
        assert_eq!(e.path(), Some("$.provider"));
        let e =
            TurnRequest::from_values(&json!(null), &json!({"view": "x"}), Call::Turn).unwrap_err();
        assert_eq!(e.path(), Some("$.view"));
        let e =
            TurnRequest::from_values(&json!(null), &json!({"limit": 3}), Call::Turn).unwrap_err();
        assert_eq!(e.path(), Some("$.limit"));
        let e = TurnRequest::from_values(&json!(null), &json!({"loaded": ["a"]}), Call::Turn)
            .unwrap_err();
        assert_eq!(e.path(), Some("$.loaded"));
        let (_, extra) =
            TurnRequest::from_values(&json!(null), &json!({"limit": 3}), Call::Search).unwrap();
        assert_eq!(extra.limit, Some(3));
        let e = TurnRequest::from_values(&json!(null), &json!({"counter": "o2"}), Call::Budget)
            .unwrap_err();
        assert_eq!(e.path(), Some("$.counter"));
    }

    #[test]
    fn plan_lists_array_catalog_and_promoted() {
        let r = Registry::embedded();
        let req = TurnRequest {
            state: loaded(&["enter_plan_mode"]),
            ..Default::default()
        };
        let p = r.plan_turn(&req).unwrap();
        assert_eq!(p.promoted, ["enter_plan_mode"]);
        assert_eq!(p.array.last(), Some(&"enter_plan_mode"));
        assert!(!p.catalog.contains(&"enter_plan_mode"));
        assert!(p.catalog_text.contains("send_message"));
    }

    // Here rather than beside the memo slots: the registry does not know the modules above it
    // that own the memo types.
    #[test]
    fn every_memo_type_of_the_crate_has_its_own_slot() {
        use crate::budget::TokenCache;
        use crate::registry::Memo;
        use crate::render::{ProviderRules, RenderCache};
        use crate::search::KeywordIndex;
        let slots = [
            RenderCache::SLOT,
            TokenCache::SLOT,
            KeywordIndex::SLOT,
            ProviderRules::SLOT,
        ];
        for (i, a) in slots.iter().enumerate() {
            assert_eq!(*a as usize, i, "{a:?}");
        }
        assert_eq!(slots.len(), 4);
    }
}
