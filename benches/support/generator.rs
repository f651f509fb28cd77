//! Realistic registries at scale, deterministic from a seed: the embedded registry's tools
//! plus MCP servers (`mcp__<server>__<verb>_<noun>`) with multi-sentence descriptions and
//! nested JSON Schemas (strings with enums and formats, integers with bounds, arrays of
//! objects, nested objects up to depth 3). Used by the criterion benches
//! (`benches/expansion.rs`), the Node benchmark and the fuzz seeds (through
//! `examples/gen_registry.rs`).
#![allow(dead_code)]

use serde_json::{json, Map, Value};

/// xorshift64*: tiny, deterministic on every platform.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const SERVERS: &[&str] = &[
    "github",
    "gitlab",
    "jira",
    "linear",
    "slack",
    "notion",
    "confluence",
    "postgres",
    "mysql",
    "redis",
    "s3",
    "gcs",
    "stripe",
    "sentry",
    "datadog",
    "pagerduty",
    "figma",
    "calendar",
    "gmail",
    "drive",
    "k8s",
    "docker",
    "terraform",
    "vault",
];
const VERBS: &[&str] = &[
    "get", "list", "create", "update", "delete", "search", "query", "sync", "export", "import",
    "archive", "restore", "approve", "assign", "comment", "merge", "deploy", "rollback", "tag",
    "watch",
];
const NOUNS: &[&str] = &[
    "issue",
    "pull_request",
    "branch",
    "commit",
    "file",
    "page",
    "record",
    "table",
    "bucket",
    "object",
    "invoice",
    "customer",
    "alert",
    "incident",
    "dashboard",
    "event",
    "message",
    "channel",
    "user",
    "team",
    "secret",
    "pod",
    "deployment",
    "workspace",
    "document",
    "comment",
    "label",
    "milestone",
    "release",
    "schedule",
];
const WORDS: &[&str] = &[
    "the",
    "a",
    "selected",
    "current",
    "workspace",
    "project",
    "remote",
    "given",
    "matching",
    "latest",
    "all",
    "optional",
    "filter",
    "results",
    "returns",
    "identifier",
    "when",
    "provided",
    "otherwise",
    "default",
    "owner",
    "repository",
    "permissions",
    "paginated",
    "cursor",
    "limit",
    "sorted",
    "by",
    "date",
    "status",
    "field",
    "value",
];

fn sentence(rng: &mut Rng, min: usize, max: usize) -> String {
    let n = min + rng.below(max - min + 1);
    let mut words: Vec<&str> = (0..n).map(|_| rng.pick(WORDS)).collect();
    let first = words[0];
    let cap = first[..1].to_uppercase() + &first[1..];
    words[0] = "";
    let rest = words[1..].join(" ");
    format!("{cap} {rest}.")
}

fn description(rng: &mut Rng, verb: &str, noun: &str, server: &str) -> String {
    let mut d = format!(
        "{} a {} in {server}.",
        verb[..1].to_uppercase() + &verb[1..],
        noun.replace('_', " ")
    );
    for _ in 0..1 + rng.below(4) {
        d.push(' ');
        d.push_str(&sentence(rng, 6, 16));
    }
    d
}

fn property(rng: &mut Rng, depth: usize) -> Value {
    let desc = sentence(rng, 4, 12);
    match rng.below(if depth >= 3 { 4 } else { 6 }) {
        0 => json!({"type": "string", "description": desc}),
        1 => {
            let options: Vec<&str> = (0..2 + rng.below(4)).map(|_| rng.pick(NOUNS)).collect();
            let mut options: Vec<String> = options.into_iter().map(String::from).collect();
            options.dedup();
            json!({"type": "string", "enum": options, "description": desc})
        }
        2 => {
            json!({"type": "integer", "minimum": 0, "maximum": 100 * (1 + rng.below(100)), "description": desc})
        }
        3 => json!({"type": "boolean", "description": desc, "default": rng.chance(50)}),
        4 => {
            json!({"type": "array", "items": object_schema(rng, depth + 1, 3), "description": desc})
        }
        _ => object_schema(rng, depth + 1, 4),
    }
}

fn object_schema(rng: &mut Rng, depth: usize, max_props: usize) -> Value {
    let n = 1 + rng.below(max_props);
    let mut props = Map::new();
    let mut required = Vec::new();
    for k in 0..n {
        let name = format!("{}_{k}", rng.pick(NOUNS));
        if rng.chance(40) {
            required.push(Value::String(name.clone()));
        }
        props.insert(name, property(rng, depth));
    }
    let mut schema = json!({"type": "object", "properties": props});
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    schema
}

/// A registry document of exactly `total` tools (at least the embedded registry's 17).
pub fn registry_document(total: usize, seed: u64) -> Value {
    let mut rng = Rng::new(seed);
    let embedded: Value = tool_intent::Registry::embedded().to_value();
    let mut doc = embedded.clone();
    let tools = doc["tools"].as_array_mut().expect("tools");
    let builtin = tools.len();
    let mut servers: Vec<String> = Vec::new();
    let mut used = std::collections::BTreeSet::new();
    while tools.len() < total {
        let server = format!("{}{}", rng.pick(SERVERS), servers.len() / SERVERS.len());
        let count = 5 + rng.below(40);
        for _ in 0..count {
            if tools.len() >= total {
                break;
            }
            let (verb, noun) = (rng.pick(VERBS), rng.pick(NOUNS));
            let mut name = format!("mcp__{server}__{verb}_{noun}");
            let mut k = 2;
            while used.contains(&name) {
                name = format!("mcp__{server}__{verb}_{noun}_{k}");
                k += 1;
            }
            used.insert(name.clone());
            tools.push(json!({
                "name": name,
                "description": description(&mut rng, verb, noun, &server),
                "inputSchema": object_schema(&mut rng, 1, 6),
                "annotations": {"readOnlyHint": verb == "get" || verb == "list" || verb == "search"},
            }));
        }
        servers.push(server);
    }
    tools.truncate(total.max(builtin));
    doc["toolsets"]["full"]
        .as_array_mut()
        .expect("full")
        .push(json!("mcp__*"));
    doc["toolsets"]["research"]
        .as_array_mut()
        .expect("research")
        .push(json!("mcp__*__get_*"));
    doc["default_tools"]
        .as_array_mut()
        .expect("defaults")
        .push(json!("mcp__*"));
    doc["deferred_default_tools"]
        .as_array_mut()
        .expect("deferred")
        .push(json!("mcp__*"));
    doc
}

/// 20 words, as a model writes a tool_search query from a user's request (the search
/// benchmarks' query; benches/js/search-bench.mjs holds the same text).
pub const SEARCH_20_WORDS: &str = "find the open github issues assigned to me about the failing deploy pipeline and add a comment with the logs";

/// The override every benchmark previews: a preset, the overlay, a glob disable.
pub const BENCH_OVERRIDE: &str =
    r#"{"toolset":"full","web_search":true,"disabled":["mcp__github0__*","memory"]}"#;

/// Tools a session loaded earlier (promoted at the turn boundary).
pub fn bench_loaded(doc: &Value) -> Vec<String> {
    doc["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t["name"].as_str())
                .filter(|n| n.starts_with("mcp__") && !n.starts_with("mcp__github0__"))
                .take(3)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// The search benchmarks' setup (benches/hybrid.rs, benches/model.rs): the generated document
/// of `total` tools, its registry, the request that turns every tool on (`{"toolset":"full"}`)
/// and how many tools that request defers (at least 1,000, or this panics: the benchmarks'
/// figures are stated for 1,000 deferred tools).
pub fn search_bench(
    total: usize,
) -> (
    Value,
    tool_intent::Registry,
    tool_intent::TurnRequest,
    usize,
) {
    let doc = registry_document(total, 42);
    let registry = tool_intent::Registry::from_json_str(&doc.to_string()).unwrap();
    let o = tool_intent::ToolsOverride::from_json_str(r#"{"toolset":"full"}"#).unwrap();
    let deferred = tool_intent::turn::expand::expand(&registry, &o, Default::default())
        .unwrap()
        .deferred()
        .count();
    assert!(deferred >= 1_000, "{deferred} deferred tools");
    let request = tool_intent::TurnRequest {
        tools_override: o,
        ..Default::default()
    };
    (doc, registry, request, deferred)
}
