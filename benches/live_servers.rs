//! Live MCP servers: merging 1,000 servers of 3 tools into the embedded registry in one
//! `set_mcp_servers` call, and replacing one server's list in a registry of 10,000 tools
//! (`set_mcp_server`, what a `notifications/tools/list_changed` costs). Also the first
//! `plan_turn` after a replacement and the registry fingerprint a turn boundary computes once
//! per version. `scripts/bench.sh` runs it; criterion prints the figures.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;
use tool_intent::{Registry, TurnRequest};

/// One server's `tools/list` result: three tools with small real-looking schemas.
fn server_list(k: usize, version: usize) -> String {
    let tools: Vec<_> = ["search", "get_item", "update_item"]
        .iter()
        .map(|name| {
            json!({
                "name": name,
                "description": format!("{name} in the records of service {k} (v{version})"),
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "description": "record id"},
                        "limit": {"type": "integer", "minimum": 1}
                    },
                    "required": ["id"]
                }
            })
        })
        .collect();
    json!({ "tools": tools }).to_string()
}

fn servers(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|k| (format!("svc{k}"), server_list(k, 0)))
        .collect()
}

fn pairs(lists: &[(String, String)]) -> Vec<(&str, &str)> {
    lists
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect()
}

fn live_servers(c: &mut Criterion) {
    let base = Registry::embedded();
    let thousand = servers(1_000);
    let mut g = c.benchmark_group("live_servers");
    g.measurement_time(Duration::from_secs(4)).sample_size(20);
    g.bench_function("set_mcp_servers/1000x3", |b| {
        b.iter(|| black_box(base.set_mcp_servers(&pairs(&thousand)).unwrap()))
    });
    // 3,327 servers of 3 tools and the embedded tools: 9,999 tools (the limit is 10,000).
    let big_lists = servers(3_327);
    let big = base.set_mcp_servers(&pairs(&big_lists)).unwrap().registry;
    assert!(big.len() >= 9_990, "{}", big.len());
    let replacement = server_list(1_700, 1);
    g.bench_function("set_mcp_server/replace_one_in_10000", |b| {
        b.iter(|| black_box(big.set_mcp_server("svc1700", &replacement).unwrap()))
    });
    let request = TurnRequest::default();
    g.bench_function("replace_one_in_10000_then_plan_turn", |b| {
        b.iter(|| {
            let r = big
                .set_mcp_server("svc1700", &replacement)
                .unwrap()
                .registry;
            black_box(r.plan_turn(&request).unwrap().fingerprint);
        })
    });
    g.bench_function("fingerprint/10000_tools", |b| {
        b.iter(|| {
            // A clone shares the memo; a replacement is a new version with its own.
            let r = big
                .set_mcp_server("svc1700", &replacement)
                .unwrap()
                .registry;
            black_box(r.fingerprint().len());
        })
    });
    g.finish();
}

criterion_group!(benches, live_servers);
criterion_main!(benches);
