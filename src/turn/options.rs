//! Each call's options as a typed value with the core's defaults, read option by option with
//! errors that name the option: every option is an argument of its own (a keyword argument in
//! Python, a key of the options object in JS), so a bad `profile` is `invalid_argument`
//! `profile` with the path inside it (`$.disabled[0]`), on every surface.
//!
//! One value per call, as a Rust caller would build it: [`TurnRequest`] (`turn`,
//! `plan_turn`), [`SearchOptions`] (`Turn.search`), [`BudgetOptions`] (`Turn.budget`) and
//! [`CacheReportOptions`] (`cache_report`). A binding hands over each option its caller gave by
//! its snake_case name ([`CallOptions::set_named`], Python's keywords) or the whole JS object
//! ([`CallOptions::from_object`], whose keys are the same names in camelCase); it decides no
//! default, limit or key list of its own. An option the call does not take is an error,
//! never ignored.

use serde_json::Value;

use super::state::{TurnState, View};
use super::TurnRequest;
use crate::counter::CounterKind;
use crate::error::{Error, JsonPath, Result};
use crate::intent::ToolsOverride;
use crate::provider::{DeferralMode, Provider, ToolChanges};
use crate::registry::{Registry, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT};
use crate::search::{ChosenRanker, RankerKind, SearchCall};

/// The options of one call, read one by one by their snake_case names.
pub trait CallOptions: Default {
    /// The options the call takes, by their snake_case names (JS writes them in camelCase).
    const NAMES: &'static [&'static str];

    /// Sets option `name` (one of [`CallOptions::NAMES`]) from a non-null `value`. Errors
    /// may name any argument; [`CallOptions::set_named`] makes them errors of the option.
    fn set(&mut self, name: &'static str, value: &Value) -> Result<()>;

    /// Sets the option named `name` (snake_case, as Python spells its keywords): `null`
    /// leaves the default; a name the call does not take is `invalid_argument` on `options`
    /// at `$.<name>`, listing the names it takes.
    fn set_named(&mut self, name: &str, value: &Value) -> Result<()> {
        set_named(Self::NAMES, name, value, &mut |known, v| self.set(known, v))
    }

    /// The options of a JS options object (`{toolChanges: "messages", ...}`: the names in
    /// camelCase); `null` is every default.
    fn from_object(options: &Value) -> Result<Self> {
        let mut out = Self::default();
        read_object(Self::NAMES, options, &mut |name, v| out.set(name, v))?;
        Ok(out)
    }
}

/// A setter of one call's options, by name: one copy of the readers below serves every call
/// (generic ones made the wasm module 1.4 KB gzip larger).
type Setter<'a> = dyn FnMut(&'static str, &Value) -> Result<()> + 'a;

fn set_named(names: &[&'static str], name: &str, value: &Value, set: &mut Setter) -> Result<()> {
    let Some(&known) = names.iter().find(|n| **n == name) else {
        return Err(Error::unknown_option(name, names));
    };
    set_checked(known, value, set)
}

fn read_object(names: &[&'static str], options: &Value, set: &mut Setter) -> Result<()> {
    let object = match options {
        Value::Null => return Ok(()),
        Value::Object(o) => o,
        other => {
            return Err(as_argument(
                Error::expected("options", &JsonPath::root(), "an options object", other),
                "options",
            ))
        }
    };
    for (key, value) in object {
        let Some(&name) = names.iter().find(|n| js_key(n) == *key) else {
            let known: Vec<String> = names.iter().map(|n| js_key(n)).collect();
            return Err(Error::unknown_option(key, &known));
        };
        set_checked(name, value, set)?;
    }
    Ok(())
}

fn set_checked(name: &'static str, value: &Value, set: &mut Setter) -> Result<()> {
    if value.is_null() {
        return Ok(());
    }
    set(name, value).map_err(|e| as_argument(e, name))
}

/// An option's key in a JS options object: its snake_case name in camelCase
/// (`tool_changes` → `toolChanges`).
pub fn js_key(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                out.push(c.to_ascii_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

/// `Turn.search`'s options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchOptions {
    /// How many tools a search loads at most (default [`DEFAULT_SEARCH_LIMIT`]).
    pub limit: usize,
    /// The ranker (default keyword).
    pub ranker: RankerKind,
    /// Whether the search may answer "no tool fits" ([`SearchCall::abstain`]).
    pub abstain: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            limit: DEFAULT_SEARCH_LIMIT,
            ranker: RankerKind::default(),
            abstain: false,
        }
    }
}

impl CallOptions for SearchOptions {
    const NAMES: &'static [&'static str] = &["limit", "ranker", "abstain"];

    fn set(&mut self, name: &'static str, v: &Value) -> Result<()> {
        match name {
            "limit" => {
                self.limit = match v.as_u64() {
                    Some(n) if (1..=MAX_SEARCH_LIMIT as u64).contains(&n) => n as usize,
                    _ => {
                        return Err(Error::expected(
                            name,
                            &JsonPath::root(),
                            &format!("an integer from 1 to {MAX_SEARCH_LIMIT}"),
                            v,
                        ))
                    }
                }
            }
            // Checked here too, so `hybrid` in a build without it is an error at `ranker`.
            "ranker" => {
                let kind = RankerKind::parse(text(name, v)?)?;
                kind.check_build()?;
                self.ranker = kind;
            }
            _ => self.abstain = flag(name, v)?,
        }
        Ok(())
    }
}

impl SearchOptions {
    /// The ranker these options name, for searches of `registry` (errors as
    /// [`RankerKind::ranker_for`]'s, on `ranker`).
    pub fn ranker_for(&self, registry: &Registry) -> Result<ChosenRanker> {
        self.ranker.ranker_for(registry)
    }

    /// The search these options describe: `query`, their `limit` and `abstain`, ranked by
    /// `ranker` (from [`SearchOptions::ranker_for`]). One translation for every binding.
    pub fn call<'a>(&self, query: &'a str, ranker: &'a ChosenRanker) -> SearchCall<'a> {
        SearchCall {
            limit: Some(self.limit),
            ranker: ranker.as_ranker(),
            abstain: self.abstain,
            ..SearchCall::new(query)
        }
    }
}

/// `Turn.budget`'s options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BudgetOptions {
    /// The token counter (default the estimator).
    pub counter: CounterKind,
}

impl CallOptions for BudgetOptions {
    const NAMES: &'static [&'static str] = &["counter"];

    fn set(&mut self, name: &'static str, v: &Value) -> Result<()> {
        self.counter = CounterKind::parse(text(name, v)?)?;
        Ok(())
    }
}

/// `cache_report`'s options: the request's but `cache_control` and `view` (the replay sets
/// both), and the counter.
#[derive(Debug, Clone, Default)]
pub struct CacheReportOptions {
    /// The request each turn of the script starts from.
    pub request: TurnRequest,
    /// The token counter (default the estimator).
    pub counter: CounterKind,
}

impl CallOptions for CacheReportOptions {
    const NAMES: &'static [&'static str] = &[
        "source",
        "profile",
        "state",
        "provider",
        "mode",
        "tool_changes",
        "counter",
    ];

    fn set(&mut self, name: &'static str, v: &Value) -> Result<()> {
        match name {
            "counter" => self.counter = CounterKind::parse(text(name, v)?)?,
            _ => self.request.set(name, v)?,
        }
        Ok(())
    }
}

impl CallOptions for TurnRequest {
    const NAMES: &'static [&'static str] = &[
        "source",
        "profile",
        "state",
        "provider",
        "mode",
        "tool_changes",
        "cache_control",
        "view",
    ];

    fn set(&mut self, name: &'static str, v: &Value) -> Result<()> {
        match name {
            "source" => self.source = Some(text(name, v)?.to_string()),
            "profile" => self.profile = Some(ToolsOverride::from_value(v)?),
            "state" => self.state = TurnState::from_value(v)?,
            "provider" => self.provider = Provider::parse(text(name, v)?)?,
            "mode" => self.mode = DeferralMode::parse(text(name, v)?)?,
            "tool_changes" => self.tool_changes = ToolChanges::parse(text(name, v)?)?,
            "cache_control" => self.cache_control = flag(name, v)?,
            _ => self.view = View::parse(text(name, v)?)?,
        }
        Ok(())
    }
}

impl TurnRequest {
    /// A request from an override value and a JS options object (`{source, profile, state,
    /// provider, mode, toolChanges, cacheControl, view}`; `null` is the defaults), as the JS
    /// surface and the golden cases write them. Errors name the argument (`tools_override`,
    /// or the option) and the JSON path inside it.
    pub fn from_values(tools_override: &Value, options: &Value) -> Result<TurnRequest> {
        let tools_override = ToolsOverride::from_value(tools_override)?;
        Ok(TurnRequest {
            tools_override,
            ..TurnRequest::from_object(options)?
        })
    }
}

fn text<'v>(name: &'static str, v: &'v Value) -> Result<&'v str> {
    v.as_str()
        .ok_or_else(|| Error::expected(name, &JsonPath::root(), "a string", v))
}

fn flag(name: &'static str, v: &Value) -> Result<bool> {
    v.as_bool()
        .ok_or_else(|| Error::expected(name, &JsonPath::root(), "true or false", v))
}

/// Every option of every call, by snake_case name.
fn option_name(js_key_given: &str) -> Option<&'static str> {
    [
        TurnRequest::NAMES,
        SearchOptions::NAMES,
        BudgetOptions::NAMES,
        CacheReportOptions::NAMES,
    ]
    .into_iter()
    .flatten()
    .copied()
    .find(|n| js_key(n) == js_key_given)
}

/// An error about an options object as a whole (a binding could not read it as JSON) made an
/// error of the option at fault: `options` at `$.profile.disabled[0]` becomes `profile` at
/// `$.disabled[0]`. Errors at the object itself stay as they are; at a key no call takes they
/// are `invalid_argument` on `options` at that key.
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
        Some((key, inner)) => match option_name(key) {
            Some(name) => as_argument(
                Error::InvalidValue {
                    input: "options",
                    path: inner,
                    message: message.clone(),
                },
                name,
            ),
            // A key no call takes, whose value the binding could not read (nested past the
            // reader's depth, not JSON): the options argument's error at that key, the code
            // Python gives it, which reads each keyword on its own.
            None => as_argument(e, "options"),
        },
        _ => e,
    }
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
