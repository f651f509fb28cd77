//! What the library brings itself: the embedded default registry and the definition of
//! `tool_search`, the one tool that loads deferred tools.

use std::sync::OnceLock;

use serde_json::json;

use super::model::Tool;

/// The name of the tool that loads deferred tools.
pub const TOOL_SEARCH: &str = "tool_search";
/// The overlay key an intent's `web_search` switches.
pub const WEB_SEARCH_OVERLAY: &str = "web_search";

/// Hits a keyword `tool_search` returns unless the call asks for another number.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;
/// The most hits one `tool_search` call may ask for.
pub const MAX_SEARCH_LIMIT: usize = 50;

/// The embedded registry document (`src/default_registry.json`, whitespace removed by
/// `build.rs`).
pub(crate) const EMBEDDED_REGISTRY_JSON: &str =
    include_str!(concat!(env!("OUT_DIR"), "/default_registry.min.json"));

/// The built-in definition of `tool_search`, used when a registry does not define its own
/// (built once; every registry shares its schema).
pub(crate) fn tool_search_definition() -> Tool {
    static DEFINITION: OnceLock<Tool> = OnceLock::new();
    DEFINITION.get_or_init(build_tool_search_definition).clone()
}

fn build_tool_search_definition() -> Tool {
    let parameters = json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "Either \"select:name1,name2\" to load tools by exact name, or keywords matched against tool names and descriptions. Prefix a keyword with + to require it, e.g. \"+github issue comment\"."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_SEARCH_LIMIT,
                "description": "Maximum number of tools to return for a keyword query (default 5)."
            }
        },
        "required": ["query"],
        "additionalProperties": false
    });
    let mut tool = Tool::new(
        TOOL_SEARCH,
        "Load the full schema of deferred tools. Deferred tools are listed by name only in the system prompt and cannot be called until loaded. Use \"select:<name>\" when you know the name, or keywords to search. The result contains each tool's complete definition; the loaded tools can be called immediately.",
        parameters,
    );
    tool.defer = Some(false);
    tool
}
