//! MCP servers in a registry: their tools are namespaced `mcp__<server>__<tool>`, appended in
//! the order given, exposed (added to an explicit `full`) and deferred by default (added to
//! explicit `default_tools` and `deferred_default_tools`): available to every session, their
//! schemas cost nothing until the model loads them.

use serde_json::Value;

use std::rc::Rc;

use super::load::{parse_tool_list, LocatedTool, ToolOrigin};
use super::{Registry, Settings};
use crate::error::{Error, JsonPath, Result};
use crate::json::read_tool_list;
use crate::limits::LIMITS;

/// The name a server's tool gets in the registry.
pub(crate) fn namespaced(server: &str, tool: &str) -> String {
    format!("mcp__{server}__{tool}")
}

/// The glob that matches every tool of a server.
pub(crate) fn server_glob(server: &str) -> String {
    format!("mcp__{server}__*")
}

/// Server names are letters, digits, `-` and `_`, without `__` (the namespace separator).
pub(crate) fn check_server_name(server: &str, path: &JsonPath) -> Result<()> {
    let ok = !server.is_empty()
        && server
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && !server.contains("__");
    if ok {
        Ok(())
    } else {
        Err(Error::registry(
            path,
            format!("server name \"{server}\" must be letters, digits, '-' or '_' (no \"__\")"),
        ))
    }
}

impl Settings {
    /// Makes a server's tools exposed and deferred by default.
    pub(crate) fn add_server(&mut self, server: &str) {
        self.servers.push(server.to_string());
        let glob = server_glob(server);
        if let Some((_, full)) = self.toolsets.iter_mut().find(|(n, _)| n == "full") {
            full.push(glob.clone());
        }
        if let Some(defaults) = &mut self.default_tools {
            defaults.push(glob.clone());
            self.deferred_default_tools.push(glob);
        }
    }
}

impl Registry {
    /// A new registry with the tools of one MCP server appended as `mcp__<server>__<tool>`.
    /// `tools_list` is the server's `tools/list` result (`{"tools": [...]}` or an array) as
    /// JSON text. Errors name paths inside `tools_list`. This registry is unchanged and the
    /// new one shares its parsed schemas.
    pub fn merge_mcp_server_json(&self, server: &str, tools_list: &str) -> Result<Registry> {
        let root = JsonPath::root();
        check_server_name(server, &root).map_err(|_| {
            Error::argument(
                "server",
                format!("server name \"{server}\" must be letters, digits, '-' or '_' (no \"__\")"),
            )
        })?;
        if tools_list.len() > LIMITS.max_input_bytes {
            return Err(Error::limit(
                "tools list",
                &root,
                format!(
                    "{} bytes of JSON, at most {} are read",
                    tools_list.len(),
                    LIMITS.max_input_bytes
                ),
            ));
        }
        let prefix = format!("mcp__{server}__");
        if self.tools.iter().any(|t| t.name.starts_with(&prefix)) {
            return Err(Error::argument(
                "server",
                format!("server \"{server}\" is already merged into this registry"),
            ));
        }
        let list = read_tool_list("tools list", tools_list)?;
        let mut warnings = self.warnings.clone();
        let added = parse_tool_list(list, &root, Some(server), &mut warnings)?;
        self.with_server(server, added, warnings)
    }

    /// [`Registry::merge_mcp_server_json`] for a parsed value.
    pub fn merge_mcp_server(&self, server: &str, tools_list: &Value) -> Result<Registry> {
        self.merge_mcp_server_json(server, &tools_list.to_string())
    }

    fn with_server(
        &self,
        server: &str,
        added: Vec<LocatedTool>,
        warnings: Vec<crate::warning::Warning>,
    ) -> Result<Registry> {
        let mut settings = self.settings.clone();
        settings.add_server(server);
        let tools_path = Rc::new(JsonPath::root().key("tools"));
        let mut tools: Vec<LocatedTool> = self
            .own_tools()
            .iter()
            .enumerate()
            // Earlier MCP tools keep their wire names: they are plain names now.
            .map(|(i, t)| (t.clone(), ToolOrigin::new(tools_path.clone(), i, false)))
            .collect();
        tools.extend(added);
        Registry::build(settings, tools, warnings)
    }
}

/// The server of a namespaced name (`mcp__<server>__<tool>` → `<server>`).
pub(crate) fn server_of(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("mcp__")?;
    rest.find("__").map(|at| &rest[..at])
}
