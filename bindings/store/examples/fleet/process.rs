//! One server process of the fleet, as the driver sees it: started, asked over its Unix
//! socket, and killed when the driver is done.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

use serde_json::Value;

pub(crate) struct Process {
    socket: PathBuf,
    child: Option<Child>,
    link: Option<(UnixStream, BufReader<UnixStream>)>,
    /// Restarted, and no plan answered since: its first plan is timed on its own.
    fresh: bool,
}

impl Drop for Process {
    /// A driver that stops early (a panic, an exit) leaves no server running.
    fn drop(&mut self) {
        self.kill();
    }
}

impl Process {
    /// A server on `store`, listening on `socket` when this returns.
    pub(crate) fn spawn(server: &Path, store: &str, socket: PathBuf) -> Process {
        let child = start(server, store, &socket);
        Process {
            socket,
            child: Some(child),
            link: None,
            fresh: false,
        }
    }

    /// SIGKILL: no chance to clean up, as a crashed or OOM-killed server. Whether it ran.
    pub(crate) fn kill(&mut self) -> bool {
        self.link = None;
        match self.child.take() {
            Some(mut child) => {
                let _ = child.kill();
                let _ = child.wait();
                true
            }
            None => false,
        }
    }

    /// Whether it runs (it was not killed, or was started again).
    pub(crate) fn running(&self) -> bool {
        self.child.is_some()
    }

    /// The time of `reply`'s plan when it is this process's first plan since its restart.
    pub(crate) fn first_plan_since_restart(&mut self, reply: &Value) -> Option<f64> {
        if !self.fresh || reply.get("heldMicros").is_none() {
            return None;
        }
        self.fresh = false;
        reply["micros"].as_f64()
    }

    /// Starts it again on the same socket; its next plan is timed as a fresh process's.
    pub(crate) fn restart(&mut self, server: &Path, store: &str) {
        self.child = Some(start(server, store, &self.socket));
        self.fresh = true;
    }

    /// One request; `None` when the process is gone (the caller sends it elsewhere).
    pub(crate) fn ask(&mut self, request: &Value) -> Option<Value> {
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

fn start(server: &Path, store: &str, socket: &Path) -> Child {
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
