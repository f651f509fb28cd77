//! One process's view of the shared versions: the registry it plans on, and the rules that
//! keep a session's tool bytes the same whichever process serves it.
//!
//! - **Within a turn** every request plans on the version the turn began on (its state's
//!   `registry` stamp), read back from the store when this process does not hold it — and
//!   with the same earlier versions beside it on every process: the
//!   [`KEPT_VERSIONS`] versions before it in the store's order. A stored conversation record
//!   is checked against the versions held (`turn/record_check.rs`), so a process holding
//!   other versions than another would send other change messages; here what a request sends
//!   is a function of its state and the store alone. A stamp the store does not know (never
//!   published there, or removed by `gc`) is `unknown_version` naming it, never a plan on
//!   other bytes.
//! - **At a turn boundary** ([`SharedRegistry::begin_turn`]) the process first adopts the
//!   store's newest version if another process published one, and a session stamped with a
//!   version newer than the process's own makes the process load that one: a session's version
//!   only moves forward in the store's order.
//! - **Changes** made from this process ([`SharedRegistry::change`]: a `list_changed` from an
//!   MCP server, a removal) are made again from the store's newest version when another
//!   process published first, so neither change is lost and every process agrees on the
//!   order. A whole registry ([`SharedRegistry::publish`], a deploy) goes on top of whatever
//!   is newest.
//!
//! A turn's dispatch ([`Turn::resolve`]) checks the turn's own version: a tool a newer version
//! removed stays callable until the session's next boundary (a process's own registry answers
//! `tool_removed` at once; across processes, "removed" depends on which process heard of the
//! removal first, and a turn must not depend on that).
//!
//! Every change is shared: a tool only this process could run (its own stdio MCP server) would
//! be offered by every process, so such servers belong to a registry of their own process,
//! outside the store (`docs/fleet.md`).

use std::collections::BTreeMap;

use tool_intent::error::StoreFault;
use tool_intent::registry::KEPT_VERSIONS;
use tool_intent::turn::View;
use tool_intent::{Error, Registry, Result, Turn, TurnRequest, TurnState};

use crate::row::registry_of;
use crate::{split, Expect, Publication, VersionRow, VersionStore};

/// What [`SharedRegistry::follow`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Followed {
    /// The process already plans on the newest version.
    Unchanged,
    /// The process now plans on this newer version.
    Adopted(VersionRow),
}

/// A process's registry, following a [`VersionStore`].
pub struct SharedRegistry {
    store: Box<dyn VersionStore>,
    current: Registry,
    sequence: u64,
    /// Sequence numbers of the versions this process has seen, by fingerprint.
    known: BTreeMap<String, u64>,
    /// The store's rows up to the newest this process has listed (rows never change once
    /// written, but for `gc`'s removal), by sequence.
    rows: Vec<VersionRow>,
    /// Registries read back from the store, by fingerprint (at most [`CACHED`]).
    loaded: BTreeMap<String, Registry>,
    /// The registry each recent stamp plans on (the stamp's version holding the versions
    /// before it), by stamp.
    planning: BTreeMap<String, Registry>,
    /// When this process last marked each version used in the store, by fingerprint.
    marked: BTreeMap<String, i64>,
    /// The model ranker every version gets, with its weights' fingerprint (the ranker keeps
    /// which of its embeddings the store does not have yet).
    #[cfg(feature = "model")]
    model: Option<(tool_intent::search::ModelRanker, String)>,
}

/// Versions kept read back from the store, and stamps kept planned, before the cache is
/// cleared (a fleet's sessions name a handful of recent versions).
const CACHED: usize = 64;

/// How often a process marks a version it plans on as used (milliseconds): `gc` keeps a
/// version used within its window, so a live turn's version stays; once a minute keeps the
/// writes to one per version per process per minute.
const MARK_EVERY_MS: i64 = 60_000;

fn unknown(stamp: &str, kind: &str, why: &str) -> Error {
    Error::Store {
        fault: StoreFault::UnknownVersion,
        message: format!(
            "the turn state names registry version {stamp}, which the {kind} store {why}; a turn is never planned on other tools than those it began with"
        ),
    }
}

impl SharedRegistry {
    /// Joins `store`: the process plans on the store's newest version, and an empty store
    /// first gets `initial` as its first version. A process's own registry is never published
    /// by joining (a process of an older deploy restarting must not undo a newer one): that is
    /// [`SharedRegistry::publish`]'s job.
    pub fn open(mut store: Box<dyn VersionStore>, initial: &Registry) -> Result<SharedRegistry> {
        let newest = match store.newest()? {
            Some(row) => row,
            None => match store.publish(&split(initial), Expect::Newest(None))? {
                Publication::Published(row) | Publication::Unchanged(row) => row,
                Publication::Conflict { newest } => newest.ok_or_else(|| {
                    tool_intent::Error::internal("the store reported a conflict with no version")
                })?,
            },
        };
        // Marks what this process has seen, so `follow` reports only later publications.
        store.changed()?;
        Self::following(store, newest)
    }

    /// Joins a store that holds a version already (`unknown_version` when it holds none): what
    /// a process that must not publish uses (the CLI's `--store`).
    pub fn join(mut store: Box<dyn VersionStore>) -> Result<SharedRegistry> {
        let kind = store.kind();
        let newest = store.newest()?.ok_or_else(|| Error::Store {
            fault: StoreFault::UnknownVersion,
            message: format!(
                "the {kind} store holds no registry version yet: publish one first (`tool-intent registry publish --store ...`)"
            ),
        })?;
        store.changed()?;
        Self::following(store, newest)
    }

    fn following(mut store: Box<dyn VersionStore>, newest: VersionRow) -> Result<SharedRegistry> {
        let current = registry_of(store.as_mut(), &newest)?;
        let mut known = BTreeMap::new();
        known.insert(newest.fingerprint.clone(), newest.sequence);
        Ok(SharedRegistry {
            store,
            current,
            sequence: newest.sequence,
            known,
            rows: Vec::new(),
            loaded: BTreeMap::new(),
            planning: BTreeMap::new(),
            marked: BTreeMap::new(),
            #[cfg(feature = "model")]
            model: None,
        })
    }

    /// The registry this process plans new turns on.
    pub fn current(&self) -> &Registry {
        &self.current
    }

    /// The store's sequence number of [`SharedRegistry::current`].
    pub fn sequence(&self) -> u64 {
        self.sequence
    }

    /// The store, for listing and `gc`.
    pub fn store(&mut self) -> &mut dyn VersionStore {
        self.store.as_mut()
    }

    /// Adopts the store's newest version if another process published one since the last
    /// look (one cheap check when nothing changed).
    pub fn follow(&mut self) -> Result<Followed> {
        if !self.store.changed()? {
            return Ok(Followed::Unchanged);
        }
        match self.store.newest()? {
            Some(row) if row.sequence > self.sequence => {
                self.adopt(&row)?;
                Ok(Followed::Adopted(row))
            }
            _ => Ok(Followed::Unchanged),
        }
    }

    /// `registry` with this process's model ranker, if it has one.
    fn with_ranker(&self, registry: Registry) -> Registry {
        #[cfg(feature = "model")]
        if let Some((ranker, _)) = &self.model {
            return registry.with_model(ranker.clone());
        }
        registry
    }

    fn adopt(&mut self, row: &VersionRow) -> Result<()> {
        let version = registry_of(self.store.as_mut(), row)?;
        let version = self.with_ranker(version);
        self.plan_on(&version, row);
        Ok(())
    }

    /// Plans new turns on `version`, the store's `row`; the version this process planned on
    /// stays held for turns still running on it.
    fn plan_on(&mut self, version: &Registry, row: &VersionRow) {
        self.current = version.holding(&self.current);
        self.sequence = row.sequence;
        self.known.insert(row.fingerprint.clone(), row.sequence);
    }

    /// The row of a version the store knows.
    fn row_of(&mut self, stamp: &str) -> Result<VersionRow> {
        let kind = self.store.kind();
        let row = self
            .store
            .find(stamp)?
            .ok_or_else(|| unknown(stamp, kind, "has never held"))?;
        self.known.insert(row.fingerprint.clone(), row.sequence);
        Ok(row)
    }

    /// A turn boundary: adopts the store's newest version, moves a session stamped with a
    /// newer version than this process's to that version, and stamps the state with the
    /// version the turn runs on ([`Registry::begin_turn`]).
    pub fn begin_turn(&mut self, state: &TurnState) -> Result<TurnState> {
        #[cfg(feature = "model")]
        self.share_embeddings()?;
        self.follow()?;
        if let Some(stamp) = state.registry.as_deref() {
            let sequence = match self.known.get(stamp) {
                Some(&s) => s,
                None => self.row_of(stamp)?.sequence,
            };
            if sequence > self.sequence {
                let row = self.row_of(stamp)?;
                let newest = self.store.newest()?.unwrap_or(row);
                self.adopt(&newest)?;
            }
        }
        Ok(self.current.begin_turn(state))
    }

    /// A turn of `request`, planned on the version its state was stamped with and the
    /// versions before it in the store's order (read back from the store when this process
    /// does not hold them). A stamp newer than this process's version moves the process
    /// forward to the store's newest. A request without a stamp, or with the live view, plans
    /// on the process's current version. The version is marked used in the store (at most
    /// once a minute), so `gc` keeps it while the turn lives.
    pub fn turn(&mut self, request: &TurnRequest) -> Result<Turn> {
        let stamp = request
            .state
            .registry
            .as_deref()
            .filter(|_| request.view == View::Frozen);
        let registry = match stamp {
            Some(stamp) => self.registry_for(stamp)?,
            None => self.current.clone(),
        };
        self.mark_used(registry.fingerprint())?;
        registry.turn(request)
    }

    /// Marks `fingerprint` used in the store unless this process did within the last
    /// [`MARK_EVERY_MS`].
    fn mark_used(&mut self, fingerprint: &str) -> Result<()> {
        let now = crate::now_ms();
        if self
            .marked
            .get(fingerprint)
            .is_some_and(|&at| now - at < MARK_EVERY_MS)
        {
            return Ok(());
        }
        self.store.mark_used(fingerprint, now)?;
        if self.marked.len() >= CACHED {
            self.marked.clear();
        }
        self.marked.insert(fingerprint.to_string(), now);
        Ok(())
    }

    /// The registry a turn stamped with `stamp` plans on: that version, holding the
    /// [`KEPT_VERSIONS`] versions before it in the store's order (those the store still
    /// holds), the same on every process.
    pub fn registry_for(&mut self, stamp: &str) -> Result<Registry> {
        if let Some(r) = self.planning.get(stamp) {
            return Ok(r.clone());
        }
        // The version's first row: rows never change once written, so every process finds
        // the same place in the order for a stamp (a registry published again later, a
        // rollback, keeps its first place).
        let kind = self.store.kind();
        let first_row = |rows: &[VersionRow]| rows.iter().find(|r| r.fingerprint == stamp).cloned();
        let row = match first_row(&self.rows) {
            Some(row) => row,
            None => {
                self.rows = self.store.versions()?;
                first_row(&self.rows).ok_or_else(|| unknown(stamp, kind, "has never held"))?
            }
        };
        if self
            .rows
            .iter()
            .any(|r| r.fingerprint == stamp && r.removed)
        {
            return Err(unknown(stamp, kind, "no longer holds (removed by gc)"));
        }
        let newest_row = self
            .rows
            .iter()
            .rev()
            .find(|r| r.fingerprint == stamp)
            .map(|r| r.sequence);
        if newest_row.is_some_and(|s| s > self.sequence) {
            if let Some(newest) = self.store.newest()? {
                self.adopt(&newest)?;
            }
        }
        let before: Vec<VersionRow> = self
            .rows
            .iter()
            .filter(|r| r.sequence < row.sequence && !r.removed && r.fingerprint != row.fingerprint)
            .rev()
            .take(KEPT_VERSIONS)
            .cloned()
            .collect();
        let mut planning = self.version(&row.fingerprint)?;
        // Oldest first: `holding` puts each in front, so the newest earlier version leads.
        for earlier in before.iter().rev() {
            let version = self.version(&earlier.fingerprint)?;
            planning = planning.holding(&version);
        }
        if self.planning.len() >= CACHED {
            self.planning.clear();
        }
        self.planning.insert(stamp.to_string(), planning.clone());
        Ok(planning)
    }

    /// A version's registry, read back from the store once.
    fn version(&mut self, fingerprint: &str) -> Result<Registry> {
        if let Some(r) = self.loaded.get(fingerprint) {
            return Ok(r.clone());
        }
        let r = if self.current.fingerprint() == fingerprint {
            self.current.clone()
        } else {
            let version = load(self.store.as_mut(), fingerprint)?;
            self.with_ranker(version)
        };
        if self.loaded.len() >= CACHED {
            self.loaded.clear();
        }
        self.loaded.insert(fingerprint.to_string(), r.clone());
        Ok(r)
    }
}

/// The registry of the version a turn state names: one the store does not hold is
/// `unknown_version`.
fn load(store: &mut dyn VersionStore, fingerprint: &str) -> Result<Registry> {
    let kind = store.kind();
    store
        .load(fingerprint)?
        .ok_or_else(|| unknown(fingerprint, kind, "does not hold"))
}

#[cfg(feature = "model")]
mod embeddings;
mod publish;
#[cfg(feature = "model")]
pub use embeddings::SharedEmbeddings;

#[cfg(test)]
mod tests;
