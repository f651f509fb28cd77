//! `tool_search`: the one resident tool that loads deferred tools.
//!
//! Queries:
//! - `select:a,b` loads exactly the named tools (in the order given);
//! - keywords (`create github issue`) rank deferred tools (`rank.rs`: a tool named in the
//!   query first, then BM25F scores from `index.rs` over words split and stemmed by
//!   `text.rs`); a `+term` is required: a tool that does not have it is not a hit.
//!
//! With `abstain`, a keyword query that names no tool and whose best candidate fits under the
//! ranker's threshold loads nothing and answers that no tool fits (`abstain.rs`).
//!
//! Only this session's deferred tools can be hits, so a disabled tool can never be found.
//! Results are deterministic, the same on native and wasm. The result text carries each
//! hit's full `{name, description, parameters}` (canonical JSON, one per line) under a line
//! saying the tools can be called at once: dispatch resolves them even before the next turn
//! boundary shows them in the provider array.

mod abstain;
mod fields;
#[cfg(feature = "hybrid")]
mod hybrid;
mod index;
#[cfg(feature = "model")]
mod model;
#[cfg(test)]
pub(crate) use index::KeywordIndex;
mod rank;
mod ranker_kind;
mod table;
mod text;

#[cfg(feature = "model")]
pub use crate::model_ranker::{ModelRanker, DEFAULT_MODEL_KEYWORD_WEIGHT};
pub use abstain::NEAREST_NAMED;
#[cfg(feature = "hybrid")]
pub use hybrid::{HybridRanker, DEFAULT_KEYWORD_WEIGHT, HYBRID_ABSTENTION_THRESHOLD};
#[cfg(feature = "model")]
pub use model::MODEL_ABSTENTION_THRESHOLD;
#[cfg(feature = "abstain")]
pub use rank::KEYWORD_ABSTENTION_THRESHOLD;
pub use rank::{KeywordRanker, RankRequest, Ranker, Ranking};
pub use ranker_kind::{ChosenRanker, RankerKind};

use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, JsonPath, Result};
use crate::registry::{Registry, Tool, ToolSet, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT};
use crate::warning::{Warning, WarningCode};

/// Longest query accepted.
pub const MAX_QUERY_LEN: usize = 2_000;

/// A parsed query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// `select:a,b`: exactly these tools, in this order.
    Select(Vec<String>),
    /// Keywords.
    Keywords {
        /// The query as written, trimmed (`+` separates words like any punctuation, so the
        /// markers change nothing for ranking).
        text: String,
        /// The `+term`s (markers removed): a hit must have each.
        required: Vec<String>,
    },
}

impl Query {
    /// Parses a query string (errors point at `$.query` of the tool call's arguments).
    pub fn parse(text: &str) -> Result<Query> {
        if text.len() > MAX_QUERY_LEN {
            return Err(Error::limit(
                "tool_search arguments",
                &JsonPath::root().key("query"),
                format!("query of {} bytes, at most {MAX_QUERY_LEN}", text.len()),
            ));
        }
        let trimmed = text.trim();
        if let Some(rest) = trimmed.strip_prefix("select:") {
            let names: Vec<String> = rest
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            if names.is_empty() {
                return Err(Error::value(
                    "tool_search query",
                    &JsonPath::root().key("query"),
                    "select: needs at least one tool name",
                ));
            }
            return Ok(Query::Select(names));
        }
        let required: Vec<String> = trimmed
            .split_whitespace()
            .filter_map(|w| w.strip_prefix('+'))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        if trimmed.split_whitespace().all(|w| w == "+") {
            return Err(Error::value(
                "tool_search query",
                &JsonPath::root().key("query"),
                "the query is empty",
            ));
        }
        Ok(Query::Keywords {
            text: trimmed.to_string(),
            required,
        })
    }
}

/// The outcome of one `tool_search` call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResult {
    /// Names of the tools loaded, in result order.
    pub hits: Vec<String>,
    /// `select:` names that are not deferred tools of this session.
    pub not_found: Vec<String>,
    /// The tool-result text handed back to the model.
    pub text: String,
    /// Why a search found nothing when the cause is not a plain miss (`nothing_deferred`;
    /// `search_abstained`, whose message is the text naming the nearest tools).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

/// The answer when the session defers nothing: its own words, so a model (and a log reader)
/// does not take it for a miss.
pub const NOTHING_DEFERRED: &str = "Nothing is deferred in this session: every tool it may use is already declared, so tool_search has nothing to load.";

/// Runs a query against the session's deferred tools, keywords scored by `ranker` (`select:`
/// does not rank). With `abstain_below`, a keyword query that names no tool and whose best
/// fit is below it loads nothing and names the nearest tools instead. A `select:` name that
/// is `declared` (a resident tool, in full in the request's array) is not found either, but
/// the text tells the model to call it rather than calling it unavailable: read as "not
/// available", a model would stop using a tool it holds. Pure: the caller records the hits
/// ([`run`] does both).
#[allow(clippy::too_many_arguments)]
fn search(
    registry: &Registry,
    deferred: &ToolSet,
    query: &Query,
    limit: usize,
    ranker: &dyn Ranker,
    abstain_below: Option<f64>,
    excluded: &dyn Fn(usize) -> bool,
    declared: &dyn Fn(usize) -> bool,
) -> Result<SearchResult> {
    let limit = limit.clamp(1, MAX_SEARCH_LIMIT);
    let mut hits: Vec<usize> = Vec::new();
    let mut not_found = Vec::new();
    // `not_found` split for the text: held in full, and the rest.
    let (mut already_declared, mut unavailable) = (Vec::new(), Vec::new());
    if !deferred.iter().any(|i| !excluded(i)) {
        return Ok(SearchResult {
            hits: Vec::new(),
            not_found: match query {
                Query::Select(names) => names.clone(),
                Query::Keywords { .. } => Vec::new(),
            },
            text: NOTHING_DEFERRED.to_string(),
            warnings: vec![Warning::new(
                WarningCode::NothingDeferred,
                "tool_search",
                NOTHING_DEFERRED.to_string(),
            )],
        });
    }
    let mut missing_terms = Vec::new();
    match query {
        Query::Select(names) => {
            for name in names {
                match registry.index_of(name) {
                    Some(i) if deferred.contains(i) && !excluded(i) => {
                        if !hits.contains(&i) {
                            hits.push(i);
                        }
                    }
                    found => {
                        match found {
                            Some(i) if declared(i) => already_declared.push(name.clone()),
                            _ => unavailable.push(name.clone()),
                        }
                        not_found.push(name.clone());
                    }
                }
            }
        }
        Query::Keywords { text, required } => {
            let ranked = rank::rank(registry, deferred, text, required, limit, ranker, excluded);
            hits = ranked.hits;
            if hits.is_empty() && !required.is_empty() {
                missing_terms = rank::missing_required(registry, deferred, required, excluded);
            }
            // A request that names a tool never abstains: the name is the best evidence there is.
            if let Some(threshold) = abstain_below.filter(|_| ranked.named == 0 && !hits.is_empty())
            {
                let fit = ranked.fit.ok_or_else(|| {
                    Error::argument("abstain", "the ranker gave no fit for this request")
                })?;
                if fit < threshold {
                    let text = abstain::answer(registry, &hits, fit, threshold);
                    return Ok(SearchResult {
                        hits: Vec::new(),
                        not_found: Vec::new(),
                        warnings: vec![Warning::new(
                            WarningCode::SearchAbstained,
                            "tool_search",
                            text.clone(),
                        )],
                        text,
                    });
                }
            }
        }
    }
    let tools: Vec<&Tool> = hits.iter().filter_map(|&i| registry.tool(i)).collect();
    let mut text = result_text(&tools, &already_declared, &unavailable);
    if !missing_terms.is_empty() {
        // Name the +term that emptied the result: a `+` in a user's text (`+4915…`) is easy to
        // take along by accident.
        let terms: Vec<String> = missing_terms.iter().map(|t| format!("+{t}")).collect();
        text = format!(
            "No deferred tool has the required term{} {} (a word written with a leading + must appear in the tool; write it without + to search for it).",
            if terms.len() == 1 { "" } else { "s" },
            crate::text::join(&terms, ", ")
        );
    }
    Ok(SearchResult {
        hits: tools.iter().map(|t| t.name.clone()).collect(),
        text,
        not_found,
        warnings: Vec::new(),
    })
}

/// One `tool_search` call: the query, how many hits at most, and the ranker for keyword
/// queries. Build it from the query ([`SearchCall::new`]) or from the JSON arguments the
/// model sent ([`SearchCall::from_arguments`]); run it with
/// [`Turn::search`](crate::Turn::search).
#[derive(Clone, Copy)]
pub struct SearchCall<'a> {
    /// The query as the model wrote it (`select:a,b` or keywords).
    pub query: &'a str,
    /// Maximum hits of a keyword query, 1 to [`MAX_SEARCH_LIMIT`]; `None` = the default 5.
    pub limit: Option<usize>,
    /// Scores keyword queries ([`KeywordRanker`] unless a server plugs in its own).
    pub ranker: &'a dyn Ranker,
    /// Whether a keyword query may answer that no tool fits: when it names no tool and the
    /// ranker's fit of its best candidate is below the ranker's
    /// [`abstention_threshold`](Ranker::abstention_threshold), it loads nothing, names the
    /// nearest tools and warns `search_abstained`. A ranker without a threshold refuses it.
    pub abstain: bool,
}

impl std::fmt::Debug for SearchCall<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchCall")
            .field("query", &self.query)
            .field("limit", &self.limit)
            .field("abstain", &self.abstain)
            .finish_non_exhaustive()
    }
}

impl<'a> SearchCall<'a> {
    /// A call with the default limit and the built-in ranker.
    pub fn new(query: &'a str) -> Self {
        SearchCall {
            query,
            limit: None,
            ranker: &KeywordRanker,
            abstain: false,
        }
    }

    /// The same call, allowed to abstain ([`SearchCall::abstain`]).
    pub fn with_abstain(self, abstain: bool) -> Self {
        SearchCall { abstain, ..self }
    }

    /// The same call with a limit.
    pub fn with_limit(self, limit: usize) -> Self {
        SearchCall {
            limit: Some(limit),
            ..self
        }
    }

    /// The same call ranked by another [`Ranker`] (an embedding or hybrid ranking).
    pub fn with_ranker(self, ranker: &'a dyn Ranker) -> Self {
        SearchCall { ranker, ..self }
    }

    /// Reads the JSON arguments the model sent (`{"query": "...", "limit": 5}`); errors point
    /// into them (`$.query`, `$.limit`).
    pub fn from_arguments(arguments: &'a Value) -> Result<Self> {
        const INPUT: &str = "tool_search arguments";
        let root = JsonPath::root();
        let obj = arguments
            .as_object()
            .ok_or_else(|| Error::expected(INPUT, &root, "an object", arguments))?;
        let query = match obj.get("query") {
            Some(Value::String(q)) => q,
            Some(other) => {
                return Err(Error::expected(
                    INPUT,
                    &root.key("query"),
                    "a string",
                    other,
                ))
            }
            None => return Err(Error::value(INPUT, &root, "missing \"query\"")),
        };
        let limit = match obj.get("limit") {
            None | Some(Value::Null) => None,
            // The range is checked when the call runs; here only that it is a count at all.
            Some(v) => match v.as_u64().and_then(|n| usize::try_from(n).ok()) {
                Some(n) => Some(n),
                None => {
                    return Err(Error::expected(
                        INPUT,
                        &root.key("limit"),
                        &format!("an integer from 1 to {MAX_SEARCH_LIMIT}"),
                        v,
                    ))
                }
            },
        };
        Ok(SearchCall {
            limit,
            ..SearchCall::new(query)
        })
    }
}

/// Runs one `tool_search` call against a turn's `deferred` tools (the turn records the hits
/// as loaded). `excluded` tools (those the target provider refuses) are never hits. Errors
/// point into the call's arguments (`$.query`, `$.limit`).
pub(crate) fn run(
    registry: &Registry,
    deferred: &ToolSet,
    call: &SearchCall<'_>,
    excluded: &dyn Fn(usize) -> bool,
    declared: &dyn Fn(usize) -> bool,
) -> Result<SearchResult> {
    let limit = match call.limit {
        None => DEFAULT_SEARCH_LIMIT,
        Some(n) if (1..=MAX_SEARCH_LIMIT).contains(&n) => n,
        Some(n) => {
            return Err(Error::expected(
                "tool_search arguments",
                &JsonPath::root().key("limit"),
                &format!("an integer from 1 to {MAX_SEARCH_LIMIT}"),
                &Value::from(n),
            ))
        }
    };
    let query = Query::parse(call.query)?;
    let abstain_below = match call.abstain {
        false => None,
        // Out of the core npm package only (its size budget); every other build has it.
        true if !cfg!(feature = "abstain") => {
            return Err(Error::argument(
                "abstain",
                "not in this build: npm tool-intent-exact or tool-intent-hybrid",
            ))
        }
        true => Some(call.ranker.abstention_threshold().ok_or_else(|| {
            Error::argument(
                "abstain",
                "this ranker has no calibrated threshold (the built-in rankers have one at their default keyword weight)",
            )
        })?),
    };
    search(
        registry,
        deferred,
        &query,
        limit,
        call.ranker,
        abstain_below,
        excluded,
        declared,
    )
}

/// The model's text: the loaded definitions, then the `select:` names already declared in
/// full, then those it cannot load.
fn result_text(tools: &[&Tool], declared: &[String], unavailable: &[String]) -> String {
    let mut text = String::new();
    if tools.is_empty() {
        text.push_str("No deferred tool matched.");
    } else {
        text.push_str(&format!(
            "Loaded {} tool{}, which can be called at once, in this turn; each definition follows as JSON:\n",
            tools.len(),
            if tools.len() == 1 { "" } else { "s" }
        ));
        // Each definition as canonical JSON (keys in order), written without building a map.
        for t in tools {
            text.push_str("{\"description\":");
            crate::json_text::write_string(&t.description, &mut text);
            text.push_str(",\"name\":");
            crate::json_text::write_string(&t.name, &mut text);
            text.push_str(",\"parameters\":");
            crate::json_text::write(t.parameters(), &mut text);
            text.push_str("}\n");
        }
    }
    for (names, said) in [
        (declared, "Already in your tool list, call directly: "),
        (
            unavailable,
            "Not available as deferred tools of this session: ",
        ),
    ] {
        if names.is_empty() {
            continue;
        }
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(said);
        text.push_str(&crate::text::join(names, ", "));
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::TOOL_SEARCH;
    use serde_json::json;

    /// What a default turn of `r` defers, restated for the tests of this module (which sit
    /// below the turn; `turn::deferral` is the rule): tools outside `default_tools` or in
    /// `deferred_default_tools`, never `tool_search` or an overlay tool.
    pub(super) fn deferred_by_default(r: &Registry) -> ToolSet {
        let mut set = ToolSet::empty(r.len());
        for i in 0..r.len() {
            let search = r.tool(i).is_some_and(|t| t.name == TOOL_SEARCH);
            if !search && !r.is_overlay(i) && (!r.is_default(i) || r.is_deferred_default(i)) {
                set.insert(i);
            }
        }
        set
    }

    #[test]
    fn query_parsing() {
        assert_eq!(
            Query::parse("select: a, b").unwrap(),
            Query::Select(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            Query::parse("+GitHub issue").unwrap(),
            Query::Keywords {
                text: "+GitHub issue".into(),
                required: vec!["GitHub".into()],
            }
        );
        assert!(Query::parse("   ").is_err());
        assert!(Query::parse("select:").is_err());
    }

    #[test]
    fn select_only_finds_deferred_tools() {
        let r = Registry::embedded();
        let e = deferred_by_default(&r);
        // read_file is declared in full already.
        let select = |names: &str| {
            search(
                &r,
                &e,
                &Query::parse(&format!("select:{names}")).unwrap(),
                5,
                &KeywordRanker,
                None,
                &|_| false,
                &|i| r.name(i) == "read_file",
            )
            .unwrap()
        };
        let res = select("enter_plan_mode,read_file,nope");
        assert_eq!(res.hits, ["enter_plan_mode"]);
        assert_eq!(res.not_found, ["read_file", "nope"]);
        // One tool or several, the first line reads right.
        assert!(res
            .text
            .starts_with("Loaded 1 tool, which can be called at once, in this turn;"));
        let two = select("enter_plan_mode,exit_plan_mode");
        assert!(two.text.starts_with("Loaded 2 tools, which can be called"));
        // The declared tool is named apart: it is held, not unavailable.
        assert!(res.text.ends_with(
            "Already in your tool list, call directly: read_file\n\
             Not available as deferred tools of this session: nope\n"
        ));
    }

    #[test]
    fn arguments_are_validated() {
        let r = Registry::embedded();
        let e = deferred_by_default(&r);
        let bad = json!({"query": 3});
        let err = SearchCall::from_arguments(&bad).unwrap_err();
        assert_eq!(err.path(), Some("$.query"));
        let zero = json!({"query": "x", "limit": 0});
        let err = run(
            &r,
            &e,
            &SearchCall::from_arguments(&zero).unwrap(),
            &|_| false,
            &|_| false,
        )
        .unwrap_err();
        assert_eq!(err.path(), Some("$.limit"));
        let args = json!({"query": "plan mode"});
        let call = SearchCall::from_arguments(&args).unwrap();
        let res = run(&r, &e, &call, &|_| false, &|_| false).unwrap();
        assert_eq!(res.hits[0], "enter_plan_mode");
    }
}
