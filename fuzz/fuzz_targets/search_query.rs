//! tool_search queries and glob patterns: never panic, bounded time, hits only deferred tools;
//! a refused query's error shows it escaped.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tool_intent::turn::expand::{expand, ExpandContext};
use tool_intent::search::Query;
use tool_intent::{Registry, SearchCall, ToolsOverride, TurnRequest};
use tool_intent_fuzz::error_shown_safely;

fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| {
        let github = include_str!("../../tests/data/mcp/github.json");
        Registry::embedded().set_mcp_server("github", github).unwrap().registry
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let r = registry();
    let request = TurnRequest {
        tools_override: ToolsOverride::from_json_str(r#"{"toolset":"full"}"#).unwrap(),
        ..Default::default()
    };
    let mut turn = r.turn(&request).unwrap();
    if Query::parse(text).is_ok() {
        let call = SearchCall::new(text).with_limit(50);
        let res = turn.search(&call).expect("a parsed query runs").result;
        for hit in &res.hits {
            assert!(turn.expansion().is_deferred(r.index_of(hit).unwrap()), "{hit} is not deferred");
        }
    }
    let arguments = serde_json::json!({"query": text, "limit": 7});
    match SearchCall::from_arguments(&arguments) {
        Ok(call) => {
            if let Err(e) = turn.search(&call) {
                error_shown_safely(&e);
            }
        }
        Err(e) => error_shown_safely(&e),
    }
    // Globs through the public route: any pattern in `allowed` and `disabled`, matched
    // against every registry name (case-sensitively, then ignoring case).
    if let Some((pattern, other)) = text.split_once('\n') {
        let o = serde_json::json!({"toolset": "full", "allowed": [pattern], "disabled": [other]});
        if let Ok(o) = ToolsOverride::from_value(&o) {
            let _ = expand(r, &o, ExpandContext::default()).expect("expands");
        }
    }
});
