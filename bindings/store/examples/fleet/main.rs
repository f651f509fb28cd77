//! The fleet test (`scripts/fleet.sh`): several `fleet_server` processes share one registry
//! version store; sessions take turns with every request sent to a random process, while a
//! publisher rolls registry versions and one process is killed with SIGKILL and restarted.
//! The driver is the sessions' database: it keeps each session's turn state between requests,
//! as an agent server's session table does.
//!
//! It checks, and exits 1 when any fails:
//! - no request of a turn sends other tool bytes (array, catalog, change messages) than the
//!   turn's first request (`midTurnByteChanges`);
//! - no session's version goes back in the store's order (`versionRegressions`);
//! - every turn completes (`failedTurns`: a request no live process could answer);
//! - every session is on a published version by its second turn boundary after the
//!   publication (`lateAdoptions`);
//! - with `tool_changes: messages`, the tool array never changes within a session
//!   (`rewrites`).
//!
//! It writes its figures into `--out` (default `bench-results/fleet.json`), one entry per
//! store kind.
//!
//! Usage: `fleet --store SPEC [--processes 4] [--sessions 200] [--turns 20] [--seed 7]
//! [--server PATH] [--out FILE]`.

use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;
use tool_intent::Registry;
use tool_intent_store::{open, SharedRegistry, VersionStore};

mod changes;
mod process;
#[path = "../support/results.rs"]
mod results;
mod sessions;

use process::Process;
use sessions::{late_adoptions, quantile, Figures, Session};

fn flag(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn number(name: &str, default: u64) -> u64 {
    flag(name).map_or(default, |v| {
        v.parse().unwrap_or_else(|_| {
            eprintln!("fleet: {name} {v}: expected a whole number");
            std::process::exit(2)
        })
    })
}

/// A small deterministic generator (xorshift), so a run can be repeated by its seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

fn main() {
    let spec = flag("--store").unwrap_or_else(|| {
        eprintln!("fleet: --store SPEC is required (a SQLite file or a postgres:// URL)");
        std::process::exit(2)
    });
    let processes = number("--processes", 4) as usize;
    let sessions = number("--sessions", 200) as usize;
    let turns = number("--turns", 20);
    let mut rng = Rng(number("--seed", 7) | 1);
    let server = flag("--server").map(PathBuf::from).unwrap_or_else(|| {
        std::env::current_exe()
            .expect("the driver's own path")
            .with_file_name("fleet_server")
    });
    let out = PathBuf::from(flag("--out").unwrap_or_else(|| "bench-results/fleet.json".into()));

    // The first version: the embedded registry with GitHub's tools.
    let github = include_str!("../../../../tests/data/mcp/github.json");
    let initial = Registry::embedded()
        .set_mcp_server("github", github)
        .expect("the github fixture loads")
        .registry;
    let mut publisher = SharedRegistry::open(open(&spec).expect("the store opens"), &initial)
        .unwrap_or_else(|e| {
            eprintln!("fleet: {e}");
            std::process::exit(1)
        });
    let first_sequence = publisher.publish(&initial).expect("publish").sequence;

    let dir = std::env::temp_dir().join(format!("tool-intent-fleet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let mut fleet: Vec<Process> = (0..processes)
        .map(|k| Process::spawn(&server, &spec, dir.join(format!("p{k}.sock"))))
        .collect();

    let mut all: Vec<Session> = (0..sessions).map(|k| Session::new(k % 2 == 1)).collect();
    let mut figures = Figures::default();
    // Steps: a boundary or a request of one session, the sessions interleaved at random.
    let expected_steps = sessions as u64 * turns * 3;
    let changes = changes::changes();
    let publish_at: Vec<u64> = (1..=changes.len() as u64)
        .map(|k| expected_steps * k / (changes.len() as u64 + 2))
        .collect();
    let (kill_at, restart_at) = (expected_steps / 2, expected_steps * 3 / 5);
    let mut published: Vec<(u64, usize)> = Vec::new(); // (sequence, step)
    let mut killed = 0;
    let mut restart_ms = 0.0;
    let mut first_plan_after_restart: Option<f64> = None;
    let mut step = 0usize;
    let mut active: Vec<usize> = (0..sessions).collect();
    let started = Instant::now();
    while !active.is_empty() {
        step += 1;
        if let Some(k) = publish_at.iter().position(|&at| at == step as u64) {
            let (what, change) = &changes[k];
            let row = publisher
                .change(|r| change(r))
                .unwrap_or_else(|e| panic!("fleet: publishing {what}: {e}"));
            println!(
                "fleet: step {step}: published {what} as version {}",
                row.sequence
            );
            published.push((row.sequence, step));
        }
        if step as u64 == kill_at && processes > 1 && fleet[1].kill() {
            killed += 1;
            println!("fleet: step {step}: killed process 1 (SIGKILL)");
        }
        if step as u64 == restart_at && !fleet[1].running() && processes > 1 {
            let spawned = Instant::now();
            fleet[1].restart(&server, &spec);
            restart_ms = spawned.elapsed().as_secs_f64() * 1e3;
            println!("fleet: step {step}: restarted process 1 ({restart_ms:.1} ms to listen)");
        }
        let pick = rng.below(active.len() as u64) as usize;
        let id = active[pick];
        let session = &mut all[id];
        let request = session.request();
        // A random process; one that is gone sends the request to the next.
        let start = rng.below(processes as u64) as usize;
        let mut reply = None;
        for k in 0..processes {
            let p = (start + k) % processes;
            figures.requests += 1;
            if let Some(r) = fleet[p].ask(&request) {
                if let Some(micros) = fleet[p].first_plan_since_restart(&r) {
                    first_plan_after_restart = Some(micros);
                }
                reply = Some(r);
                break;
            }
            figures.retries += 1;
        }
        match reply {
            Some(r) if r.get("error").is_none() => {
                if session.at_boundary() {
                    session.began(&r, step, 1 + rng.below(4), &mut figures);
                } else {
                    session.planned(id, &r, &mut figures);
                }
            }
            reply => {
                eprintln!("fleet: session {id}: {request} failed: {reply:?}");
                session.failed(&mut figures);
            }
        }
        if session.finished(turns) {
            active.swap_remove(pick);
        }
    }
    let elapsed = started.elapsed();
    drop(fleet);
    let _ = std::fs::remove_dir_all(&dir);

    // Every session on each published version by its second boundary after the publication.
    figures.late_adoptions = late_adoptions(&published, &all);
    let mut store: Box<dyn VersionStore> = open(&spec).expect("the store opens");
    let versions = store.versions().expect("versions").len();
    let store_bytes = store.size_bytes().expect("the store's size");
    let turns_done: u64 = all.iter().map(Session::turns_done).sum();
    let report = json!({
        "store": store.kind(),
        "processes": processes,
        "sessions": sessions,
        "turns": turns_done,
        "requests": figures.requests,
        "retried": figures.retries,
        "versions": versions,
        "storeBytes": store_bytes,
        "firstSequence": first_sequence,
        "published": published.len(),
        "killed": killed,
        "midTurnByteChanges": figures.mid_turn_byte_changes,
        "versionRegressions": figures.version_regressions,
        "failedTurns": figures.failed_turns,
        "lateAdoptions": figures.late_adoptions,
        "rewrites": figures.rewrites,
        "planMicros": {
            "withStore": {"median": quantile(&mut figures.plan_micros, 0.5), "p99": quantile(&mut figures.plan_micros, 0.99)},
            "inMemory": {"median": quantile(&mut figures.held_micros, 0.5), "p99": quantile(&mut figures.held_micros, 0.99)},
        },
        "restart": {"millisToListen": restart_ms, "firstPlanMicros": first_plan_after_restart},
        "beginTurnMicros": {"median": quantile(&mut figures.begin_micros, 0.5), "p99": quantile(&mut figures.begin_micros, 0.99)},
        "seconds": (elapsed.as_secs_f64() * 10.0).round() / 10.0,
    });
    // One entry per store kind in the results file.
    let store_kind = report["store"].as_str().unwrap_or("?").to_string();
    if let Err(e) = results::record(&out, &store_kind, &report) {
        eprintln!("fleet: cannot write {}: {e}", out.display());
    }
    let bad = [
        "midTurnByteChanges",
        "versionRegressions",
        "failedTurns",
        "lateAdoptions",
        "rewrites",
    ]
    .iter()
    .filter(|k| report[**k].as_u64() != Some(0))
    .copied()
    .collect::<Vec<_>>();
    let short = turns_done < sessions as u64 * turns;
    if !bad.is_empty() || short || killed == 0 && processes > 1 || published.len() < 5 {
        eprintln!(
            "fleet: FAILED: {bad:?} (turns {turns_done} of {}, killed {killed}, published {})",
            sessions as u64 * turns,
            published.len()
        );
        std::process::exit(1);
    }
    println!(
        "fleet: passed ({} store, {processes} processes)",
        report["store"].as_str().unwrap_or("?")
    );
}
