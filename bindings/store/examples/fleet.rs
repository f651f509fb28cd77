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

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tool_intent::{Registry, Result};
use tool_intent_store::{open, SharedRegistry, VersionStore};

#[path = "support/results.rs"]
mod results;

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

struct Process {
    socket: PathBuf,
    child: Option<Child>,
    link: Option<(UnixStream, BufReader<UnixStream>)>,
    /// Restarted, and no plan answered since: its first plan is timed on its own.
    fresh: bool,
}

impl Drop for Process {
    /// A driver that stops early (a panic, an exit) leaves no server running.
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Process {
    fn start(server: &PathBuf, store: &str, socket: &PathBuf) -> Child {
        let _ = std::fs::remove_file(socket);
        let mut child = Command::new(server)
            .args(["--store", store, "--socket"])
            .arg(socket)
            .stdout(std::process::Stdio::null())
            .spawn()
            // A panic, not an exit: the servers already started are dropped, so killed.
            .unwrap_or_else(|e| panic!("fleet: cannot start {}: {e}", server.display()));
        // Ready when it listens.
        for _ in 0..500 {
            if UnixStream::connect(socket).is_ok() {
                return child;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!(
            "fleet: {} did not listen on {}",
            server.display(),
            socket.display()
        )
    }

    /// One request; `None` when the process is gone (the caller sends it elsewhere).
    fn ask(&mut self, request: &Value) -> Option<Value> {
        if self.link.is_none() {
            let stream = UnixStream::connect(&self.socket).ok()?;
            let read = BufReader::new(stream.try_clone().ok()?);
            self.link = Some((stream, read));
        }
        let (stream, read) = self.link.as_mut()?;
        let sent = writeln!(stream, "{request}").is_ok();
        let mut line = String::new();
        if !sent || read.read_line(&mut line).unwrap_or(0) == 0 {
            self.link = None;
            return None;
        }
        serde_json::from_str(&line).ok()
    }
}

struct Session {
    state: Value,
    messages: bool,
    /// Sequence numbers of its turn boundaries, in order.
    sequences: Vec<u64>,
    /// The turn in progress: requests left, and the first request's bytes.
    left: u64,
    first: Option<(String, String, String)>,
    turns_done: u64,
    /// The array of its first planned request (messages mode keeps it for the session).
    session_tools: Option<String>,
    /// The step of each of its turn boundaries.
    boundary_steps: Vec<usize>,
}

#[derive(Default)]
struct Figures {
    requests: u64,
    retries: u64,
    mid_turn_byte_changes: u64,
    version_regressions: u64,
    failed_turns: u64,
    late_adoptions: u64,
    rewrites: u64,
    plan_micros: Vec<f64>,
    held_micros: Vec<f64>,
    begin_micros: Vec<f64>,
}

fn quantile(xs: &mut [f64], q: f64) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[((xs.len() - 1) as f64 * q).round() as usize]
}

/// A change the publisher makes to the newest version.
type Change = Box<dyn Fn(&Registry) -> Result<Registry>>;

/// The registry changes the publisher rolls, in order: each a different kind of change.
fn changes() -> Vec<(&'static str, Change)> {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/mcp/");
    let read = |name: &str| std::fs::read_to_string(format!("{data}{name}.json")).unwrap();
    let (memory, fetch, github) = (read("memory"), read("fetch"), read("github"));
    let edited = github.replacen("\"description\":\"", "\"description\":\"(v2) ", 1);
    assert!(
        edited != github,
        "the github fixture has a description to change"
    );
    vec![
        (
            "a new server's tools (memory)",
            Box::new(move |r: &Registry| Ok(r.set_mcp_server("memory", &memory)?.registry)),
        ),
        (
            "a changed description (github)",
            Box::new(move |r: &Registry| Ok(r.set_mcp_server("github", &edited)?.registry)),
        ),
        (
            "a removed server (memory)",
            Box::new(|r: &Registry| Ok(r.remove_mcp_server("memory")?.registry)),
        ),
        (
            "a trusted-server change (github's annotations believed)",
            Box::new(|r: &Registry| {
                let mut doc = r.to_value();
                let mut trusted = doc["trusted_servers"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                trusted.push(json!("github"));
                doc["trusted_servers"] = Value::Array(trusted);
                Registry::from_value(&doc)
            }),
        ),
        (
            "a new server's tools (fetch)",
            Box::new(move |r: &Registry| Ok(r.set_mcp_server("fetch", &fetch)?.registry)),
        ),
    ]
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
    let github = include_str!("../../../tests/data/mcp/github.json");
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
        .map(|k| {
            let socket = dir.join(format!("p{k}.sock"));
            let child = Process::start(&server, &spec, &socket);
            Process {
                socket,
                child: Some(child),
                link: None,
                fresh: false,
            }
        })
        .collect();

    let mut all: Vec<Session> = (0..sessions)
        .map(|k| Session {
            state: Value::Null,
            messages: k % 2 == 1,
            sequences: Vec::new(),
            left: 0,
            first: None,
            turns_done: 0,
            session_tools: None,
            boundary_steps: Vec::new(),
        })
        .collect();
    let mut figures = Figures::default();
    // Steps: a boundary or a request of one session, the sessions interleaved at random.
    let expected_steps = sessions as u64 * turns * 3;
    let changes = changes();
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
        if step as u64 == kill_at && processes > 1 {
            if let Some(child) = fleet[1].child.as_mut() {
                // SIGKILL: no chance to clean up, as a crashed or OOM-killed server.
                let _ = child.kill();
                let _ = child.wait();
                fleet[1].child = None;
                fleet[1].link = None;
                killed += 1;
                println!("fleet: step {step}: killed process 1 (SIGKILL)");
            }
        }
        if step as u64 == restart_at && fleet[1].child.is_none() && processes > 1 {
            let socket = fleet[1].socket.clone();
            let spawned = Instant::now();
            fleet[1].child = Some(Process::start(&server, &spec, &socket));
            restart_ms = spawned.elapsed().as_secs_f64() * 1e3;
            fleet[1].fresh = true;
            println!("fleet: step {step}: restarted process 1 ({restart_ms:.1} ms to listen)");
        }
        let pick = rng.below(active.len() as u64) as usize;
        let id = active[pick];
        let session = &mut all[id];
        let request = if session.left == 0 {
            json!({"op": "begin", "state": session.state})
        } else {
            json!({
                "op": "plan",
                "state": session.state,
                "toolChanges": if session.messages { "messages" } else { "array" },
            })
        };
        // A random process; one that is gone sends the request to the next.
        let start = rng.below(processes as u64) as usize;
        let mut reply = None;
        for k in 0..processes {
            let p = (start + k) % processes;
            figures.requests += 1;
            if let Some(r) = fleet[p].ask(&request) {
                if fleet[p].fresh && r.get("heldMicros").is_some() {
                    fleet[p].fresh = false;
                    first_plan_after_restart = r["micros"].as_f64();
                }
                reply = Some(r);
                break;
            }
            figures.retries += 1;
        }
        let failed = match &reply {
            None => true,
            Some(r) => r.get("error").is_some(),
        };
        if failed {
            eprintln!("fleet: session {id}: {request} failed: {reply:?}");
            figures.failed_turns += 1;
            session.left = 0;
            session.first = None;
            session.turns_done += 1;
        } else if let Some(r) = reply {
            if session.left == 0 {
                let sequence = r["sequence"].as_u64().unwrap_or(0);
                if session
                    .sequences
                    .last()
                    .is_some_and(|&last| sequence < last)
                {
                    figures.version_regressions += 1;
                }
                session.sequences.push(sequence);
                session.boundary_steps.push(step);
                figures
                    .begin_micros
                    .push(r["micros"].as_f64().unwrap_or(0.0));
                session.state = r["state"].clone();
                session.left = 1 + rng.below(4);
                session.first = None;
            } else {
                let bytes = (
                    r["tools"].as_str().unwrap_or("").to_string(),
                    r["catalog"].as_str().unwrap_or("").to_string(),
                    r["changes"].as_str().unwrap_or("").to_string(),
                );
                figures
                    .plan_micros
                    .push(r["micros"].as_f64().unwrap_or(0.0));
                figures
                    .held_micros
                    .push(r["heldMicros"].as_f64().unwrap_or(0.0));
                match &session.first {
                    None => {
                        if session.messages {
                            match &session.session_tools {
                                Some(tools) if *tools != bytes.0 => figures.rewrites += 1,
                                Some(_) => {}
                                None => session.session_tools = Some(bytes.0.clone()),
                            }
                        }
                        session.first = Some(bytes);
                    }
                    Some(first) if *first != bytes => {
                        figures.mid_turn_byte_changes += 1;
                        eprintln!(
                            "fleet: session {id} ({}) turn {}: a request's bytes differ from the turn's first (tools {}, catalog {}, changes {}) on registry {}",
                            if session.messages { "messages" } else { "array" },
                            session.turns_done + 1,
                            first.0 != bytes.0,
                            first.1 != bytes.1,
                            first.2 != bytes.2,
                            r["registry"]
                        );
                    }
                    Some(_) => {}
                }
                session.left -= 1;
                if session.left == 0 {
                    // The turn is done: keep the state its plan wrote (the conversation's
                    // record, with change messages), as the session table would.
                    if !r["state"].is_null() {
                        session.state = r["state"].clone();
                    }
                    session.turns_done += 1;
                }
            }
        }
        if session.turns_done >= turns && session.left == 0 {
            active.swap_remove(pick);
        }
    }
    let elapsed = started.elapsed();
    drop(fleet);
    let _ = std::fs::remove_dir_all(&dir);

    // Every session on each published version by its second boundary after the publication.
    for (sequence, at) in &published {
        for s in &all {
            let after: Vec<u64> = s
                .boundary_steps
                .iter()
                .zip(&s.sequences)
                .filter(|(&b, _)| b > *at)
                .map(|(_, &q)| q)
                .collect();
            if after.len() >= 2 && after[1] < *sequence {
                figures.late_adoptions += 1;
            }
        }
    }
    let mut store: Box<dyn VersionStore> = open(&spec).expect("the store opens");
    let versions = store.versions().expect("versions").len();
    let store_bytes = store.size_bytes().expect("the store's size");
    let turns_done: u64 = all.iter().map(|s| s.turns_done).sum();
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
