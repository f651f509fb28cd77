//! OpenAI's strict mode for a tool that opts in with `"strict": true`: its schema must meet the
//! rules OpenAI checks before it accepts such a function (OpenAI function-calling guide,
//! "Strict mode", and Structured Outputs, "Supported schemas": the root is an object; every
//! object sets `additionalProperties: false`; every property is listed in `required` — an
//! optional field is written as a union with `null`). A tool that breaks one fails to load,
//! naming the rule and the JSON path, instead of being refused by OpenAI on every request.

use serde_json::{Map, Value};

use crate::error::{Error, JsonPath, Result};

/// Checks a strict tool's schema (`path` is where it sits in the registry document).
pub(crate) fn check(schema: &Value, path: &JsonPath) -> Result<()> {
    let is_object_root = schema
        .as_object()
        .is_some_and(|m| declares_object(m) || m.contains_key("properties"));
    if !is_object_root {
        return Err(rule(path, "the root must be an object schema"));
    }
    check_node(schema, path)
}

fn rule(path: &JsonPath, what: &str) -> Error {
    Error::registry(
        path,
        format!("\"strict\": true, but {what} (OpenAI strict mode)"),
    )
}

fn declares_object(m: &Map<String, Value>) -> bool {
    match m.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => false,
    }
}

fn check_node(node: &Value, path: &JsonPath) -> Result<()> {
    let Some(m) = node.as_object() else {
        return Ok(());
    };
    if declares_object(m) || m.contains_key("properties") {
        if m.get("additionalProperties") != Some(&Value::Bool(false)) {
            return Err(rule(
                &path.key("additionalProperties"),
                "an object does not set \"additionalProperties\": false",
            ));
        }
        let required: Vec<&str> = m
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(Value::Object(props)) = m.get("properties") {
            for key in props.keys() {
                if !required.contains(&key.as_str()) {
                    return Err(rule(
                        &path.key("properties").key(key),
                        "a property is not listed in \"required\"",
                    ));
                }
            }
        }
    }
    // Every place a subschema can sit, in a fixed order.
    for key in ["properties", "$defs", "definitions"] {
        if let Some(Value::Object(children)) = m.get(key) {
            for (name, child) in children {
                check_node(child, &path.key(key).key(name))?;
            }
        }
    }
    for key in ["anyOf", "allOf", "oneOf", "prefixItems"] {
        if let Some(Value::Array(children)) = m.get(key) {
            for (i, child) in children.iter().enumerate() {
                check_node(child, &path.key(key).index(i))?;
            }
        }
    }
    match m.get("items") {
        Some(Value::Array(children)) => {
            for (i, child) in children.iter().enumerate() {
                check_node(child, &path.key("items").index(i))?;
            }
        }
        Some(child) => check_node(child, &path.key("items"))?,
        None => {}
    }
    Ok(())
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
