//! Reading a registry document: our format, an MCP `tools/list` result, or a bare tool array.
//!
//! The document is read one level deep ([`crate::json::Shallow`]); tool schemas stay
//! unparsed text, validated by one scan each ([`super::schema::check`]). Every error names the
//! JSON path of the bad value. Our own format is strict (it is written by the operator): an
//! unknown top-level key, a duplicate key or a bad tool refuses the whole document.

use std::rc::Rc;

use serde_json::{Map, Value};

use super::document_keys::TOP_LEVEL_KEYS;
use super::names::{self, check_server_name, is_provider_safe_name};
use super::policy::{parse_history, parse_named_lists, parse_overlays, parse_sources};
use super::schema::{self, Verdict};
use super::tool::{Schema, Tool};
use super::Settings;
use crate::error::{quoted, Error, JsonPath, Result};
use crate::intent::parse_pattern_list;
use crate::json::{read_document, read_tool_list, string_of, value_of, Node, Raw, RawObject};
use crate::limits::LIMITS;
use crate::provider::ProviderTool;
use crate::warning::{Warning, WarningCode};

impl super::Registry {
    /// Parses a registry from JSON text (a leading byte-order mark is accepted).
    pub fn from_json_str(text: &str) -> Result<Self> {
        check_input_size("document", &JsonPath::root(), text)?;
        let mut warnings = super::LoadWarnings::default();
        let (settings, tools) = parse_document(text, &mut warnings)?;
        super::Registry::build(settings, tools, warnings, None)
    }
}

/// Where a tool was read from: its list's path and its index there. The tool's own path is
/// made only when an error needs it (a registry of 10,000 tools would otherwise format
/// 10,000 paths on every load).
#[derive(Debug, Clone)]
pub(crate) struct ToolOrigin {
    list: Rc<JsonPath>,
    index: usize,
    /// From an MCP server's list: the name may be mapped to a wire name, and a tool that
    /// cannot be used is left out with a warning instead of refusing the whole list.
    pub(crate) lenient: bool,
}

impl ToolOrigin {
    pub(crate) fn new(list: Rc<JsonPath>, index: usize, lenient: bool) -> Self {
        ToolOrigin {
            list,
            index,
            lenient,
        }
    }

    /// The tool's JSON path.
    pub(crate) fn path(&self) -> JsonPath {
        self.list.index(self.index)
    }
}

/// A top-level member of the document read by `parse` (absent or `null`: `None`).
fn setting<T>(
    doc: &RawObject<'_>,
    key: &str,
    parse: impl FnOnce(&Value, &JsonPath) -> Result<T>,
) -> Result<Option<T>> {
    let Some(raw) = doc.get(key).filter(|raw| raw.get() != "null") else {
        return Ok(None);
    };
    let path = JsonPath::root().key(key);
    parse(&read(raw, || path.clone())?, &path).map(Some)
}

/// A raw value read in full, its parse error reported at its path.
fn read(raw: Raw<'_>, path: impl FnOnce() -> JsonPath) -> Result<Value> {
    value_of(raw).map_err(|m| unreadable(&path(), &m))
}

/// A value the first pass accepted but a full parse refuses.
fn unreadable(path: &JsonPath, message: &str) -> Error {
    Error::value("document", path, format!("unreadable value: {message}"))
}

/// A tool with where it was read from (for errors found after parsing).
/// Shared: a registry made from another reuses its unchanged tools without copying them.
pub(crate) type LocatedTool = (std::sync::Arc<Tool>, ToolOrigin);

/// Parses a registry document into its settings and tools; warnings (tools of MCP servers
/// left out, schemas normalised) go to `warnings`.
pub(crate) fn parse_document(
    text: &str,
    load_warnings: &mut super::LoadWarnings,
) -> Result<(Settings, Vec<LocatedTool>)> {
    let warnings = &mut load_warnings.document;
    let root = JsonPath::root();
    let (tools_list, doc) = match read_document("document", text)? {
        Node::Items(items) => {
            return Ok((
                Settings::default(),
                parse_tool_items(items, &root, None, warnings)?,
            ))
        }
        Node::Object { tools, members } => (tools, members),
        Node::Array(_) => return Err(Error::internal("a document array read as raw elements")),
        Node::Other(v) => {
            return Err(Error::expected(
                "document",
                &root,
                "an object or an array of tools",
                &v,
            ))
        }
    };
    if let Some(key) = &doc.duplicate {
        return Err(Error::registry(
            &root.key(key),
            format!("key {} given twice", quoted(key)),
        ));
    }
    for (key, _) in &doc.entries {
        if !TOP_LEVEL_KEYS.contains(&key.as_ref()) {
            return Err(Error::registry(
                &root.key(key),
                format!(
                    "unknown registry key {} (expected one of: {})",
                    quoted(key),
                    crate::text::join(&TOP_LEVEL_KEYS[..TOP_LEVEL_KEYS.len() - 2], ", ")
                ),
            ));
        }
    }
    let present = |key: &str| doc.get(key).filter(|raw| raw.get() != "null");
    let mut tools = match tools_list {
        Some(list) => parse_tool_list(*list, &root.key("tools"), None, warnings)?,
        None => Vec::new(),
    };
    let patterns = |v: &Value, p: &JsonPath| parse_pattern_list(v, p, "document");
    let mut settings = Settings {
        default_tools: setting(&doc, "default_tools", patterns)?,
        deferred_default_tools: setting(&doc, "deferred_default_tools", patterns)?
            .unwrap_or_default(),
        toolsets: setting(&doc, "toolsets", parse_named_lists)?.unwrap_or_default(),
        overlays: setting(&doc, "overlays", parse_overlays)?.unwrap_or_default(),
        sources: setting(&doc, "sources", parse_sources)?.unwrap_or_default(),
        history: setting(&doc, "history", parse_history)?.unwrap_or_default(),
        servers: Vec::new(),
        trusted_servers: setting(&doc, "trusted_servers", parse_server_patterns)?
            .unwrap_or_default(),
    };
    if let Some(raw) = present("mcp_servers") {
        let path = root.key("mcp_servers");
        let Node::Array(servers) = Node::of(raw).map_err(|m| unreadable(&path, &m))? else {
            return Err(Error::expected(
                "document",
                &path,
                "an array of servers",
                &read(raw, || path.clone())?,
            ));
        };
        for (i, &server) in servers.iter().enumerate() {
            let p = path.index(i);
            let Node::Object { members: obj, .. } =
                Node::of(server).map_err(|m| unreadable(&p, &m))?
            else {
                return Err(Error::expected(
                    "document",
                    &p,
                    "{\"name\", \"tools\"}",
                    &read(server, || p.clone())?,
                ));
            };
            let name = match obj
                .get("name")
                .map(|n| read(n, || p.key("name")))
                .transpose()?
            {
                Some(Value::String(s)) => s,
                _ => {
                    return Err(Error::value(
                        "document",
                        &p.key("name"),
                        "expected the server name as a string",
                    ))
                }
            };
            check_server_name(&name, &p.key("name"))?;
            if settings.servers.contains(&name) {
                return Err(Error::registry(
                    &p.key("name"),
                    format!("server \"{name}\" is listed twice"),
                ));
            }
            let mut server_warnings = Vec::new();
            let Some(raw_tools) = obj.get("tools") else {
                return Err(Error::value(
                    "document",
                    &p,
                    format!(
                        "server {} has no \"tools\" (its tools/list result; [] for none)",
                        quoted(&name)
                    ),
                ));
            };
            let list = read_tool_list("document", raw_tools.get())?;
            tools.extend(parse_tool_list(
                list,
                &p.key("tools"),
                Some(&name),
                &mut server_warnings,
            )?);
            load_warnings.servers.push((name.clone(), server_warnings));
            settings.add_server(&name);
        }
    }
    Ok((settings, tools))
}

/// `trusted_servers`: server names or globs of them.
fn parse_server_patterns(value: &Value, path: &JsonPath) -> Result<Vec<String>> {
    let patterns = parse_pattern_list(value, path, "document")?;
    for (i, p) in patterns.iter().enumerate() {
        if !crate::glob::is_glob(p) {
            check_server_name(p, &path.index(i))?;
        }
    }
    Ok(patterns)
}

/// Whether a `tools/list` result is one page of several (MCP "Pagination": `nextCursor`
/// names the next page; the last page has none, or `null`). Set alone as a server's list,
/// such a page would withdraw the other pages' tools from every session, as a `null` list
/// would. (A registry document, read once by its author, is not asked: the check costs the
/// core module bytes it does not have.)
fn one_page(members: &RawObject<'_>) -> bool {
    members.get("nextCursor").is_some_and(|c| c.get() != "null")
}

/// Parses a tool list: an array of tools, or an MCP `tools/list` result object holding one.
pub(crate) fn parse_tool_list(
    list: Node<'_>,
    path: &JsonPath,
    server: Option<&str>,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<LocatedTool>> {
    match list {
        Node::Items(items) => parse_tool_items(items, path, server, warnings),
        Node::Object { members, .. } if server.is_some() && one_page(&members) => Err(Error::value(
            "document",
            &path.key("nextCursor"),
            "one page of a tools/list: pass every page's tools together",
        )),
        // The reader read a `tools/list` result's `tools` as a list already.
        Node::Object { tools, .. } => match tools.map(|inner| *inner) {
            Some(Node::Items(items)) => {
                parse_tool_items(items, &path.key("tools"), server, warnings)
            }
            _ => Err(Error::value(
                "document",
                path,
                "expected an array of tools or a tools/list result ({\"tools\": [...]})",
            )),
        },
        // A registry document's `"tools": null` is no tools. A server's list never is: a flaky
        // connection that hands over `null` must not withdraw the server from every session
        // (removing a server is `remove_mcp_server`).
        Node::Other(Value::Null) => match server {
            None => Ok(Vec::new()),
            Some(server) => Err(Error::value(
                "document",
                path,
                format!(
                    "the tools list of server {} is null, not a list (an empty list is [], and removing a server is remove_mcp_server)",
                    quoted(server)
                ),
            )),
        },
        other => Err(Error::expected(
            "document",
            path,
            "an array of tools",
            &other.describe_value(),
        )),
    }
}

fn parse_tool_items(
    items: Vec<Node<'_>>,
    path: &JsonPath,
    server: Option<&str>,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<LocatedTool>> {
    if items.len() > LIMITS.max_tools {
        return Err(Error::limit(
            "document",
            path,
            format!(
                "{} tools, at most {} are accepted",
                items.len(),
                LIMITS.max_tools
            ),
        ));
    }
    let list = Rc::new(path.clone());
    let mut tools = Vec::with_capacity(items.len());
    let mut normalised: Vec<String> = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let origin = ToolOrigin::new(list.clone(), i, server.is_some());
        let parsed = match &item {
            Node::Object { members, .. } => parse_tool(members, &origin, server, warnings),
            other => Err(Error::expected(
                "document",
                &origin.path(),
                "a tool object",
                &other.describe_value(),
            )),
        };
        match parsed {
            Ok((tool, was_normalised)) => {
                if was_normalised {
                    normalised.push(tool.source_name().to_string());
                }
                tools.push((std::sync::Arc::new(tool), origin));
            }
            // An MCP server's unusable tool is left out; the rest of the server loads.
            Err(e) if origin.lenient => {
                let name = match &item {
                    Node::Object { members, .. } => members
                        .get("name")
                        .and_then(|n| string_of(n).ok()?.ok())
                        .map(|n| quoted(&n))
                        .unwrap_or_else(|| "(no name)".to_string()),
                    _ => "(not an object)".to_string(),
                };
                warnings.push(Warning::new(
                    WarningCode::QuarantinedTool,
                    "registry",
                    format!(
                        "tool {name} of server \"{}\" left out: {e}",
                        server.unwrap_or("")
                    ),
                ));
            }
            Err(e) => return Err(e),
        }
    }
    if !normalised.is_empty() {
        warnings.push(Warning::new(
            WarningCode::NormalisedSchema,
            "registry",
            format!(
                "tool schemas at {path} whose root type is missing or \"dict\" are sent with \"type\": \"object\" ({}): {}",
                normalised.len(),
                crate::error::some_names(&normalised)
            ),
        ));
    }
    Ok(tools)
}

fn parse_tool(
    obj: &RawObject<'_>,
    origin: &ToolOrigin,
    server: Option<&str>,
    warnings: &mut Vec<Warning>,
) -> Result<(Tool, bool)> {
    let path = || origin.path();
    if let Some(key) = &obj.duplicate {
        return Err(Error::registry(
            &path().key(key),
            format!("key {} given twice", quoted(key)),
        ));
    }
    // One pass over the members; the known ones are kept raw until checked below.
    let (mut name, mut description, mut title, mut defer, mut annotations, mut source) =
        (None, None, None, None, None, None);
    let (mut strict, mut builtin) = (None, None);
    let mut schema: Option<(&str, Raw<'_>)> = None;
    let mut extra = Map::new();
    for (k, raw) in &obj.entries {
        match k.as_ref() {
            "name" => name = Some(*raw),
            "description" => description = Some(*raw),
            "title" => title = Some(*raw),
            "defer" => defer = Some(*raw),
            "strict" => strict = Some(*raw),
            "annotations" => annotations = Some(*raw),
            "source_name" if server.is_none() => source = Some(*raw),
            "builtin" if server.is_none() => builtin = Some(*raw),
            key @ ("parameters" | "inputSchema" | "input_schema") => {
                if let Some((first, _)) = schema {
                    return Err(Error::value(
                        "document",
                        &path().key(key),
                        format!("both \"{first}\" and \"{key}\" given; use one"),
                    ));
                }
                schema = Some((key, *raw));
            }
            other => {
                extra.insert(other.to_string(), read_member(*raw, origin, other)?);
            }
        }
    }
    let text = |raw: Option<Raw<'_>>, key: &str| text_member(raw, origin, key);
    let Some(raw_name) = text(name, "name")? else {
        return Err(Error::value("document", &path(), "tool has no \"name\""));
    };
    if raw_name.is_empty() {
        return Err(Error::value(
            "document",
            &path().key("name"),
            "empty tool name",
        ));
    }
    // An MCP tool's name may be anything its server accepts: it gets a provider-valid wire
    // name when the registry is built, and keeps this one for dispatch.
    let (name, source) = match server {
        Some(s) => (names::wire_name(s, &raw_name), Some(raw_name)),
        None => (raw_name, text(source, "source_name")?),
    };
    // A source name equal to the name says nothing (and is not written back).
    let source = source.filter(|s| *s != name);
    if server.is_none() && RESERVED_NAMES.contains(&name.as_str()) {
        return Err(Error::registry(
            &path().key("name"),
            format!("tool name {} is reserved for a provider's own tool search (native mode declares it)", quoted(&name)),
        ));
    }
    if server.is_none() && !is_provider_safe_name(&name) {
        return Err(Error::registry(
            &path().key("name"),
            format!(
                "tool name {} is not provider-safe (must match ^[a-zA-Z0-9_-]{{1,64}}$)",
                quoted(&name)
            ),
        ));
    }
    let description = text(description, "description")?.unwrap_or_default();
    if description.len() > LIMITS.max_description_bytes {
        return Err(Error::limit(
            "document",
            &path().key("description"),
            format!(
                "description of {} bytes, at most {} are accepted",
                description.len(),
                LIMITS.max_description_bytes
            ),
        ));
    }
    let Some((schema_key, raw_schema)) = schema else {
        return Err(Error::value(
            "document",
            &path(),
            "tool has no \"parameters\" (or MCP \"inputSchema\")",
        ));
    };
    let verdict = schema::check(raw_schema, || path().key(schema_key))?;
    let title = text(title, "title")?;
    let defer = flag_member(defer, origin, "defer")?;
    let strict = flag_member(strict, origin, "strict")?.unwrap_or(false);
    let annotations = annotations
        .map(|a| read_member(a, origin, "annotations"))
        .transpose()?
        .filter(|v| !v.is_null());
    let (schema, normalised) = match verdict {
        Verdict::Object => (Schema::from_validated_text(raw_schema.get()), false),
        Verdict::Normalised(value) => (Schema::from_value(value), true),
    };
    if strict {
        super::strict::check(schema.value(), &path().key(schema_key))?;
    }
    let builtin = match builtin
        .map(|b| read_member(b, origin, "builtin"))
        .transpose()?
    {
        None | Some(Value::Null) => None,
        Some(v) => Some(Box::new(ProviderTool::parse(
            &v,
            &path().key("builtin"),
            &name,
            warnings,
        )?)),
    };
    let tool = Tool {
        name,
        description,
        title,
        annotations,
        defer,
        strict,
        extra,
        source,
        schema,
        builtin,
    };
    Ok((tool, normalised))
}

/// A member of a tool read in full, its parse error reported at its path. (These member
/// readers are functions, not closures: each closure would instantiate its callee again,
/// which the wasm module pays for.)
fn read_member(raw: Raw<'_>, origin: &ToolOrigin, key: &str) -> Result<Value> {
    value_of(raw).map_err(|m| unreadable(&origin.path().key(key), &m))
}

/// A string member of a tool (absent or `null`: `None`).
fn text_member(raw: Option<Raw<'_>>, origin: &ToolOrigin, key: &str) -> Result<Option<String>> {
    match raw.map(string_of).transpose() {
        Err(m) => Err(unreadable(&origin.path().key(key), &m)),
        Ok(None) | Ok(Some(Err(Value::Null))) => Ok(None),
        Ok(Some(Ok(s))) => Ok(Some(s)),
        Ok(Some(Err(other))) => Err(Error::expected(
            "document",
            &origin.path().key(key),
            "a string",
            &other,
        )),
    }
}

/// A `true` / `false` member of a tool (absent or `null`: `None`).
fn flag_member(raw: Option<Raw<'_>>, origin: &ToolOrigin, key: &str) -> Result<Option<bool>> {
    match raw.map(|r| read_member(r, origin, key)).transpose()? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b)),
        Some(other) => Err(Error::expected(
            "document",
            &origin.path().key(key),
            "true or false",
            &other,
        )),
    }
}

/// Refuses a registry or tools-list text over `LIMITS.max_input_bytes` before anything parses
/// it.
pub(crate) fn check_input_size(input: &'static str, path: &JsonPath, text: &str) -> Result<()> {
    if text.len() <= LIMITS.max_input_bytes {
        return Ok(());
    }
    Err(Error::limit(
        input,
        path,
        format!(
            "{} bytes of JSON, at most {} are read",
            text.len(),
            LIMITS.max_input_bytes
        ),
    ))
}

/// Names the providers' own search tools use in native mode.
const RESERVED_NAMES: [&str; 2] = ["tool_search_tool_regex", "tool_search_tool_bm25"];
