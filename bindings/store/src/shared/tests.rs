//! The turn rules of [`super::SharedRegistry`] across processes, on the memory store.

use super::*;
use crate::MemoryStore;
use tool_intent::ToolsOverride;

/// A server process joining `store`, which starts from the embedded registry when empty.
fn process(store: &MemoryStore) -> SharedRegistry {
    SharedRegistry::open(Box::new(store.clone()), &Registry::embedded()).unwrap()
}

fn github() -> &'static str {
    include_str!("../../../../tests/data/mcp/github.json")
}

/// `process` publishes the GitHub server's tools: the change most tests make.
fn add_github(process: &mut SharedRegistry) -> VersionRow {
    process
        .change(|r| Ok(r.set_mcp_server("github", github())?.registry))
        .unwrap()
}

fn request(state: &TurnState) -> TurnRequest {
    TurnRequest {
        tools_override: ToolsOverride::Follow,
        state: state.clone(),
        ..Default::default()
    }
}

/// What a request of the turn sends about tools: the array and the catalog, as a digest
/// (a failing comparison prints 71 characters, not the payload).
fn payload(shared: &mut SharedRegistry, state: &TurnState) -> String {
    let plan = shared.turn(&request(state)).unwrap().plan().unwrap();
    tool_intent::fingerprint(format!("{}\n{}", plan.payload, plan.catalog_text).as_bytes())
}

#[test]
fn a_turn_keeps_its_bytes_on_a_process_that_never_held_its_version() {
    let store = MemoryStore::new();
    let mut a = process(&store);
    let state = a.begin_turn(&TurnState::default()).unwrap();
    let first = payload(&mut a, &state);
    // Process A publishes a change mid-turn; B starts after it.
    add_github(&mut a);
    let mut b = process(&store);
    assert_eq!(b.sequence(), 2);
    assert!(!b.current().holds(state.registry.as_deref().unwrap()));
    // The turn's later requests, on either process: the bytes of its first request.
    assert_eq!(payload(&mut b, &state), first);
    assert_eq!(payload(&mut a, &state), first);
    // The next turn moves forward on both.
    let next = b.begin_turn(&state).unwrap();
    assert_ne!(payload(&mut b, &next), first);
    assert_eq!(payload(&mut a, &next), payload(&mut b, &next));
}

#[test]
fn a_session_never_goes_back_to_an_older_version() {
    let store = MemoryStore::new();
    let mut a = process(&store);
    let mut b = process(&store);
    add_github(&mut a);
    let on_a = a.begin_turn(&TurnState::default()).unwrap();
    // B learns of the new version at its next boundary.
    let on_b = b.begin_turn(&on_a).unwrap();
    assert_eq!(on_b.registry, on_a.registry);
    assert_eq!(b.sequence(), 2);
}

#[test]
fn concurrent_changes_are_both_kept_in_one_order() {
    let store = MemoryStore::new();
    let mut a = process(&store);
    let mut b = process(&store);
    add_github(&mut a);
    // B has not followed: its change is made again on top of A's.
    let memory = include_str!("../../../../tests/data/mcp/memory.json");
    let row = b
        .change(|r| Ok(r.set_mcp_server("memory", memory)?.registry))
        .unwrap();
    assert_eq!(row.sequence, 3);
    let names: Vec<&str> = b
        .current()
        .tools()
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert!(names.iter().any(|n| n.starts_with("mcp__github__")));
    assert!(names.iter().any(|n| n.starts_with("mcp__memory__")));
    assert_eq!(a.follow().unwrap(), Followed::Adopted(row));
}

#[test]
fn an_unknown_or_removed_stamp_is_an_error_naming_it() {
    let store = MemoryStore::new();
    let mut a = process(&store);
    let mut state = a.begin_turn(&TurnState::default()).unwrap();
    state.registry = Some(format!("sha256:{}", "0".repeat(64)));
    let e = a.turn(&request(&state)).err().unwrap();
    assert_eq!(e.code(), "unknown_version");
    assert!(e.to_string().contains(&"0".repeat(64)), "{e}");
    let e = a.begin_turn(&state).unwrap_err();
    assert_eq!(e.code(), "unknown_version");
    // Removed by gc: mid-turn an error; at a boundary the session moves forward.
    let old = a.begin_turn(&TurnState::default()).unwrap();
    add_github(&mut a);
    let report = crate::gc_to_newest(a.store(), &[]);
    assert_eq!(report.removed.len(), 1);
    let mut b = process(&store);
    let e = b.turn(&request(&old)).err().unwrap();
    assert_eq!(e.code(), "unknown_version");
    assert!(e.to_string().contains("removed by gc"), "{e}");
    let moved = b.begin_turn(&old).unwrap();
    assert_eq!(moved.registry.as_deref(), Some(b.current().fingerprint()));
}

#[test]
fn a_planned_turn_marks_its_version_and_gc_keeps_what_it_plans_beside() {
    let store = MemoryStore::new();
    let mut a = process(&store);
    let servers = ["github", "memory", "fetch", "time"];
    for server in &servers[..2] {
        let text = std::fs::read_to_string(format!("../../tests/data/mcp/{server}.json")).unwrap();
        a.change(|r| Ok(r.set_mcp_server(server, &text)?.registry))
            .unwrap();
    }
    // A turn begins on version 3 and plans: the store learns it is used.
    let state = a.begin_turn(&TurnState::default()).unwrap();
    let stamp = state.registry.clone().unwrap();
    let before = std::time::SystemTime::now();
    payload(&mut a, &state);
    let rows = a.store().versions().unwrap();
    let used = rows
        .iter()
        .find(|r| r.fingerprint == stamp)
        .unwrap()
        .used_ms;
    assert!(used.is_some_and(|ms| ms + 1
        >= before
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64));
    assert!(rows
        .iter()
        .filter(|r| r.fingerprint != stamp)
        .all(|r| r.used_ms.is_none()));
    for server in &servers[2..] {
        let text = std::fs::read_to_string(format!("../../tests/data/mcp/{server}.json")).unwrap();
        a.change(|r| Ok(r.set_mcp_server(server, &text)?.registry))
            .unwrap();
    }
    let fingerprints: Vec<String> = a
        .store()
        .versions()
        .unwrap()
        .into_iter()
        .map(|r| r.fingerprint)
        .collect();
    let holds = |r: &Registry| {
        fingerprints
            .iter()
            .map(|f| r.holds(f))
            .collect::<Vec<bool>>()
    };
    let held_before = holds(&a.registry_for(&stamp).unwrap());
    // Keep only the newest, but the turn's version is live: it stays, and so do the two
    // versions it plans beside; only version 4 goes.
    let report = crate::gc_to_newest(a.store(), &[&stamp]);
    assert_eq!(report.removed, [fingerprints[3].clone()]);
    // A process that first plans the turn after the gc plans it beside the same versions.
    let mut b = process(&store);
    assert_eq!(holds(&b.registry_for(&stamp).unwrap()), held_before);
    assert_eq!(held_before, [true, true, true, false, false]);
}
