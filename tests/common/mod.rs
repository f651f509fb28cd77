//! Shared helpers for integration tests: the one MCP fixture loader and the golden
//! registry recipes (`embedded`, `mcp:<file>`, `embedded+<file>`, `all`).
#![allow(dead_code)]

mod fixtures;

use std::path::PathBuf;

pub use fixtures::mcp_texts;

use serde_json::Value;
use tool_intent::search::SearchResult;
use tool_intent::turn::expand::{expand, ExpandContext, Expansion};
use tool_intent::{
    DeferralMode, Provider, Registry, SearchCall, ToolsOverride, TurnPlan, TurnRequest, TurnState,
    View,
};

/// A path inside the repository.
pub fn repo_path(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// A repository file as text.
pub fn read_repo_file(relative: &str) -> String {
    std::fs::read_to_string(repo_path(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// Compares `actual` with the golden file `tests/golden/<name>`, or rewrites the file when
/// `UPDATE_GOLDEN` is set (a change of golden bytes must be deliberate: review the diff).
pub fn check_golden(name: &str, actual: &str) {
    let path = repo_path("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "missing golden file {}; run with UPDATE_GOLDEN=1",
            path.display()
        )
    });
    if let Some(diff) = first_difference(&expected, actual) {
        panic!("{name} differs from its golden file (run with UPDATE_GOLDEN=1 and review the diff):\n{diff}");
    }
}

/// The first line where two texts differ, with two lines of context before it, or `None`
/// when they are equal.
pub fn first_difference(expected: &str, actual: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let at = (0..e.len().max(a.len()))
        .find(|&i| e.get(i) != a.get(i))
        // Equal lines: the texts differ only in a final newline.
        .unwrap_or(e.len().min(a.len()));
    let mut out = String::new();
    let from = at.saturating_sub(2);
    for (i, line) in e.iter().enumerate().take(at).skip(from) {
        out.push_str(&format!("  {:>6} | {}\n", i + 1, line));
    }
    let line = |l: &[&str]| {
        l.get(at)
            .map_or("<end of file>".to_string(), |s| s.to_string())
    };
    out.push_str(&format!("- {:>6} | {}\n", at + 1, line(&e)));
    out.push_str(&format!("+ {:>6} | {}\n", at + 1, line(&a)));
    Some(out)
}

/// The request of an override with a profile and source as `ctx` gives them.
pub fn turn_request(o: &ToolsOverride, ctx: ExpandContext<'_>) -> TurnRequest {
    TurnRequest {
        tools_override: o.clone(),
        profile: ctx.profile.cloned(),
        source: ctx.source.map(String::from),
        ..Default::default()
    }
}

/// How a test asks for a payload: the rendering fields of a request.
#[derive(Debug, Clone, Copy, Default)]
pub struct RenderOptions {
    pub provider: Provider,
    pub mode: DeferralMode,
    pub cache_control: bool,
    pub view: View,
}

/// The plan (payload included) of a request at a turn state with rendering options.
pub fn render(
    r: &Registry,
    request: &TurnRequest,
    state: &TurnState,
    options: RenderOptions,
) -> tool_intent::Result<TurnPlan> {
    r.plan_turn(&TurnRequest {
        state: state.clone(),
        provider: options.provider,
        mode: options.mode,
        cache_control: options.cache_control,
        view: options.view,
        ..request.clone()
    })
}

/// `tool_search` from the JSON arguments a model sent, at a turn state, as a server runs it.
pub fn search_args(
    r: &Registry,
    request: &TurnRequest,
    state: &TurnState,
    arguments: &Value,
) -> tool_intent::Result<(SearchResult, TurnState)> {
    let request = TurnRequest {
        state: state.clone(),
        ..request.clone()
    };
    let outcome = r
        .turn(&request)
        .and_then(|mut turn| turn.search(&SearchCall::from_arguments(arguments)?))?;
    Ok((outcome.result, outcome.state))
}

/// The MCP fixtures parsed.
pub fn mcp_files() -> Vec<(String, Value)> {
    mcp_texts()
        .into_iter()
        .map(|(n, t)| (n, serde_json::from_str(&t).unwrap()))
        .collect()
}

/// The embedded registry with every MCP fixture merged in.
pub fn all_merged() -> Registry {
    let mut r = Registry::embedded();
    for (name, text) in mcp_texts() {
        r = r.set_mcp_server(&name, &text).unwrap().registry;
    }
    r
}

/// The BFCL retrieval fixture (tests/data/bfcl/retrieval.json: 300 queries and rank-bm25's
/// figures on them) and the embedded registry with its 709-tool pool merged as the server `b`
/// (every pool tool deferred).
#[allow(dead_code)]
pub fn bfcl_fixture() -> (serde_json::Value, Registry) {
    let fixture = serde_json::from_str(&read_repo_file("tests/data/bfcl/retrieval.json")).unwrap();
    let registry = Registry::embedded()
        .set_mcp_server("b", &read_repo_file("tests/data/bfcl/retrieval-pool.json"))
        .unwrap()
        .registry;
    (fixture, registry)
}

/// The registries of the cross-target golden cases, by recipe name, in case order.
pub fn golden_registries() -> Vec<(String, Registry)> {
    let mut out = vec![("embedded".to_string(), Registry::embedded())];
    for (name, text) in mcp_texts() {
        out.push((
            format!("mcp:{name}"),
            Registry::from_json_str(&text).unwrap(),
        ));
    }
    for (name, text) in mcp_texts() {
        out.push((
            format!("embedded+{name}"),
            Registry::embedded()
                .set_mcp_server(&name, &text)
                .unwrap()
                .registry,
        ));
    }
    out.push(("all".to_string(), all_merged()));
    out.push((
        "doc:builtin".to_string(),
        Registry::from_json_str(&read_repo_file("tests/data/builtin-registry.json")).unwrap(),
    ));
    out
}

/// Parses an override or panics.
pub fn intent(json: &str) -> ToolsOverride {
    ToolsOverride::from_json_str(json).unwrap()
}

/// Expands an override with no profile or source.
pub fn expand_json(r: &Registry, json: &str) -> Expansion {
    expand(r, &intent(json), ExpandContext::default()).unwrap()
}

/// Every available tool's name.
pub fn names(e: &Expansion) -> Vec<String> {
    e.names(e.tools())
}
