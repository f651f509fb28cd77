//! tool_search queries and glob patterns: never panic, bounded time, hits only deferred tools.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tool_intent::{expand, glob, search, ExpandContext, Registry, ToolsOverride, TurnState};

fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| {
        let github = include_str!("../../tests/data/mcp/github.json");
        Registry::embedded().merge_mcp_server("github", &serde_json::from_str(github).unwrap()).unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let r = registry();
    let e = expand(r, &ToolsOverride::from_json_str(r#"{"toolset":"full"}"#).unwrap(), ExpandContext::default()).unwrap();
    if let Ok(q) = search::Query::parse(text) {
        let res = search::search(&e, &q, 50);
        for hit in &res.hits {
            assert!(e.is_deferred(r.index_of(hit).unwrap()), "{hit} is not deferred");
        }
    }
    let _ = search::execute(&e, &TurnState::default(), &serde_json::json!({"query": text, "limit": 7}));
    if let Some((pattern, name)) = text.split_once('\n') {
        let _ = glob::matches(pattern, name);
        let _ = glob::matches_ignore_case(pattern, name);
    }
});
