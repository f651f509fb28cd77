//! What only the PostgreSQL store does, against a real server (a throwaway cluster, `initdb`,
//! as the CLI's migration tests start one): connecting again when the server drops its
//! connections, and an unreachable server. The contract every store keeps runs on PostgreSQL
//! too, in `tests/stores.rs`.

#![cfg(feature = "postgres")]

#[path = "../../cli/tests/common/postgres.rs"]
mod cluster;

use tool_intent::Registry;
use tool_intent_store::{split, Expect, PostgresStore, VersionStore};

fn github() -> &'static str {
    include_str!("../../../tests/data/mcp/github.json")
}

/// A server that cannot be reached is `store_unavailable`, not a panic or an empty store.
#[test]
fn an_unreachable_server_is_store_unavailable() {
    let e = PostgresStore::connect("postgresql://postgres@localhost/none?host=/nonexistent&port=1")
        .err()
        .unwrap();
    assert_eq!(e.code(), "store_unavailable");
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
