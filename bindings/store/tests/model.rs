//! The model ranker's tool embeddings shared through the store: a new process's first model
//! `tool_search` embeds no tool another process with the same weights embedded, and ranks as
//! that process did; a version the process publishes itself keeps its ranker. Needs
//! all-MiniLM-L6-v2's weights (`TOOL_INTENT_MODEL`, or what `scripts/setup.sh`'s `setup_model`
//! downloads into `target/retrieval/minilm/model`); without them the test fails, never skips.

#![cfg(feature = "model")]

use tool_intent::search::RankerKind;
use tool_intent::{Registry, SearchCall, TurnRequest, TurnState};
use tool_intent_store::{SharedRegistry, SqliteStore};

fn weights() -> Vec<u8> {
    let path = std::env::var("TOOL_INTENT_MODEL").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../target/retrieval/minilm/model/model.safetensors"
        )
        .to_string()
    });
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!("{path}: {e}; `source scripts/setup.sh && setup_model` downloads it")
    })
}

fn search(shared: &mut SharedRegistry, state: &TurnState, query: &str) -> Vec<String> {
    let request = TurnRequest {
        state: state.clone(),
        ..Default::default()
    };
    let mut turn = shared.turn(&request).unwrap();
    let ranker = RankerKind::Model.ranker_for(turn.version()).unwrap();
    let call = SearchCall::new(query).with_ranker(ranker.as_ranker());
    turn.search(&call).unwrap().result.hits
}

fn cached(shared: &SharedRegistry) -> usize {
    shared.current().model().expect("a model").cached_tools()
}

#[test]
fn a_new_process_reads_the_embeddings_another_one_computed() {
    let path = std::env::temp_dir().join(format!(
        "tool-intent-store-model-{}.sqlite",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let memory = include_str!("../../../tests/data/mcp/memory.json");
    let initial = Registry::embedded()
        .set_mcp_server("memory", memory)
        .unwrap()
        .registry;
    let weights = weights();

    let mut a =
        SharedRegistry::open(Box::new(SqliteStore::open(&path).unwrap()), &initial).unwrap();
    assert_eq!(a.with_model(&weights).unwrap().loaded, 0);
    let state = a.begin_turn(&TurnState::default()).unwrap();
    let hits = search(&mut a, &state, "remember that the user prefers dark mode");
    let embedded = cached(&a);
    assert!(embedded >= 5, "{embedded} tools embedded");
    // The next boundary shares them.
    a.begin_turn(&state).unwrap();

    let mut b =
        SharedRegistry::open(Box::new(SqliteStore::open(&path).unwrap()), &initial).unwrap();
    let read = b.with_model(&weights).unwrap();
    assert_eq!((read.loaded, read.refused), (embedded, 0));
    assert_eq!(cached(&b), embedded);
    // B's first model search embeds nothing new, and ranks as A did.
    assert_eq!(
        search(&mut b, &state, "remember that the user prefers dark mode"),
        hits
    );
    assert_eq!(cached(&b), embedded);
    // A shared at its boundary, and has nothing more to send; B read all it has.
    assert_eq!(a.share_embeddings().unwrap(), 0);
    assert_eq!(b.share_embeddings().unwrap(), 0);

    // A server joins; B's search embeds its tools, and B sends those alone, once (it sent
    // every embedding it held, the ones it had read back included, each time it had a new one).
    let github = include_str!("../../../tests/data/mcp/github.json");
    b.change(|newest| Ok(newest.set_mcp_server("github", github)?.registry))
        .unwrap();
    let state = b.begin_turn(&state).unwrap();
    search(&mut b, &state, "open an issue about the dark mode setting");
    let added = cached(&b) - embedded;
    assert!(added > 0, "the new server's tools were embedded");
    assert_eq!(b.share_embeddings().unwrap(), added);
    assert_eq!(b.share_embeddings().unwrap(), 0);
}

/// `with_model` gives every version the ranker: a version this process publishes itself (a
/// deploy's registry, or a change's result built without the model) too, not only those it
/// reads back from the store.
#[test]
fn a_version_this_process_publishes_keeps_its_model_ranker() {
    let mut shared = SharedRegistry::open(
        Box::new(tool_intent_store::MemoryStore::new()),
        &Registry::embedded(),
    )
    .unwrap();
    shared.with_model(&weights()).unwrap();
    let memory = include_str!("../../../tests/data/mcp/memory.json");

    let deploy = Registry::embedded()
        .set_mcp_server("memory", memory)
        .unwrap()
        .registry;
    assert!(deploy.model().is_none());
    let published = shared.publish(&deploy).unwrap();
    assert_eq!(shared.sequence(), published.sequence);
    assert!(shared.current().model().is_some(), "a deploy's version");

    // A change that builds its registry afresh, without the model.
    let changed = shared
        .change(|_| {
            Ok(Registry::embedded()
                .set_mcp_server("notes", memory)
                .unwrap()
                .registry)
        })
        .unwrap();
    assert_eq!(shared.sequence(), changed.sequence);
    assert!(shared.current().model().is_some(), "a change's version");

    // And a turn on it searches with the model.
    let state = shared.begin_turn(&TurnState::default()).unwrap();
    let hits = search(
        &mut shared,
        &state,
        "remember that the user prefers dark mode",
    );
    assert!(!hits.is_empty());
    assert!(cached(&shared) > 0);
}

/// Rows another process left damaged are refused, and the ranker keeps none of them: a row
/// one byte longer than 384 `f32`s, one 383 long, one not of length 1, one holding a NaN. A
/// good row beside them is read.
#[test]
fn damaged_embedding_rows_are_refused_and_not_kept() {
    use tool_intent_store::VersionStore;
    let weights = weights();
    let good: Vec<f32> = (0..384).map(|i| if i == 0 { 1.0 } else { 0.0 }).collect();
    let bytes = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|f| f.to_le_bytes()).collect() };
    let mut one_byte_more = bytes(&good);
    one_byte_more.push(0);
    let mut nan = good.clone();
    nan[1] = f32::NAN;
    let rows = vec![
        ("one byte more".to_string(), one_byte_more),
        ("383 values".to_string(), bytes(&good[..383])),
        (
            "length 2".to_string(),
            bytes(&good.iter().map(|v| v * 2.0).collect::<Vec<_>>()),
        ),
        ("a NaN".to_string(), bytes(&nan)),
        ("good".to_string(), bytes(&good)),
    ];
    let mut store = tool_intent_store::MemoryStore::new();
    store
        .add_embeddings(&tool_intent::fingerprint(&weights), &rows)
        .unwrap();
    let mut shared = SharedRegistry::open(Box::new(store), &Registry::embedded()).unwrap();
    let read = shared.with_model(&weights).unwrap();
    assert_eq!((read.loaded, read.refused), (1, 4));
    let kept: Vec<String> = shared
        .current()
        .model()
        .expect("a model")
        .embeddings()
        .into_iter()
        .map(|(text, _)| text)
        .collect();
    assert_eq!(kept, ["good"]);
}
