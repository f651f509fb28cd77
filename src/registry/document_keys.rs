// The top-level keys of a registry document in our format, in the order errors list them; the
// last two are MCP `tools/list` fields, ignored. One list for the loader (`load.rs`) and for
// `build.rs`, which `include!`s this file to check the embedded registry against it (so the
// file holds no inner doc comment and nothing but the list).

/// Top-level keys of our format (the last two are MCP `tools/list` fields, ignored).
pub(crate) const TOP_LEVEL_KEYS: &[&str] = &[
    "tools",
    "default_tools",
    "deferred_default_tools",
    "toolsets",
    "overlays",
    "sources",
    "history",
    "trusted_servers",
    "mcp_servers",
    "nextCursor",
    "_meta",
];
