//! `--store` and `tool-intent registry publish|versions|gc`: registry versions in a store that
//! several processes share (`tool-intent-store`). With `--store`, a command plans on the
//! store's newest version — or on the version `--state` was stamped with — whatever the local
//! flags build; those build what `registry publish` publishes.

use tool_intent::error::StoreFault;
use tool_intent::{Error, Registry};
use tool_intent_store::{open, split, Expect, GcReport, Publication, Retention, VersionRow};

fn unknown(message: String) -> Error {
    Error::Store {
        fault: StoreFault::UnknownVersion,
        message,
    }
}

/// The registry a command plans on: the store's newest version, also holding the version
/// `stamp` names when that is an older one (a turn that began on it runs on it).
pub(crate) fn published(spec: &str, stamp: Option<&str>) -> Result<Registry, Error> {
    let mut store = open(spec)?;
    let newest = store.newest()?.ok_or_else(|| {
        unknown(format!(
            "the store {spec} holds no registry version yet: publish one with `tool-intent registry publish --store {spec}`"
        ))
    })?;
    let current = store.load(&newest.fingerprint)?.ok_or_else(|| {
        unknown(format!(
            "the store {spec} lost its newest version {}",
            newest.fingerprint
        ))
    })?;
    let Some(stamp) = stamp.filter(|s| *s != newest.fingerprint) else {
        return Ok(current);
    };
    let row = store.find(stamp)?.ok_or_else(|| {
        unknown(format!(
            "the state names registry version {stamp}, which the store {spec} has never held"
        ))
    })?;
    if row.removed {
        return Err(unknown(format!(
            "the state names registry version {stamp}, which the store {spec} no longer holds (removed by gc)"
        )));
    }
    let version = store
        .load(stamp)?
        .ok_or_else(|| unknown(format!("the store {spec} no longer holds {stamp}")))?;
    Ok(current.holding(&version))
}

/// Publishes `registry` as the store's newest version (nothing new when it already is).
pub(crate) fn publish(spec: &str, registry: &Registry) -> Result<(VersionRow, bool), Error> {
    let mut store = open(spec)?;
    match store.publish(&split(registry), Expect::Anything)? {
        Publication::Published(row) => Ok((row, true)),
        Publication::Unchanged(row) => Ok((row, false)),
        Publication::Conflict { .. } => Err(Error::internal(
            "the store reported a conflict for a publication that expected none",
        )),
    }
}

/// Every version of the store, oldest first.
pub(crate) fn versions(spec: &str) -> Result<Vec<VersionRow>, Error> {
    open(spec)?.versions()
}

/// Removes what `retention` lets go.
pub(crate) fn gc(spec: &str, retention: &Retention) -> Result<GcReport, Error> {
    open(spec)?.gc(retention, tool_intent_store::now_ms(), &[])
}

/// `registry versions` for people: one line a version.
pub(crate) fn versions_table(rows: &[VersionRow]) -> String {
    let mut out = String::new();
    for r in rows {
        out.push_str(&format!(
            "{:>6}  {}  {:>5} tools  {}\n",
            r.sequence,
            r.fingerprint,
            r.tools,
            if r.removed { "removed" } else { "held" }
        ));
    }
    if rows.is_empty() {
        out.push_str("no version published\n");
    }
    out
}
