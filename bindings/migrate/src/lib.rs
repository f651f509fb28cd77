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
//! [`migrate`] works on a real session table (`tools_enabled`, `tools_override` as JSON text,
//! optionally `web_search` and `toolset`) in a SQLite file or a PostgreSQL database
//! ([`Database`]): it adds the missing columns, rewrites snapshot rows' `tools_override`, keeps
//! each row's original values in a backup table (`<table>__tool_intent_backup`, keyed by the
//! row's key: SQLite's rowid, PostgreSQL's integer primary key), and is idempotent. `dry_run`
//! changes nothing and reports the same. [`undo`] restores each backed-up row that still holds
//! what the migration wrote (a row the application wrote or deleted since keeps the
//! application's value and is reported) and drops the backup. [`audit`] lists rows that still
//! hold snapshots.
//!
//! Two modes. **One transaction** (SQLite's default): all or nothing, holding the write lock
//! for the whole run. **Batched** (`batch_size`, PostgreSQL's default of
//! [`DEFAULT_POSTGRES_BATCH`]): each batch of rows is read, rewritten and backed up in its own
//! transaction, so servers keep working on the table; a killed run keeps its committed batches
//! and a new run resumes (rewritten rows read as intents, a backup is never overwritten). In
//! both modes rows are read a batch at a time in key order, so memory stays bounded, and a
//! rewrite is a compare-and-set on the value read: a row a server rewrote after it was read is
//! left alone and reported (`rows_changed_concurrently`), never overwritten.
//!
//! `progress(done, total)` is called every 1% of the rows (the CLI prints it; Python calls its
//! `progress` callable and checks for Ctrl-C there; the abort and kill tests in
//! `bindings/cli/tests/migrate.rs` inject their faults through it, from test code), so the
//! library itself reads no environment. An error it returns stops the run as a kill would,
//! but cleanly: the open transaction rolls back (a one-transaction run changes nothing; a
//! batched run keeps the batches it committed, and a new run resumes) and [`migrate`] returns
//! that error.

use tool_intent::error::{Error, Result};
use tool_intent::registry::Registry;

mod database;
mod postgres;
mod report;
mod snapshot;
mod sqlite;
mod store;

pub use database::Database;
pub use report::{AuditRow, NotRestored, Report, UnreadableRow, DATA_KEYS};
pub use snapshot::{SnapshotIndex, StoredKind};
use store::{Restore, Rewrite, Store, ADDED_COLUMNS};

/// Rows per transaction of a batched run on PostgreSQL unless `batch_size` says otherwise.
pub const DEFAULT_POSTGRES_BATCH: usize = 1_000;

/// Rows read at a time inside a one-transaction run (memory stays bounded).
const READ_CHUNK: usize = 10_000;

/// Options of a migration run.
#[derive(Debug, Clone)]
pub struct MigrateOptions {
    /// The session table.
    pub table: String,
    /// Report only; change nothing.
    pub dry_run: bool,
    /// Rows per transaction; `None`: one transaction on SQLite, [`DEFAULT_POSTGRES_BATCH`] on
    /// PostgreSQL.
    pub batch_size: Option<usize>,
}

impl Default for MigrateOptions {
    fn default() -> Self {
        MigrateOptions {
            table: "sessions".to_string(),
            dry_run: false,
            batch_size: None,
        }
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
        Err(Error::InvalidArgument {
            argument: "table",
            path: None,
            message: format!("{table:?} is not a plain table name (letters, digits, _)"),
        })
    }
}

/// Rows per transaction for a run: `None` is one transaction (SQLite's default).
fn batch_for(db: &Database, options: &MigrateOptions) -> Result<Option<usize>> {
    if options.batch_size == Some(0) {
        return Err(Error::InvalidArgument {
            argument: "batch_size",
            path: None,
            message: "a batch holds at least one row".to_string(),
        });
    }
    Ok(match db {
        Database::Postgres(_) => Some(options.batch_size.unwrap_or(DEFAULT_POSTGRES_BATCH)),
        Database::Sqlite(_) => options.batch_size,
    })
}

/// Rows done out of a total counted at the start, told to `progress` every 1% of them and at
/// the last (a total that grew while the run went on is raised to what was done).
struct Done<'a> {
    done: u64,
    total: u64,
    step: u64,
    progress: &'a mut dyn FnMut(u64, u64) -> Result<()>,
}

impl<'a> Done<'a> {
    fn new(total: u64, progress: &'a mut dyn FnMut(u64, u64) -> Result<()>) -> Self {
        Done {
            done: 0,
            total,
            step: (total / 100).max(1),
            progress,
        }
    }

    /// One more row; an error from `progress` stops the run.
    fn row(&mut self) -> Result<()> {
        self.done += 1;
        if self.done.is_multiple_of(self.step) || self.done == self.total {
            (self.progress)(self.done, self.total.max(self.done))?;
        }
        Ok(())
    }
}

fn backup_name(table: &str) -> String {
    format!("{table}__tool_intent_backup")
}

/// Migrates snapshot rows of `options.table` to intents (see the module docs).
/// `progress(done, total)` is called as rows are processed; an error it returns stops the run
/// (see the module docs) and is returned.
pub fn migrate(
    db: &Database,
    registry: &Registry,
    options: &MigrateOptions,
    progress: &mut dyn FnMut(u64, u64) -> Result<()>,
) -> Result<Report> {
    check_table_name(&options.table)?;
    let batch = batch_for(db, options)?;
    let mut store = db.open()?;
    let store = store.as_mut();
    let index = SnapshotIndex::new(registry);
    let result = run(store, &index, options, batch, progress);
    if result.is_err() {
        // A failed statement leaves the transaction open (or, on PostgreSQL, aborted).
        let _ = store.rollback();
    }
    result
}

fn run(
    store: &mut dyn Store,
    index: &SnapshotIndex,
    options: &MigrateOptions,
    batch: Option<usize>,
    progress: &mut dyn FnMut(u64, u64) -> Result<()>,
) -> Result<Report> {
    let table = options.table.as_str();
    let backup = backup_name(table);
    let mut report = Report {
        table: table.to_string(),
        dry_run: options.dry_run,
        backup_table: backup.clone(),
        ..Default::default()
    };
    // The schema first: added columns and the backup table, committed before any batch.
    store.begin()?;
    let mut cols = store.columns(table)?;
    for col in ADDED_COLUMNS {
        if !cols.iter().any(|c| c == col) {
            report.columns_added.push(col.to_string());
            if !options.dry_run {
                store.add_column(table, col)?;
                cols.push(col.to_string());
            }
        }
    }
    if !options.dry_run {
        store.ensure_backup(&backup)?;
    }
    let total = store.count(table)?;
    let one_transaction = batch.is_none();
    if !one_transaction {
        finish(store, options.dry_run)?;
    }
    let mut done = Done::new(total, progress);
    let mut after: Option<i64> = None;
    loop {
        if !one_transaction {
            store.begin()?;
        }
        let rows = store.read_after(table, &cols, after, batch.unwrap_or(READ_CHUNK))?;
        let Some(last) = rows.last().map(|r| r.key) else {
            if !one_transaction {
                finish(store, true)?;
            }
            break;
        };
        let mut rewrites: Vec<Rewrite<'_>> = Vec::new();
        for row in &rows {
            report.rows_read += 1;
            match index.classify_text(row.tools_override.text().as_deref()) {
                StoredKind::Null => report.null_rows += 1,
                StoredKind::Intent => report.intents_kept += 1,
                StoredKind::HandPick => report.hand_picks_kept += 1,
                StoredKind::Unreadable { reason } => report.unreadable_rows.push(UnreadableRow {
                    rowid: row.key,
                    reason,
                }),
                StoredKind::Snapshot { matched, intent } => rewrites.push(Rewrite {
                    row,
                    value: intent.to_canonical_json(),
                    matched,
                }),
            }
            done.row()?;
        }
        // The batch's rewrites in one call (one statement on PostgreSQL), each a
        // compare-and-set on the value read.
        let written = if options.dry_run {
            vec![true; rewrites.len()]
        } else {
            store.rewrite(table, &backup, &rewrites)?
        };
        let rewrote = written.iter().any(|w| *w);
        for (w, ok) in rewrites.into_iter().zip(written) {
            if ok {
                *report.snapshots_rewritten.entry(w.matched).or_default() += 1;
            } else {
                report.rows_changed_concurrently.push(w.row.key);
            }
        }
        after = Some(last);
        if !one_transaction {
            finish(store, options.dry_run)?;
            report.batches += u64::from(rewrote && !options.dry_run);
        }
    }
    if one_transaction {
        finish(store, options.dry_run)?;
        report.batches = u64::from(!options.dry_run && report.snapshots_total() > 0);
    }
    Ok(report)
}

/// Ends a transaction: rolled back in a dry run, committed otherwise.
fn finish(store: &mut dyn Store, dry_run: bool) -> Result<()> {
    if dry_run {
        store.rollback()
    } else {
        store.commit()
    }
}

/// Undoes a migration of `options.table`: each backed-up row is restored only if it still
/// holds exactly what the migration left there (every session column compared); a row the
/// application wrote or deleted since is left as it is and listed in
/// [`Report::rows_not_restored`] with the reason. Batched like [`migrate`]: one transaction on
/// SQLite unless `batch_size` says otherwise, [`DEFAULT_POSTGRES_BATCH`] rows per transaction on
/// PostgreSQL; each batch locks its rows, restores, and removes them from the backup, so a
/// killed undo resumes where it stopped. The backup table is dropped at the end. `dry_run`
/// reports what would be restored and changes nothing.
/// `progress(done, total)` counts the backed-up rows as [`migrate`]'s counts the table's, and an
/// error it returns stops the undo the same way.
pub fn undo(
    db: &Database,
    options: &MigrateOptions,
    progress: &mut dyn FnMut(u64, u64) -> Result<()>,
) -> Result<Report> {
    let table = options.table.as_str();
    check_table_name(table)?;
    let batch = batch_for(db, options)?;
    let mut store = db.open()?;
    let store = store.as_mut();
    let result = run_undo(store, table, options.dry_run, batch, progress);
    if result.is_err() {
        let _ = store.rollback();
    }
    result
}

fn run_undo(
    store: &mut dyn Store,
    table: &str,
    dry_run: bool,
    batch: Option<usize>,
    progress: &mut dyn FnMut(u64, u64) -> Result<()>,
) -> Result<Report> {
    let backup = backup_name(table);
    let mut report = Report {
        table: table.to_string(),
        undo: true,
        dry_run,
        backup_table: backup.clone(),
        ..Default::default()
    };
    store.begin()?;
    let cols = store.columns(table)?;
    let backup_cols = store.backup_columns(&backup)?;
    if backup_cols.is_empty() {
        return Err(Error::Database {
            message: format!("no backup table {backup:?}: nothing to undo"),
            source: None,
        });
    }
    if !backup_cols.iter().any(|c| c == "written") {
        return Err(Error::Database {
            message: format!(
                "backup table {backup:?} has no \"written\" column (made by an earlier tool-intent): without the values the migration wrote, an undo cannot tell them from later writes; restore from it by hand"
            ),
            source: None,
        });
    }
    let mut done = Done::new(store.count(&backup)?, progress);
    let one_transaction = batch.is_none();
    if !one_transaction {
        finish(store, true)?;
    }
    let mut after: Option<i64> = None;
    loop {
        if !one_transaction {
            store.begin()?;
        }
        let rows = store.read_backup_after(&backup, after, batch.unwrap_or(READ_CHUNK))?;
        let Some(last) = rows.last().map(|b| b.original.key) else {
            if !one_transaction {
                finish(store, true)?;
            }
            break;
        };
        let keys: Vec<i64> = rows.iter().map(|b| b.original.key).collect();
        // Locked until this batch ends: what is compared is what is overwritten.
        let now = store.read_rows(table, &cols, &keys)?;
        let mut restore = Vec::new();
        for b in &rows {
            // Both lists are in key order (the stores read them so): a binary search each.
            let current = now
                .binary_search_by_key(&b.original.key, |r| r.key)
                .ok()
                .map(|i| &now[i]);
            done.row()?;
            match b.outcome(current, &cols) {
                Restore::Restored => restore.push(b),
                Restore::Deleted => report.rows_not_restored.push(NotRestored {
                    rowid: b.original.key,
                    reason: "deleted",
                    columns: Vec::new(),
                }),
                Restore::Changed(columns) => report.rows_not_restored.push(NotRestored {
                    rowid: b.original.key,
                    reason: "changed",
                    columns,
                }),
            }
        }
        if !dry_run {
            let written = store.restore_rows(table, &cols, &restore)?;
            // The rows are locked and were compared above: the compare-and-set matches each.
            if written != restore.len() as u64 {
                return Err(Error::Internal {
                    message: format!(
                        "undo restored {written} of {} locked rows that held what the migration left",
                        restore.len()
                    ),
                });
            }
            store.forget_backups(&backup, &keys)?;
        }
        report.rows_restored += restore.len() as u64;
        after = Some(last);
        if !one_transaction {
            finish(store, dry_run)?;
            report.batches += u64::from(!dry_run);
        }
    }
    if !dry_run {
        if !one_transaction {
            store.begin()?;
        }
        store.drop_backup(&backup)?;
    }
    if !dry_run || one_transaction {
        finish(store, dry_run)?;
    }
    if one_transaction {
        report.batches = u64::from(!dry_run);
    }
    Ok(report)
}

/// Rows of `table` that still hold legacy snapshots (read-only, a batch at a time).
pub fn audit(db: &Database, table: &str, registry: &Registry) -> Result<Vec<AuditRow>> {
    check_table_name(table)?;
    let mut store = db.open()?;
    let store = store.as_mut();
    let cols = store.columns(table)?;
    let index = SnapshotIndex::new(registry);
    let mut out = Vec::new();
    let mut after = None;
    loop {
        let rows = store.read_after(table, &cols, after, READ_CHUNK)?;
        let Some(last) = rows.last().map(|r| r.key) else {
            return Ok(out);
        };
        for row in rows {
            if let StoredKind::Snapshot { matched, intent } =
                index.classify_text(row.tools_override.text().as_deref())
            {
                out.push(AuditRow {
                    rowid: row.key,
                    matched,
                    intent: intent.to_canonical_json(),
                });
            }
        }
        after = Some(last);
    }
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
