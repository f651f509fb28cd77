//! Size limits that keep hostile input cheap. They are generous for real registries (the
//! largest schema among the MCP servers in `tests/data/mcp` is under 4 KB) and bound the time
//! and memory any input can cost. Every loader and parser reads [`LIMITS`].

/// The limits of one load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of one registry or tools-list text, checked before parsing (64 MiB: a
    /// generated registry of 10,000 realistic tools is 14 MB).
    pub max_input_bytes: usize,
    /// Tools in one registry (the built-in `tool_search` is not counted).
    pub max_tools: usize,
    /// Bytes of one tool's JSON Schema, written compactly.
    pub max_schema_bytes: usize,
    /// Nesting levels of one schema.
    pub max_schema_depth: usize,
    /// Bytes of one tool description.
    pub max_description_bytes: usize,
    /// Entries of one name/glob list (`disabled`, a preset, a source ceiling, ...).
    pub max_patterns: usize,
    /// Bytes of one name or glob pattern.
    pub max_pattern_bytes: usize,
    /// Bytes of a preset name.
    pub max_toolset_name_bytes: usize,
    /// Keys of an intent object this version does not know (kept for round trips).
    pub max_unknown_intent_keys: usize,
}

/// The limits every loader uses.
pub const LIMITS: Limits = Limits {
    max_input_bytes: 64 * 1024 * 1024,
    max_tools: 10_000,
    max_schema_bytes: 64 * 1024,
    max_schema_depth: 32,
    max_description_bytes: 16 * 1024,
    max_patterns: 1_000,
    max_pattern_bytes: 256,
    max_toolset_name_bytes: 256,
    max_unknown_intent_keys: 64,
};
