//! `--store` and `tool-intent registry`: what one invocation publishes, another plans on,
//! whatever its own flags; a state pinned to an older version plans on that version; an
//! unknown stamp is an error naming it. On a SQLite file and on a real PostgreSQL cluster.

use std::process::{Command, Output};

#[path = "common/postgres.rs"]
mod postgres_cluster;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tool-intent"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("the CLI runs")
}

fn ok(args: &[&str]) -> serde_json::Value {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("JSON on stdout")
}

fn state_on(fingerprint: &str) -> String {
    serde_json::json!({"loaded": [], "frozen": [], "turn": 1, "registry": fingerprint}).to_string()
}

fn publish_then_plan(store: &str) {
    // An empty store: nothing to plan on, said by name.
    let o = run(&["expand", "--store", store]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("[unknown_version]") && err.contains("holds no registry version"),
        "{err}"
    );
    let first = ok(&["registry", "publish", "--store", store, "--json"]);
    assert_eq!(first["published"], true);
    assert_eq!(first["version"]["sequence"], 1);
    let again = ok(&["registry", "publish", "--store", store, "--json"]);
    assert_eq!(
        again["published"], false,
        "the same registry is not a new version"
    );
    let second = ok(&[
        "registry",
        "publish",
        "--store",
        store,
        "--json",
        "--mcp",
        "github=tests/data/mcp/github.json",
    ]);
    assert_eq!(second["version"]["sequence"], 2);
    let v1 = first["version"]["fingerprint"].as_str().unwrap();
    // A second invocation with other local flags plans on the published version: the github
    // tools are in its catalog although this invocation names no --mcp (and another one).
    let plan = ok(&[
        "expand",
        "--store",
        store,
        "--mcp",
        "memory=tests/data/mcp/memory.json",
    ]);
    let catalog = plan["catalog"].as_array().unwrap();
    assert!(catalog
        .iter()
        .any(|n| n.as_str().unwrap().starts_with("mcp__github__")));
    assert!(!catalog
        .iter()
        .any(|n| n.as_str().unwrap().starts_with("mcp__memory__")));
    let local = ok(&["expand", "--mcp", "github=tests/data/mcp/github.json"]);
    assert_eq!(plan["fingerprint"], local["fingerprint"]);
    assert_eq!(plan["catalog"], local["catalog"]);
    // A state stamped with version 1 plans on version 1.
    let pinned = ok(&["expand", "--store", store, "--state", &state_on(v1)]);
    let bare = ok(&["expand"]);
    assert_eq!(pinned["catalog"], bare["catalog"]);
    assert_eq!(pinned["fingerprint"], bare["fingerprint"]);
    // An unknown stamp is an error naming it.
    let unknown = format!("sha256:{}", "7".repeat(64));
    let o = run(&["expand", "--store", store, "--state", &state_on(&unknown)]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("[unknown_version]") && err.contains(&unknown),
        "{err}"
    );
    // Versions, then gc: version 1 goes, and a state on it is refused by name.
    let versions = ok(&["registry", "versions", "--store", store, "--json"]);
    assert_eq!(versions.as_array().unwrap().len(), 2);
    let gc = ok(&[
        "registry",
        "gc",
        "--store",
        store,
        "--keep-newest",
        "1",
        "--keep-hours",
        "0",
        "--json",
    ]);
    assert_eq!(gc["removed"], serde_json::json!([v1]));
    let o = run(&["expand", "--store", store, "--state", &state_on(v1)]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("removed by gc"));
    // The table for people: a header naming its columns, then a line a version.
    let o = run(&["registry", "versions", "--store", store]);
    let table = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<Vec<&str>> = table
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(lines.len(), 3, "{table}");
    assert_eq!(
        lines[0],
        ["sequence", "fingerprint", "tools", "tools", "are", "when"]
    );
    let tools = second["version"]["tools"].to_string();
    assert_eq!(lines[1][..4], ["1", v1, "0", "removed"], "{table}");
    let v2 = second["version"]["fingerprint"].as_str().unwrap();
    assert_eq!(lines[2][..4], ["2", v2, tools.as_str(), "held"], "{table}");
    assert!(table.contains("no turn planned on it"), "{table}");
}

#[test]
fn a_published_version_is_what_other_invocations_plan_on_sqlite() {
    let path = std::env::temp_dir().join(format!(
        "tool-intent-cli-store-{}.sqlite",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    publish_then_plan(path.to_str().unwrap());
}

#[test]
fn a_published_version_is_what_other_invocations_plan_on_postgres() {
    let url = postgres_cluster::fresh_database("cli_store");
    publish_then_plan(&url);
}

#[test]
fn publishing_needs_a_store() {
    let o = run(&["registry", "publish"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--store: registry publish needs a store"));
}

#[test]
fn a_store_it_cannot_reach_says_why() {
    // Nothing listens on port 1: the driver's own text ("error connecting to server") keeps
    // the reason in its source, which the line must carry. The password stays out of it.
    for (args, code) in [
        (
            &[
                "registry",
                "versions",
                "--store",
                "postgres://nobody:hunter2@127.0.0.1:1/x",
            ][..],
            "[store_unavailable]",
        ),
        (
            &[
                "audit",
                "--db",
                "postgres://nobody:hunter2@127.0.0.1:1/x",
                "--table",
                "sessions",
            ][..],
            "[database]",
        ),
    ] {
        let o = run(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(code) && err.contains("Connection refused"),
            "{err}"
        );
        assert!(!err.contains("hunter2"), "{err}");
    }
}

#[test]
fn a_file_that_is_not_sqlite_is_said_once() {
    // rusqlite's error says what SQLite said; its source says it again with the result code,
    // which the line must not repeat ("file is not a database: Error code 26: file is not a
    // database" was the migration's).
    let path = std::env::temp_dir().join(format!(
        "tool-intent-cli-not-sqlite-{}.db",
        std::process::id()
    ));
    std::fs::write(&path, "not a database, but long enough to hold a header").unwrap();
    let file = path.to_str().unwrap();
    for (args, code) in [
        (
            &["registry", "versions", "--store", file][..],
            "[store_unavailable]",
        ),
        (&["audit", "--db", file][..], "[database]"),
    ] {
        let o = run(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(code), "{err}");
        assert_eq!(err.matches("file is not a database").count(), 1, "{err}");
    }
    let _ = std::fs::remove_file(&path);
}

/// A spec meant for another database is refused by name, for `--store` and `--db` alike; read
/// as a path it would have been a new SQLite file in the working directory.
#[test]
fn a_spec_meant_for_another_database_is_refused_not_made_a_file() {
    let dir = std::env::temp_dir().join(format!("tool-intent-cli-spec-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (args, said) in [
        (
            &["registry", "publish", "--store", "host=db dbname=tools"][..],
            "--store: invalid store: a PostgreSQL key=value connection string (it starts with host=)",
        ),
        (
            &["audit", "--db", "mysql://db/app"][..],
            "--db: invalid db: a \"mysql://\" URL",
        ),
        (
            &["migrate", "--db", "sqlite:///sessions.db"][..],
            "without sqlite://",
        ),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_tool-intent"))
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("[invalid_argument]") && err.contains(said), "{err}");
    }
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--keep-hours` outside its range is refused by the library's one reader of gc's options
/// (`Retention::from_options`, which Python's `keep_hours=` goes through too), before the
/// store is opened: no store file is made for it.
#[test]
fn gc_refuses_hours_that_are_no_span_of_time() {
    let dir = std::env::temp_dir().join(format!("tool-intent-gc-hours-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = dir.join("fleet.db");
    for hours in ["-1", "NaN", "inf"] {
        let o = run(&[
            "registry",
            "gc",
            "--store",
            store.to_str().unwrap(),
            &format!("--keep-hours={hours}"),
        ]);
        assert_eq!(o.status.code(), Some(2), "{hours}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("error [invalid_argument]: --keep-hours"),
            "{hours}: {err}"
        );
        assert!(err.contains("0 or more"), "{hours}: {err}");
    }
    assert!(!store.exists(), "no store was opened");
    std::fs::remove_dir_all(&dir).unwrap();
}
