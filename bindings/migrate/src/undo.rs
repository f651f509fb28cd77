//! [`undo`]: each backed-up row restored only where it still holds what the migration left.

use tool_intent::error::{Error, Result};

use super::database::Database;
use super::options::{backup_name, MigrateOptions, Run, READ_CHUNK};
use super::progress::Done;
use super::report::{NotRestored, Report};
use super::store::{database_error, finish, rolled_back_on_error, Restore, Store};

/// Undoes a migration of `options.table`: each backed-up row is restored only if it still
/// holds exactly what the migration left there (every session column compared); a row the
/// application wrote or deleted since is left as it is and listed in
/// [`Report::rows_not_restored`] with the reason. Batched like [`migrate`](crate::migrate):
/// one transaction on SQLite unless `batch_size` says otherwise,
/// [`DEFAULT_POSTGRES_BATCH`](crate::DEFAULT_POSTGRES_BATCH) rows per transaction on
/// PostgreSQL; each batch locks its rows, restores, and removes them from the backup, so a
/// killed undo resumes where it stopped. The backup table is dropped at the end. `dry_run`
/// reports what would be restored and changes nothing. `progress(done, total)` counts the
/// backed-up rows as [`migrate`](crate::migrate)'s counts the table's, and an error it
/// returns stops the undo the same way.
pub fn undo(db: &Database, options: MigrateOptions<'_>) -> Result<Report> {
    let options = options.checked(db)?;
    let mut store = db.open()?;
    let store = store.as_mut();
    rolled_back_on_error(store, |store| run_undo(store, options))
}

fn run_undo(store: &mut dyn Store, options: Run<'_>) -> Result<Report> {
    let (table, dry_run, batch) = (options.table.as_str(), options.dry_run, options.batch);
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
        return Err(database_error(format!(
            "no backup table {backup:?}: nothing to undo"
        )));
    }
    if !backup_cols.iter().any(|c| c == "written") {
        return Err(database_error(format!(
            "backup table {backup:?} has no \"written\" column (made by an earlier tool-intent): without the values the migration wrote, an undo cannot tell them from later writes; restore from it by hand"
        )));
    }
    let mut done = Done::new(store.count(&backup)?, options.progress);
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
