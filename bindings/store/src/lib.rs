//! Registry versions of tool-intent in a store several server processes share, so that every
//! process plans a session's turn on the same tool bytes and a session's version only moves
//! forward (`docs/fleet.md`, "Running a fleet").
//!
//! A registry version lives in one process's memory otherwise: a turn whose next request lands
//! on another process, or on the same one after a restart, would run on that process's current
//! registry and change the tool array mid-turn. Here a version is written once to a
//! [`VersionStore`] — content-addressed by its fingerprint, its tools shared with every other
//! version that has them (`document.rs`), numbered by the store in one total order — and a
//! [`SharedRegistry`] in each process plans every request of a turn on the version the turn
//! began on (read back from the store when this process never held it), and adopts the
//! store's newest version at each turn boundary.
//!
//! Three stores: [`MemoryStore`] (one process, or tests), `SqliteStore` (feature `sqlite`, the
//! default: one file the processes of one machine share; a new version is noticed through
//! SQLite's `data_version`) and `PostgresStore` (feature `postgres`: a fleet; new versions are
//! announced by `NOTIFY`). [`open`] picks one from a path or a `postgres://` URL
//! ([`DatabaseSpec`], which the session migration reads its `--db` with too).

mod document;
mod memory;
mod open;
#[cfg(feature = "postgres")]
mod postgres;
mod retention;
mod row;
mod shared;
mod spec;
#[cfg(feature = "sqlite")]
mod sqlite;

pub use document::{digests_of, rebuild, split, StoredVersion};
pub use memory::MemoryStore;
pub use open::open;
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
pub use retention::{GcReport, Retention};
#[cfg(feature = "model")]
pub use shared::SharedEmbeddings;
pub use shared::{Followed, SharedRegistry};
pub use spec::DatabaseSpec;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;

use serde::Serialize;
use tool_intent::error::StoreFault;
use tool_intent::{Error, Registry, Result};

/// The store's schema version. A store written by a newer release (a higher number) is
/// refused (`store_schema_newer`) rather than read with rules this release does not know.
pub const SCHEMA_VERSION: i64 = 1;

/// The store's tables, one text for both databases: `{int}` is their 64-bit integer type and
/// `{bytes}` their byte-string type (SQLite `INTEGER`/`BLOB`, PostgreSQL `BIGINT`/`BYTEA`).
/// `tool_intent_store_meta` holds the schema version; a version's row in
/// `tool_intent_versions` stays when `gc` removes its document; `tool_intent_use` holds when a
/// process last planned a turn on a version.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn schema(int: &str, bytes: &str) -> String {
    "CREATE TABLE IF NOT EXISTS tool_intent_store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tool_intent_tools (digest TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tool_intent_documents (
  fingerprint TEXT PRIMARY KEY, skeleton TEXT NOT NULL, tools {int} NOT NULL);
CREATE TABLE IF NOT EXISTS tool_intent_versions (
  seq {int} PRIMARY KEY, fingerprint TEXT NOT NULL, published_ms {int} NOT NULL);
CREATE INDEX IF NOT EXISTS tool_intent_versions_by_fingerprint ON tool_intent_versions (fingerprint);
CREATE TABLE IF NOT EXISTS tool_intent_use (fingerprint TEXT PRIMARY KEY, used_ms {int} NOT NULL);
CREATE TABLE IF NOT EXISTS tool_intent_embeddings (
  model TEXT NOT NULL, text TEXT NOT NULL, vector {bytes} NOT NULL, PRIMARY KEY (model, text));
"
    .replace("{int}", int)
    .replace("{bytes}", bytes)
}

/// The columns of a [`VersionRow`] (sequence, fingerprint, publication time, tools or `NULL`
/// once removed, last use or `NULL`), for both databases; a query adds its `WHERE` and
/// `ORDER BY`.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) const ROW: &str = "SELECT v.seq, v.fingerprint, v.published_ms, d.tools, u.used_ms \
    FROM tool_intent_versions v LEFT JOIN tool_intent_documents d ON d.fingerprint = v.fingerprint \
    LEFT JOIN tool_intent_use u ON u.fingerprint = v.fingerprint";

/// One published version of the store's sequence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionRow {
    /// The store's total order: 1 for the first version published, then one more each time.
    pub sequence: u64,
    /// The registry's fingerprint.
    pub fingerprint: String,
    /// When it was published (milliseconds since the Unix epoch, the publisher's clock).
    pub published_ms: i64,
    /// Tools in the version (0 once removed).
    pub tools: usize,
    /// Removed by [`VersionStore::gc`]: the store still knows its place in the order (a
    /// session stamped with it moves forward at its next turn boundary), not its tools.
    pub removed: bool,
    /// When a process last planned a turn on it (milliseconds since the Unix epoch; marked
    /// at most once a minute per process, [`VersionStore::mark_used`]), if one ever did.
    pub used_ms: Option<i64>,
}

/// What a publication expects the store's newest version to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Whatever it is (a deploy publishes its registry on top of everything).
    Anything,
    /// This sequence number (`None`: an empty store): a change made from that version, which
    /// must be made again from the newest if another process published first.
    Newest(Option<u64>),
}

/// The outcome of [`VersionStore::publish`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Publication {
    /// A new version, now the newest.
    Published(VersionRow),
    /// The newest version already has this fingerprint: nothing was written.
    Unchanged(VersionRow),
    /// The newest version is not the one expected ([`Expect::Newest`]): nothing was written.
    Conflict {
        /// The store's newest version.
        newest: Option<VersionRow>,
    },
}

/// Where registry versions are kept for several processes: one trait, a store per backend.
/// Every method may fail with `store_unavailable`; what a store reads back is checked
/// (`corrupt_version`, `store_schema_newer`), never trusted.
pub trait VersionStore: Send {
    /// Writes `version` as the newest, if the newest is what `expect` says; the same
    /// fingerprint as the newest writes nothing. Two processes publishing at once are ordered
    /// by the store: one is first, the other sees it (a conflict, or a version after it).
    fn publish(&mut self, version: &StoredVersion, expect: Expect) -> Result<Publication>;

    /// The newest version, if any.
    fn newest(&mut self) -> Result<Option<VersionRow>>;

    /// The newest row naming `fingerprint` (removed or not), if the store ever had it.
    fn find(&mut self, fingerprint: &str) -> Result<Option<VersionRow>>;

    /// The registry of a version the store holds, rebuilt and checked against its
    /// fingerprint; `None` if the store does not hold it (never published, or removed).
    fn load(&mut self, fingerprint: &str) -> Result<Option<Registry>>;

    /// Every version, in sequence order.
    fn versions(&mut self) -> Result<Vec<VersionRow>>;

    /// Whether another process may have published since the last call (cheap: SQLite's
    /// `data_version`, PostgreSQL's notifications; `true` when it cannot tell).
    fn changed(&mut self) -> Result<bool>;

    /// Records that a turn was planned on the version `fingerprint` at `now_ms` (a later
    /// mark wins), so that [`VersionStore::gc`] keeps the versions live turns use.
    fn mark_used(&mut self, fingerprint: &str, now_ms: i64) -> Result<()>;

    /// Removes the versions `retention` lets go, except `in_use` (fingerprints a caller knows
    /// a live turn uses) and the newest; then the tools no kept version has.
    fn gc(&mut self, retention: &Retention, now_ms: i64, in_use: &[&str]) -> Result<GcReport>;

    /// The tool embeddings the model ranker with the weights `model` (their fingerprint) has
    /// shared: (tool text, 384 little-endian `f32`s).
    fn embeddings(&mut self, model: &str) -> Result<Vec<(String, Vec<u8>)>>;

    /// Shares tool embeddings of the model `model`; texts already stored are left as they are
    /// (the same weights give the same bits).
    fn add_embeddings(&mut self, model: &str, rows: &[(String, Vec<u8>)]) -> Result<()>;

    /// What the store is, for messages and reports (`sqlite`, `postgres`, `memory`).
    fn kind(&self) -> &'static str;

    /// The bytes the store takes (SQLite: the file's pages; PostgreSQL: its tables with their
    /// indexes and TOAST; memory: the texts held).
    fn size_bytes(&mut self) -> Result<u64>;
}

/// The rule every store applies to a publication under its write lock, from its newest row:
/// `Err` with the outcome when nothing is to be written (a conflict, or the same fingerprint
/// as the newest), else the row the new version gets.
pub(crate) fn decide(
    newest: Option<VersionRow>,
    version: &StoredVersion,
    expect: Expect,
) -> std::result::Result<VersionRow, Publication> {
    if let Expect::Newest(expected) = expect {
        if newest.as_ref().map(|r| r.sequence) != expected {
            return Err(Publication::Conflict { newest });
        }
    }
    if let Some(n) = newest
        .as_ref()
        .filter(|n| n.fingerprint == version.fingerprint)
    {
        return Err(Publication::Unchanged(n.clone()));
    }
    Ok(VersionRow {
        sequence: newest.map_or(1, |n| n.sequence + 1),
        fingerprint: version.fingerprint.clone(),
        published_ms: now_ms(),
        tools: version.tools.len(),
        removed: false,
        // Not read here: a fingerprint published again keeps its marks, which the rows read
        // back (`versions`, `find`) carry.
        used_ms: None,
    })
}

/// `store_unavailable` with what was being done.
pub(crate) fn unavailable(doing: &str, e: impl std::fmt::Display) -> Error {
    Error::Store {
        fault: StoreFault::Unavailable,
        message: format!("the registry store failed {doing}: {e}"),
    }
}

/// `store_schema_newer` for a schema version above this release's; `corrupt_version` for one
/// no release writes (not a number from 1: a table edited by hand).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn schema_is_known(written: &str) -> Result<()> {
    match written.parse::<i64>() {
        Ok(v) if (1..=SCHEMA_VERSION).contains(&v) => Ok(()),
        Ok(v) if v > SCHEMA_VERSION => Err(Error::Store {
            fault: StoreFault::NewerSchema,
            message: format!(
                "the registry store has schema version {v}; this release reads up to {SCHEMA_VERSION}: upgrade tool-intent before using this store"
            ),
        }),
        _ => Err(Error::Store {
            fault: StoreFault::CorruptVersion,
            message: format!(
                "the registry store's schema version {} is not one any release writes (a number from 1)",
                tool_intent::error::quoted(written)
            ),
        }),
    }
}

/// Milliseconds since the Unix epoch (0 if the clock is before it).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Tests' `gc`: keep only the newest version (and whatever `in_use` and the turns planned on
/// them need), a millisecond from now, so nothing is kept for its age.
#[cfg(test)]
pub(crate) fn gc_to_newest(store: &mut dyn VersionStore, in_use: &[&str]) -> GcReport {
    let retention = Retention {
        keep_newest: 1,
        keep_for_ms: 0,
    };
    store.gc(&retention, now_ms() + 1, in_use).unwrap()
}
