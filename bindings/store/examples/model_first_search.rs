//! What a new process's first model `tool_search` costs, with and without the tool embeddings
//! other processes shared through the store (`SharedRegistry::with_model`): a registry of the
//! embedded tools and nine MCP servers' (`tests/data/mcp`) in a SQLite store; prints the
//! figures and writes them under `modelFirstSearch` in `--out` (default
//! `bench-results/fleet.json`). Needs all-MiniLM-L6-v2's weights (`TOOL_INTENT_MODEL`, or
//! `target/retrieval/minilm/model/model.safetensors`: `scripts/setup.sh`'s `setup_model`).
//!
//! Usage: `model_first_search [--out FILE]`.

use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;
use tool_intent::search::RankerKind;
use tool_intent::{Registry, SearchCall, TurnRequest, TurnState};
use tool_intent_store::{SharedRegistry, SqliteStore};

#[path = "support/results.rs"]
mod results;

fn search_ms(shared: &mut SharedRegistry, state: &TurnState, query: &str) -> f64 {
    let request = TurnRequest {
        state: state.clone(),
        ..Default::default()
    };
    let started = Instant::now();
    let mut turn = shared.turn(&request).expect("a turn");
    let ranker = RankerKind::Model
        .ranker_for(turn.version())
        .expect("the model ranker");
    turn.search(&SearchCall::new(query).with_ranker(ranker.as_ranker()))
        .expect("a search");
    started.elapsed().as_secs_f64() * 1e3
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .map_or(PathBuf::from("bench-results/fleet.json"), PathBuf::from);
    let weights_path = std::env::var("TOOL_INTENT_MODEL").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../target/retrieval/minilm/model/model.safetensors"
        )
        .to_string()
    });
    let weights = std::fs::read(&weights_path).unwrap_or_else(|e| {
        panic!("{weights_path}: {e}; `source scripts/setup.sh && setup_model` downloads it")
    });
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/mcp/");
    let mut registry = Registry::embedded();
    let servers = [
        "everything",
        "fetch",
        "filesystem",
        "git",
        "github",
        "memory",
        "playwright",
        "seqthink",
        "time",
    ];
    for name in servers {
        let list = std::fs::read_to_string(format!("{data}{name}.json")).expect("a fixture");
        registry = registry
            .set_mcp_server(name, &list)
            .expect("it loads")
            .registry;
    }
    let path = std::env::temp_dir().join(format!(
        "tool-intent-model-first-{}.sqlite",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let open = || {
        SharedRegistry::open(
            Box::new(SqliteStore::open(&path).expect("the store")),
            &registry,
        )
        .expect("joins")
    };

    // A process whose store has no embeddings: its first search embeds every candidate.
    let mut first = open();
    first.with_model(&weights).expect("the model");
    let state = first.begin_turn(&TurnState::default()).expect("a boundary");
    let cold = search_ms(
        &mut first,
        &state,
        "create an issue about the failing build",
    );
    let warm = search_ms(&mut first, &state, "read the contents of a web page");
    first
        .begin_turn(&state)
        .expect("a boundary, which shares the embeddings");
    // A new process, its model given the shared embeddings.
    let mut second = open();
    let started = Instant::now();
    let read = second.with_model(&weights).expect("the model");
    let load_ms = started.elapsed().as_secs_f64() * 1e3;
    let shared_first = search_ms(
        &mut second,
        &state,
        "create an issue about the failing build",
    );
    let _ = std::fs::remove_file(&path);
    let report = json!({
        "tools": registry.len(),
        "embeddingsShared": read.loaded,
        "firstSearchMs": {"withoutSharedEmbeddings": cold, "withSharedEmbeddings": shared_first, "warm": warm},
        "withModelMs": load_ms,
    });
    if let Err(e) = results::record(&out, "modelFirstSearch", &report) {
        eprintln!("model_first_search: cannot write {}: {e}", out.display());
        std::process::exit(1);
    }
}
