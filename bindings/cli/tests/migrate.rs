//! Legacy snapshot migration on real databases built in the test: SQLite files, and a
//! throwaway PostgreSQL cluster (`common/postgres.rs`) — the same rows, the same results.

#![cfg(not(target_arch = "wasm32"))]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use rusqlite::{params, Connection};
use serde_json::{json, Value};
use tool_intent::turn::expand::{expand, ExpandContext};
use tool_intent::{Registry, SessionRunConfig};
use tool_intent_migrate::{self as migrate, AuditOptions, Database, MigrateOptions};

#[path = "common/postgres.rs"]
mod pg;

const V1: [&str; 10] = [
    "read_file",
    "write_file",
    "edit_file",
    "shell",
    "grep",
    "glob",
    "tool_search",
    "playwright_browser",
    "enter_plan_mode",
    "exit_plan_mode",
];
const V2: [&str; 11] = [
    "read_file",
    "write_file",
    "edit_file",
    "shell",
    "grep",
    "glob",
    "list_sessions",
    "tool_search",
    "playwright_browser",
    "enter_plan_mode",
    "exit_plan_mode",
];
const RESEARCH_V1: [&str; 5] = ["read_file", "grep", "glob", "web_search", "browser"];

/// One generated row: the stored values and what the migration must leave there.
#[derive(Clone, Debug)]
struct Generated {
    tools_enabled: Option<i64>,
    tools_override: Option<String>,
    expected: Option<String>,
    kind: &'static str,
}

fn scramble(names: &[&str], seed: usize, web: bool, dup: bool) -> String {
    let mut v: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    if web {
        v.push("web_search".into());
    }
    let n = v.len();
    v.rotate_left(seed % n);
    if seed.is_multiple_of(2) {
        v.reverse();
    }
    if dup {
        let first = v[0].clone();
        v.push(first);
    }
    serde_json::to_string(&v).unwrap()
}

fn generate(count: usize) -> Vec<Generated> {
    (0..count)
        .map(|i| {
            let row =
                |e: Option<i64>, o: Option<String>, expected: Option<String>, kind| Generated {
                    tools_enabled: e,
                    tools_override: o,
                    expected,
                    kind,
                };
            match i % 16 {
                0 => row(
                    Some(1),
                    Some(r#"{"enabled":true,"disabled":["shell"]}"#.into()),
                    Some(r#"{"enabled":true,"disabled":["shell"]}"#.into()),
                    "intent",
                ),
                1 => row(Some(1), None, None, "true"),
                2 => row(Some(0), None, None, "false"),
                3 => {
                    let picks = [
                        "[\"web_search\"]",
                        "[\"read_file\", \"grep\"]",
                        "[\"grep\",\"glob\",\"read_file\",\"memory\"]",
                        "[]",
                    ];
                    let p = picks[(i / 16) % picks.len()].to_string();
                    row(Some(1), Some(p.clone()), Some(p), "hand-pick")
                }
                4 | 5 => {
                    let o = scramble(&V1, i, false, i % 3 == 0);
                    row(
                        Some(1),
                        Some(o),
                        Some(r#"{"enabled":true}"#.into()),
                        "snapshot",
                    )
                }
                6 | 7 => {
                    let o = scramble(&V1, i, true, false);
                    row(
                        Some(1),
                        Some(o),
                        Some(r#"{"enabled":true,"web_search":true}"#.into()),
                        "snapshot",
                    )
                }
                8 | 9 => {
                    let o = scramble(&V2, i, false, false);
                    row(
                        Some(1),
                        Some(o),
                        Some(r#"{"enabled":true}"#.into()),
                        "snapshot",
                    )
                }
                10 | 11 => {
                    let o = scramble(&V2, i, true, i % 5 == 0);
                    row(
                        Some(1),
                        Some(o),
                        Some(r#"{"enabled":true,"web_search":true}"#.into()),
                        "snapshot",
                    )
                }
                12 => {
                    let o = scramble(&RESEARCH_V1, i, false, false);
                    row(
                        Some(1),
                        Some(o),
                        Some(r#"{"toolset":"research"}"#.into()),
                        "snapshot",
                    )
                }
                13 => {
                    let bad = [
                        "[\"read_file\"",
                        "{",
                        "not json",
                        "42",
                        "{\"enabled\":\"yes\"}",
                    ];
                    let b = bad[(i / 16) % bad.len()].to_string();
                    row(Some(1), Some(b.clone()), Some(b), "malformed")
                }
                14 => row(None, None, None, "null"),
                _ => {
                    // A list one tool short of a known expansion is a real hand-pick.
                    let o = serde_json::to_string(&V2[..10]).unwrap();
                    row(Some(1), Some(o.clone()), Some(o), "hand-pick")
                }
            }
        })
        .collect()
}

fn temp_db(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("tool-intent-migrate-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("sessions.db")
}

/// Each `test(tag)` runs as two tests, `test::on_sqlite` and `test::on_postgres`, each on a
/// table of its own named by `tag` (a module and a function may share a name).
macro_rules! on_both_databases {
    ($($test:ident($tag:literal);)*) => {$(
        mod $test {
            #[test]
            fn on_sqlite() {
                super::$test(super::Backend::sqlite($tag));
            }

            #[test]
            fn on_postgres() {
                super::$test(super::Backend::postgres($tag));
            }
        }
    )*};
}

on_both_databases! {
    cli_dry_run_undo_and_audit("cli");
    killed_batched_run_resumes("resume");
    a_progress_error_stops_the_run("stopped");
    concurrent_writer_loses_nothing("writer");
    undo_keeps_later_writes("undo_later");
    undo_alongside_a_writer("undo_writer");
    extreme_keys("extreme");
}

type Dump = Vec<(i64, Option<i64>, Option<String>)>;

/// A session table in one of the two databases.
enum Backend {
    Sqlite(PathBuf),
    Postgres(String),
}

/// A SQLite backend's scratch directory goes with it (the child processes of the abort and
/// kill tests get the file's path, not the backend, so they never remove it).
impl Drop for Backend {
    fn drop(&mut self) {
        if let Backend::Sqlite(path) = self {
            if let Some(dir) = path.parent() {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }
}

impl Backend {
    fn sqlite(name: &str) -> Backend {
        Backend::Sqlite(temp_db(name))
    }

    fn postgres(name: &str) -> Backend {
        Backend::Postgres(pg::fresh_database(name))
    }

    fn database(&self) -> Database {
        Database::parse(&self.spec()).unwrap()
    }

    /// What `--db` takes.
    fn spec(&self) -> String {
        match self {
            Backend::Sqlite(p) => p.to_string_lossy().into_owned(),
            Backend::Postgres(url) => url.clone(),
        }
    }

    fn pg(&self) -> postgres::Client {
        match self {
            Backend::Postgres(url) => postgres::Client::connect(url, postgres::NoTls).unwrap(),
            Backend::Sqlite(_) => unreachable!(),
        }
    }

    /// The old schema: no web_search / toolset columns yet.
    fn build(&self, rows: &[Generated]) {
        match self {
            Backend::Sqlite(path) => {
                let mut conn = Connection::open(path).unwrap();
                conn.execute_batch("CREATE TABLE sessions (id INTEGER PRIMARY KEY, title TEXT, tools_enabled INTEGER, tools_override TEXT)").unwrap();
                let tx = conn.transaction().unwrap();
                for (i, r) in rows.iter().enumerate() {
                    tx.execute("INSERT INTO sessions (id, title, tools_enabled, tools_override) VALUES (?1, ?2, ?3, ?4)", params![i as i64 + 1, format!("session {i}"), r.tools_enabled, r.tools_override]).unwrap();
                }
                tx.commit().unwrap();
            }
            Backend::Postgres(_) => {
                let mut c = self.pg();
                c.batch_execute("CREATE TABLE sessions (id bigint PRIMARY KEY, title text, tools_enabled integer, tools_override text)").unwrap();
                let mut tx = c.transaction().unwrap();
                let insert = tx.prepare("INSERT INTO sessions (id, title, tools_enabled, tools_override) VALUES ($1, $2, $3::bigint, $4)").unwrap();
                for (i, r) in rows.iter().enumerate() {
                    tx.execute(
                        &insert,
                        &[
                            &(i as i64 + 1),
                            &format!("session {i}"),
                            &r.tools_enabled,
                            &r.tools_override,
                        ],
                    )
                    .unwrap();
                }
                tx.commit().unwrap();
            }
        }
    }

    fn dump(&self) -> Dump {
        match self {
            Backend::Sqlite(path) => {
                let conn = Connection::open(path).unwrap();
                let mut stmt = conn
                    .prepare("SELECT id, tools_enabled, tools_override FROM sessions ORDER BY id")
                    .unwrap();
                stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .unwrap()
                    .map(|r| r.unwrap())
                    .collect()
            }
            Backend::Postgres(_) => self
                .pg()
                .query(
                    "SELECT id, tools_enabled::bigint, tools_override FROM sessions ORDER BY id",
                    &[],
                )
                .unwrap()
                .iter()
                .map(|r| (r.get(0), r.get(1), r.get(2)))
                .collect(),
        }
    }

    fn column_names(&self) -> Vec<String> {
        match self {
            Backend::Sqlite(path) => {
                let conn = Connection::open(path).unwrap();
                let mut stmt = conn.prepare("PRAGMA table_info(sessions)").unwrap();
                stmt.query_map([], |r| r.get::<_, String>(1))
                    .unwrap()
                    .map(|r| r.unwrap())
                    .collect()
            }
            Backend::Postgres(_) => self
                .pg()
                .query("SELECT column_name::text FROM information_schema.columns WHERE table_name = 'sessions' ORDER BY ordinal_position", &[])
                .unwrap()
                .iter()
                .map(|r| r.get(0))
                .collect(),
        }
    }

    /// Runs statements from another connection (the application).
    fn exec(&self, sql: &str) {
        match self {
            Backend::Sqlite(path) => Connection::open(path).unwrap().execute_batch(sql).unwrap(),
            Backend::Postgres(_) => self.pg().batch_execute(sql).unwrap(),
        }
    }

    /// Sets one row's tools_override from another connection (a server writing).
    fn write(&self, id: i64, value: &str) {
        match self {
            Backend::Sqlite(path) => {
                let conn = Connection::open(path).unwrap();
                conn.busy_timeout(std::time::Duration::from_secs(30))
                    .unwrap();
                conn.execute(
                    "UPDATE sessions SET tools_override = ?1 WHERE id = ?2",
                    params![value, id],
                )
                .unwrap();
            }
            Backend::Postgres(_) => {
                self.pg()
                    .execute(
                        "UPDATE sessions SET tools_override = $1 WHERE id = $2",
                        &[&value, &id],
                    )
                    .unwrap();
            }
        }
    }
}

fn registry_with_new_default_tool() -> Registry {
    let mut doc = Registry::embedded().to_value();
    let o = doc.as_object_mut().unwrap();
    o["tools"].as_array_mut().unwrap().push(
        json!({"name": "summarize_diff", "description": "new", "parameters": {"type": "object"}}),
    );
    o["default_tools"]
        .as_array_mut()
        .unwrap()
        .push(json!("summarize_diff"));
    o["toolsets"]["full"]
        .as_array_mut()
        .unwrap()
        .push(json!("summarize_diff"));
    o["toolsets"]["research"]
        .as_array_mut()
        .unwrap()
        .push(json!("summarize_diff"));
    Registry::from_value(&doc).unwrap()
}

fn options<'p>() -> MigrateOptions<'p> {
    MigrateOptions::default()
}

#[test]
fn ten_thousand_mixed_rows_migrate_to_exactly_the_expected_rows_in_one_sqlite_transaction() {
    ten_thousand_rows(Backend::sqlite("main"), None);
}

#[test]
fn ten_thousand_mixed_rows_migrate_the_same_in_sqlite_batches() {
    ten_thousand_rows(Backend::sqlite("batched"), Some(700));
}

#[test]
fn ten_thousand_mixed_rows_migrate_the_same_on_postgres() {
    ten_thousand_rows(Backend::postgres("ten_thousand"), None);
}

fn ten_thousand_rows(backend: Backend, batch_size: Option<usize>) {
    let rows = generate(10_000);
    backend.build(&rows);
    let original = backend.dump();
    let registry = Registry::embedded();
    let db = backend.database();
    let options = || MigrateOptions {
        batch_size,
        ..options()
    };

    // Dry run: same report, nothing changed.
    let dry = migrate::migrate(
        &db,
        &registry,
        MigrateOptions {
            dry_run: true,
            ..options()
        },
    )
    .unwrap();
    assert_eq!(backend.dump(), original);
    assert_eq!(
        backend.column_names(),
        ["id", "title", "tools_enabled", "tools_override"]
    );

    let mut calls = 0;
    let mut count = |done, total| {
        calls += 1;
        assert!(done <= total && total == 10_000);
        Ok(())
    };
    let report = migrate::migrate(
        &db,
        &registry,
        MigrateOptions {
            progress: Some(&mut count),
            ..options()
        },
    )
    .unwrap();
    assert!(calls >= 100, "progress reported {calls} times");
    assert_eq!(report.rows_read, 10_000);
    assert_eq!(report.columns_added, ["web_search", "toolset"]);
    let expected_snapshots = rows.iter().filter(|r| r.kind == "snapshot").count() as u64;
    assert_eq!(report.snapshots_total(), expected_snapshots);
    assert_eq!(
        report.hand_picks_kept,
        rows.iter().filter(|r| r.kind == "hand-pick").count() as u64
    );
    let malformed: Vec<i64> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.kind == "malformed")
        .map(|(i, _)| i as i64 + 1)
        .collect();
    assert_eq!(
        report
            .unreadable_rows
            .iter()
            .map(|u| u.rowid)
            .collect::<Vec<_>>(),
        malformed
    );
    assert_eq!(
        report.snapshots_rewritten.get("default_tools@2025-03"),
        Some(&1250)
    );
    assert_eq!(
        report
            .snapshots_rewritten
            .get("default_tools@2025-03+web_search"),
        Some(&1250)
    );
    assert_eq!(
        report.snapshots_rewritten.get("default_tools@2025-09"),
        Some(&1250)
    );
    assert_eq!(
        report
            .snapshots_rewritten
            .get("default_tools@2025-09+web_search"),
        Some(&1250)
    );
    assert_eq!(
        report.snapshots_rewritten.get("toolset:research@2025-03"),
        Some(&625)
    );
    // The dry run said exactly this.
    assert_eq!(
        (
            dry.snapshots_rewritten.clone(),
            dry.hand_picks_kept,
            dry.unreadable_rows.clone()
        ),
        (
            report.snapshots_rewritten.clone(),
            report.hand_picks_kept,
            report.unreadable_rows.clone()
        )
    );
    assert!(report.to_text().contains("snapshots rewritten"));
    assert!(report.rows_changed_concurrently.is_empty());
    match (&backend, batch_size) {
        (Backend::Sqlite(_), None) => assert_eq!(report.batches, 1),
        (Backend::Postgres(_), None) => assert_eq!(report.batches, 10), // 1,000 rows a batch
        (_, Some(n)) => assert_eq!(report.batches, 10_000u64.div_ceil(n as u64)),
    }

    // Exactly the expected rows; hand-picks and malformed rows byte-identical.
    let after = backend.dump();
    for ((id, enabled, value), r) in after.iter().zip(&rows) {
        assert_eq!(value, &r.expected, "row {id} ({})", r.kind);
        assert_eq!(enabled, &r.tools_enabled, "row {id}");
    }

    // Every former snapshot session now sees a tool added to default_tools later.
    let newer = registry_with_new_default_tool();
    for ((id, enabled, value), r) in after.iter().zip(&rows) {
        if r.kind != "snapshot" {
            continue;
        }
        let row = SessionRunConfig::from_value(
            &json!({"tools_enabled": enabled.map(|e| e == 1), "tools_override": value}),
        )
        .unwrap();
        let o = row.to_override();
        let e = expand(&newer, &o, ExpandContext::default()).unwrap();
        assert!(
            e.names(e.tools()).contains(&"summarize_diff".to_string()),
            "row {id} does not see the new tool: {o:?}"
        );
    }

    // Idempotent: a second run changes nothing.
    let second = migrate::migrate(&db, &registry, options()).unwrap();
    assert_eq!(second.snapshots_total(), 0);
    assert!(second.columns_added.is_empty());
    assert_eq!(backend.dump(), after);

    // Audit finds nothing now; it finds every snapshot on the original.
    assert!(migrate::audit(&db, &registry, &AuditOptions::default())
        .unwrap()
        .is_empty());

    // Undo restores the original bytes of every row.
    let undone = migrate::undo(&db, options()).unwrap();
    assert_eq!(undone.rows_restored, expected_snapshots);
    assert_eq!(backend.dump(), original);
    assert_eq!(
        migrate::audit(&db, &registry, &AuditOptions::default())
            .unwrap()
            .len() as u64,
        expected_snapshots
    );
    assert_eq!(
        migrate::undo(&db, options()).unwrap_err().code(),
        "database"
    );
}

/// A WITHOUT ROWID table is named as such, not with the SQL that failed on it.
#[test]
fn a_without_rowid_table_is_refused_with_the_reason() {
    let backend = Backend::sqlite("without-rowid");
    let path = PathBuf::from(backend.spec());
    Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE sessions (id TEXT PRIMARY KEY, tools_enabled INTEGER, tools_override TEXT) WITHOUT ROWID")
        .unwrap();
    let db = Database::from(path.as_path());
    let e = migrate::migrate(&db, &Registry::embedded(), options()).unwrap_err();
    assert_eq!(e.code(), "database");
    assert!(e.to_string().contains("WITHOUT ROWID"), "{e}");
    assert!(!e.to_string().contains("no such column"), "{e}");
    let e = migrate::audit(&db, &Registry::embedded(), &AuditOptions::default()).unwrap_err();
    assert!(e.to_string().contains("WITHOUT ROWID"), "{e}");
}

#[test]
fn errors_name_the_problem() {
    let backend = Backend::sqlite("errors");
    let path = PathBuf::from(backend.spec());
    let db = Database::from(path.as_path());
    let r = Registry::embedded();
    assert!(migrate::migrate(&db, &r, options())
        .unwrap_err()
        .to_string()
        .contains("no database"));
    Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE other (x)")
        .unwrap();
    let e = migrate::migrate(&db, &r, options()).unwrap_err();
    assert!(e.to_string().contains("no table \"sessions\""), "{e}");
    let other = MigrateOptions {
        table: "other".into(),
        ..options()
    };
    let e = migrate::migrate(&db, &r, other).unwrap_err();
    assert!(e.to_string().contains("no tools_enabled column"), "{e}");
    let bad = MigrateOptions {
        table: "a;b".into(),
        ..options()
    };
    let e = migrate::migrate(&db, &r, bad).unwrap_err();
    assert_eq!(e.code(), "invalid_argument");
    let zero = MigrateOptions {
        batch_size: Some(0),
        ..options()
    };
    assert_eq!(
        migrate::migrate(&db, &r, zero).unwrap_err().code(),
        "invalid_argument"
    );
    // PostgreSQL: a table without a single integer primary key is refused, naming the rule.
    let pg = Backend::postgres("errors");
    pg.pg()
        .batch_execute("CREATE TABLE sessions (tools_enabled integer, tools_override text)")
        .unwrap();
    let e = migrate::migrate(&pg.database(), &r, options()).unwrap_err();
    assert!(e.to_string().contains("single integer primary key"), "{e}");
    let e = migrate::audit(
        &pg.database(),
        &r,
        &AuditOptions {
            table: "nope".into(),
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("no table \"nope\""), "{e}");
}

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tool-intent"))
}

/// A migration in a child process with a fault of the test's choosing, injected through the
/// progress callback: this test binary runs itself with only `migration_in_a_child_process`
/// selected, so no fault hook is compiled into the library or the CLI.
fn migration_child(db: &str, batch_size: Option<usize>, fault: Fault) -> Command {
    let mut child = Command::new(std::env::current_exe().unwrap());
    child
        .args([
            "--exact",
            "migration_in_a_child_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DB, db)
        .env(
            CHILD_BATCH,
            batch_size.map_or(String::new(), |n| n.to_string()),
        );
    match fault {
        Fault::AbortAfter(n) => child.env(CHILD_ABORT_AFTER, n.to_string()),
        Fault::RowDelayMs(ms) => child.env(CHILD_ROW_DELAY_MS, ms.to_string()),
    };
    child
}

#[derive(Clone, Copy)]
enum Fault {
    /// `abort()` once this many rows are processed, inside the run's transaction.
    AbortAfter(u64),
    /// Sleep this long per row processed, printing `done/total` to stderr, so the parent can
    /// kill the process mid-run.
    RowDelayMs(u64),
}

const CHILD_DB: &str = "TOOL_INTENT_TEST_CHILD_DB";
const CHILD_BATCH: &str = "TOOL_INTENT_TEST_CHILD_BATCH";
const CHILD_ABORT_AFTER: &str = "TOOL_INTENT_TEST_CHILD_ABORT_AFTER";
const CHILD_ROW_DELAY_MS: &str = "TOOL_INTENT_TEST_CHILD_ROW_DELAY_MS";

/// The child side of `migration_child`; does nothing when run as an ordinary test.
#[test]
fn migration_in_a_child_process() {
    let Ok(db) = std::env::var(CHILD_DB) else {
        return;
    };
    let number = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let (abort_after, delay) = (number(CHILD_ABORT_AFTER), number(CHILD_ROW_DELAY_MS));
    let mut last = 0;
    let mut faults = |done, total| {
        if abort_after.is_some_and(|n| done >= n && done < total) {
            std::process::abort();
        }
        if let Some(ms) = delay {
            std::thread::sleep(std::time::Duration::from_millis(ms * (done - last)));
            eprint!("\rmigrate: {done}/{total}");
        }
        last = done;
        Ok(())
    };
    let options = MigrateOptions {
        batch_size: number(CHILD_BATCH).map(|n| n as usize),
        progress: Some(&mut faults),
        ..options()
    };
    migrate::migrate(
        &Database::parse(&db).unwrap(),
        &Registry::embedded(),
        options,
    )
    .unwrap();
}

/// Either nothing changed (schema and rows) or everything did: never half.
fn assert_unchanged_or_fully_migrated(
    backend: &Backend,
    original: &Dump,
    rows: &[Generated],
) -> &'static str {
    let now = backend.dump();
    if &now == original {
        assert_eq!(
            backend.column_names(),
            ["id", "title", "tools_enabled", "tools_override"],
            "rows unchanged but schema changed"
        );
        "unchanged"
    } else {
        for ((id, _, value), r) in now.iter().zip(rows) {
            assert_eq!(value, &r.expected, "row {id}: half-migrated database");
        }
        "migrated"
    }
}

#[test]
fn aborted_migration_leaves_the_database_unchanged() {
    let rows = generate(10_000);
    let backend = Backend::sqlite("abort");
    backend.build(&rows);
    let path = temp_db_path(&backend);
    let original = backend.dump();
    let out = migration_child(path.to_str().unwrap(), None, Fault::AbortAfter(2000))
        .output()
        .unwrap();
    assert!(!out.status.success(), "the abort hook did not fire");
    assert_eq!(
        assert_unchanged_or_fully_migrated(&backend, &original, &rows),
        "unchanged"
    );
    // A normal run afterwards migrates everything.
    let out = cli()
        .args(["migrate", "--db", path.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["rowsRead"], 10_000);
    assert_eq!(
        assert_unchanged_or_fully_migrated(&backend, &original, &rows),
        "migrated"
    );
}

#[test]
fn killed_migration_is_all_or_nothing() {
    let rows = generate(3_000);
    let backend = Backend::sqlite("kill");
    backend.build(&rows);
    let path = temp_db_path(&backend);
    let original = backend.dump();
    let mut child = migration_child(path.to_str().unwrap(), None, Fault::RowDelayMs(2))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the migration is well under way (progress past 10%), then SIGKILL it.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = Vec::new();
    loop {
        let mut buf = Vec::new();
        let n = stderr.read_until(b'\r', &mut buf).unwrap();
        if n == 0 {
            break;
        }
        seen.extend_from_slice(&buf);
        let text = String::from_utf8_lossy(&buf);
        if let Some(done) = text
            .trim()
            .strip_prefix("migrate: ")
            .and_then(|t| t.split('/').next())
            .and_then(|d| d.parse::<u64>().ok())
        {
            if done >= 300 {
                break;
            }
        }
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(
        !status.success(),
        "migration finished before it was killed: {}",
        String::from_utf8_lossy(&seen)
    );
    assert_eq!(
        assert_unchanged_or_fully_migrated(&backend, &original, &rows),
        "unchanged"
    );
}

fn cli_dry_run_undo_and_audit(backend: Backend) {
    let rows = generate(320);
    backend.build(&rows);
    let original = backend.dump();
    let spec = backend.spec();
    let db = spec.as_str();
    let out = cli().args(["audit", "--db", db]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("row 5: snapshot of default_tools@2025-03 -> {\"enabled\":true}"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The last line says what to run next, without an elided flag to fill in.
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.contains("legacy snapshots; `tool-intent migrate` with the same flags rewrites them"),
        "{text}"
    );
    let out = cli()
        .args(["migrate", "--db", db, "--dry-run"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        text.starts_with("migrate (dry run, nothing changed): table sessions"),
        "{text}"
    );
    assert!(text.contains("unreadable"));
    assert_eq!(backend.dump(), original);
    assert!(cli()
        .args(["migrate", "--db", db])
        .status()
        .unwrap()
        .success());
    assert_ne!(backend.dump(), original);
    let out = cli().args(["audit", "--db", db]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("no row of sessions holds a legacy snapshot")
    );
    let out = cli()
        .args(["migrate", "--db", db, "--undo"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("undo: restored"));
    assert_eq!(backend.dump(), original);
    let out = cli()
        .args(["migrate", "--db", "/no/such.db"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

fn temp_db_path(backend: &Backend) -> PathBuf {
    match backend {
        Backend::Sqlite(p) => p.clone(),
        Backend::Postgres(_) => unreachable!(),
    }
}

/// A batched run killed part-way keeps its committed batches; a second run finishes the rest,
/// rewriting nothing twice; undo then restores the original bytes of every row.
fn killed_batched_run_resumes(backend: Backend) {
    let rows = generate(3_000);
    backend.build(&rows);
    let original = backend.dump();
    let spec = backend.spec();
    let out = migration_child(&spec, Some(100), Fault::AbortAfter(1550))
        .output()
        .unwrap();
    assert!(!out.status.success(), "the abort hook did not fire");
    // Batches 1..15 (rows 1..1500) were committed; the rest is as it was.
    let now = backend.dump();
    for ((id, _, value), (r, before)) in now.iter().zip(rows.iter().zip(&original)) {
        if *id <= 1500 {
            assert_eq!(value, &r.expected, "row {id} of a committed batch");
        } else {
            assert_eq!(value, &before.2, "row {id} after the abort");
        }
    }
    let out = cli()
        .args(["migrate", "--db", &spec, "--batch-size", "100", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let second: u64 = report["snapshotsRewritten"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    let late = rows[1500..].iter().filter(|r| r.kind == "snapshot").count() as u64;
    assert_eq!(second, late, "the resumed run rewrote only what was left");
    for ((id, _, value), r) in backend.dump().iter().zip(&rows) {
        assert_eq!(value, &r.expected, "row {id}");
    }
    let undone = migrate::undo(&backend.database(), options()).unwrap();
    assert_eq!(
        undone.rows_restored,
        rows.iter().filter(|r| r.kind == "snapshot").count() as u64
    );
    assert_eq!(backend.dump(), original);
}

/// The CLI shows a run's progress on a terminal (here `TOOL_INTENT_PROGRESS`): the rows of the
/// table for a migration, the backed-up rows for an undo, each to the last.
#[test]
fn the_cli_shows_progress_of_a_migration_and_of_its_undo() {
    let backend = Backend::sqlite("progress");
    let rows = generate(320);
    backend.build(&rows);
    let snapshots = rows.iter().filter(|r| r.kind == "snapshot").count();
    let spec = backend.spec();
    for (undo, last) in [
        (false, "migrate: 320/320 rows".to_string()),
        (true, format!("undo: {snapshots}/{snapshots} rows")),
    ] {
        let mut command = cli();
        command
            .args(["migrate", "--db", &spec])
            .env("TOOL_INTENT_PROGRESS", "1");
        if undo {
            command.arg("--undo");
        }
        let out = command.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(err.contains(&last), "{err}");
    }
}

/// An error from `progress` stops a run as a kill would, but in the process: the open
/// transaction rolls back, so a one-transaction run changes nothing and a batched run keeps
/// its committed batches; `migrate` returns the error it was given.
fn a_progress_error_stops_the_run(backend: Backend) {
    let rows = generate(3_000);
    backend.build(&rows);
    let original = backend.dump();
    let stop_at = |batch_size: Option<usize>| {
        let mut stop = |done, _| {
            if done >= 1550 {
                return Err(tool_intent::Error::argument(
                    "progress",
                    "stopped by the test",
                ));
            }
            Ok(())
        };
        let options = MigrateOptions {
            batch_size,
            progress: Some(&mut stop),
            ..options()
        };
        migrate::migrate(&backend.database(), &Registry::embedded(), options).unwrap_err()
    };
    if matches!(backend, Backend::Sqlite(_)) {
        let e = stop_at(None);
        assert!(
            matches!(
                e,
                tool_intent::Error::InvalidArgument {
                    argument: "progress",
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(
            backend.dump(),
            original,
            "a one-transaction run left changes"
        );
    }
    let e = stop_at(Some(100));
    assert!(e.to_string().contains("stopped by the test"), "{e}");
    // Batches 1..15 (rows 1..1500) were committed; the batch under way rolled back.
    for ((id, _, value), (r, before)) in backend.dump().iter().zip(rows.iter().zip(&original)) {
        let expected = if *id <= 1500 { &r.expected } else { &before.2 };
        assert_eq!(value, expected, "row {id}");
    }
    let report = migrate::migrate(&backend.database(), &Registry::embedded(), options()).unwrap();
    let late = rows[1500..].iter().filter(|r| r.kind == "snapshot").count() as u64;
    assert_eq!(
        report.snapshots_total(),
        late,
        "the next run rewrote only what was left"
    );
    // An undo stops the same way: in batches of 100 backed-up rows, stopped in the sixth, the
    // five before stay restored and the next undo restores the rest.
    let migrated = backend.dump();
    let snapshots = rows.iter().filter(|r| r.kind == "snapshot").count() as u64;
    let mut stop = |done, total| {
        assert_eq!(total, snapshots);
        if done > 550 {
            return Err(tool_intent::Error::argument(
                "progress",
                "stopped by the test",
            ));
        }
        Ok(())
    };
    let batched = MigrateOptions {
        batch_size: Some(100),
        progress: Some(&mut stop),
        ..options()
    };
    let e = migrate::undo(&backend.database(), batched).unwrap_err();
    assert!(e.to_string().contains("stopped by the test"), "{e}");
    let restored = backend
        .dump()
        .iter()
        .zip(&migrated)
        .filter(|(now, then)| now != then)
        .count();
    assert_eq!(restored, 500, "five batches of 100 restored");
    let rest = migrate::undo(&backend.database(), options()).unwrap();
    assert_eq!(rest.rows_restored, snapshots - 500);
    assert_eq!(backend.dump(), original);
}

/// A server writing `{"enabled":true,"disabled":["w<k>"]}` to rows 1..=`rows` (spread over the
/// table) from its own connection until `stop`, at least `at_least` times, raising `started`
/// after its tenth write. Returns its last value per row.
fn spawn_writer(
    backend: &Backend,
    rows: i64,
    at_least: i64,
    started: std::sync::Arc<std::sync::atomic::AtomicBool>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<std::collections::BTreeMap<i64, String>> {
    use std::sync::atomic::Ordering;
    let spec = backend.spec();
    std::thread::spawn(move || {
        // A second view of the test's backend: the test's own value removes the scratch
        // directory when the test ends, not this thread when it stops.
        let backend = std::mem::ManuallyDrop::new(match Database::parse(&spec).unwrap() {
            Database::Sqlite(p) => Backend::Sqlite(p),
            Database::Postgres(u) => Backend::Postgres(u),
        });
        let mut last = std::collections::BTreeMap::new();
        let mut k = 0i64;
        while !stop.load(Ordering::Relaxed) || k < at_least {
            let id = (k * 7919) % rows + 1;
            let value = format!("{{\"enabled\":true,\"disabled\":[\"w{k}\"]}}");
            backend.write(id, &value);
            last.insert(id, value);
            k += 1;
            if k == 10 {
                started.store(true, Ordering::Relaxed);
            }
        }
        last
    })
}

/// A server keeps writing while a batched run goes: every one of its writes survives.
fn concurrent_writer_loses_nothing(backend: Backend) {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let rows = generate(2_000);
    backend.build(&rows);
    let db = backend.database();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = spawn_writer(
        &backend,
        2_000,
        50,
        Arc::new(AtomicBool::new(false)),
        stop.clone(),
    );
    let mut slowly = |_, _| {
        std::thread::sleep(std::time::Duration::from_millis(2));
        Ok(())
    };
    let batched = MigrateOptions {
        batch_size: Some(50),
        progress: Some(&mut slowly),
        ..options()
    };
    let report = migrate::migrate(&db, &Registry::embedded(), batched).unwrap();
    stop.store(true, Ordering::Relaxed);
    let last = writer.join().unwrap();
    assert!(
        last.len() >= 50,
        "the writer ran alongside: {} rows",
        last.len()
    );
    let now = backend.dump();
    for (id, value) in &last {
        assert_eq!(
            now[*id as usize - 1].2.as_deref(),
            Some(value.as_str()),
            "row {id}"
        );
    }
    assert_eq!(report.rows_read, 2_000);
}

/// A row a server rewrites after the batch read it is left alone and reported (PostgreSQL:
/// SQLite's batch holds the write lock, so no write can land between read and rewrite).
#[test]
fn a_row_rewritten_after_it_was_read_is_left_alone_on_postgres() {
    let backend = Backend::postgres("cas");
    let rows = generate(1_000);
    backend.build(&rows);
    assert_eq!(rows[20].kind, "snapshot");
    let mut write_row_21 = |done, _| {
        // Rows 1..10 are done; row 21 was read with its batch and is not rewritten yet.
        if done == 10 {
            backend.write(21, "[\"grep\"]");
        }
        Ok(())
    };
    let batched = MigrateOptions {
        batch_size: Some(100),
        progress: Some(&mut write_row_21),
        ..options()
    };
    let report = migrate::migrate(&backend.database(), &Registry::embedded(), batched).unwrap();
    assert_eq!(report.rows_changed_concurrently, [21]);
    let now = backend.dump();
    assert_eq!(now[20].2.as_deref(), Some("[\"grep\"]"));
    let expected = rows.iter().filter(|r| r.kind == "snapshot").count() as u64 - 1;
    assert_eq!(report.snapshots_total(), expected);
}

/// PostgreSQL columns of their natural types: boolean, jsonb. Undo restores each value.
#[test]
fn postgres_boolean_and_jsonb_columns_round_trip() {
    let backend = Backend::postgres("types");
    let mut c = backend.pg();
    c.batch_execute("CREATE TABLE sessions (id serial PRIMARY KEY, tools_enabled boolean, tools_override jsonb, web_search boolean, toolset text)").unwrap();
    let v1 = serde_json::to_string(&V1).unwrap();
    c.execute("INSERT INTO sessions (tools_enabled, tools_override) VALUES (true, $1::text::jsonb), (false, NULL), (NULL, '[\"grep\"]')", &[&v1]).unwrap();
    let snapshot = |c: &mut postgres::Client| -> Vec<(Option<bool>, Option<String>)> {
        c.query(
            "SELECT tools_enabled, tools_override::text FROM sessions ORDER BY id",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
    };
    let before = snapshot(&mut c);
    let report = migrate::migrate(&backend.database(), &Registry::embedded(), options()).unwrap();
    assert_eq!(report.snapshots_total(), 1);
    assert_eq!(
        snapshot(&mut c)[0].1.as_deref(),
        Some("{\"enabled\": true}")
    );
    migrate::undo(&backend.database(), options()).unwrap();
    assert_eq!(snapshot(&mut c), before);
}

/// The application writes after a migration: an update, a delete, a delete whose key a new
/// row takes, a change of `tools_enabled` alone. Undo restores only the rows that still hold
/// what the migration wrote; the others keep the application's values and are listed.
fn undo_keeps_later_writes(backend: Backend) {
    let v1 = serde_json::to_string(&V1).unwrap();
    let rows: Vec<Generated> = (0..5)
        .map(|_| Generated {
            tools_enabled: Some(1),
            tools_override: Some(v1.clone()),
            expected: Some(r#"{"enabled":true}"#.into()),
            kind: "snapshot",
        })
        .collect();
    backend.build(&rows);
    let db = backend.database();
    let report = migrate::migrate(&db, &Registry::embedded(), options()).unwrap();
    assert_eq!(report.snapshots_total(), 5);
    backend.exec(
        r#"UPDATE sessions SET tools_override = '["shell"]' WHERE id = 1;
           DELETE FROM sessions WHERE id = 3;
           INSERT INTO sessions (id, tools_enabled, tools_override) VALUES (3, 0, '["grep"]');
           DELETE FROM sessions WHERE id = 4;
           UPDATE sessions SET tools_enabled = 0 WHERE id = 5;"#,
    );
    let before_undo = backend.dump();
    // A dry run says the same and changes nothing.
    let dry = migrate::undo(
        &db,
        MigrateOptions {
            dry_run: true,
            ..options()
        },
    )
    .unwrap();
    assert_eq!(backend.dump(), before_undo);
    let undone = migrate::undo(&db, options()).unwrap();
    assert_eq!(dry.rows_restored, undone.rows_restored);
    assert_eq!(dry.rows_not_restored, undone.rows_not_restored);
    assert_eq!(undone.rows_restored, 1);
    let why: Vec<(i64, &str, Vec<&str>)> = undone
        .rows_not_restored
        .iter()
        .map(|r| (r.rowid, r.reason, r.columns.clone()))
        .collect();
    assert_eq!(
        why,
        [
            (1, "changed", vec!["tools_override"]),
            (3, "changed", vec!["tools_enabled", "tools_override"]),
            (4, "deleted", vec![]),
            (5, "changed", vec!["tools_enabled"]),
        ]
    );
    assert_eq!(
        backend.dump(),
        [
            (1, Some(1), Some(r#"["shell"]"#.to_string())),
            (2, Some(1), Some(v1.clone())),
            (3, Some(0), Some(r#"["grep"]"#.to_string())),
            (5, Some(0), Some(r#"{"enabled":true}"#.to_string())),
        ]
    );
    let text = undone.to_text();
    assert!(text.contains("row 4: deleted"), "{text}");
    assert!(
        text.contains("row 3: changed (tools_enabled, tools_override)"),
        "{text}"
    );
    // The backup is gone: a second undo has nothing to do.
    assert_eq!(
        migrate::undo(&db, options()).unwrap_err().code(),
        "database"
    );
}

/// A server keeps writing while a batched undo runs: every row it wrote keeps its last write
/// (whether that landed before or after the undo reached the row), every other row is back to
/// its original bytes.
fn undo_alongside_a_writer(backend: Backend) {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let rows = generate(2_000);
    backend.build(&rows);
    let original = backend.dump();
    let db = backend.database();
    migrate::migrate(&db, &Registry::embedded(), options()).unwrap();
    let started = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = spawn_writer(&backend, 2_000, 100, started.clone(), stop.clone());
    while !started.load(Ordering::Relaxed) {
        std::thread::yield_now();
    }
    let batched = MigrateOptions {
        batch_size: Some(25),
        ..options()
    };
    let undone = migrate::undo(&db, batched).unwrap();
    stop.store(true, Ordering::Relaxed);
    let last = writer.join().unwrap();
    let now = backend.dump();
    for ((id, enabled, value), before) in now.iter().zip(&original) {
        match last.get(id) {
            Some(written) => assert_eq!(value.as_deref(), Some(written.as_str()), "row {id}"),
            None => assert_eq!((enabled, value), (&before.1, &before.2), "row {id}"),
        }
    }
    let snapshots = rows.iter().filter(|r| r.kind == "snapshot").count() as u64;
    assert_eq!(
        undone.rows_restored + undone.rows_not_restored.len() as u64,
        snapshots
    );
    // Every row left alone is one the writer wrote.
    for r in &undone.rows_not_restored {
        assert!(last.contains_key(&r.rowid), "row {} left alone", r.rowid);
        assert_eq!(
            (r.reason, r.columns.as_slice()),
            ("changed", &["tools_override"][..])
        );
    }
    assert!(undone.batches > 1);
}

/// Rows at both ends of the key range (-2^63 and 2^63 - 1) are read by `audit`, `migrate` and
/// `undo` on both databases: a paged read that starts "after i64::MIN" once never saw the
/// first, and audit reported no snapshot left while it held one (issue 47).
fn extreme_keys(backend: Backend) {
    let rows = generate(40);
    backend.build(&rows);
    // Row 5 is a legacy snapshot (the audit test above names it); give its value to the keys
    // at both ends.
    let snapshot = backend
        .dump()
        .into_iter()
        .find(|(id, _, _)| *id == 5)
        .map(|(_, _, v)| v)
        .unwrap();
    let Some(snapshot) = snapshot else {
        panic!("row 5 has no tools_override")
    };
    for key in [i64::MIN, i64::MAX] {
        let sql = match backend {
            Backend::Sqlite(_) => format!(
                "INSERT INTO sessions (id, title, tools_enabled, tools_override) VALUES ({key}, 'edge', NULL, '{}')",
                snapshot.replace('\'', "''")
            ),
            Backend::Postgres(_) => format!(
                "INSERT INTO sessions (id, title, tools_enabled, tools_override) VALUES ('{key}'::bigint, 'edge', NULL, '{}')",
                snapshot.replace('\'', "''")
            ),
        };
        backend.exec(&sql);
    }
    let original = backend.dump();
    let spec = backend.spec();
    let out = cli().args(["audit", "--db", &spec]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for key in [i64::MIN, i64::MAX] {
        assert!(
            text.contains(&format!("row {key}: snapshot")),
            "{key}: {text}"
        );
    }
    assert!(cli()
        .args(["migrate", "--db", &spec])
        .status()
        .unwrap()
        .success());
    let out = cli().args(["audit", "--db", &spec]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("no row of sessions holds a legacy snapshot"),
        "{text}"
    );
    let out = cli()
        .args(["migrate", "--db", &spec, "--undo"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(backend.dump(), original);
}
