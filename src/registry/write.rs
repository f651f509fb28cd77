//! Writing a registry back as a document in our format: loading it again gives an equal
//! registry — the same fingerprint, and the same trust decisions. A merged MCP server's
//! tools go back under `mcp_servers` as the server listed them (its own names, `inputSchema`),
//! never as the document's own tools: a registry believes its own tools' annotations and a
//! server's only when `trusted_servers` names it, so writing a server's tools as the
//! document's would make a reload believe an untrusted server (a destructive tool claiming
//! `readOnlyHint` would join the `readonly` preset).

use serde_json::{Map, Value};

use super::tool::Tool;
use super::Registry;
use crate::intent::{string_array, ToolsOverride};

impl Registry {
    /// The registry as JSON in our format; loading it again gives an equal registry (same
    /// fingerprint, same server attribution, same trust decisions).
    pub fn to_value(&self) -> Value {
        let settings = &self.data.settings;
        let mut own = Vec::new();
        // Servers in the order their first tool appears, those without tools after them, so
        // the reload puts every tool back in its place (a server whose list was empty when it
        // joined has its tools after those of servers that joined later). A tool in a server's
        // namespace without a name of its own at the server stays the document's.
        let mut servers: Vec<(&str, Vec<Value>)> = Vec::new();
        for tool in self.own_tools() {
            let server = settings
                .merged_server_of(&tool.name)
                .filter(|_| tool.source.is_some());
            match server {
                Some(server) => match servers.iter_mut().find(|(s, _)| *s == server) {
                    Some((_, list)) => list.push(tool.to_server_value()),
                    None => servers.push((server, vec![tool.to_server_value()])),
                },
                None => own.push(tool.to_value()),
            }
        }
        for server in &settings.servers {
            if !servers.iter().any(|(s, _)| s == server) {
                servers.push((server, Vec::new()));
            }
        }
        let mut doc = Map::new();
        doc.insert("tools".into(), Value::Array(own));
        // The servers' globs stay where merging put them: loading `mcp_servers` adds a glob
        // only where it is missing.
        if let Value::Object(written) = self.settings_value() {
            doc.extend(written);
        }
        if !servers.is_empty() {
            let servers = servers
                .into_iter()
                .map(|(name, tools)| {
                    let mut o = Map::new();
                    o.insert("name".into(), Value::String(name.to_string()));
                    o.insert("tools".into(), Value::Array(tools));
                    Value::Object(o)
                })
                .collect();
            doc.insert("mcp_servers".into(), Value::Array(servers));
        }
        Value::Object(doc)
    }

    /// Everything of the registry but its tools (the servers' globs included): what the
    /// document holds besides its tools, and what the fingerprint reads.
    pub(crate) fn settings_value(&self) -> Value {
        let s = &self.data.settings;
        let mut doc = Map::new();
        if let Some(defaults) = &s.default_tools {
            doc.insert("default_tools".into(), string_array(defaults));
        }
        if !s.deferred_default_tools.is_empty() {
            doc.insert(
                "deferred_default_tools".into(),
                string_array(&s.deferred_default_tools),
            );
        }
        // Maps are filled by `insert`, not `collect`: collecting into a map links a stable
        // sort per element type into the wasm module.
        let named = |items: &[(String, Vec<String>)]| {
            let mut map = Map::new();
            for (k, l) in items {
                map.insert(k.clone(), string_array(l));
            }
            Value::Object(map)
        };
        if !s.toolsets.is_empty() {
            doc.insert("toolsets".into(), named(&s.toolsets));
        }
        if !s.overlays.is_empty() {
            doc.insert("overlays".into(), named(&s.overlays));
        }
        if !s.sources.is_empty() {
            let mut sources = Map::new();
            for p in &s.sources {
                let mut o = Map::new();
                if !matches!(p.default, ToolsOverride::Follow) {
                    o.insert("default".into(), p.default.to_canonical_value());
                }
                if !p.deny.is_empty() {
                    o.insert("deny".into(), string_array(&p.deny));
                }
                sources.insert(p.name.clone(), Value::Object(o));
            }
            doc.insert("sources".into(), Value::Object(sources));
        }
        if !s.trusted_servers.is_empty() {
            doc.insert("trusted_servers".into(), string_array(&s.trusted_servers));
        }
        if !s.history.is_empty() {
            let history = s
                .history
                .iter()
                .map(|h| {
                    let mut o = Map::new();
                    o.insert("version".into(), Value::String(h.version.clone()));
                    if let Some(d) = &h.default_tools {
                        o.insert("default_tools".into(), string_array(d));
                    }
                    if !h.toolsets.is_empty() {
                        o.insert("toolsets".into(), named(&h.toolsets));
                    }
                    Value::Object(o)
                })
                .collect();
            doc.insert("history".into(), Value::Array(history));
        }
        Value::Object(doc)
    }
}

impl Tool {
    /// The tool as JSON in our format (`parameters`, MCP fields kept): what dispatch and a
    /// tool list show of it.
    pub fn to_value(&self) -> Value {
        self.written(false)
    }

    /// A merged server's tool as its server listed it (MCP `tools/list` fields: its own name,
    /// `inputSchema`): what `mcp_servers` holds, so a reload names it and trusts it as before.
    fn to_server_value(&self) -> Value {
        self.written(true)
    }

    fn written(&self, as_listed: bool) -> Value {
        let t = self;
        let mut o = t.extra.clone();
        let (name, schema) = if as_listed {
            (t.source_name(), "inputSchema")
        } else {
            (t.name.as_str(), "parameters")
        };
        o.insert("name".into(), Value::String(name.to_string()));
        o.insert("description".into(), Value::String(t.description.clone()));
        o.insert(schema.into(), t.parameters().clone());
        if let Some(title) = &t.title {
            o.insert("title".into(), Value::String(title.clone()));
        }
        if let Some(a) = &t.annotations {
            o.insert("annotations".into(), a.clone());
        }
        if let Some(d) = t.defer {
            o.insert("defer".into(), Value::Bool(d));
        }
        if t.strict {
            o.insert("strict".into(), Value::Bool(true));
        }
        if as_listed {
            return Value::Object(o);
        }
        if let Some(source) = t.source.as_ref().filter(|s| **s != t.name) {
            o.insert("source_name".into(), Value::String(source.clone()));
        }
        if let Some(b) = &t.builtin {
            o.insert("builtin".into(), b.to_value());
        }
        Value::Object(o)
    }
}
