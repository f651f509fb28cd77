//! Reading a turn request from the options object the JS surface and the golden cases write
//! (`{source, profile, state, provider, mode, cacheControl, view}` plus a call's own key), with
//! errors that name the option's path.

use serde_json::{Map, Value};

use super::TurnRequest;
use crate::counter::CounterKind;
use crate::error::{quoted, Error, JsonPath, Result};
use crate::intent::ToolsOverride;
use crate::registry::MAX_SEARCH_LIMIT;
use crate::render::{DeferralMode, Provider};
use crate::search::RankerKind;
use crate::turn::{TurnState, View};

/// The options of one call that are not part of the turn, read from the same options object
/// as the request (see [`TurnRequest::from_values`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallOptions {
    /// `limit` of a search call.
    pub limit: Option<usize>,
    /// `counter` of a budget call.
    pub counter: Option<CounterKind>,
    /// `ranker` of a search call (`keyword` or `hybrid`).
    pub ranker: Option<RankerKind>,
}

/// Which call an options object is for (each accepts its own extra keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// `plan_turn`, `resolve`: no extra key.
    Turn,
    /// `search`: `limit`, `ranker`.
    Search,
    /// `budget`, `cache_report`: `counter`.
    Budget,
}

impl TurnRequest {
    /// Builds a request from an override value and an options object as the JS surface and
    /// the golden cases write it: `{source, profile, state, provider, mode, cacheControl,
    /// view}` plus the call's own keys (`limit` and `ranker` for search, `counter` for budget). `null`
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
                ("state", _) => {
                    request.state = TurnState::from_value(v).map_err(|e| as_options(e, &path))?
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
                    request.view = View::parse(&string(key, v)?).map_err(|e| as_options(e, &path))?
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
                ("ranker", Call::Search) => {
                    // Checked here too, so `hybrid` in a build without it is an error at `$.ranker`.
                    let kind = RankerKind::parse(&string(key, v)?)
                        .and_then(|k| k.ranker().map(|_| k))
                        .map_err(|e| as_options(e, &path))?;
                    extra.ranker = Some(kind);
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
                            "unknown option {} (known: source, profile, state, provider, mode, cacheControl, view{})",
                            quoted(key),
                            match call {
                                Call::Turn => "",
                                Call::Search => ", limit, ranker",
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
