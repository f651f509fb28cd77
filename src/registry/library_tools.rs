//! What the library brings itself: the embedded default registry and the definition of
//! `tool_search`, the one tool that loads deferred tools.

use std::sync::OnceLock;

use super::tool::{Schema, Tool};

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
const TOOL_SEARCH_PARAMETERS: &str = r#"{"additionalProperties":false,"properties":{"limit":{"description":"Maximum number of tools to return for a keyword query (default 5).","maximum":50,"minimum":1,"type":"integer"},"query":{"description":"Either \"select:name1,name2\" to load tools by exact name, or keywords describing what the tool does (\"create github issue\"). Prefix a keyword with + to require it.","type":"string"}},"required":["query"],"type":"object"}"#;

fn build_tool_search_definition() -> Tool {
    let mut tool = Tool {
        name: TOOL_SEARCH.to_string(),
        description: "Load deferred tools: they are listed by name only, in the system prompt, and cannot be called until loaded. Query \"select:name1,name2\" to load tools by exact name, or a few keywords for the action and object (\"create github issue\"); a tool named in the query ranks first, and +word requires a word. Keyword queries return the 5 best matches unless limit says otherwise. The result holds each tool's full definition; loaded tools can be called immediately.".to_string(),
        title: None,
        annotations: None,
        defer: None,
        strict: false,
        extra: Default::default(),
        source: None,
        schema: Schema::from_validated_text(TOOL_SEARCH_PARAMETERS),
        builtin: None,
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
        // The description and the limit's own description state the default.
        let default = format!("{DEFAULT_SEARCH_LIMIT} best matches");
        assert!(t.description.contains(&default), "{}", t.description);
        assert!(TOOL_SEARCH_PARAMETERS.contains(&format!("(default {DEFAULT_SEARCH_LIMIT})")));
    }

    #[test]
    fn the_embedded_registry_declares_the_same_tool_search() {
        // The embedded registry spells tool_search out (so a copy of it is a complete
        // example); it must not drift from the built-in definition.
        let r = crate::registry::Registry::embedded();
        let embedded = r.tool_named(TOOL_SEARCH).unwrap();
        let builtin = tool_search_definition();
        assert_eq!(embedded.description, builtin.description);
        assert_eq!(embedded.parameters(), builtin.parameters());
    }
}
