//! Legacy snapshot recovery (native only; not in the wasm build).
//!
//! Sessions written by the old code hold materialised tool lists (`docs/contract.md`, "Legacy snapshots"): a writer
//! expanded `default_tools` (or a preset) into `list[str]` and stored it, so those sessions
//! never see a tool added later. A stored list is a **snapshot** when, compared as a set, it
//! equals a known expansion — any `history` version or the current version of
//! `default_tools`, or of a toolset's available tools — with or without `web_search`. A
//! snapshot becomes the equivalent intent (`{"enabled":true}`, `{"toolset":"research"}`, plus
//! `"web_search":true` where the list held web_search and the base did not). Every other list
//! is a real hand-pick and stays byte-identical.
//!
//! [`migrate`] works on a real SQLite table with the session columns (`tools_enabled`,
//! `tools_override` as JSON text, optionally `web_search` and `toolset`): it adds the missing
//! columns, rewrites snapshot rows' `tools_override` in **one transaction**, keeps each row's
//! original values in a backup table (`<table>__tool_intent_backup`, keyed by rowid), and is
//! idempotent. `dry_run` changes nothing and reports the same. [`undo`] restores every backed-up
//! row and drops the backup. [`audit`] lists rows that still hold snapshots.
//!
//! `progress(done, total)` is called inside the transaction, every 1% of the rows: the CLI's
//! fault-injection hooks for the abort and kill tests (feature `test-hooks`) hang on it, so
//! the library itself reads no environment.

use std::collections::BTreeMap;
use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::registry::Registry;

mod snapshot;

pub use snapshot::{SnapshotIndex, StoredKind};

/// Options of a migration run.
#[derive(Debug, Clone)]
pub struct MigrateOptions {
    /// The session table.
    pub table: String,
    /// Report only; change nothing.
    pub dry_run: bool,
}

/// What a run found and did.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The session table.
    pub table: String,
    /// Whether nothing was changed.
    pub dry_run: bool,
    /// Whether this was an undo run.
    pub undo: bool,
    /// Rows read.
    pub rows_read: u64,
    /// Rows whose override was null (nothing to do).
    pub null_rows: u64,
    /// Rows that already held an intent object.
    pub intents_kept: u64,
    /// Rows that held a real hand-pick (left byte-identical).
    pub hand_picks_kept: u64,
    /// Snapshot rows rewritten (or, in a dry run, that would be), by what they matched.
    pub snapshots_rewritten: BTreeMap<String, u64>,
    /// Rows left alone because they could not be read.
    pub unreadable_rows: Vec<UnreadableRow>,
    /// Columns the run added to the table (`web_search`, `toolset`).
    pub columns_added: Vec<String>,
    /// Where the originals are kept.
    pub backup_table: String,
    /// Rows restored by an undo run.
    pub rows_restored: u64,
}

/// A row a run could not read.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UnreadableRow {
    /// The row's rowid.
    pub rowid: i64,
    /// Why.
    pub reason: String,
}

impl Report {
    /// Snapshot rows rewritten in all.
    pub fn snapshots_total(&self) -> u64 {
        self.snapshots_rewritten.values().sum()
    }

    /// The report as people read it.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.undo {
            out.push_str(&format!(
                "undo: restored {} row(s) of {} from {}\n",
                self.rows_restored, self.table, self.backup_table
            ));
            return out;
        }
        let line =
            |out: &mut String, label: &str, n: u64| out.push_str(&format!("  {label:<22}{n:>8}\n"));
        let header = if self.dry_run {
            " (dry run, nothing changed)"
        } else {
            ""
        };
        out.push_str(&format!("migrate{header}: table {}\n", self.table));
        line(&mut out, "rows read", self.rows_read);
        line(&mut out, "null (follow)", self.null_rows);
        line(&mut out, "intents kept", self.intents_kept);
        line(&mut out, "hand-picks kept", self.hand_picks_kept);
        let rewritten = if self.dry_run {
            "snapshots to rewrite"
        } else {
            "snapshots rewritten"
        };
        line(&mut out, rewritten, self.snapshots_total());
        for (k, n) in &self.snapshots_rewritten {
            out.push_str(&format!("    {k:<36}{n:>8}\n"));
        }
        line(&mut out, "unreadable", self.unreadable_rows.len() as u64);
        for r in self.unreadable_rows.iter().take(20) {
            out.push_str(&format!("    row {}: {}\n", r.rowid, r.reason));
        }
        if self.unreadable_rows.len() > 20 {
            out.push_str(&format!(
                "    ... and {} more (see --json)\n",
                self.unreadable_rows.len() - 20
            ));
        }
        if !self.columns_added.is_empty() {
            out.push_str(&format!(
                "  columns {}: {}\n",
                if self.dry_run { "to add" } else { "added" },
                self.columns_added.join(", ")
            ));
        }
        if !self.dry_run && self.snapshots_total() > 0 {
            out.push_str(&format!(
                "  originals kept in {} (undo: tool-intent migrate --undo)\n",
                self.backup_table
            ));
        }
        out
    }
}

/// A row that still holds a snapshot.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct AuditRow {
    /// The row's rowid.
    pub rowid: i64,
    /// Which known expansion it equals.
    pub matched: String,
    /// The canonical intent a migration would store.
    pub intent: String,
}

fn db_error(e: rusqlite::Error) -> Error {
    Error::Database {
        message: e.to_string(),
        source: Some(crate::error::SourceError::new(e)),
    }
}

fn check_table_name(table: &str) -> Result<()> {
    let ok = !table.is_empty()
        && table.len() <= 128
        && table
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !table.starts_with(|c: char| c.is_ascii_digit());
    if ok {
        Ok(())
    } else {
        Err(Error::argument(
            "table",
            format!("{table:?} is not a plain table name (letters, digits, _)"),
        ))
    }
}

fn backup_name(table: &str) -> String {
    format!("{table}__tool_intent_backup")
}

fn open(db: &Path) -> Result<Connection> {
    if !db.exists() {
        return Err(Error::Database {
            message: format!("no database at {}", db.display()),
            source: None,
        });
    }
    Connection::open(db).map_err(db_error)
}

fn columns(conn: &Connection, table: &str) -> Result<Vec<String>> {
    let mut stmt = conn
        .prepare(&format!("PRAGMA table_info(\"{table}\")"))
        .map_err(db_error)?;
    let cols = stmt
        .query_map([], |r| r.get::<_, String>(1))
        .map_err(db_error)?
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(db_error)?;
    if cols.is_empty() {
        return Err(Error::Database {
            message: format!("no table {table:?} in the database"),
            source: None,
        });
    }
    for needed in ["tools_enabled", "tools_override"] {
        if !cols.iter().any(|c| c == needed) {
            return Err(Error::Database {
                message: format!("table {table:?} has no {needed} column"),
                source: None,
            });
        }
    }
    Ok(cols)
}

/// One stored row.
struct Row {
    rowid: i64,
    tools_enabled: Option<i64>,
    tools_override: Option<String>,
    web_search: Option<i64>,
    toolset: Option<String>,
}

fn read_rows(conn: &Connection, table: &str, cols: &[String]) -> Result<Vec<Row>> {
    let has = |c: &str| cols.iter().any(|x| x == c);
    let sql = format!(
        "SELECT rowid, tools_enabled, tools_override, {}, {} FROM \"{table}\" ORDER BY rowid",
        if has("web_search") {
            "web_search"
        } else {
            "NULL"
        },
        if has("toolset") { "toolset" } else { "NULL" },
    );
    let mut stmt = conn.prepare(&sql).map_err(db_error)?;
    let rows = stmt
        .query_map([], |r| {
            // Values of the wrong storage class read as unreadable text rather than failing.
            let text = |i: usize| -> rusqlite::Result<Option<String>> {
                Ok(match r.get_ref(i)? {
                    rusqlite::types::ValueRef::Null => None,
                    rusqlite::types::ValueRef::Text(t) => {
                        Some(String::from_utf8_lossy(t).into_owned())
                    }
                    rusqlite::types::ValueRef::Blob(b) => {
                        Some(String::from_utf8_lossy(b).into_owned())
                    }
                    rusqlite::types::ValueRef::Integer(n) => Some(n.to_string()),
                    rusqlite::types::ValueRef::Real(f) => Some(f.to_string()),
                })
            };
            let int = |i: usize| -> rusqlite::Result<Option<i64>> {
                Ok(match r.get_ref(i)? {
                    rusqlite::types::ValueRef::Integer(n) => Some(n),
                    _ => None,
                })
            };
            Ok(Row {
                rowid: r.get(0)?,
                tools_enabled: int(1)?,
                tools_override: text(2)?,
                web_search: int(3)?,
                toolset: text(4)?,
            })
        })
        .map_err(db_error)?
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(db_error)?;
    Ok(rows)
}

/// Migrates snapshot rows of `options.table` to intents (see the module docs).
/// `progress(done, total)` is called as rows are processed.
pub fn migrate(
    db: &Path,
    registry: &Registry,
    options: &MigrateOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Report> {
    check_table_name(&options.table)?;
    let mut conn = open(db)?;
    let table = options.table.as_str();
    let backup = backup_name(table);
    let index = SnapshotIndex::new(registry);

    // IMMEDIATE: take the write lock before reading, so no writer slips in between.
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db_error)?;
    let cols = columns(&tx, table)?;
    let mut report = Report {
        table: table.to_string(),
        dry_run: options.dry_run,
        backup_table: backup.clone(),
        ..Default::default()
    };
    for (col, ty) in [("web_search", "INTEGER"), ("toolset", "TEXT")] {
        if !cols.iter().any(|c| c == col) {
            report.columns_added.push(col.to_string());
            if !options.dry_run {
                tx.execute_batch(&format!("ALTER TABLE \"{table}\" ADD COLUMN {col} {ty}"))
                    .map_err(db_error)?;
            }
        }
    }
    let rows = read_rows(&tx, table, &cols)?;
    let total = rows.len() as u64;
    if !options.dry_run {
        tx.execute_batch(&format!(
            "CREATE TABLE IF NOT EXISTS \"{backup}\" (rowid INTEGER PRIMARY KEY, tools_enabled, tools_override, web_search, toolset, matched TEXT, migrated_at TEXT)"
        ))
        .map_err(db_error)?;
    }
    let step = (total / 100).max(1);
    {
        let mut save = tx
            .prepare(&format!("INSERT OR IGNORE INTO \"{backup}\" (rowid, tools_enabled, tools_override, web_search, toolset, matched, migrated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, datetime('now'))"))
            .ok();
        let mut update = tx
            .prepare(&format!(
                "UPDATE \"{table}\" SET tools_override = ?1 WHERE rowid = ?2"
            ))
            .map_err(db_error)?;
        for (n, row) in rows.iter().enumerate() {
            report.rows_read += 1;
            match index.classify_text(row.tools_override.as_deref()) {
                StoredKind::Null => report.null_rows += 1,
                StoredKind::Intent => report.intents_kept += 1,
                StoredKind::HandPick => report.hand_picks_kept += 1,
                StoredKind::Unreadable { reason } => report.unreadable_rows.push(UnreadableRow {
                    rowid: row.rowid,
                    reason,
                }),
                StoredKind::Snapshot { matched, intent } => {
                    *report
                        .snapshots_rewritten
                        .entry(matched.clone())
                        .or_default() += 1;
                    if !options.dry_run {
                        if let Some(save) = save.as_mut() {
                            save.execute(params![
                                row.rowid,
                                row.tools_enabled,
                                row.tools_override,
                                row.web_search,
                                row.toolset,
                                matched
                            ])
                            .map_err(db_error)?;
                        }
                        update
                            .execute(params![intent.to_canonical_json(), row.rowid])
                            .map_err(db_error)?;
                    }
                }
            }
            let done = n as u64 + 1;
            if done % step == 0 || done == total {
                progress(done, total);
            }
        }
    }
    if options.dry_run {
        tx.rollback().map_err(db_error)?;
    } else {
        tx.commit().map_err(db_error)?;
    }
    Ok(report)
}

/// Restores every backed-up row of `table` and drops the backup table, in one transaction.
pub fn undo(db: &Path, table: &str) -> Result<Report> {
    check_table_name(table)?;
    let mut conn = open(db)?;
    let backup = backup_name(table);
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db_error)?;
    columns(&tx, table)?;
    let exists: Option<String> = tx
        .query_row(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [&backup],
            |r| r.get(0),
        )
        .optional()
        .map_err(db_error)?;
    if exists.is_none() {
        return Err(Error::Database {
            message: format!("no backup table {backup:?}: nothing to undo"),
            source: None,
        });
    }
    let restored = tx
        .execute(
            &format!(
                "UPDATE \"{table}\" SET tools_enabled = b.tools_enabled, tools_override = b.tools_override, web_search = b.web_search, toolset = b.toolset FROM \"{backup}\" AS b WHERE \"{table}\".rowid = b.rowid"
            ),
            [],
        )
        .map_err(db_error)?;
    tx.execute_batch(&format!("DROP TABLE \"{backup}\""))
        .map_err(db_error)?;
    tx.commit().map_err(db_error)?;
    Ok(Report {
        table: table.to_string(),
        undo: true,
        backup_table: backup,
        rows_restored: restored as u64,
        ..Default::default()
    })
}

/// Rows of `table` that still hold legacy snapshots (read-only).
pub fn audit(db: &Path, table: &str, registry: &Registry) -> Result<Vec<AuditRow>> {
    check_table_name(table)?;
    let conn = open(db)?;
    let cols = columns(&conn, table)?;
    let index = SnapshotIndex::new(registry);
    Ok(read_rows(&conn, table, &cols)?
        .into_iter()
        .filter_map(
            |row| match index.classify_text(row.tools_override.as_deref()) {
                StoredKind::Snapshot { matched, intent } => Some(AuditRow {
                    rowid: row.rowid,
                    matched,
                    intent: intent.to_canonical_json(),
                }),
                _ => None,
            },
        )
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_are_plain_identifiers() {
        assert!(check_table_name("sessions").is_ok());
        assert!(check_table_name("x\"; DROP TABLE y; --").is_err());
        assert!(check_table_name("").is_err());
    }
}
