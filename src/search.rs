//! `tool_search`: the one resident tool that loads deferred tools.
//!
//! Queries:
//! - `select:a,b` loads exactly the named tools (in the order given);
//! - keywords (`github issue`) rank deferred tools by name and description; a `+term` is
//!   required: a tool that does not mention it is not a hit.
//!
//! Ranking is deterministic: per term, a whole name part (split at `_`, `-`, `__`,
//! camelCase) scores 10, a name substring 4, a description word 2, a description substring
//! 1; scores add up and ties keep registry order. Only this session's deferred tools can be
//! hits, so a disabled tool can never be found. The result text carries each hit's full
//! `{name, description, parameters}` (canonical JSON, one per line) under a line saying the
//! tools can be called at once: dispatch resolves them even before the next turn boundary
//! shows them in the provider array.

use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, JsonPath, Result};
use crate::expand::Expansion;
use crate::registry::{Registry, Tool, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT};
use crate::turn::{record_loaded, TurnState};

/// Longest query accepted.
pub const MAX_QUERY_LEN: usize = 2_000;

/// A parsed query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// `select:a,b`: exactly these tools, in this order.
    Select(Vec<String>),
    /// Keywords, lower-cased.
    Keywords {
        /// `+term`s: a hit must match each.
        required: Vec<String>,
        /// Plain terms: they rank.
        optional: Vec<String>,
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
        let mut required = Vec::new();
        let mut optional = Vec::new();
        for word in trimmed.split_whitespace() {
            match word.strip_prefix('+') {
                Some(w) if !w.is_empty() => required.push(w.to_ascii_lowercase()),
                Some(_) => {}
                None => optional.push(word.to_ascii_lowercase()),
            }
        }
        if required.is_empty() && optional.is_empty() {
            return Err(Error::value(
                "tool_search query",
                &JsonPath::root().key("query"),
                "the query is empty",
            ));
        }
        Ok(Query::Keywords { required, optional })
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
}

/// Runs a query against the session's deferred tools. Pure: the caller records the hits
/// (see [`execute`] for the call that does both).
pub fn search(expansion: &Expansion<'_>, query: &Query, limit: usize) -> SearchResult {
    let registry = expansion.registry();
    let limit = limit.clamp(1, MAX_SEARCH_LIMIT);
    let mut hits: Vec<usize> = Vec::new();
    let mut not_found = Vec::new();
    match query {
        Query::Select(names) => {
            for name in names {
                match registry.index_of(name) {
                    Some(i) if expansion.is_deferred(i) => {
                        if !hits.contains(&i) {
                            hits.push(i);
                        }
                    }
                    _ => not_found.push(name.clone()),
                }
            }
        }
        Query::Keywords { required, optional } => {
            let mut scored: Vec<(u32, usize)> = Vec::new();
            let docs = &registry.memo(SearchIndex::build).0;
            for i in expansion.deferred() {
                let Some(doc) = docs.get(i) else {
                    continue;
                };
                if required.iter().any(|t| doc.score(t) == 0) {
                    continue;
                }
                let score: u32 = required.iter().chain(optional).map(|t| doc.score(t)).sum();
                if score > 0 {
                    scored.push((score, i));
                }
            }
            // Highest score first; ties in registry order (stable sort on the index order).
            scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            hits = scored.into_iter().take(limit).map(|(_, i)| i).collect();
        }
    }
    let tools: Vec<&Tool> = hits.iter().filter_map(|&i| registry.tool(i)).collect();
    SearchResult {
        hits: tools.iter().map(|t| t.name.clone()).collect(),
        text: result_text(&tools, &not_found),
        not_found,
    }
}

/// Runs one `tool_search` call given its query and limit (`None`: the default of 5),
/// returning the result and the turn state with the loads recorded. Errors point into the
/// call's arguments (`$.query`, `$.limit`).
pub fn run(
    expansion: &Expansion<'_>,
    state: &TurnState,
    query: &str,
    limit: Option<usize>,
) -> Result<(SearchResult, TurnState)> {
    let limit = match limit {
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
    let query = Query::parse(query)?;
    let result = search(expansion, &query, limit);
    let next = record_loaded(state, &result.hits);
    Ok((result, next))
}

/// Executes a `tool_search` call from the JSON arguments the model sent
/// (`{"query": "...", "limit": 5}`); see [`run`].
pub fn execute(
    expansion: &Expansion<'_>,
    state: &TurnState,
    arguments: &Value,
) -> Result<(SearchResult, TurnState)> {
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
        // The range is `run`'s to check; here only that it is a count at all.
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
    run(expansion, state, query, limit)
}

fn result_text(tools: &[&Tool], not_found: &[String]) -> String {
    let mut text = String::new();
    if tools.is_empty() {
        text.push_str("No deferred tool matched.");
    } else {
        text.push_str(&format!(
            "Loaded {} tool{}. They can be called at once, in this turn; each definition follows as JSON:\n",
            tools.len(),
            if tools.len() == 1 { "" } else { "s" }
        ));
        // Each definition as canonical JSON (keys in order), written without building a map.
        for t in tools {
            text.push_str("{\"description\":");
            text.push_str(&Value::from(t.description.as_str()).to_string());
            text.push_str(",\"name\":");
            text.push_str(&Value::from(t.name.as_str()).to_string());
            text.push_str(",\"parameters\":");
            text.push_str(&t.parameters().to_string());
            text.push_str("}\n");
        }
    }
    if !not_found.is_empty() {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!(
            "Not available as deferred tools of this session: {}\n",
            not_found.join(", ")
        ));
    }
    text
}

/// Every tool prepared for keyword search, in registry order; built once per registry on
/// the first keyword query and kept with it.
struct SearchIndex(Vec<Document>);

impl SearchIndex {
    fn build(registry: &Registry) -> SearchIndex {
        SearchIndex(registry.tools().iter().map(Document::new).collect())
    }
}

/// A tool prepared for keyword search (lower-cased name, name parts, description words).
#[derive(Debug, Clone)]
struct Document {
    name: String,
    name_parts: Vec<String>,
    description: String,
    description_words: Vec<String>,
}

impl Document {
    fn new(tool: &Tool) -> Self {
        let name = tool.name.to_ascii_lowercase();
        // ASCII case folding: names are ASCII, and Unicode tables would bloat the wasm package.
        let description = tool.description.to_ascii_lowercase();
        Document {
            name_parts: split_name(&tool.name),
            description_words: description
                .split(|c: char| c.is_ascii() && !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect(),
            name,
            description,
        }
    }

    fn score(&self, term: &str) -> u32 {
        let mut s = 0;
        if self.name == term || self.name_parts.iter().any(|p| p == term) {
            s += 10;
        } else if self.name.contains(term) {
            s += 4;
        }
        if self.description_words.iter().any(|w| w == term) {
            s += 2;
        } else if self.description.contains(term) {
            s += 1;
        }
        s
    }
}

/// `mcp__github__createIssue` → `mcp`, `github`, `create`, `issue`.
fn split_name(name: &str) -> Vec<String> {
    let mut parts = Vec::new();
    for chunk in name.split(['_', '-']).filter(|s| !s.is_empty()) {
        let mut current = String::new();
        let mut prev_lower = false;
        for c in chunk.chars() {
            if c.is_ascii_uppercase() && prev_lower && !current.is_empty() {
                parts.push(std::mem::take(&mut current));
            }
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            current.push(c.to_ascii_lowercase());
        }
        if !current.is_empty() {
            parts.push(current);
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expand::{expand, ExpandContext};
    use crate::intent::ToolsOverride;
    use crate::registry::Registry;
    use serde_json::json;

    #[test]
    fn query_parsing() {
        assert_eq!(
            Query::parse("select: a, b").unwrap(),
            Query::Select(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            Query::parse("+GitHub issue").unwrap(),
            Query::Keywords {
                required: vec!["github".into()],
                optional: vec!["issue".into()]
            }
        );
        assert!(Query::parse("   ").is_err());
        assert!(Query::parse("select:").is_err());
    }

    #[test]
    fn name_splitting() {
        assert_eq!(
            split_name("mcp__github__createIssue"),
            ["mcp", "github", "create", "issue"]
        );
        assert_eq!(
            split_name("browser_take-screenshot"),
            ["browser", "take", "screenshot"]
        );
    }

    #[test]
    fn select_only_finds_deferred_tools() {
        let r = Registry::embedded();
        let e = expand(&r, &ToolsOverride::Follow, ExpandContext::default()).unwrap();
        let res = search(
            &e,
            &Query::parse("select:enter_plan_mode,read_file,nope").unwrap(),
            5,
        );
        assert_eq!(res.hits, ["enter_plan_mode"]);
        assert_eq!(res.not_found, ["read_file", "nope"]);
        assert!(res.text.contains("can be called at once"));
    }

    #[test]
    fn execute_validates_arguments() {
        let r = Registry::embedded();
        let e = expand(&r, &ToolsOverride::Follow, ExpandContext::default()).unwrap();
        let err = execute(&e, &TurnState::default(), &json!({"query": 3})).unwrap_err();
        assert_eq!(err.path(), Some("$.query"));
        let err = execute(
            &e,
            &TurnState::default(),
            &json!({"query": "x", "limit": 0}),
        )
        .unwrap_err();
        assert_eq!(err.path(), Some("$.limit"));
        let (res, state) =
            execute(&e, &TurnState::default(), &json!({"query": "plan mode"})).unwrap();
        assert_eq!(res.hits[0], "enter_plan_mode");
        assert_eq!(state.loaded, res.hits);
    }
}
