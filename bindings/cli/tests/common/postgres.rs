//! A throwaway PostgreSQL cluster for the tests of one test binary: `initdb` into a temporary
//! directory, `pg_ctl start` on a Unix socket there (no TCP), stopped by a watchdog when the
//! test process exits. Debian's `postgresql` package provides the binaries
//! (`/usr/lib/postgresql/<version>/bin`; `scripts/setup.sh` installs it). When the cluster
//! cannot start the tests fail with the reason — they never skip. As root, the server runs as
//! the `postgres` user (PostgreSQL refuses to run as root).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

struct Cluster {
    socket_dir: PathBuf,
    port: u16,
}

fn bin_dir() -> PathBuf {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let v = e.file_name().to_string_lossy().parse::<u32>().ok()?;
                    let bin = e.path().join("bin");
                    bin.join("initdb").exists().then_some((v, bin))
                })
                .collect()
        })
        .unwrap_or_default();
    versions.sort();
    versions.pop().map(|(_, b)| b).unwrap_or_else(|| {
        panic!("PostgreSQL not installed: no /usr/lib/postgresql/<version>/bin/initdb (scripts/setup.sh installs Debian's postgresql package)")
    })
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn run(cluster_bin: &Path, as_postgres: bool, tool: &str, args: &[&str]) {
    let program = cluster_bin.join(tool);
    let mut cmd = if as_postgres {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(&program);
        c
    } else {
        Command::new(&program)
    };
    let out = cmd
        .args(args)
        .current_dir("/")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    assert!(
        out.status.success(),
        "{tool} {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn start() -> Cluster {
    let bin = bin_dir();
    let as_postgres = is_root();
    let pid = std::process::id();
    let dir = std::env::temp_dir().join(format!("tool-intent-pg-{pid}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    if as_postgres {
        let ok = Command::new("chown")
            .args(["postgres:postgres"])
            .arg(&dir)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, "cannot give {} to the postgres user", dir.display());
    }
    let data = dir.join("data");
    let data_s = data.to_string_lossy().to_string();
    run(
        &bin,
        as_postgres,
        "initdb",
        &[
            "-D",
            &data_s,
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--no-sync",
        ],
    );
    let port = 20_000 + (pid % 20_000) as u16;
    let options = format!("-k {} -h '' -p {port} -F", dir.display());
    let log = dir.join("server.log").to_string_lossy().to_string();
    run(
        &bin,
        as_postgres,
        "pg_ctl",
        &["-D", &data_s, "-o", &options, "-l", &log, "-w", "start"],
    );
    // Stop the server when this test process ends (the harness has no global teardown).
    let pg_ctl = bin.join("pg_ctl");
    let stop = if as_postgres {
        format!(
            "runuser -u postgres -- {} -D {data_s} -m immediate stop",
            pg_ctl.display()
        )
    } else {
        format!("{} -D {data_s} -m immediate stop", pg_ctl.display())
    };
    let watchdog = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 0.5; done; {stop} >/dev/null 2>&1; rm -rf {}",
        dir.display()
    );
    // Started in the background by a shell that returns at once (so nothing is left unwaited).
    let started = Command::new("sh")
        .args(["-c", &format!("({watchdog}) </dev/null >/dev/null 2>&1 &")])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(started, "cannot start the cluster's watchdog");
    Cluster {
        socket_dir: dir,
        port,
    }
}

fn cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Cluster> = OnceLock::new();
    CLUSTER.get_or_init(start)
}

/// The URL of a database of the test cluster.
fn url_of(name: &str) -> String {
    let c = cluster();
    format!(
        "postgresql://postgres@localhost/{name}?host={}&port={}",
        c.socket_dir.display(),
        c.port
    )
}

/// A new, empty database (dropped first if a previous test left it); its URL.
pub fn fresh_database(name: &str) -> String {
    let admin = url_of("postgres");
    let mut client = postgres::Client::connect(&admin, postgres::NoTls)
        .unwrap_or_else(|e| panic!("cannot connect to the test cluster: {e}"));
    client
        .batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
        .unwrap();
    client
        .batch_execute(&format!("CREATE DATABASE \"{name}\""))
        .unwrap();
    url_of(name)
}
