//! What the library brings itself: the embedded default registry and the definition of
//! `tool_search`, the one tool that loads deferred tools.

use std::sync::OnceLock;

use super::model::{Schema, Tool};

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

/// The built-in `tool_search` arguments schema, as text (its `maximum` is
/// [`MAX_SEARCH_LIMIT`]; a unit test checks the two agree).
const TOOL_SEARCH_PARAMETERS: &str = r#"{"additionalProperties":false,"properties":{"limit":{"description":"Maximum number of tools to return for a keyword query (default 5).","maximum":50,"minimum":1,"type":"integer"},"query":{"description":"Either \"select:name1,name2\" to load tools by exact name, or keywords matched against tool names and descriptions. Prefix a keyword with + to require it, e.g. \"+github issue comment\".","type":"string"}},"required":["query"],"type":"object"}"#;

fn build_tool_search_definition() -> Tool {
    let mut tool = Tool {
        name: TOOL_SEARCH.to_string(),
        description: "Load the full schema of deferred tools. Deferred tools are listed by name only in the system prompt and cannot be called until loaded. Use \"select:<name>\" when you know the name, or keywords to search. The result contains each tool's complete definition; the loaded tools can be called immediately.".to_string(),
        title: None,
        annotations: None,
        defer: None,
        extra: Default::default(),
        source: None,
        schema: Schema::from_validated_text(TOOL_SEARCH_PARAMETERS),
    };
    tool.defer = Some(false);
    tool
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_text_is_canonical_and_agrees_with_the_limit() {
        let t = tool_search_definition();
        let v = t.parameters();
        assert_eq!(v["properties"]["limit"]["maximum"], MAX_SEARCH_LIMIT);
        assert_eq!(
            v.to_string(),
            TOOL_SEARCH_PARAMETERS,
            "keys sorted, compact"
        );
    }
}
