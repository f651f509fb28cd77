//! OpenAI's strict mode for a tool that opts in with `"strict": true`: its schema must meet the
//! rules OpenAI checks before it accepts such a function (OpenAI function-calling guide,
//! "Strict mode", and Structured Outputs, "Supported schemas": the root is an object; every
//! object sets `additionalProperties: false`; every property is listed in `required` — an
//! optional field is written as a union with `null`). A tool that breaks one fails to load,
//! naming the rule and the JSON path, instead of being refused by OpenAI on every request.

use serde_json::{Map, Value};

use crate::error::{Error, JsonPath, Result};
use crate::provider::json_schema::{names_type, walk, At, Fault};

/// Checks a strict tool's schema (`path` is where it sits in the registry document). The
/// walk is the one that judges every schema for the providers (`provider/json_schema.rs`), so
/// a strict schema is also held to JSON Schema's shapes there.
pub(crate) fn check(schema: &Value, path: &JsonPath) -> Result<()> {
    let is_object_root = schema.as_object().is_some_and(object_schema);
    if !is_object_root {
        return Err(Error::registry(
            path,
            "\"strict\": true, but the root must be an object schema (OpenAI strict mode)",
        ));
    }
    let Some(fault) = walk(schema, &mut strict_rules) else {
        return Ok(());
    };
    let message = if fault.rule == STRICT {
        format!(
            "\"strict\": true (OpenAI strict mode), so this must be {}",
            fault.must
        )
    } else {
        format!(
            "not JSON Schema (draft 2020-12): this must be {}",
            fault.must
        )
    };
    Err(Error::registry(&path.join(&fault.path), message))
}

const STRICT: &str = "strict";

/// A subschema the strict rules hold to: it declares an object, or has properties.
fn object_schema(m: &Map<String, Value>) -> bool {
    names_type(m, "object") || m.contains_key("properties")
}

/// OpenAI's rules for one object subschema: closed, and every property required.
fn strict_rules(m: &Map<String, Value>, at: &At<'_>) -> Option<Fault> {
    if !object_schema(m) {
        return None;
    }
    if m.get("additionalProperties") != Some(&Value::Bool(false)) {
        return at
            .key("additionalProperties")
            .fault(STRICT, "false, on every object");
    }
    let Some(Value::Object(props)) = m.get("properties") else {
        return None;
    };
    let required = m.get("required").and_then(Value::as_array);
    let missing = props
        .keys()
        .find(|key| !required.is_some_and(|r| r.iter().any(|v| v == key.as_str())))?;
    at.key("properties")
        .key(missing)
        .fault(STRICT, "listed in \"required\", as every property is")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(schema: Value) -> Option<String> {
        check(&schema, &JsonPath::root())
            .err()
            .map(|e| format!("{} {}", e.path().unwrap_or(""), e))
    }

    #[test]
    fn each_rule_names_its_path() {
        let ok = json!({"type": "object", "additionalProperties": false, "required": ["q", "n"],
            "properties": {"q": {"type": "string"}, "n": {"type": ["object", "null"],
            "additionalProperties": false, "required": [], "properties": {}}}});
        assert_eq!(at(ok), None);
        let open = at(json!({"type": "object", "properties": {}})).unwrap();
        assert!(
            open.starts_with("$.additionalProperties ") && open.contains("additionalProperties"),
            "{open}"
        );
        let optional = at(json!({"type": "object", "additionalProperties": false, "properties": {"q": {"type": "string"}}})).unwrap();
        assert!(
            optional.starts_with("$.properties.q ") && optional.contains("required"),
            "{optional}"
        );
        let nested = at(
            json!({"type": "object", "additionalProperties": false, "required": ["a"],
            "properties": {"a": {"type": "array", "items": {"type": "object", "properties": {}}}}}),
        )
        .unwrap();
        assert!(
            nested.starts_with("$.properties.a.items.additionalProperties "),
            "{nested}"
        );
        let root = at(json!({"anyOf": [{"type": "object"}]})).unwrap();
        assert!(root.contains("root must be an object"), "{root}");
        let defs = at(
            json!({"type": "object", "additionalProperties": false, "properties": {},
            "$defs": {"x": {"type": "object"}}}),
        )
        .unwrap();
        assert!(
            defs.starts_with(r#"$["$defs"].x.additionalProperties "#),
            "{defs}"
        );
    }
}
