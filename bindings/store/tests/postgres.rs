//! The PostgreSQL store against a real server: a throwaway cluster (`initdb`, as the CLI's
//! migration tests start one), two connections standing for two processes.

#![cfg(feature = "postgres")]

#[path = "../../cli/tests/common/postgres.rs"]
mod cluster;

use tool_intent::{Registry, TurnState};
use tool_intent_store::{
    split, Expect, Followed, PostgresStore, Publication, Retention, SharedRegistry, VersionStore,
};

fn github() -> &'static str {
    include_str!("../../../tests/data/mcp/github.json")
}

#[test]
fn a_publication_reaches_the_other_process_by_notification() {
    let url = cluster::fresh_database("store_notify");
    let mut a = PostgresStore::connect(&url).unwrap();
    let mut b = PostgresStore::connect(&url).unwrap();
    assert!(!b.changed().unwrap(), "nothing published yet");
    let base = Registry::embedded();
    let next = base.set_mcp_server("github", github()).unwrap().registry;
    a.publish(&split(&base), Expect::Newest(None)).unwrap();
    a.publish(&split(&next), Expect::Newest(Some(1))).unwrap();
    // The notification arrives asynchronously: wait for it, a little.
    let mut seen = false;
    for _ in 0..100 {
        if b.changed().unwrap() {
            seen = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(seen, "no notification in 2 s");
    let back = b.load(next.fingerprint()).unwrap().unwrap();
    assert_eq!(back.fingerprint(), next.fingerprint());
    assert_eq!(b.newest().unwrap().unwrap().sequence, 2);
    // A change made from version 1 conflicts.
    let p = b.publish(&split(&base), Expect::Newest(Some(1))).unwrap();
    assert!(matches!(p, Publication::Conflict { newest: Some(ref n) } if n.sequence == 2));
    // Tools stored once: the base's tools are a subset of the next version's.
    let rows = b.versions().unwrap();
    assert_eq!(rows.len(), 2);
}

#[test]
fn shared_registries_over_postgres_keep_a_turn_and_move_forward() {
    let url = cluster::fresh_database("store_shared");
    let mut a = SharedRegistry::open(
        Box::new(PostgresStore::connect(&url).unwrap()),
        &Registry::embedded(),
    )
    .unwrap();
    let mut b = SharedRegistry::open(
        Box::new(PostgresStore::connect(&url).unwrap()),
        &Registry::embedded(),
    )
    .unwrap();
    let state = a.begin_turn(&TurnState::default()).unwrap();
    let request = |state: &TurnState| tool_intent::TurnRequest {
        state: state.clone(),
        ..Default::default()
    };
    let first = a
        .turn(&request(&state))
        .unwrap()
        .plan()
        .unwrap()
        .fingerprint;
    a.change(|r| Ok(r.set_mcp_server("github", github())?.registry))
        .unwrap();
    assert_eq!(
        b.turn(&request(&state))
            .unwrap()
            .plan()
            .unwrap()
            .fingerprint,
        first
    );
    let mut adopted = false;
    for _ in 0..100 {
        if let Followed::Adopted(row) = b.follow().unwrap() {
            assert_eq!(row.sequence, 2);
            adopted = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(adopted);
    let next = b.begin_turn(&state).unwrap();
    assert_eq!(next.registry.as_deref(), Some(a.current().fingerprint()));
    // gc: the first version goes; a turn still on it is refused by name, not replanned.
    let report = b
        .store()
        .gc(
            &Retention {
                keep_newest: 1,
                keep_for_ms: 0,
            },
            tool_intent_store::now_ms() + 1,
            &[],
        )
        .unwrap();
    assert_eq!(report.removed, [state.registry.clone().unwrap()]);
    let mut c = SharedRegistry::open(
        Box::new(PostgresStore::connect(&url).unwrap()),
        &Registry::embedded(),
    )
    .unwrap();
    let e = c.turn(&request(&state)).err().unwrap();
    assert_eq!(e.code(), "unknown_version");
}

#[test]
fn a_store_from_a_newer_release_is_refused() {
    let url = cluster::fresh_database("store_schema");
    drop(PostgresStore::connect(&url).unwrap());
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client
        .batch_execute("UPDATE tool_intent_store_meta SET value = '2' WHERE key = 'schema'")
        .unwrap();
    let e = PostgresStore::connect(&url).err().unwrap();
    assert_eq!(e.code(), "store_schema_newer");
    let e = PostgresStore::connect("postgresql://postgres@localhost/none?host=/nonexistent&port=1")
        .err()
        .unwrap();
    assert_eq!(e.code(), "store_unavailable");
}

/// What comes back is checked on PostgreSQL too: an edited row is refused by every reader
/// (publish, newest, versions, gc), and a schema mark no release writes is corrupt.
#[test]
fn an_edited_row_or_schema_mark_is_corrupt() {
    let url = cluster::fresh_database("store_edited");
    let base = Registry::embedded();
    let mut store = PostgresStore::connect(&url).unwrap();
    store.publish(&split(&base), Expect::Anything).unwrap();
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client
        .batch_execute("UPDATE tool_intent_documents SET tools = -3")
        .unwrap();
    let results = [
        store.newest().map(|_| ()),
        store.versions().map(|_| ()),
        store.publish(&split(&base), Expect::Anything).map(|_| ()),
        store
            .gc(&Retention::default(), tool_intent_store::now_ms(), &[])
            .map(|_| ()),
    ];
    for r in results {
        let e = r.unwrap_err();
        assert_eq!(e.code(), "corrupt_version", "{e}");
        assert!(
            e.to_string().contains("postgres store's version row 1"),
            "{e}"
        );
    }
    client
        .batch_execute("UPDATE tool_intent_store_meta SET value = '-1' WHERE key = 'schema'")
        .unwrap();
    let e = PostgresStore::connect(&url).err().unwrap();
    assert_eq!(e.code(), "corrupt_version", "{e}");
}

#[test]
fn a_store_and_its_listener_connect_again_when_the_server_drops_them() {
    let url = cluster::fresh_database("store_reconnect");
    let mut a = PostgresStore::connect(&url).unwrap();
    let mut b = PostgresStore::connect(&url).unwrap();
    let base = Registry::embedded();
    a.publish(&split(&base), Expect::Newest(None)).unwrap();
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let listeners = |admin: &mut postgres::Client| -> Vec<i32> {
        admin
            .query(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() \
                 AND application_name = 'tool-intent-listener' ORDER BY pid",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    };
    let before = listeners(&mut admin);
    assert_eq!(before.len(), 2);
    // The server drops every other connection to the database, as a restart or a failover does.
    let dropped: i64 = admin
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(dropped >= 4, "{dropped} connections dropped");
    // The next call meets the dead connection and runs again on a new one.
    assert_eq!(b.newest().unwrap().unwrap().sequence, 1);
    // Both listeners connect again (new backends), and once one listens a boundary is no
    // longer told to ask the store (until then it is).
    let waited = std::time::Instant::now();
    let wait = |what: &str| {
        assert!(
            waited.elapsed() < std::time::Duration::from_secs(10),
            "{what} in 10 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    loop {
        let now = listeners(&mut admin);
        if now.len() == 2 && now.iter().all(|pid| !before.contains(pid)) {
            break;
        }
        wait("the listeners did not connect again");
    }
    while b.changed().unwrap() {
        wait("the listener did not listen again");
    }
    // Listening again: a publication (from a store whose own connection was dropped too) is
    // heard.
    let next = base.set_mcp_server("github", github()).unwrap().registry;
    a.publish(&split(&next), Expect::Newest(Some(1))).unwrap();
    let mut heard = false;
    for _ in 0..100 {
        if b.changed().unwrap() {
            heard = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(heard, "no notification in 2 s after listening again");
}
