//! One server process of the fleet test (`examples/fleet/`, `scripts/fleet.sh`): an agent
//! server's tool planning, reduced to its calls. It joins a registry version store and answers
//! requests on a Unix socket, one JSON object a line:
//!
//! - `{"op":"begin","state":S}` → `{"state":S2,"sequence":n,"micros":t}`: a turn boundary
//!   (`SharedRegistry::begin_turn`).
//! - `{"op":"plan","state":S,"toolChanges":"array"|"messages"}` → `{"tools":d,"catalog":d,
//!   "changes":d,"state":S3|null,"registry":fp,"micros":t,"heldMicros":t}`: one request of a
//!   turn; `d` are SHA-256 digests of the bytes sent, `micros` the plan through the store,
//!   `heldMicros` the same plan on the same registry already in hand (the in-memory cost).
//! - any failure → `{"error":code,"message":m}`.
//!
//! Usage: `fleet_server --store SPEC --socket PATH`.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{json, Value};
use tool_intent::{fingerprint, Registry, TurnRequest, TurnState};
use tool_intent_store::{open, SharedRegistry};

fn arg(name: &str) -> String {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
        .unwrap_or_else(|| {
            eprintln!("fleet_server: {name} is required (--store SPEC --socket PATH)");
            std::process::exit(2)
        })
}

/// Which of the two timed plans goes first, flipped at each request.
static ALTERNATE: AtomicBool = AtomicBool::new(false);

fn answer(shared: &Mutex<SharedRegistry>, line: &str) -> tool_intent::Result<Value> {
    let request: Value = tool_intent::json::parse("request", line)?;
    let state = match request.get("state") {
        None | Some(Value::Null) => TurnState::default(),
        Some(v) => TurnState::from_value(v)?,
    };
    let mut shared = shared
        .lock()
        .map_err(|_| tool_intent::Error::internal("a request thread panicked"))?;
    match request.get("op").and_then(Value::as_str) {
        Some("begin") => {
            let started = Instant::now();
            let next = shared.begin_turn(&state)?;
            let micros = started.elapsed().as_secs_f64() * 1e6;
            Ok(json!({"state": next, "sequence": shared.sequence(), "micros": micros}))
        }
        Some("plan") => {
            let tool_changes = request
                .get("toolChanges")
                .and_then(Value::as_str)
                .unwrap_or("array");
            let turn_request = TurnRequest {
                state,
                tool_changes: tool_intent::provider::ToolChanges::parse(tool_changes)?,
                ..Default::default()
            };
            // The plan through the store (`SharedRegistry::turn`: the stamp's registry looked
            // up, read back from the store the first time) and the same plan on that registry
            // already in hand (what planning costs with no store), in alternating order so
            // neither gains from the other warming the caches.
            let held_registry = match turn_request.state.registry.as_deref() {
                Some(stamp) => shared.registry_for(stamp)?,
                None => shared.current().clone(),
            };
            let through_store =
                |shared: &mut SharedRegistry| -> tool_intent::Result<(f64, tool_intent::TurnPlan)> {
                    let started = Instant::now();
                    let plan = shared.turn(&turn_request)?.plan()?;
                    Ok((started.elapsed().as_secs_f64() * 1e6, plan))
                };
            let in_hand = || -> tool_intent::Result<f64> {
                let started = Instant::now();
                held_registry.turn(&turn_request)?.plan()?;
                Ok(started.elapsed().as_secs_f64() * 1e6)
            };
            let ((micros, plan), held_micros) = if ALTERNATE.fetch_xor(true, Ordering::Relaxed) {
                let held = in_hand()?;
                (through_store(&mut shared)?, held)
            } else {
                let through = through_store(&mut shared)?;
                (through, in_hand()?)
            };
            Ok(json!({
                "tools": fingerprint(plan.payload.as_bytes()),
                "catalog": fingerprint(plan.catalog_text.as_bytes()),
                "changes": fingerprint(plan.changes.as_bytes()),
                "state": plan.state,
                "registry": turn_request.state.registry,
                "micros": micros,
                "heldMicros": held_micros,
            }))
        }
        _ => Err(tool_intent::Error::argument("op", "expected begin or plan")),
    }
}

fn serve(shared: Arc<Mutex<SharedRegistry>>, stream: UnixStream) {
    let Ok(read) = stream.try_clone() else {
        return;
    };
    let mut out = stream;
    for line in BufReader::new(read).lines() {
        let Ok(line) = line else { return };
        let reply = match answer(&shared, &line) {
            Ok(v) => v,
            Err(e) => json!({"error": e.code(), "message": e.to_string()}),
        };
        if writeln!(out, "{reply}").is_err() {
            return;
        }
    }
}

fn main() {
    let (spec, socket) = (arg("--store"), arg("--socket"));
    let store = open(&spec).unwrap_or_else(|e| {
        eprintln!("fleet_server: {e}");
        std::process::exit(1)
    });
    let shared = SharedRegistry::open(store, &Registry::embedded()).unwrap_or_else(|e| {
        eprintln!("fleet_server: {e}");
        std::process::exit(1)
    });
    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket).unwrap_or_else(|e| {
        eprintln!("fleet_server: cannot listen on {socket}: {e}");
        std::process::exit(1)
    });
    let shared = Arc::new(Mutex::new(shared));
    for stream in listener.incoming().flatten() {
        let shared = shared.clone();
        std::thread::spawn(move || serve(shared, stream));
    }
}
