//! Migration at fleet scale: a session table of N rows (a realistic mix: 1 in 2 rows a
//! snapshot of the defaults or a preset, 1 in 8 an intent, 1 in 8 a hand-pick, 1 in 16 NULL,
//! 1 in 64 unreadable) migrated on SQLite (one transaction, and batches of 1,000) and on
//! PostgreSQL (batches of 1,000), printing rows/s and the run's peak memory. Each run is its
//! own process, so the peak is the migration's, not the table builder's.
//!
//!   cargo bench -p tool-intent-migrate --bench migrate -- [ROWS ...] [--postgres URL]
//!
//! `scripts/migrate-bench.sh` starts a throwaway PostgreSQL cluster and runs 100,000 and
//! 1,000,000 rows on both databases.

use std::process::Command;
use std::time::Instant;

use tool_intent::Registry;
use tool_intent_migrate::{self as migrate, Database, MigrateOptions};

/// What a legacy writer stored for the first version of the embedded registry's history
/// (2025-03): its default tools and its research preset, read from the registry itself.
struct FirstVersion {
    default_tools: Vec<String>,
    research: Vec<String>,
}

impl FirstVersion {
    fn of_embedded_registry() -> FirstVersion {
        let doc = Registry::embedded().to_value();
        let first = &doc["history"][0];
        let names = |v: &serde_json::Value| -> Vec<String> {
            let names: Vec<String> = v
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|n| n.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            assert!(
                !names.is_empty(),
                "the embedded registry's history has no first version"
            );
            names
        };
        FirstVersion {
            default_tools: names(&first["default_tools"]),
            research: names(&first["toolsets"]["research"]),
        }
    }

    /// The stored `tools_override` of row `i`.
    fn row_value(&self, i: u64) -> Option<String> {
        let rotate = |names: &[String], web: bool| {
            let mut v: Vec<&str> = names.iter().map(String::as_str).collect();
            if web {
                v.push("web_search");
            }
            let n = v.len();
            v.rotate_left((i as usize) % n);
            serde_json::to_string(&v).unwrap()
        };
        match i % 64 {
            0 => Some("{\"enabled\":".into()),
            k if k % 16 == 1 => None,
            k if k % 8 == 2 => Some(r#"{"enabled":true,"disabled":["shell"]}"#.into()),
            k if k % 8 == 3 => Some(r#"["grep","read_file"]"#.into()),
            k if k % 8 == 4 => Some(rotate(&self.research, false)),
            k => Some(rotate(&self.default_tools, k % 2 == 0)),
        }
    }
}

fn build(db: &Database, rows: u64) {
    let first = FirstVersion::of_embedded_registry();
    match db {
        Database::Sqlite(path) => {
            let _ = std::fs::remove_file(path);
            let mut conn = rusqlite::Connection::open(path).unwrap();
            conn.execute_batch("CREATE TABLE sessions (id INTEGER PRIMARY KEY, tools_enabled INTEGER, tools_override TEXT)").unwrap();
            let tx = conn.transaction().unwrap();
            {
                let mut insert = tx
                    .prepare("INSERT INTO sessions (id, tools_enabled, tools_override) VALUES (?1, 1, ?2)")
                    .unwrap();
                for i in 1..=rows {
                    insert
                        .execute(rusqlite::params![i as i64, first.row_value(i)])
                        .unwrap();
                }
            }
            tx.commit().unwrap();
        }
        Database::Postgres(url) => {
            let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
            c.batch_execute("DROP TABLE IF EXISTS sessions, sessions__tool_intent_backup; CREATE TABLE sessions (id bigint PRIMARY KEY, tools_enabled boolean, tools_override text)").unwrap();
            // COPY streams the rows; nothing is held in memory.
            let mut writer = c
                .copy_in("COPY sessions (id, tools_enabled, tools_override) FROM STDIN")
                .unwrap();
            use std::io::Write;
            for i in 1..=rows {
                let value = first
                    .row_value(i)
                    .map_or("\\N".to_string(), |v| v.replace('\\', "\\\\"));
                writeln!(writer, "{i}\ttrue\t{value}").unwrap();
            }
            writer.finish().unwrap();
        }
    }
}

/// Peak resident memory of this process, in MiB (Linux `VmHWM`).
fn peak_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

/// The child: one migration run, its figures as one line.
fn run(spec: &str, batch: Option<usize>) {
    let db = Database::parse(spec).expect("a database spec");
    let registry = Registry::embedded();
    let options = MigrateOptions {
        batch_size: batch,
        ..MigrateOptions::default()
    };
    let start = Instant::now();
    let report = migrate::migrate(&db, &registry, options).unwrap();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} {:.0} {:.1} {} {}",
        report.rows_read,
        report.rows_read as f64 / secs,
        peak_mib(),
        report.snapshots_total(),
        report.batches
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--run") {
        let batch = args.get(2).and_then(|b| b.parse().ok());
        return run(&args[1], batch);
    }
    let mut sizes: Vec<u64> = Vec::new();
    let mut postgres_url = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--postgres" => postgres_url = it.next().cloned(),
            "--bench" => {}
            n => {
                if let Ok(n) = n.replace(['_', ','], "").parse() {
                    sizes.push(n);
                }
            }
        }
    }
    if sizes.is_empty() {
        sizes = vec![100_000, 1_000_000];
    }
    let dir = std::env::temp_dir().join("tool-intent-migrate-bench");
    std::fs::create_dir_all(&dir).unwrap();
    let me = std::env::current_exe().unwrap();
    println!("  database    mode           rows       rows/s   peak MiB   snapshots  batches");
    for &n in &sizes {
        let sqlite = dir.join("sessions.db").to_string_lossy().into_owned();
        let mut runs: Vec<(&str, String, Option<usize>)> = vec![
            ("sqlite", sqlite.clone(), None),
            ("sqlite", sqlite, Some(1_000)),
        ];
        if let Some(url) = &postgres_url {
            runs.push(("postgresql", url.clone(), Some(1_000)));
        }
        for (name, spec, batch) in runs {
            build(&Database::parse(&spec).expect("a database spec"), n);
            let mut cmd = Command::new(&me);
            cmd.arg("--run").arg(&spec);
            if let Some(b) = batch {
                cmd.arg(b.to_string());
            }
            let out = cmd.output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let line = String::from_utf8_lossy(&out.stdout);
            let f: Vec<&str> = line.split_whitespace().collect();
            let mode = batch.map_or("one transaction".to_string(), |b| format!("batches of {b}"));
            println!(
                "  {name:<10}  {mode:<15} {:>8}  {:>10}  {:>8}  {:>10}  {:>7}",
                f[0], f[1], f[2], f[3], f[4]
            );
        }
    }
}
