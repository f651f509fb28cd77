//! Writing a registry back as a document in our format: loading it again gives an equal
//! registry (MCP tools stay under their namespaced names, their patterns in the lists).

use serde_json::{Map, Value};

use super::model::Tool;
use super::Registry;
use crate::intent::{string_array, ToolsOverride};

impl Registry {
    /// The registry as JSON in our format; loading it again gives an equal registry.
    pub fn to_value(&self) -> Value {
        let mut doc = Map::new();
        let tools = self.own_tools().iter().map(|t| t.to_value()).collect();
        doc.insert("tools".into(), Value::Array(tools));
        if let Value::Object(settings) = self.settings_value() {
            doc.extend(settings);
        }
        Value::Object(doc)
    }

    /// Everything of the document but its tools, as written back.
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
        let t = self;
        let mut o = t.extra.clone();
        o.insert("name".into(), Value::String(t.name.clone()));
        o.insert("description".into(), Value::String(t.description.clone()));
        o.insert("parameters".into(), t.parameters().clone());
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
        if let Some(source) = t.source.as_ref().filter(|s| **s != t.name) {
            o.insert("source_name".into(), Value::String(source.clone()));
        }
        if let Some(b) = &t.builtin {
            o.insert("builtin".into(), b.to_value());
        }
        Value::Object(o)
    }
}
