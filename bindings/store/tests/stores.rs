//! The version stores' contract, held on every database the crate stores in: each test runs on
//! a SQLite file and, with the `postgres` feature, on a PostgreSQL database of a throwaway
//! cluster (as the CLI's migration tests start one), so a rule checked on one is checked on
//! the other. Two connections stand for two processes; SQL run beside the store stands for a
//! hand editing rows or a backup restored in part. What stays per database: SQLite's size
//! figure (`src/sqlite/tests.rs`), PostgreSQL's notifications and reconnection
//! (`tests/postgres.rs`).

#![cfg(feature = "sqlite")]

#[cfg(feature = "postgres")]
#[path = "../../cli/tests/common/postgres.rs"]
mod cluster;

use std::path::PathBuf;

use tool_intent::{Registry, TurnRequest, TurnState};
use tool_intent_store::{
    split, Expect, Followed, Publication, Retention, SharedRegistry, SqliteStore, VersionStore,
};

/// One database the stores keep their versions in, and a hand beside them.
trait Database {
    /// What the failures name.
    fn name(&self) -> &'static str;
    /// A store on a connection of its own (another process).
    fn connect(&self) -> tool_intent::Result<Box<dyn VersionStore>>;
    /// Runs `sql` beside the store, as an operator or a restored backup would.
    fn execute(&self, sql: &str);
    /// The rows of `table`.
    fn count(&self, table: &str) -> i64;
    /// SQL for the one-character string of code point `code`.
    fn char_sql(&self, code: u32) -> String;
    /// Whether a new connection's first `changed()` already says "nothing new" when nothing
    /// was published (PostgreSQL listens from the start; SQLite's `data_version` needs a
    /// first read to compare with, so its first answer is "cannot tell": true).
    fn first_check_tells(&self) -> bool;
}

struct Sqlite(PathBuf);

impl Database for Sqlite {
    fn name(&self) -> &'static str {
        "sqlite"
    }
    fn connect(&self) -> tool_intent::Result<Box<dyn VersionStore>> {
        Ok(Box::new(SqliteStore::open(&self.0)?))
    }
    fn execute(&self, sql: &str) {
        let db = rusqlite::Connection::open(&self.0).unwrap();
        db.execute_batch(sql).unwrap();
    }
    fn count(&self, table: &str) -> i64 {
        let db = rusqlite::Connection::open(&self.0).unwrap();
        db.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    }
    fn char_sql(&self, code: u32) -> String {
        format!("char({code})")
    }
    fn first_check_tells(&self) -> bool {
        false
    }
}

#[cfg(feature = "postgres")]
struct Postgres(String);

#[cfg(feature = "postgres")]
impl Database for Postgres {
    fn name(&self) -> &'static str {
        "postgres"
    }
    fn connect(&self) -> tool_intent::Result<Box<dyn VersionStore>> {
        Ok(Box::new(tool_intent_store::PostgresStore::connect(
            &self.0,
        )?))
    }
    fn execute(&self, sql: &str) {
        let mut client = postgres::Client::connect(&self.0, postgres::NoTls).unwrap();
        client.batch_execute(sql).unwrap();
    }
    fn count(&self, table: &str) -> i64 {
        let mut client = postgres::Client::connect(&self.0, postgres::NoTls).unwrap();
        client
            .query_one(&format!("SELECT count(*) FROM {table}"), &[])
            .unwrap()
            .get(0)
    }
    fn char_sql(&self, code: u32) -> String {
        format!("chr({code})")
    }
    fn first_check_tells(&self) -> bool {
        true
    }
}

/// A fresh, empty database of each kind, named for the test (`case`).
fn databases(case: &str) -> Vec<Box<dyn Database>> {
    let path = std::env::temp_dir().join(format!(
        "tool-intent-stores-{}-{case}.sqlite",
        std::process::id()
    ));
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
    }
    #[allow(unused_mut)]
    let mut all: Vec<Box<dyn Database>> = vec![Box::new(Sqlite(path))];
    #[cfg(feature = "postgres")]
    all.push(Box::new(Postgres(cluster::fresh_database(&format!(
        "stores_{case}"
    )))));
    all
}

/// Retention that keeps the newest version alone (and what turns use), nothing for its age.
const NEWEST_ONLY: Retention = Retention {
    keep_newest: 1,
    keep_for_ms: 0,
};

fn github() -> &'static str {
    include_str!("../../../tests/data/mcp/github.json")
}

/// Waits up to 2 s for `store` to notice a publication (PostgreSQL's notification arrives
/// asynchronously; SQLite's `data_version` at once).
fn noticed(store: &mut dyn VersionStore) -> bool {
    for _ in 0..100 {
        if store.changed().unwrap() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    false
}

#[test]
fn versions_share_tools_and_another_connection_rebuilds_them() {
    for db in databases("share") {
        let name = db.name();
        let mut store = db.connect().unwrap();
        let mut other = db.connect().unwrap();
        let first = other.changed().unwrap();
        if db.first_check_tells() {
            assert!(!first, "{name}: nothing published yet");
        }
        assert!(!other.changed().unwrap(), "{name}: nothing published yet");
        let base = Registry::embedded();
        let next = base.set_mcp_server("github", github()).unwrap().registry;
        for r in [&base, &next, &base] {
            store.publish(&split(r), Expect::Anything).unwrap();
        }
        let rows = store.versions().unwrap();
        let sequences: Vec<u64> = rows.iter().map(|r| r.sequence).collect();
        assert_eq!(sequences, [1, 2, 3], "{name}");
        let tools = db.count("tool_intent_tools") as usize;
        assert_eq!(tools, split(&next).tools.len(), "{name}: each tool once");
        assert!(
            noticed(other.as_mut()),
            "{name}: the publication went unnoticed"
        );
        let back = other.load(next.fingerprint()).unwrap().unwrap();
        assert_eq!(back.fingerprint(), next.fingerprint(), "{name}");
        assert_eq!(other.find(base.fingerprint()).unwrap().unwrap().sequence, 3);
        assert_eq!(other.newest().unwrap().unwrap().sequence, 3, "{name}");
    }
}

#[test]
fn a_conflicting_change_an_edited_tool_and_a_newer_schema_are_refused() {
    for db in databases("faults") {
        let name = db.name();
        let mut store = db.connect().unwrap();
        let base = Registry::embedded();
        store.publish(&split(&base), Expect::Newest(None)).unwrap();
        // A change made from an empty store, after another process published.
        let next = base.set_mcp_server("github", github()).unwrap().registry;
        let p = store.publish(&split(&next), Expect::Newest(None)).unwrap();
        assert!(
            matches!(p, Publication::Conflict { newest: Some(ref n) } if n.sequence == 1),
            "{name}: {p:?}"
        );
        db.execute("UPDATE tool_intent_tools SET body = replace(body, 'Read', 'Rread')");
        let e = store.load(base.fingerprint()).unwrap_err();
        assert_eq!(e.code(), "corrupt_version", "{name}: {e}");
        db.execute("UPDATE tool_intent_store_meta SET value = '99' WHERE key = 'schema'");
        let e = db.connect().err().unwrap();
        assert_eq!(e.code(), "store_schema_newer", "{name}: {e}");
        assert!(e.to_string().contains("99"), "{name}: {e}");
    }
}

/// A version row whose registry the store lost (a table restored in part, a row edited): a
/// process joining the store says the store is corrupt, not that some turn state named an
/// unknown version.
#[test]
fn a_listed_version_without_its_registry_is_corrupt() {
    for db in databases("listed") {
        let name = db.name();
        let base = Registry::embedded();
        db.connect()
            .unwrap()
            .publish(&split(&base), Expect::Newest(None))
            .unwrap();
        // A well-formed fingerprint of no registry the store holds.
        let absent = format!("sha256:{}", "0".repeat(64));
        db.execute(&format!(
            "UPDATE tool_intent_versions SET fingerprint = '{absent}'"
        ));
        let e = SharedRegistry::open(db.connect().unwrap(), &base)
            .err()
            .unwrap();
        assert_eq!(e.code(), "corrupt_version", "{name}: {e}");
        let said = format!("lists version 1 as {absent}");
        assert!(e.to_string().contains(&said), "{name}: {e}");
    }
}

/// Rows and a schema mark edited by hand are refused by every reader of the store (publish,
/// newest, find, versions, gc), naming the row and without echoing a control character.
#[test]
fn an_edited_row_or_schema_mark_is_corrupt() {
    for (n, edit) in [
        "UPDATE tool_intent_versions SET seq = 9223372036854775807",
        "UPDATE tool_intent_versions SET seq = -2",
        "UPDATE tool_intent_versions SET fingerprint = {esc} || '[2J'",
        "UPDATE tool_intent_versions SET published_ms = -5",
        "UPDATE tool_intent_documents SET tools = -3",
    ]
    .into_iter()
    .enumerate()
    {
        for db in databases(&format!("edited_{n}")) {
            let name = db.name();
            let base = Registry::embedded();
            let mut store = db.connect().unwrap();
            store.publish(&split(&base), Expect::Newest(None)).unwrap();
            db.execute(&edit.replace("{esc}", &db.char_sql(27)));
            let fp = base.fingerprint();
            let results = [
                ("newest", store.newest().map(|_| ())),
                ("find", store.find(fp).map(|_| ())),
                ("versions", store.versions().map(|_| ())),
                (
                    "publish",
                    store.publish(&split(&base), Expect::Anything).map(|_| ()),
                ),
                (
                    "gc",
                    store
                        .gc(&Retention::default(), tool_intent_store::now_ms(), &[])
                        .map(|_| ()),
                ),
            ];
            for (call, r) in results {
                // `find` by the old fingerprint finds nothing once the fingerprint is edited.
                if edit.contains("{esc}") && call == "find" && r.is_ok() {
                    continue;
                }
                let e = r
                    .err()
                    .unwrap_or_else(|| panic!("{name}: {edit}: {call} took it"));
                assert_eq!(e.code(), "corrupt_version", "{name}: {edit}: {call}: {e}");
                // The row is named by its store and, where the edit left it, its sequence.
                let row = match edit.contains("SET seq") {
                    true => format!("{name} store's version row "),
                    false => format!("{name} store's version row 1 "),
                };
                assert!(e.to_string().contains(&row), "{name}: {edit}: {e}");
                assert!(!e.to_string().contains('\u{1b}'), "{name}: {edit}: {e}");
            }
        }
    }
    for db in databases("schema_mark") {
        drop(db.connect().unwrap());
        db.execute("UPDATE tool_intent_store_meta SET value = 'abc' WHERE key = 'schema'");
        let e = db.connect().err().unwrap();
        assert_eq!(e.code(), "corrupt_version", "{}: {e}", db.name());
    }
}

#[test]
fn gc_keeps_what_retention_says_and_drops_unshared_tools() {
    for db in databases("gc") {
        let name = db.name();
        let mut shared =
            SharedRegistry::open(db.connect().unwrap(), &Registry::embedded()).unwrap();
        shared
            .change(|r| Ok(r.set_mcp_server("github", github())?.registry))
            .unwrap();
        shared
            .change(|r| Ok(r.remove_mcp_server("github")?.registry))
            .unwrap();
        let tools_before = db.count("tool_intent_tools");
        let report = shared
            .store()
            .gc(&NEWEST_ONLY, tool_intent_store::now_ms() + 1, &[])
            .unwrap();
        // Versions 1 and 3 are the same registry, kept by the newest row; 2 goes, and with it
        // the github tools.
        assert_eq!(report.removed.len(), 1, "{name}: {report:?}");
        assert!(report.tools_removed >= 20, "{name}: {report:?}");
        let tools_after = db.count("tool_intent_tools");
        assert_eq!(
            tools_before - tools_after,
            report.tools_removed as i64,
            "{name}"
        );
        let rows = shared.store().versions().unwrap();
        let removed: Vec<u64> = rows
            .iter()
            .filter(|r| r.removed)
            .map(|r| r.sequence)
            .collect();
        assert_eq!(removed, [2], "{name}");
    }
}

/// Two processes: a turn keeps the version it began on while another process publishes; the
/// next turn boundary moves it forward; a version gc removed is refused by name.
#[test]
fn shared_registries_keep_a_turn_and_move_forward() {
    for db in databases("shared") {
        let name = db.name();
        let open = || SharedRegistry::open(db.connect().unwrap(), &Registry::embedded()).unwrap();
        let (mut a, mut b) = (open(), open());
        let state = a.begin_turn(&TurnState::default()).unwrap();
        let request = |state: &TurnState| TurnRequest {
            state: state.clone(),
            ..Default::default()
        };
        let planned = |r: &mut SharedRegistry| {
            let turn = r.turn(&request(&state)).unwrap();
            turn.plan().unwrap().fingerprint
        };
        let first = planned(&mut a);
        a.change(|r| Ok(r.set_mcp_server("github", github())?.registry))
            .unwrap();
        let again = planned(&mut b);
        assert_eq!(again, first, "{name}: the turn's tools changed mid-turn");
        let mut adopted = None;
        for _ in 0..100 {
            if let Followed::Adopted(row) = b.follow().unwrap() {
                adopted = Some(row.sequence);
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(adopted, Some(2), "{name}");
        let next = b.begin_turn(&state).unwrap();
        assert_eq!(
            next.registry.as_deref(),
            Some(a.current().fingerprint()),
            "{name}"
        );
        let report = b
            .store()
            .gc(&NEWEST_ONLY, tool_intent_store::now_ms() + 1, &[])
            .unwrap();
        assert_eq!(report.removed, [state.registry.clone().unwrap()], "{name}");
        let e = open().turn(&request(&state)).err().unwrap();
        assert_eq!(e.code(), "unknown_version", "{name}: {e}");
    }
}
