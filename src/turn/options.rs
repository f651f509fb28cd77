//! Reading a call's options from the object the JS surface and the golden cases write, with
//! errors that name the option: every option is an argument of its own (a keyword argument in
//! Python), so a bad `profile` is `invalid_argument` `profile` with the path inside it
//! (`$.disabled[0]`), on every surface. The keys each call accepts are [`Call::keys`]; any
//! other key is an error, never ignored.

use serde_json::{Map, Value};

use super::state::{TurnState, View};
use super::TurnRequest;
use crate::counter::CounterKind;
use crate::error::{quoted, Error, JsonPath, Result};
use crate::intent::ToolsOverride;
use crate::provider::{DeferralMode, Provider, ToolChanges};
use crate::registry::{Registry, MAX_SEARCH_LIMIT};
use crate::search::{ChosenRanker, RankerKind, SearchCall};

/// The options of one call that are not part of the turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallOptions {
    /// `limit` of a search call.
    pub limit: Option<usize>,
    /// `counter` of a budget or cache report call.
    pub counter: Option<CounterKind>,
    /// `ranker` of a search call (`keyword`, `hybrid` or `model`).
    pub ranker: Option<RankerKind>,
    /// `abstain` of a search call ([`SearchCall::abstain`](crate::SearchCall::abstain)).
    pub abstain: Option<bool>,
}

/// Which call an options object is for; each accepts its own keys ([`Call::keys`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// `turn`, `plan_turn`: the request's keys.
    Turn,
    /// `Turn.search`: `limit`, `ranker`, `abstain`.
    Search,
    /// `Turn.budget`: `counter`.
    Budget,
    /// `cache_report`: the request's keys but `cache_control` and `view` (the replay sets
    /// both), and `counter`.
    CacheReport,
}

/// The keys of a turn request, as JS writes them (Python spells them in snake_case).
const TURN_KEYS: [&str; 8] = [
    "source",
    "profile",
    "state",
    "provider",
    "mode",
    "toolChanges",
    "cacheControl",
    "view",
];

impl Call {
    /// The option keys this call accepts, as JS writes them.
    pub fn keys(self) -> &'static [&'static str] {
        match self {
            Call::Turn => &TURN_KEYS,
            Call::Search => &["limit", "ranker", "abstain"],
            Call::Budget => &["counter"],
            Call::CacheReport => &[
                "source",
                "profile",
                "state",
                "provider",
                "mode",
                "toolChanges",
                "counter",
            ],
        }
    }
}

/// An error about an options object as a whole (a binding could not read it as JSON) made an
/// error of the option at fault: `options` at `$.profile.disabled[0]` becomes `profile` at
/// `$.disabled[0]`. Errors at the object itself, or at a key no call takes, stay `options`.
pub fn option_error(e: Error) -> Error {
    let (path, message) = match &e {
        Error::InvalidValue {
            input: "options",
            path,
            message,
        }
        | Error::LimitExceeded {
            input: "options",
            path,
            message,
        }
        | Error::InvalidArgument {
            argument: "options",
            path: Some(path),
            message,
        } => (path, message),
        _ => return e,
    };
    match path.split_first_key() {
        // The same rule as an option read by the core (`as_argument`): the error of that
        // option, at the path inside it.
        Some((key, inner)) if argument_of(key) != "options" => as_argument(
            Error::InvalidValue {
                input: "options",
                path: inner,
                message: message.clone(),
            },
            argument_of(key),
        ),
        _ => e,
    }
}

/// The name an error gives an option: its snake_case name (the Python keyword; JS shows it in
/// camelCase).
fn argument_of(key: &str) -> &'static str {
    match key {
        "source" => "source",
        "profile" => "profile",
        "state" => "state",
        "provider" => "provider",
        "mode" => "mode",
        "toolChanges" => "tool_changes",
        "cacheControl" => "cache_control",
        "view" => "view",
        "limit" => "limit",
        "ranker" => "ranker",
        "abstain" => "abstain",
        "counter" => "counter",
        _ => "options",
    }
}

impl TurnRequest {
    /// Builds a request from an override value and an options object as the JS surface and
    /// the golden cases write it (`{source, profile, state, provider, mode, toolChanges,
    /// cacheControl, view}`, or [`Call::CacheReport`]'s keys with `counter`). `null` options are the
    /// defaults. Errors name the argument (`tools_override`, or the option: `profile`,
    /// `cache_control`, ...) and the JSON path inside it.
    pub fn from_values(
        tools_override: &Value,
        options: &Value,
        call: Call,
    ) -> Result<(TurnRequest, CallOptions)> {
        let tools_override = ToolsOverride::from_value(tools_override)?;
        let (request, extra) = read(options, call)?;
        Ok((
            TurnRequest {
                tools_override,
                ..request
            },
            extra,
        ))
    }
}

impl CallOptions {
    /// Reads the options of a call on a turn ([`Call::Search`], [`Call::Budget`]).
    pub fn from_value(options: &Value, call: Call) -> Result<CallOptions> {
        Ok(read(options, call)?.1)
    }

    /// The ranker a search's `ranker` option names, for searches of `registry` (the keyword
    /// ranker when absent; errors as [`RankerKind::ranker_for`]'s, on `ranker`).
    pub fn search_ranker(&self, registry: &Registry) -> Result<ChosenRanker> {
        self.ranker.unwrap_or_default().ranker_for(registry)
    }

    /// The search these options describe: `query`, their `limit` and `abstain`, ranked by
    /// `ranker` (from [`CallOptions::search_ranker`]). One translation for every binding.
    pub fn search_call<'a>(&self, query: &'a str, ranker: &'a ChosenRanker) -> SearchCall<'a> {
        SearchCall {
            limit: self.limit,
            ranker: ranker.as_ranker(),
            abstain: self.abstain.unwrap_or(false),
            ..SearchCall::new(query)
        }
    }
}

fn read(options: &Value, call: Call) -> Result<(TurnRequest, CallOptions)> {
    let mut request = TurnRequest::default();
    let mut extra = CallOptions::default();
    let empty = Map::new();
    let obj = match options {
        Value::Null => &empty,
        Value::Object(o) => o,
        other => {
            return Err(as_argument(
                Error::expected("options", &JsonPath::root(), "an options object", other),
                "options",
            ))
        }
    };
    let root = JsonPath::root();
    for (key, v) in obj {
        if !call.keys().contains(&key.as_str()) {
            return Err(Error::InvalidArgument {
                argument: "options",
                path: Some(root.key(key)),
                message: format!(
                    "unknown option {} (known: {})",
                    quoted(key),
                    crate::text::join(call.keys(), ", ")
                ),
            });
        }
        if v.is_null() {
            continue;
        }
        let argument = argument_of(key);
        let text = || {
            v.as_str()
                .ok_or_else(|| Error::expected(argument, &root, "a string", v))
        };
        let boolean = || {
            v.as_bool()
                .ok_or_else(|| Error::expected(argument, &root, "true or false", v))
        };
        let mut read_one = || -> Result<()> {
            match key.as_str() {
                "source" => request.source = Some(text()?.to_string()),
                "profile" => request.profile = Some(ToolsOverride::from_value(v)?),
                "state" => request.state = TurnState::from_value(v)?,
                "provider" => request.provider = Provider::parse(text()?)?,
                "mode" => request.mode = DeferralMode::parse(text()?)?,
                "toolChanges" => request.tool_changes = ToolChanges::parse(text()?)?,
                "cacheControl" => request.cache_control = boolean()?,
                "abstain" => extra.abstain = Some(boolean()?),
                "view" => request.view = View::parse(text()?)?,
                "limit" => {
                    extra.limit = Some(match v.as_u64() {
                        Some(n) if (1..=MAX_SEARCH_LIMIT as u64).contains(&n) => n as usize,
                        _ => {
                            return Err(Error::expected(
                                argument,
                                &root,
                                &format!("an integer from 1 to {MAX_SEARCH_LIMIT}"),
                                v,
                            ))
                        }
                    })
                }
                // Checked here too, so `hybrid` in a build without it is an error at `ranker`.
                "ranker" => {
                    let kind = RankerKind::parse(text()?)?;
                    kind.check_build()?;
                    extra.ranker = Some(kind);
                }
                "counter" => extra.counter = Some(CounterKind::parse(text()?)?),
                _ => {}
            }
            Ok(())
        };
        read_one().map_err(|e| as_argument(e, argument))?;
    }
    Ok((request, extra))
}

/// An error about one option's value, as an error of that option (the argument): its path is
/// the path inside a JSON-valued option (`profile`, `state`; `$` for the whole value), none
/// for a string, number or boolean option.
fn as_argument(e: Error, argument: &'static str) -> Error {
    let json_valued = matches!(argument, "profile" | "state" | "options");
    let inside = |path: JsonPath| Some(path).filter(|p| json_valued || p.as_str() != "$");
    match e {
        Error::InvalidValue { path, message, .. }
        | Error::LimitExceeded { path, message, .. }
        | Error::InvalidArgument {
            path: Some(path),
            message,
            ..
        } => Error::InvalidArgument {
            argument,
            path: inside(path),
            message,
        },
        Error::InvalidJson { message, .. } | Error::InvalidArgument { message, .. } => {
            Error::InvalidArgument {
                argument,
                path: json_valued.then(JsonPath::root),
                message,
            }
        }
        other => other,
    }
}

/// An error of a search run through a binding, naming the binding's arguments: the query's
/// checks name `query` (and the limit's `limit`) where the model-facing `tool_search` call
/// names its arguments object.
pub fn search_argument_error(e: Error) -> Error {
    let argument = match (e.input(), e.path()) {
        (Some("tool_search arguments"), Some("$.limit")) => "limit",
        (Some("tool_search arguments" | "tool_search query"), _) => "query",
        _ => return e,
    };
    // The whole argument is at fault: no path inside it.
    Error::InvalidArgument {
        argument,
        path: None,
        message: match e {
            Error::InvalidValue { message, .. }
            | Error::LimitExceeded { message, .. }
            | Error::InvalidArgument { message, .. }
            | Error::InvalidJson { message, .. } => message,
            other => other.to_string(),
        },
    }
}
