//! A run's settings: the options, the table's name checked, the rows per transaction, the
//! backup table's name.

use tool_intent::error::{Error, Result};

use super::database::Database;

/// Rows per transaction of a batched run on PostgreSQL unless `batch_size` says otherwise.
pub const DEFAULT_POSTGRES_BATCH: usize = 1_000;

/// Rows read at a time inside a one-transaction run (memory stays bounded).
pub(crate) const READ_CHUNK: usize = 10_000;

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

pub(crate) fn check_table_name(table: &str) -> Result<()> {
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
pub(crate) fn batch_for(db: &Database, options: &MigrateOptions) -> Result<Option<usize>> {
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

pub(crate) fn backup_name(table: &str) -> String {
    format!("{table}__tool_intent_backup")
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
