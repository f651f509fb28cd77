//! Legacy snapshot migration on real SQLite files built in the test.

#![cfg(not(target_arch = "wasm32"))]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rusqlite::{params, Connection};
use serde_json::{json, Value};
use tool_intent::expand::{expand, ExpandContext};
use tool_intent::migrate::{self, MigrateOptions};
use tool_intent::{Registry, SessionRunConfig};

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
    if seed % 2 == 0 {
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

/// The old schema: no web_search / toolset columns yet.
fn build_db(path: &Path, rows: &[Generated]) {
    let mut conn = Connection::open(path).unwrap();
    conn.execute_batch("CREATE TABLE sessions (id INTEGER PRIMARY KEY, title TEXT, tools_enabled INTEGER, tools_override TEXT)").unwrap();
    let tx = conn.transaction().unwrap();
    for (i, r) in rows.iter().enumerate() {
        tx.execute("INSERT INTO sessions (id, title, tools_enabled, tools_override) VALUES (?1, ?2, ?3, ?4)", params![i as i64 + 1, format!("session {i}"), r.tools_enabled, r.tools_override]).unwrap();
    }
    tx.commit().unwrap();
}

type Dump = Vec<(i64, Option<i64>, Option<String>)>;

fn dump(path: &Path) -> Dump {
    let conn = Connection::open(path).unwrap();
    let mut stmt = conn
        .prepare("SELECT id, tools_enabled, tools_override FROM sessions ORDER BY id")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
}

fn column_names(path: &Path) -> Vec<String> {
    let conn = Connection::open(path).unwrap();
    let mut stmt = conn.prepare("PRAGMA table_info(sessions)").unwrap();
    stmt.query_map([], |r| r.get::<_, String>(1))
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
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

fn options() -> MigrateOptions {
    MigrateOptions {
        table: "sessions".into(),
        dry_run: false,
    }
}

#[test]
fn ten_thousand_mixed_rows_migrate_to_exactly_the_expected_rows() {
    let rows = generate(10_000);
    let path = temp_db("main");
    build_db(&path, &rows);
    let original = dump(&path);
    let registry = Registry::embedded();

    // Dry run: same report, nothing changed.
    let dry = migrate::migrate(
        &path,
        &registry,
        &MigrateOptions {
            dry_run: true,
            ..options()
        },
        &mut |_, _| {},
    )
    .unwrap();
    assert_eq!(dump(&path), original);
    assert_eq!(
        column_names(&path),
        ["id", "title", "tools_enabled", "tools_override"]
    );

    let mut calls = 0;
    let report = migrate::migrate(&path, &registry, &options(), &mut |done, total| {
        calls += 1;
        assert!(done <= total && total == 10_000);
    })
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

    // Exactly the expected rows; hand-picks and malformed rows byte-identical.
    let after = dump(&path);
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
    let second = migrate::migrate(&path, &registry, &options(), &mut |_, _| {}).unwrap();
    assert_eq!(second.snapshots_total(), 0);
    assert!(second.columns_added.is_empty());
    assert_eq!(dump(&path), after);

    // Audit finds nothing now; it finds every snapshot on the original.
    assert!(migrate::audit(&path, "sessions", &registry)
        .unwrap()
        .is_empty());

    // Undo restores the original bytes of every row.
    let undone = migrate::undo(&path, "sessions").unwrap();
    assert_eq!(undone.rows_restored, expected_snapshots);
    assert_eq!(dump(&path), original);
    assert_eq!(
        migrate::audit(&path, "sessions", &registry).unwrap().len() as u64,
        expected_snapshots
    );
    assert_eq!(
        migrate::undo(&path, "sessions").unwrap_err().code(),
        "database"
    );
}

#[test]
fn errors_name_the_problem() {
    let path = temp_db("errors");
    let r = Registry::embedded();
    assert!(migrate::migrate(&path, &r, &options(), &mut |_, _| {})
        .unwrap_err()
        .to_string()
        .contains("no database"));
    Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE other (x)")
        .unwrap();
    let e = migrate::migrate(&path, &r, &options(), &mut |_, _| {}).unwrap_err();
    assert!(e.to_string().contains("no table \"sessions\""), "{e}");
    let e = migrate::migrate(
        &path,
        &r,
        &MigrateOptions {
            table: "other".into(),
            dry_run: false,
        },
        &mut |_, _| {},
    )
    .unwrap_err();
    assert!(e.to_string().contains("no tools_enabled column"), "{e}");
    let e = migrate::migrate(
        &path,
        &r,
        &MigrateOptions {
            table: "a;b".into(),
            dry_run: false,
        },
        &mut |_, _| {},
    )
    .unwrap_err();
    assert_eq!(e.code(), "invalid_argument");
}

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tool-intent"))
}

/// Either nothing changed (schema and rows) or everything did: never half.
fn assert_unchanged_or_fully_migrated(
    path: &Path,
    original: &Dump,
    rows: &[Generated],
) -> &'static str {
    let now = dump(path);
    if &now == original {
        assert_eq!(
            column_names(path),
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
    let path = temp_db("abort");
    build_db(&path, &rows);
    let original = dump(&path);
    let out = cli()
        .args(["migrate", "--db", path.to_str().unwrap()])
        .env("TOOL_INTENT_MIGRATE_ABORT_AFTER", "2000")
        .output()
        .unwrap();
    assert!(!out.status.success(), "the abort hook did not fire");
    assert_eq!(
        assert_unchanged_or_fully_migrated(&path, &original, &rows),
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
        assert_unchanged_or_fully_migrated(&path, &original, &rows),
        "migrated"
    );
}

#[test]
fn killed_migration_is_all_or_nothing() {
    let rows = generate(3_000);
    let path = temp_db("kill");
    build_db(&path, &rows);
    let original = dump(&path);
    let mut child = cli()
        .args(["migrate", "--db", path.to_str().unwrap()])
        .env("TOOL_INTENT_MIGRATE_ROW_DELAY_MS", "2")
        .env("TOOL_INTENT_PROGRESS", "1")
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
        assert_unchanged_or_fully_migrated(&path, &original, &rows),
        "unchanged"
    );
}

#[test]
fn cli_dry_run_undo_and_audit() {
    let rows = generate(320);
    let path = temp_db("cli");
    build_db(&path, &rows);
    let original = dump(&path);
    let db = path.to_str().unwrap();
    let out = cli().args(["audit", "--db", db]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("row 5: snapshot of default_tools@2025-03 -> {\"enabled\":true}"),
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
    assert_eq!(dump(&path), original);
    assert!(cli()
        .args(["migrate", "--db", db])
        .status()
        .unwrap()
        .success());
    assert_ne!(dump(&path), original);
    let out = cli().args(["audit", "--db", db]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("no row of sessions holds a legacy snapshot")
    );
    let out = cli()
        .args(["migrate", "--db", db, "--undo"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("undo: restored"));
    assert_eq!(dump(&path), original);
    let out = cli()
        .args(["migrate", "--db", "/no/such.db"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
