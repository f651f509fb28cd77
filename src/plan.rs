//! The per-turn call: what an agent server runs for every request, and what the CLI and the
//! wasm package expose. [`plan_turn`] expands a [`TurnRequest`] against the live registry,
//! splits it for the turn state, renders the provider payload and fingerprints it; the other
//! functions here answer the rest of a turn (a `tool_search` call, dispatch, the budget) for
//! the same request, so no binding orchestrates anything itself.
//!
//! Vocabulary (the same in Rust, JSON and JS): the **array** is what the provider receives as
//! `tools`; the **catalog** is the deferred tools listed by name in the system prompt;
//! **promoted** tools were loaded by `tool_search` and sit at the end of the array.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::budget::{self, Budget};
use crate::counter::{CounterKind, TokenCounter};
use crate::error::{quoted, Error, JsonPath, Result};
use crate::expand::{expand, ExpandContext, Expansion};
use crate::intent::ToolsOverride;
use crate::registry::{Registry, Tool, MAX_SEARCH_LIMIT};
use crate::render::{
    client_search_output, render_split, DeferralMode, Payload, Provider, RenderOptions,
};
use crate::search::{self, SearchResult};
use crate::turn::{begin_turn, record_loaded, split, TurnState, View};
use crate::warning::{Warning, WarningCode};

/// Everything one turn needs besides the registry.
#[derive(Debug, Clone, Default)]
pub struct TurnRequest {
    /// The session's (or request's) override.
    pub tools_override: ToolsOverride,
    /// The agent profile's tools setting; `None` = no profile setting.
    pub profile: Option<ToolsOverride>,
    /// The request's source (`webui`, `tui`, a channel).
    pub source: Option<String>,
    /// The session's turn state; `None` = a new session.
    pub state: Option<TurnState>,
    /// Tools loaded earlier, treated as promoted (as at the start of a turn).
    pub loaded: Vec<String>,
    /// The target API.
    pub provider: Provider,
    /// How deferred tools reach the model.
    pub mode: DeferralMode,
    /// Anthropic explicit prompt caching on the last non-deferred tool.
    pub cache_control: bool,
    /// Which loaded set the array shows.
    pub view: View,
}

/// Extra options of one call, read from the same options object as the request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallOptions {
    /// `limit` of a search call.
    pub limit: Option<usize>,
    /// `counter` of a budget call.
    pub counter: Option<CounterKind>,
}

/// Which call an options object is for (each accepts its own extra keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// `plan_turn`, payloads, dispatch: no extra key.
    Turn,
    /// `tool_search`: `limit`.
    Search,
    /// Budget: `counter`.
    Budget,
}

impl TurnRequest {
    /// Expands this request's override (with its profile and source) against a registry.
    pub fn expand<'r>(&self, registry: &'r Registry) -> Result<Expansion<'r>> {
        expand(
            registry,
            &self.tools_override,
            ExpandContext {
                profile: self.profile.as_ref(),
                source: self.source.as_deref(),
            },
        )
    }

    /// The turn state this request stands for: its own state, plus `loaded` promoted at a
    /// boundary.
    pub fn turn_state(&self) -> TurnState {
        let base = self.state.clone().unwrap_or_default();
        if self.loaded.is_empty() {
            base
        } else {
            begin_turn(&record_loaded(&base, &self.loaded))
        }
    }

    /// Builds a request from an override value and an options object as JS callers and the
    /// golden cases write it: `{source, profile, loaded, state, provider, mode, cacheControl,
    /// view}` plus the call's own key (`limit` for search, `counter` for budget). `null`
    /// options are the defaults. Errors name the input (`override`, `options`) and the JSON
    /// path inside it (`$.profile.disabled[0]`).
    pub fn from_values(
        tools_override: &Value,
        options: &Value,
        call: Call,
    ) -> Result<(TurnRequest, CallOptions)> {
        let tools_override = ToolsOverride::from_value(tools_override)?;
        let (request, extra) = Self::from_options(options, call).map_err(option_error)?;
        Ok((
            TurnRequest {
                tools_override,
                ..request
            },
            extra,
        ))
    }

    fn from_options(options: &Value, call: Call) -> Result<(TurnRequest, CallOptions)> {
        const INPUT: &str = "options";
        let mut request = TurnRequest::default();
        let mut extra = CallOptions::default();
        let empty = Map::new();
        let obj = match options {
            Value::Null => &empty,
            Value::Object(o) => o,
            other => {
                return Err(Error::expected(
                    INPUT,
                    &JsonPath::root(),
                    "an options object",
                    other,
                ))
            }
        };
        let root = JsonPath::root();
        let string = |key: &str, v: &Value| -> Result<String> {
            v.as_str()
                .map(String::from)
                .ok_or_else(|| Error::expected(INPUT, &root.key(key), "a string", v))
        };
        for (key, v) in obj {
            let path = root.key(key);
            if v.is_null() {
                continue;
            }
            match (key.as_str(), call) {
                ("source", _) => request.source = Some(string(key, v)?),
                ("profile", _) => {
                    request.profile = Some(ToolsOverride::from_value(v).map_err(|e| as_options(e, &path))?)
                }
                ("loaded", _) => {
                    request.loaded = crate::intent::parse_pattern_list(v, &path, INPUT)?
                }
                ("state", _) => {
                    request.state = Some(TurnState::from_value(v).map_err(|e| as_options(e, &path))?)
                }
                ("provider", _) => {
                    request.provider = Provider::parse(&string(key, v)?).map_err(|e| as_options(e, &path))?
                }
                ("mode", _) => {
                    request.mode = DeferralMode::parse(&string(key, v)?).map_err(|e| as_options(e, &path))?
                }
                ("cacheControl", _) => {
                    request.cache_control = v
                        .as_bool()
                        .ok_or_else(|| Error::expected(INPUT, &path, "true or false", v))?
                }
                ("view", _) => {
                    request.view = match v.as_str() {
                        Some("frozen") => View::Frozen,
                        Some("live") => View::Live,
                        _ => return Err(Error::expected(INPUT, &path, "\"frozen\" or \"live\"", v)),
                    }
                }
                ("limit", Call::Search) => {
                    extra.limit = Some(match v.as_u64() {
                        Some(n) if (1..=MAX_SEARCH_LIMIT as u64).contains(&n) => n as usize,
                        _ => {
                            return Err(Error::expected(
                                INPUT,
                                &path,
                                &format!("an integer from 1 to {MAX_SEARCH_LIMIT}"),
                                v,
                            ))
                        }
                    })
                }
                ("counter", Call::Budget) => {
                    extra.counter =
                        Some(CounterKind::parse(&string(key, v)?).map_err(|e| as_options(e, &path))?)
                }
                _ => {
                    return Err(Error::value(
                        INPUT,
                        &path,
                        format!(
                            "unknown option {} (known: source, profile, loaded, state, provider, mode, cacheControl, view{})",
                            quoted(key),
                            match call {
                                Call::Turn => "",
                                Call::Search => ", limit",
                                Call::Budget => ", counter",
                            }
                        ),
                    ))
                }
            }
        }
        Ok((request, extra))
    }
}

/// Any error inside the options object is an invalid argument `options` with its path.
fn option_error(e: Error) -> Error {
    match e {
        Error::InvalidValue { path, message, .. } | Error::LimitExceeded { path, message, .. } => {
            Error::InvalidArgument {
                argument: "options",
                path: Some(path),
                message,
            }
        }
        other => other,
    }
}

/// An error about one option's value, as an error of the options object: its path (rooted at
/// the value) is put under the option's path.
fn as_options(e: Error, at: &JsonPath) -> Error {
    match e {
        Error::InvalidValue { path, message, .. } => {
            Error::value("options", &path.under(at), message)
        }
        Error::LimitExceeded { path, message, .. } => {
            Error::limit("options", &path.under(at), message)
        }
        Error::InvalidJson { message, .. } | Error::InvalidArgument { message, .. } => {
            Error::value("options", at, message)
        }
        other => other,
    }
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

/// A renamed MCP tool: its wire name and the name its server knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Renamed<'r> {
    /// The name in the payload and the catalog.
    pub wire: &'r str,
    /// The server's own name, for dispatch.
    pub source: &'r str,
}

/// Expands, splits and renders one turn: the production per-request call.
pub fn plan_turn<'r>(registry: &'r Registry, request: &TurnRequest) -> Result<TurnPlan<'r>> {
    let expansion = request.expand(registry)?;
    let state = request.turn_state();
    let options = RenderOptions {
        provider: request.provider,
        mode: request.mode,
        cache_control: request.cache_control,
        view: request.view,
    };
    let split = split(&expansion, &state, request.view);
    let payload = render_split(&expansion, &split, options)?;
    let mut warnings = expansion.warnings().to_vec();
    // Loaded names that are not deferred tools here (removed from the registry, disabled
    // since): one summary, however many (a hostile state may carry thousands).
    let stale: Vec<&String> = state
        .loaded_for(request.view)
        .iter()
        .filter(|name| {
            registry
                .index_of(name)
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
            payload_names(registry, &payload.array)
        }
    };
    let catalog = match request.mode {
        DeferralMode::Catalog => expansion.name_refs(split.catalog.iter().copied()),
        DeferralMode::Native | DeferralMode::NativeClient => Vec::new(),
    };
    let mut renamed: Vec<Renamed<'r>> = split
        .array
        .iter()
        .chain(&split.catalog)
        .filter_map(|&i| registry.tool(i).filter(|t| t.is_renamed()))
        .map(|t| Renamed {
            wire: &t.name,
            source: t.source_name(),
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
    /// The payload half of the plan: `{json, fingerprint, catalog, array}`.
    pub fn into_payload(self) -> Payload {
        Payload {
            array: self.array.iter().map(|n| n.to_string()).collect(),
            json: self.payload,
            fingerprint: self.fingerprint,
            catalog: self.catalog_text,
        }
    }

    /// Compact JSON, byte-identical to `serde_json::to_string(self)` but written directly:
    /// plans of large registries list every tool name, and names are provider-safe
    /// (`[a-zA-Z0-9_-]`, checked at load), so they need no escaping.
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

/// A `tool_search` result with the turn state that records its loads.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchOutcome {
    /// The result handed back to the model.
    #[serde(flatten)]
    pub result: SearchResult,
    /// The turn state with the hits recorded as loaded.
    pub state: TurnState,
    /// In `native-client` mode: the provider-shaped result to send instead of `text`
    /// ([`client_search_output`](crate::client_search_output)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_output: Option<Value>,
}

/// Runs `tool_search` for a turn: the query against this request's deferred tools.
pub fn search_turn(
    registry: &Registry,
    request: &TurnRequest,
    query: &str,
    limit: Option<usize>,
) -> Result<SearchOutcome> {
    let expansion = request.expand(registry)?;
    let (result, state) = search::run(&expansion, &request.turn_state(), query, limit)?;
    let provider_output = match request.mode {
        DeferralMode::NativeClient => {
            let text =
                client_search_output(registry, &result.hits, &result.text, request.provider)?;
            Some(crate::json::parse_trusted(&text).map_err(|_| Error::internal("search output"))?)
        }
        _ => None,
    };
    // The state handed back keeps only names this registry knows: a state bloated with
    // unknown names shrinks at the first search instead of travelling on.
    Ok(SearchOutcome {
        result,
        state: state.retain_known(registry),
        provider_output,
    })
}

/// Dispatch for a turn: the tool a call names, if this request may call it.
pub fn resolve_tool<'r>(
    registry: &'r Registry,
    request: &TurnRequest,
    name: &str,
) -> Result<&'r Tool> {
    request.expand(registry)?.resolve(name)
}

/// The token budget of a turn, half by half, with a counter (see [`crate::shared_counter`]).
pub fn budget_turn(
    registry: &Registry,
    request: &TurnRequest,
    counter: &dyn TokenCounter,
) -> Result<Budget> {
    let expansion = request.expand(registry)?;
    budget::estimate_mode(
        &expansion,
        &request.turn_state(),
        request.view,
        request.provider,
        request.mode,
        counter,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn to_json_equals_the_serde_serialisation() {
        let r = Registry::embedded();
        for (o, loaded) in [
            ("null", vec![]),
            (
                r#"{"toolset":"full","x":1}"#,
                vec!["memory".to_string(), "nope".to_string()],
            ),
            ("[]", vec![]),
        ] {
            let req = TurnRequest {
                tools_override: ToolsOverride::from_json_str(o).unwrap(),
                loaded,
                ..Default::default()
            };
            let p = plan_turn(&r, &req).unwrap();
            assert_eq!(p.to_json(), serde_json::to_string(&p).unwrap(), "{o}");
        }
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
            TurnRequest::from_values(&json!(null), &json!({"limit": 3}), Call::Turn).unwrap_err();
        assert_eq!(e.path(), Some("$.limit"));
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
            loaded: vec!["enter_plan_mode".into()],
            ..Default::default()
        };
        let p = plan_turn(&r, &req).unwrap();
        assert_eq!(p.promoted, ["enter_plan_mode"]);
        assert_eq!(p.array.last(), Some(&"enter_plan_mode"));
        assert!(!p.catalog.contains(&"enter_plan_mode"));
        assert!(p.catalog_text.contains("send_message"));
    }
}
