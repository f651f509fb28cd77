//! `--store` and `tool-intent registry publish|versions|gc`: registry versions in a store that
//! several processes share (`tool-intent-store`). With `--store`, a command plans on the
//! store's newest version — or on the version `--state` was stamped with — whatever the local
//! flags build; those build what `registry publish` publishes.

use serde_json::json;
use tool_intent::{Error, Registry};
use tool_intent_store::{
    open, split, Expect, GcReport, Publication, Retention, SharedRegistry, VersionRow,
};

use crate::args::RegistryCommand;
use crate::input::{pretty, CliError, Flag};
use crate::load::local_registry;
use crate::tables;

/// `tool-intent registry publish|versions|gc`.
pub(crate) fn command(command: RegistryCommand) -> Result<String, CliError> {
    match command {
        RegistryCommand::Publish { registry, json } => {
            let Some(spec) = registry.store.clone() else {
                return Err(CliError::Usage(
                    "--store: registry publish needs a store (a SQLite file or a postgres:// URL)"
                        .into(),
                ));
            };
            let local = local_registry(&registry)?;
            let (row, new) = publish(&spec, &local).flag("--store")?;
            Ok(if json {
                pretty(&json!({"published": new, "version": row}))?
            } else {
                format!(
                    "{} {} (sequence {}, {} tools)\n",
                    if new { "published" } else { "already newest:" },
                    row.fingerprint,
                    row.sequence,
                    row.tools
                )
            })
        }
        RegistryCommand::Versions { store: spec, json } => {
            let rows = versions(&spec).flag("--store")?;
            Ok(if json {
                pretty(&rows)?
            } else {
                versions_table(&rows)
            })
        }
        RegistryCommand::Gc {
            store: spec,
            keep_newest,
            keep_hours,
            json,
        } => {
            let retention = Retention::from_options(Some(keep_newest), Some(keep_hours))
                .flag("--keep-hours")?;
            let report = gc(&spec, &retention).flag("--store")?;
            Ok(if json {
                pretty(&report)?
            } else {
                format!(
                    "removed {}, {}; {} held\n",
                    tables::counted(report.removed.len(), "version", "versions"),
                    tables::counted(report.tools_removed, "tool", "tools"),
                    tables::counted(report.kept, "version", "versions"),
                )
            })
        }
    }
}

/// The registry a command plans on: the store's newest version, or, for a state stamped with
/// a version, that version with the versions before it (as every server process of the store
/// plans that turn: `SharedRegistry::registry_for`).
pub(crate) fn published(spec: &str, stamp: Option<&str>) -> Result<Registry, Error> {
    let mut shared = SharedRegistry::join(open(spec)?)?;
    match stamp {
        Some(stamp) => shared.registry_for(stamp),
        None => Ok(shared.current().clone()),
    }
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

/// `registry versions` for people: a header, then one line a version, with whether the store
/// still holds its tools (`gc` removes them), how long ago it was published and a turn was
/// last planned on it (what `gc` keeps by).
pub(crate) fn versions_table(rows: &[VersionRow]) -> String {
    let now = tool_intent_store::now_ms();
    if rows.is_empty() {
        return "no version published\n".to_string();
    }
    let width = rows.iter().map(|r| r.fingerprint.len()).max().unwrap_or(0);
    let mut out = format!(
        "{:>8}  {:<width$}  {:>5}  {:<9}  when\n",
        "sequence", "fingerprint", "tools", "tools are"
    );
    for r in rows {
        out.push_str(&format!(
            "{:>8}  {:<width$}  {:>5}  {:<9}  published {} ago, {}\n",
            r.sequence,
            r.fingerprint,
            r.tools,
            if r.removed { "removed" } else { "held" },
            age(now - r.published_ms),
            r.used_ms
                .map_or("no turn planned on it".to_string(), |at| format!(
                    "last planned on {} ago",
                    age(now - at)
                ))
        ));
    }
    out
}

/// A duration for people: `42 s`, `17 min`, `5 h`, `3 d` (rounded down; a clock behind the
/// publisher's reads `0 s`).
fn age(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min", s / 60),
        3600..86400 => format!("{} h", s / 3600),
        _ => format!("{} d", s / 86400),
    }
}
