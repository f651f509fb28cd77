//! The session table behind one interface, on SQLite or PostgreSQL: what the migration reads
//! and writes, and nothing else. Rows are read in key order a batch at a time (keyset
//! pagination), so a run holds one batch in memory whatever the table's size. A rewrite is a
//! compare-and-set on the value read: a row a server rewrote since is left alone.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Where the session table lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Database {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL connection string (`postgresql://user@host/db`, or key=value form).
    Postgres(String),
}

impl Database {
    /// `postgres://` and `postgresql://` URLs name a PostgreSQL database; anything else is a
    /// SQLite file path.
    pub fn parse(spec: &str) -> Database {
        if spec.starts_with("postgresql://") || spec.starts_with("postgres://") {
            Database::Postgres(spec.to_string())
        } else {
            Database::Sqlite(PathBuf::from(spec))
        }
    }

    /// The database for messages: a path, or a URL without its password.
    pub fn describe(&self) -> String {
        match self {
            Database::Sqlite(p) => p.display().to_string(),
            Database::Postgres(url) => hide_password(url),
        }
    }

    pub(crate) fn open(&self) -> Result<Box<dyn Store>> {
        match self {
            Database::Sqlite(path) => Ok(Box::new(super::sqlite::SqliteStore::open(path)?)),
            Database::Postgres(url) => Ok(Box::new(super::postgres::PostgresStore::open(url)?)),
        }
    }
}

impl From<&Path> for Database {
    fn from(path: &Path) -> Database {
        Database::Sqlite(path.to_path_buf())
    }
}

impl From<PathBuf> for Database {
    fn from(path: PathBuf) -> Database {
        Database::Sqlite(path)
    }
}

/// `postgresql://user:secret@host/db` → `postgresql://user:***@host/db`.
fn hide_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let Some((userinfo, host)) = rest.split_once('@') else {
        return url.to_string();
    };
    match userinfo.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_string(),
    }
}

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
    fn backup_exists(&mut self, backup: &str) -> Result<bool>;
    /// Sets each row's `tools_override` to its new value if it still holds what was read,
    /// and then keeps the row's original values in the backup (a row backed up before keeps
    /// its first backup). One flag per rewrite: false when the row changed since it was read
    /// (nothing written for it).
    fn rewrite(&mut self, table: &str, backup: &str, rewrites: &[Rewrite<'_>])
        -> Result<Vec<bool>>;
    /// Restores every backed-up row and drops the backup table; the rows restored.
    fn restore(&mut self, table: &str, backup: &str, columns: &[String]) -> Result<u64>;
}

/// A driver's error (rusqlite, postgres) as ours, kept as the source.
pub(crate) fn driver_error(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Database {
        message: e.to_string(),
        source: Some(crate::error::SourceError::new(e)),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_postgres_and_hide_their_password() {
        let db = Database::parse("postgresql://app:s3cret@db.internal:5432/sessions");
        assert!(matches!(db, Database::Postgres(_)));
        assert_eq!(
            db.describe(),
            "postgresql://app:***@db.internal:5432/sessions"
        );
        assert_eq!(
            Database::parse("sessions.db"),
            Database::Sqlite(PathBuf::from("sessions.db"))
        );
        assert_eq!(
            Database::parse("postgres://u@h/d").describe(),
            "postgres://u@h/d"
        );
    }
}
