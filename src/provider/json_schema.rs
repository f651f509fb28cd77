//! Whether a tool's parameters are JSON Schema as the providers validate it before a request
//! runs. One schema they refuse fails the whole request, every turn, so `rules.rs` leaves such
//! a tool out of the payload with a warning instead. Two rules, judged in one walk of every
//! subschema:
//! - `invalid_schema`: what each keyword's value must be under draft 2020-12's meta-schema
//!   (<https://json-schema.org/draft/2020-12/schema>: a subschema is an object or a boolean;
//!   `type` names the seven types; `required` lists distinct strings; `allOf`, `anyOf`,
//!   `oneOf` and `prefixItems` are non-empty arrays of schemas; `items` is one schema, not
//!   draft 7's array; lengths and counts are non-negative integers; annotations are strings
//!   or booleans). Anthropic answers 400 "tools.N.custom.input_schema: JSON schema is invalid.
//!   It must match JSON Schema draft 2020-12" (anthropics/anthropic-sdk-java #241: a property
//!   given as `"number"`; MarkusPfundstein/mcp-gsuite #48: `"required": false`), and OpenAI
//!   400 `invalid_function_parameters`. Keywords the meta-schema does not name are allowed,
//!   as it allows them; `format` and `pattern` are not asserted (2020-12 makes `format` an
//!   annotation).
//! - `array_items` (OpenAI only): an array schema (`"type": "array"`, or a type list naming
//!   it) without `items`: 400 `invalid_function_parameters`, "Invalid schema for function
//!   '…': In context=('properties', 'configs'), array schema missing items"
//!   (streamnative/streamnative-mcp-server #26, sigoden/aichat #1049); Anthropic and Gemini
//!   take it (langgenius/dify #32894).

use serde_json::{Map, Value};

use crate::error::JsonPath;

/// Where a schema breaks a rule, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fault {
    /// `invalid_schema` or `array_items`.
    pub(crate) rule: &'static str,
    /// The path inside the schema (`$` is its root).
    pub(crate) path: JsonPath,
    /// What the value there must be.
    pub(crate) must: &'static str,
}

/// The first fault of `schema` (subschemas in the order the parsed object holds them), if
/// any; `array_items` asks every array schema for `items` as well.
pub(crate) fn fault(schema: &Value, array_items: bool) -> Option<Fault> {
    walk(schema, &mut |map, at| {
        if array_items && names_type(map, "array") && !map.contains_key("items") {
            at.fault("array_items", "an array schema with items")
        } else {
            None
        }
    })
}

/// Whether a schema's `type` is `name`, or a list naming it (OpenAI's `items` rule asks it of
/// `"array"`, its strict rules of `"object"`).
pub(crate) fn names_type(map: &Map<String, Value>, name: &str) -> bool {
    match map.get("type") {
        Some(Value::String(t)) => t == name,
        Some(Value::Array(ts)) => ts.iter().any(|t| t == name),
        _ => false,
    }
}

/// Walks `schema` depth first, checking each keyword's shape (`invalid_schema`) and calling
/// `visit` on every object subschema before its keywords; the first fault ends the walk.
/// OpenAI's strict rules (`registry/strict.rs`) are such a visitor too.
pub(crate) fn walk(schema: &Value, visit: &mut Visit<'_>) -> Option<Fault> {
    subschema(schema, &At::ROOT, visit)
}

/// A rule judged on one object subschema, where it sits.
pub(crate) type Visit<'v> = dyn FnMut(&Map<String, Value>, &At<'_>) -> Option<Fault> + 'v;

/// Where the walk is: a chain of steps on the stack, made into a path only for a fault.
pub(crate) struct At<'a> {
    up: Option<&'a At<'a>>,
    key: Option<&'a str>,
    index: usize,
}

impl<'a> At<'a> {
    const ROOT: At<'static> = At {
        up: None,
        key: None,
        index: 0,
    };

    /// The member `key` of the object here.
    pub(crate) fn key(&'a self, key: &'a str) -> At<'a> {
        At {
            up: Some(self),
            key: Some(key),
            index: 0,
        }
    }

    fn path(&self) -> JsonPath {
        match self.up {
            None => JsonPath::root(),
            Some(up) => match self.key {
                Some(key) => up.path().key(key),
                None => up.path().index(self.index),
            },
        }
    }

    /// A fault of `rule` here: the value must be `must`.
    pub(crate) fn fault(&self, rule: &'static str, must: &'static str) -> Option<Fault> {
        Some(Fault {
            rule,
            path: self.path(),
            must,
        })
    }
}

const TYPES: [&str; 7] = [
    "array", "boolean", "integer", "null", "number", "object", "string",
];

fn subschema(schema: &Value, at: &At<'_>, visit: &mut Visit<'_>) -> Option<Fault> {
    let map = match schema {
        Value::Object(map) => map,
        Value::Bool(_) => return None,
        _ => return at.fault(INVALID, Shape::Schema.must()),
    };
    if let Some(fault) = visit(map, at) {
        return Some(fault);
    }
    for (key, value) in map {
        if let Some(fault) = keyword(key, value, &at.key(key), visit) {
            return Some(fault);
        }
    }
    None
}

const INVALID: &str = "invalid_schema";

/// What a keyword's value must be.
#[derive(Clone, Copy)]
enum Shape {
    Schema,
    Schemas,
    SchemaList,
    Type,
    Names,
    NamesByName,
    List,
    Positive,
    Number,
    Count,
    Text,
    Flag,
}

/// The shape of `key`'s value, if the meta-schema gives it one (a `match`: every key of
/// every schema is looked up, and a scan of a table measured a third slower first turn).
fn shape_of(key: &str) -> Option<Shape> {
    Some(match key {
        "items"
        | "additionalProperties"
        | "propertyNames"
        | "contains"
        | "not"
        | "if"
        | "then"
        | "else"
        | "unevaluatedItems"
        | "unevaluatedProperties"
        | "contentSchema" => Shape::Schema,
        "properties" | "$defs" | "definitions" | "patternProperties" | "dependentSchemas" => {
            Shape::Schemas
        }
        "anyOf" | "oneOf" | "allOf" | "prefixItems" => Shape::SchemaList,
        "type" => Shape::Type,
        "required" => Shape::Names,
        "dependentRequired" => Shape::NamesByName,
        "enum" | "examples" => Shape::List,
        "multipleOf" => Shape::Positive,
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => Shape::Number,
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minContains" | "maxContains"
        | "minProperties" | "maxProperties" => Shape::Count,
        "description" | "title" | "format" | "pattern" | "$ref" | "$schema" | "$id"
        | "$comment" | "$anchor" | "$dynamicRef" | "$dynamicAnchor" | "contentEncoding"
        | "contentMediaType" => Shape::Text,
        "uniqueItems" | "readOnly" | "writeOnly" | "deprecated" => Shape::Flag,
        _ => return None,
    })
}

impl Shape {
    /// What a value of this shape must be, said in a warning.
    fn must(self) -> &'static str {
        match self {
            Shape::Schema => "a schema: an object or a boolean",
            Shape::Schemas => "an object of schemas",
            Shape::SchemaList => "a non-empty array of schemas",
            Shape::Type => "a type name (array, boolean, integer, null, number, object, string) or a non-empty list of distinct ones",
            Shape::Names => "an array of distinct strings",
            Shape::NamesByName => "an object of arrays of distinct strings",
            Shape::List => "an array",
            Shape::Positive => "a number above 0",
            Shape::Number => "a number",
            Shape::Count => "a non-negative integer",
            Shape::Text => "a string",
            Shape::Flag => "a boolean",
        }
    }
}

/// Whether `value` is an array of distinct strings (`required`, each list of
/// `dependentRequired`): sorted once, so a schema's longest list (64 KiB holds about 7,000
/// names) costs n log n comparisons, not the n² of comparing each with those before it.
fn names(value: &Value) -> bool {
    let Some(list) = value.as_array() else {
        return false;
    };
    let mut names = Vec::with_capacity(list.len());
    for v in list {
        match v.as_str() {
            Some(name) => names.push(name),
            None => return false,
        }
    }
    crate::sort::sort_names(&mut names);
    names.windows(2).all(|w| w[0] != w[1])
}

fn keyword(key: &str, value: &Value, at: &At<'_>, visit: &mut Visit<'_>) -> Option<Fault> {
    let shape = shape_of(key)?;
    let number = value.as_f64();
    let fits = match (shape, value) {
        (Shape::Schema, _) => return subschema(value, at, visit),
        (Shape::Schemas | Shape::NamesByName, Value::Object(map)) => {
            for (name, v) in map {
                let here = at.key(name);
                let fault = match shape {
                    Shape::Schemas => subschema(v, &here, visit),
                    _ if names(v) => None,
                    _ => here.fault(INVALID, Shape::Names.must()),
                };
                if fault.is_some() {
                    return fault;
                }
            }
            true
        }
        (Shape::SchemaList, Value::Array(list)) if !list.is_empty() => {
            for (index, v) in list.iter().enumerate() {
                let here = At {
                    up: Some(at),
                    key: None,
                    index,
                };
                if let Some(fault) = subschema(v, &here, visit) {
                    return Some(fault);
                }
            }
            true
        }
        (Shape::Type, Value::String(t)) => TYPES.contains(&t.as_str()),
        (Shape::Type, Value::Array(list)) => {
            // At most the seven names, each once: a longer list repeats one.
            (1..=TYPES.len()).contains(&list.len())
                && list.iter().enumerate().all(|(i, t)| {
                    t.as_str().is_some_and(|t| TYPES.contains(&t)) && !list[..i].contains(t)
                })
        }
        (Shape::Names, _) => names(value),
        (Shape::List, _) => value.is_array(),
        (Shape::Positive, _) => number.is_some_and(|n| n > 0.0),
        (Shape::Number, _) => number.is_some(),
        (Shape::Count, _) => number.is_some_and(|n| n >= 0.0 && n.fract() == 0.0),
        (Shape::Text, _) => value.is_string(),
        (Shape::Flag, _) => value.is_boolean(),
        _ => false,
    };
    if fits {
        None
    } else {
        at.fault(INVALID, shape.must())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(schema: Value, array_items: bool) -> Option<String> {
        fault(&schema, array_items).map(|f| format!("{} {} {}", f.rule, f.path, f.must))
    }

    #[test]
    fn valid_schemas_pass() {
        for schema in [
            json!({"type": "object"}),
            json!({"type": "object", "properties": {"q": {"type": ["string", "null"], "description": "x",
                "minLength": 1, "maxLength": 2.0, "pattern": "^a", "format": "uri"},
                "n": {"type": "array", "items": {"type": "integer", "minimum": -1.5, "multipleOf": 0.5}},
                "any": true, "none": false, "e": {"enum": [], "const": {"type": 3}, "default": null}},
                "required": ["q", "n"], "additionalProperties": false,
                "$defs": {"d": {"anyOf": [{"$ref": "#/$defs/d"}, {"type": "null"}]}},
                "x-vendor": {"type": 42}, "dependentRequired": {"q": ["n"]}}),
        ] {
            assert_eq!(at(schema.clone(), true), None, "{schema}");
        }
    }

    #[test]
    fn each_fault_names_its_rule_path_and_need() {
        let cases = [
            // A property given as its type name, as anthropic-sdk-java #241 sent it.
            (
                json!({"type": "object", "properties": {"x": "number"}}),
                "invalid_schema $.properties.x a schema: an object or a boolean",
            ),
            (
                json!({"type": "object", "properties": {"q": {"type": "string", "required": false}}}),
                "invalid_schema $.properties.q.required an array of distinct strings",
            ),
            (
                json!({"type": "object", "properties": {"q": {"type": "strin"}}}),
                "invalid_schema $.properties.q.type a type name",
            ),
            (
                json!({"type": "object", "required": ["a", "a"]}),
                "invalid_schema $.required an array of distinct strings",
            ),
            // Found apart and out of order too (the names are sorted, then compared).
            (
                json!({"type": "object", "required": ["b", "a", "c", "b"]}),
                "invalid_schema $.required an array of distinct strings",
            ),
            (
                json!({"type": "object", "required": ["a", 1]}),
                "invalid_schema $.required an array of distinct strings",
            ),
            (
                json!({"type": ["string", "null", "number", "integer", "boolean", "object", "string", "null"]}),
                "invalid_schema $.type a type name",
            ),
            (
                json!({"type": "object", "properties": {"t": {"type": "array", "items": [{"type": "string"}]}}}),
                "invalid_schema $.properties.t.items a schema",
            ),
            (
                json!({"type": "object", "properties": {"u": {"anyOf": []}}}),
                "invalid_schema $.properties.u.anyOf a non-empty array",
            ),
            (
                json!({"type": "object", "properties": {"u": {"oneOf": [{"type": "string"}, 3]}}}),
                "invalid_schema $.properties.u.oneOf[1] a schema",
            ),
            (
                json!({"type": "object", "properties": {"s": {"type": "string", "maxLength": -1}}}),
                "invalid_schema $.properties.s.maxLength a non-negative integer",
            ),
            (
                json!({"type": "object", "properties": {"s": {"type": "string", "description": null}}}),
                "invalid_schema $.properties.s.description a string",
            ),
            (
                json!({"type": "object", "properties": {"n": {"type": "number", "multipleOf": 0}}}),
                "invalid_schema $.properties.n.multipleOf a number above 0",
            ),
            (
                json!({"type": "object", "dependentRequired": {"a": "b"}}),
                "invalid_schema $.dependentRequired.a an array of distinct strings",
            ),
            (
                json!({"type": "object", "properties": {"f": {"type": "boolean", "readOnly": "yes"}}}),
                "invalid_schema $.properties.f.readOnly a boolean",
            ),
            (
                json!({"type": "object", "properties": {"t": {"type": ["string", "string"]}}}),
                "invalid_schema $.properties.t.type a type name",
            ),
        ];
        for (schema, expected) in cases {
            let found = at(schema.clone(), false).unwrap_or_default();
            assert!(found.starts_with(expected), "{schema}: {found}");
            // The OpenAI walk finds the same fault (none of these is an array without items).
            assert_eq!(at(schema, true).unwrap_or_default(), found);
        }
    }

    #[test]
    fn openai_asks_every_array_schema_for_items() {
        let nested = json!({"type": "object", "properties": {"values": {"type": "array",
            "items": {"type": ["string", "array"]}}}});
        assert_eq!(
            at(nested.clone(), true).as_deref(),
            Some("array_items $.properties.values.items an array schema with items")
        );
        assert_eq!(at(nested, false), None);
        let defs = json!({"type": "object", "$defs": {"l": {"type": "array"}}});
        assert_eq!(
            at(defs, true).as_deref(),
            Some("array_items $[\"$defs\"].l an array schema with items")
        );
        assert_eq!(
            at(
                json!({"type": "object", "properties": {"l": {"type": "array", "items": true}}}),
                true
            ),
            None
        );
    }
}
