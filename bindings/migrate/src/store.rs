//! The session table behind one interface, on SQLite or PostgreSQL: what the migration reads
//! and writes, and nothing else. Rows are read in key order a batch at a time (keyset
//! pagination), so a run holds one batch in memory whatever the table's size. A rewrite is a
//! compare-and-set on the value read: a row a server rewrote since is left alone.

use tool_intent::error::{Error, Result};

/// A stored value as the database holds it (SQLite's storage classes; PostgreSQL values are
/// read as their text form), so a backup restores it exactly.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl Cell {
    /// The value as text, as the snapshot classifier reads it (`None` for NULL).
    pub(crate) fn text(&self) -> Option<String> {
        match self {
            Cell::Null => None,
            Cell::Int(n) => Some(n.to_string()),
            Cell::Real(f) => Some(f.to_string()),
            Cell::Text(t) => Some(t.clone()),
            Cell::Blob(b) => Some(String::from_utf8_lossy(b).into_owned()),
        }
    }
}

/// One stored row: its key (SQLite's rowid, PostgreSQL's integer primary key) and the session
/// columns (`Null` where the table has no such column).
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub(crate) key: i64,
    pub(crate) tools_enabled: Cell,
    pub(crate) tools_override: Cell,
    pub(crate) web_search: Cell,
    pub(crate) toolset: Cell,
}

/// One backed-up row: the row's values before the migration rewrote it, and what the
/// migration wrote to its `tools_override` (as the database stored it).
#[derive(Debug, Clone)]
pub(crate) struct Backup {
    pub(crate) original: Row,
    pub(crate) written: Cell,
}

/// What an undo did with one backed-up row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Restore {
    /// The row still held what the migration left: its original values are back.
    Restored,
    /// No row has that key any more.
    Deleted,
    /// The row was written after the migration (these session columns differ from what the
    /// migration left); left as the application wrote it.
    Changed(Vec<&'static str>),
}

/// The session columns an undo compares, in this order.
pub(crate) const SESSION_COLUMNS: [&str; 4] =
    ["tools_enabled", "tools_override", "web_search", "toolset"];

impl Row {
    /// The session columns of `SESSION_COLUMNS`, in that order.
    pub(crate) fn cells(&self) -> [&Cell; 4] {
        [
            &self.tools_enabled,
            &self.tools_override,
            &self.web_search,
            &self.toolset,
        ]
    }
}

impl Backup {
    /// The row as the migration left it: its original values with `written` in
    /// `tools_override` (the only column a migration writes).
    pub(crate) fn as_migrated(&self) -> Row {
        Row {
            tools_override: self.written.clone(),
            ..self.original.clone()
        }
    }

    /// What an undo does with this row, given the row now in the table (`None`: gone): it
    /// is restored only if every session column still holds what the migration left.
    pub(crate) fn outcome(&self, now: Option<&Row>, columns: &[String]) -> Restore {
        let Some(now) = now else {
            return Restore::Deleted;
        };
        let migrated = self.as_migrated();
        let changed: Vec<&'static str> = SESSION_COLUMNS
            .iter()
            .zip(now.cells().into_iter().zip(migrated.cells()))
            .filter(|(c, (a, b))| columns.iter().any(|x| x == *c) && a != b)
            .map(|(c, _)| *c)
            .collect();
        if changed.is_empty() {
            Restore::Restored
        } else {
            Restore::Changed(changed)
        }
    }
}

/// One snapshot row to rewrite: the row as read, its intent, what it matched.
pub(crate) struct Rewrite<'a> {
    pub(crate) row: &'a Row,
    pub(crate) value: String,
    pub(crate) matched: String,
}

/// The session columns a run may add.
pub(crate) const ADDED_COLUMNS: [&str; 2] = ["web_search", "toolset"];

/// One database connection, driven by the migration.
pub(crate) trait Store {
    /// Runs statements that return nothing.
    fn execute(&mut self, sql: &str) -> Result<()>;
    /// Starts a transaction that takes the write lock (SQLite `BEGIN IMMEDIATE`).
    fn begin(&mut self) -> Result<()> {
        self.execute("BEGIN")
    }
    fn commit(&mut self) -> Result<()> {
        self.execute("COMMIT")
    }
    fn rollback(&mut self) -> Result<()> {
        self.execute("ROLLBACK")
    }
    /// The table's columns; an error names a missing table or session column.
    fn columns(&mut self, table: &str) -> Result<Vec<String>>;
    /// Adds `web_search` or `toolset`.
    fn add_column(&mut self, table: &str, column: &str) -> Result<()>;
    fn count(&mut self, table: &str) -> Result<u64>;
    /// Up to `limit` rows with a key above `after`, in key order.
    fn read_after(
        &mut self,
        table: &str,
        columns: &[String],
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Row>>;
    fn ensure_backup(&mut self, backup: &str) -> Result<()>;
    /// The backup table's columns (empty when there is no backup table).
    fn backup_columns(&mut self, backup: &str) -> Result<Vec<String>>;
    /// Sets each row's `tools_override` to its new value if it still holds what was read,
    /// and then keeps the row's values as read and the value written in the backup (a row
    /// migrated again, after the application stored a snapshot in it once more, keeps the
    /// latest: an undo restores what the last migration replaced). One flag per rewrite:
    /// false when the row changed since it was read (nothing written for it).
    fn rewrite(&mut self, table: &str, backup: &str, rewrites: &[Rewrite<'_>])
        -> Result<Vec<bool>>;
    /// Up to `limit` backed-up rows with a key above `after`, in key order.
    fn read_backup_after(
        &mut self,
        backup: &str,
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Backup>>;
    /// The rows of `table` with these keys (ascending; fewer when some are gone), in key
    /// order, locked until the
    /// transaction ends (PostgreSQL `FOR UPDATE`; SQLite's `BEGIN IMMEDIATE` holds the write
    /// lock), so what an undo compares is what it overwrites.
    fn read_rows(&mut self, table: &str, columns: &[String], keys: &[i64]) -> Result<Vec<Row>>;
    /// Puts each row's original `tools_override` back where the row still holds exactly what
    /// the migration left (a compare-and-set on every session column); the rows written.
    fn restore_rows(&mut self, table: &str, columns: &[String], rows: &[&Backup]) -> Result<u64>;
    /// Removes these keys from the backup.
    fn forget_backups(&mut self, backup: &str, keys: &[i64]) -> Result<()>;
    /// Drops the backup table.
    fn drop_backup(&mut self, backup: &str) -> Result<()> {
        self.execute(&format!("DROP TABLE \"{backup}\""))
    }
}

/// An error of the database layer.
pub(crate) fn database_error(message: impl Into<String>) -> Error {
    Error::Database {
        message: message.into(),
        source: None,
    }
}

/// The session columns every table needs.
pub(crate) fn check_session_columns(table: &str, columns: &[String]) -> Result<()> {
    if columns.is_empty() {
        return Err(database_error(format!(
            "no table {table:?} in the database"
        )));
    }
    for needed in ["tools_enabled", "tools_override"] {
        if !columns.iter().any(|c| c == needed) {
            return Err(database_error(format!(
                "table {table:?} has no {needed} column"
            )));
        }
    }
    Ok(())
}

/// Ends a transaction: rolled back in a dry run, committed otherwise.
pub(crate) fn finish(store: &mut dyn Store, dry_run: bool) -> Result<()> {
    if dry_run {
        store.rollback()
    } else {
        store.commit()
    }
}

/// Runs `run` on the store and, if it fails, rolls back the transaction it left open (a
/// failed statement leaves it open, or on PostgreSQL aborted). The run's error is returned,
/// not the rollback's, which would hide the cause.
pub(crate) fn rolled_back_on_error<T>(
    store: &mut dyn Store,
    run: impl FnOnce(&mut dyn Store) -> Result<T>,
) -> Result<T> {
    let result = run(&mut *store);
    if result.is_err() {
        let _ = store.rollback();
    }
    result
}
