//! Reading a registry document: our format, an MCP `tools/list` result, or a bare tool array.
//!
//! The document is read one level deep ([`crate::json::Shallow`]); tool schemas stay
//! unparsed text, validated by one scan each ([`super::schema::check`]). Every error names the
//! JSON path of the bad value. Our own format is strict (it is written by the operator): an
//! unknown top-level key, a duplicate key or a bad tool refuses the whole document.

use std::rc::Rc;

use serde_json::{Map, Value};

use super::model::{Schema, Tool};
use super::policy::{parse_history, parse_named_lists, parse_overlays, parse_sources};
use super::{mcp, schema, Settings};
use crate::error::{Error, JsonPath, Result};
use crate::intent::parse_pattern_list;
use crate::json::{read_document, string_of, value_of, Document, RawObject, Shallow, ToolList};
use crate::limits::LIMITS;

/// Top-level keys of our format (the last two are MCP `tools/list` fields, ignored).
const TOP_LEVEL_KEYS: &[&str] = &[
    "tools",
    "default_tools",
    "deferred_default_tools",
    "toolsets",
    "overlays",
    "sources",
    "history",
    "mcp_servers",
    "nextCursor",
    "_meta",
];

/// Where a tool was read from: its list's path and its index there. The tool's own path is
/// made only when an error needs it (a registry of 10,000 tools would otherwise format
/// 10,000 paths on every load).
#[derive(Debug, Clone)]
pub(crate) struct ToolOrigin {
    list: Rc<JsonPath>,
    index: usize,
}

impl ToolOrigin {
    pub(crate) fn new(list: Rc<JsonPath>, index: usize) -> Self {
        ToolOrigin { list, index }
    }

    /// The tool's JSON path.
    pub(crate) fn path(&self) -> JsonPath {
        self.list.index(self.index)
    }
}

/// A tool with where it was read from (for errors found after parsing).
pub(crate) type LocatedTool = (Tool, ToolOrigin);

/// Parses a registry document into its settings and tools.
pub(crate) fn parse_document(text: &str) -> Result<(Settings, Vec<LocatedTool>)> {
    let root = JsonPath::root();
    let (tools_list, doc) = match read_document("registry", text)? {
        Document::Array(items) => {
            return Ok((Settings::default(), parse_tool_items(items, &root, None)?))
        }
        Document::Object { tools, members } => (tools, members),
        Document::Other(v) => {
            return Err(Error::expected(
                "registry",
                &root,
                "an object or an array of tools",
                &v,
            ))
        }
    };
    if let Some(key) = &doc.duplicate {
        return Err(Error::registry(
            &root.key(key),
            format!("key \"{key}\" given twice"),
        ));
    }
    for (key, _) in &doc.entries {
        if !TOP_LEVEL_KEYS.contains(&key.as_ref()) {
            return Err(Error::registry(
                &root.key(key),
                format!(
                    "unknown registry key \"{key}\" (expected one of: {})",
                    TOP_LEVEL_KEYS[..8].join(", ")
                ),
            ));
        }
    }
    let present = |key: &str| doc.get(key).filter(|raw| raw.get() != "null");
    let mut tools = match tools_list {
        Some(list) => parse_tool_list(list, &root.key("tools"), None)?,
        None => Vec::new(),
    };
    let mut settings = Settings {
        default_tools: present("default_tools")
            .map(|raw| parse_pattern_list(&value_of(raw), &root.key("default_tools"), "registry"))
            .transpose()?,
        deferred_default_tools: present("deferred_default_tools")
            .map(|raw| {
                parse_pattern_list(
                    &value_of(raw),
                    &root.key("deferred_default_tools"),
                    "registry",
                )
            })
            .transpose()?
            .unwrap_or_default(),
        toolsets: present("toolsets")
            .map(|raw| parse_named_lists(&value_of(raw), &root.key("toolsets")))
            .transpose()?
            .unwrap_or_default(),
        overlays: present("overlays")
            .map(|raw| parse_overlays(&value_of(raw), &root.key("overlays")))
            .transpose()?
            .unwrap_or_default(),
        sources: present("sources")
            .map(|raw| parse_sources(&value_of(raw), &root.key("sources")))
            .transpose()?
            .unwrap_or_default(),
        history: present("history")
            .map(|raw| parse_history(&value_of(raw), &root.key("history")))
            .transpose()?
            .unwrap_or_default(),
    };
    if let Some(raw) = present("mcp_servers") {
        let path = root.key("mcp_servers");
        let Shallow::Array(servers) = Shallow::of(raw) else {
            return Err(Error::expected(
                "registry",
                &path,
                "an array of servers",
                &value_of(raw),
            ));
        };
        for (i, server) in servers.iter().enumerate() {
            let p = path.index(i);
            let Shallow::Object(obj) = Shallow::of(server) else {
                return Err(Error::expected(
                    "registry",
                    &p,
                    "{\"name\", \"tools\"}",
                    &value_of(server),
                ));
            };
            let name = match obj.get("name").map(value_of) {
                Some(Value::String(s)) => s,
                _ => {
                    return Err(Error::value(
                        "registry",
                        &p.key("name"),
                        "expected the server name as a string",
                    ))
                }
            };
            mcp::check_server_name(&name, &p.key("name"))?;
            if let Some(raw_tools) = obj.get("tools") {
                let list = crate::json::read_tool_list("registry", raw_tools.get())?;
                tools.extend(parse_tool_list(list, &p.key("tools"), Some(&name))?);
            }
            settings.add_server(&name);
        }
    }
    Ok((settings, tools))
}

/// Parses a tool list: an array of tools, or an MCP `tools/list` result object holding one.
pub(crate) fn parse_tool_list(
    list: ToolList<'_>,
    path: &JsonPath,
    server: Option<&str>,
) -> Result<Vec<LocatedTool>> {
    match list {
        ToolList::Items(items) => parse_tool_items(items, path, server),
        ToolList::Other(Shallow::Object(obj)) => match obj.get("tools") {
            Some(inner) if inner.get().starts_with('[') => {
                let inner = crate::json::read_tool_list("registry", inner.get())?;
                parse_tool_list(inner, &path.key("tools"), server)
            }
            _ => Err(Error::value(
                "registry",
                path,
                "expected an array of tools or a tools/list result ({\"tools\": [...]})",
            )),
        },
        ToolList::Other(Shallow::Other(Value::Null)) => Ok(Vec::new()),
        ToolList::Other(other) => Err(Error::expected(
            "registry",
            path,
            "an array of tools",
            &other.describe_value(),
        )),
    }
}

fn parse_tool_items(
    items: Vec<Shallow<'_>>,
    path: &JsonPath,
    server: Option<&str>,
) -> Result<Vec<LocatedTool>> {
    if items.len() > LIMITS.max_tools {
        return Err(Error::limit(
            "registry",
            path,
            format!(
                "{} tools, at most {} are accepted",
                items.len(),
                LIMITS.max_tools
            ),
        ));
    }
    let list = Rc::new(path.clone());
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let origin = ToolOrigin::new(list.clone(), i);
            let tool = match item {
                Shallow::Object(obj) => parse_tool(&obj, &origin, server)?,
                other => {
                    return Err(Error::expected(
                        "registry",
                        &origin.path(),
                        "a tool object",
                        &other.describe_value(),
                    ))
                }
            };
            Ok((tool, origin))
        })
        .collect()
}

/// Schema keys: ours, MCP's, and Anthropic's spelling.
const SCHEMA_KEYS: [&str; 3] = ["parameters", "inputSchema", "input_schema"];

fn parse_tool(obj: &RawObject<'_>, origin: &ToolOrigin, server: Option<&str>) -> Result<Tool> {
    let path = || origin.path();
    if let Some(key) = &obj.duplicate {
        return Err(Error::registry(
            &path().key(key),
            format!("key \"{key}\" given twice"),
        ));
    }
    let raw_name = match obj.get("name").map(string_of) {
        Some(Ok(s)) => s,
        Some(Err(other)) => {
            return Err(Error::expected(
                "registry",
                &path().key("name"),
                "a string",
                &other,
            ))
        }
        None => return Err(Error::value("registry", &path(), "tool has no \"name\"")),
    };
    let name = match server {
        Some(s) => mcp::namespaced(s, &raw_name),
        None => raw_name,
    };
    if !is_provider_safe_name(&name) {
        return Err(Error::registry(
            &path().key("name"),
            format!(
                "tool name \"{name}\" is not provider-safe (must match ^[a-zA-Z0-9_-]{{1,64}}$)"
            ),
        ));
    }
    let description = match obj.get("description").map(string_of) {
        None | Some(Err(Value::Null)) => String::new(),
        Some(Ok(s)) => s,
        Some(Err(other)) => {
            return Err(Error::expected(
                "registry",
                &path().key("description"),
                "a string",
                &other,
            ))
        }
    };
    if description.len() > LIMITS.max_description_bytes {
        return Err(Error::limit(
            "registry",
            &path().key("description"),
            format!(
                "description of {} bytes, at most {} are accepted",
                description.len(),
                LIMITS.max_description_bytes
            ),
        ));
    }
    let present: Vec<&str> = SCHEMA_KEYS
        .iter()
        .copied()
        .filter(|k| obj.get(k).is_some())
        .collect();
    if present.len() > 1 {
        return Err(Error::value(
            "registry",
            &path().key(present[1]),
            format!(
                "both \"{}\" and \"{}\" given; use one",
                present[0], present[1]
            ),
        ));
    }
    let schema_key = present.first().copied().unwrap_or("parameters");
    let Some(raw_schema) = obj.get(schema_key) else {
        return Err(Error::value(
            "registry",
            &path(),
            "tool has no \"parameters\" (or MCP \"inputSchema\")",
        ));
    };
    schema::check(raw_schema, || path().key(schema_key))?;
    let title = match obj.get("title").map(string_of) {
        None | Some(Err(Value::Null)) => None,
        Some(Ok(s)) => Some(s),
        Some(Err(other)) => {
            return Err(Error::expected(
                "registry",
                &path().key("title"),
                "a string",
                &other,
            ))
        }
    };
    let defer = match obj.get("defer").map(value_of) {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(b),
        Some(other) => {
            return Err(Error::expected(
                "registry",
                &path().key("defer"),
                "true or false",
                &other,
            ))
        }
    };
    let annotations = obj
        .get("annotations")
        .map(value_of)
        .filter(|v| !v.is_null());
    let mut extra = Map::new();
    for (k, raw) in &obj.entries {
        let known = matches!(
            k.as_ref(),
            "name" | "description" | "title" | "defer" | "annotations"
        ) || SCHEMA_KEYS.contains(&k.as_ref());
        if !known {
            extra.insert(k.to_string(), value_of(raw));
        }
    }
    Ok(Tool {
        name,
        description,
        title,
        annotations,
        defer,
        extra,
        schema: Schema::from_validated_text(raw_schema.get()),
    })
}

/// Whether a name satisfies `^[a-zA-Z0-9_-]{1,64}$`, the strictest provider rule.
pub(crate) fn is_provider_safe_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
