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

use tool_intent::error::Result;
use tool_intent::registry::Registry;

mod database;
mod options;
mod postgres;
mod progress;
mod report;
mod snapshot;
mod sqlite;
mod store;
mod undo;

pub use database::Database;
use options::{backup_name, check_table_name, Run, READ_CHUNK};
pub use options::{AuditOptions, MigrateOptions, Progress, DEFAULT_POSTGRES_BATCH, DEFAULT_TABLE};
use progress::Done;
pub use report::{AuditRow, NotRestored, Report, UnreadableRow, DATA_KEYS};
pub use snapshot::{SnapshotIndex, StoredKind};
use store::{finish, rolled_back_on_error, Rewrite, Store, ADDED_COLUMNS};
pub use undo::undo;

/// Migrates snapshot rows of `options.table` to intents (see the module docs).
/// `options.progress(done, total)` is called as rows are processed; an error it returns stops
/// the run (see the module docs) and is returned.
pub fn migrate(db: &Database, registry: &Registry, options: MigrateOptions<'_>) -> Result<Report> {
    let options = options.checked(db)?;
    let mut store = db.open()?;
    let store = store.as_mut();
    let index = SnapshotIndex::new(registry);
    rolled_back_on_error(store, |store| run(store, &index, options))
}

fn run(store: &mut dyn Store, index: &SnapshotIndex, options: Run<'_>) -> Result<Report> {
    let (table, dry_run, batch) = (options.table.as_str(), options.dry_run, options.batch);
    let backup = backup_name(table);
    let mut report = Report {
        table: table.to_string(),
        dry_run,
        backup_table: backup.clone(),
        ..Default::default()
    };
    // The schema first: added columns and the backup table, committed before any batch.
    store.begin()?;
    let mut cols = store.columns(table)?;
    for col in ADDED_COLUMNS {
        if !cols.iter().any(|c| c == col) {
            report.columns_added.push(col.to_string());
            if !dry_run {
                store.add_column(table, col)?;
                cols.push(col.to_string());
            }
        }
    }
    if !dry_run {
        store.ensure_backup(&backup)?;
    }
    let total = store.count(table)?;
    let one_transaction = batch.is_none();
    if !one_transaction {
        finish(store, dry_run)?;
    }
    let mut done = Done::new(total, options.progress);
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
        let written = if dry_run {
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
            finish(store, dry_run)?;
            report.batches += u64::from(rewrote && !dry_run);
        }
    }
    if one_transaction {
        finish(store, dry_run)?;
        report.batches = u64::from(!dry_run && report.snapshots_total() > 0);
    }
    Ok(report)
}

/// Rows of `options.table` that still hold legacy snapshots (read-only, a batch at a time).
pub fn audit(db: &Database, registry: &Registry, options: &AuditOptions) -> Result<Vec<AuditRow>> {
    let table = options.table.as_str();
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
