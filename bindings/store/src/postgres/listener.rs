//! The PostgreSQL store's listener: a thread with a connection of its own that waits for
//! `NOTIFY tool_intent_versions` and raises a flag a turn boundary reads, and connects again
//! when the server drops it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, NoTls};
use tool_intent::Result;

use super::{failed, CHANNEL};
use crate::unavailable;

/// The listener thread's flags.
pub(super) struct Listener {
    /// A notification arrived since the last look.
    pub(super) changed: Arc<AtomicBool>,
    /// The thread still listens (its connection is up).
    pub(super) alive: Arc<AtomicBool>,
    /// Set when the store is dropped: the thread ends within one wait.
    stop: Arc<AtomicBool>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// How long the listener waits for a notification before it looks at `stop`.
const LISTEN_WAIT: Duration = Duration::from_millis(250);

/// How long the listener waits before it connects again after losing its connection.
const RECONNECT_WAIT: Duration = Duration::from_secs(1);

/// The listener's connection, named so that an operator sees it in `pg_stat_activity`.
fn listen(url: &str) -> std::result::Result<Client, postgres::Error> {
    let mut config: postgres::Config = url.parse()?;
    config.application_name("tool-intent-listener");
    let mut client = config.connect(NoTls)?;
    client.batch_execute(&format!("LISTEN {CHANNEL}"))?;
    Ok(client)
}

impl Listener {
    /// Starts the thread; returns once it listens (so no publication after `connect`
    /// returns is missed).
    pub(super) fn start(url: &str) -> Result<Listener> {
        let doing = "to listen for new versions";
        let mut client = listen(url).map_err(failed(doing))?;
        let url = url.to_string();
        let listener = Listener {
            changed: Arc::new(AtomicBool::new(false)),
            alive: Arc::new(AtomicBool::new(true)),
            stop: Arc::new(AtomicBool::new(false)),
        };
        let (changed, alive, stop) = (
            listener.changed.clone(),
            listener.alive.clone(),
            listener.stop.clone(),
        );
        std::thread::Builder::new()
            .name("tool-intent-store-listen".into())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let next = client.notifications().timeout_iter(LISTEN_WAIT).next();
                    match next {
                        Ok(Some(_)) => changed.store(true, Ordering::Release),
                        Ok(None) if !client.is_closed() => {}
                        _ => {
                            // Lost: boundaries ask the store until this listens again.
                            alive.store(false, Ordering::Release);
                            while !stop.load(Ordering::Relaxed) {
                                std::thread::sleep(RECONNECT_WAIT);
                                if let Ok(again) = listen(&url) {
                                    client = again;
                                    // What was published meanwhile was not heard.
                                    changed.store(true, Ordering::Release);
                                    alive.store(true, Ordering::Release);
                                    break;
                                }
                            }
                        }
                    }
                }
            })
            .map_err(|e| unavailable(doing, e))?;
        Ok(listener)
    }
}
