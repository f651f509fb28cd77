//! A run's settings: the options, the table's name checked, the rows per transaction, the
//! backup table's name.

use tool_intent::error::{Error, Result};

use super::database::Database;

/// Rows per transaction of a batched run on PostgreSQL unless `batch_size` says otherwise.
pub const DEFAULT_POSTGRES_BATCH: usize = 1_000;

/// Rows read at a time inside a one-transaction run (memory stays bounded).
pub(crate) const READ_CHUNK: usize = 10_000;

/// The session table [`migrate`](crate::migrate), [`undo`](crate::undo) and
/// [`audit`](crate::audit) work on unless their options name another (the CLI's `--table` and
/// Python's `table=` default to it too).
pub const DEFAULT_TABLE: &str = "sessions";

/// How a run tells its caller how far it is: called with `(done, total)` rows; an error it
/// returns stops the run (see the crate docs) and is returned.
pub type Progress<'p> = &'p mut dyn FnMut(u64, u64) -> Result<()>;

/// Options of a migration run and of its undo (Python's keyword options of `migrate` and
/// `undo`, the same names). `..MigrateOptions::default()` fills the rest.
pub struct MigrateOptions<'p> {
    /// The session table ([`DEFAULT_TABLE`]).
    pub table: String,
    /// Report only; change nothing (`false`).
    pub dry_run: bool,
    /// Rows per transaction; `None`: one transaction on SQLite, [`DEFAULT_POSTGRES_BATCH`] on
    /// PostgreSQL.
    pub batch_size: Option<usize>,
    /// Told every 1% of the rows and at the last (`None`: no one is told).
    pub progress: Option<Progress<'p>>,
}

impl Default for MigrateOptions<'_> {
    fn default() -> Self {
        MigrateOptions {
            table: DEFAULT_TABLE.to_string(),
            dry_run: false,
            batch_size: None,
            progress: None,
        }
    }
}

impl std::fmt::Debug for MigrateOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MigrateOptions")
            .field("table", &self.table)
            .field("dry_run", &self.dry_run)
            .field("batch_size", &self.batch_size)
            .field(
                "progress",
                &self.progress.as_ref().map(|_| "FnMut(done, total)"),
            )
            .finish()
    }
}

/// A run's options once checked against its database: the table's name checked, the rows
/// per transaction decided (`None`: one transaction).
pub(crate) struct Run<'p> {
    pub(crate) table: String,
    pub(crate) dry_run: bool,
    pub(crate) batch: Option<usize>,
    pub(crate) progress: Option<Progress<'p>>,
}

impl<'p> MigrateOptions<'p> {
    /// The run these options ask for on `db`, or `invalid_argument` on `table` or
    /// `batch_size`.
    pub(crate) fn checked(self, db: &Database) -> Result<Run<'p>> {
        check_table_name(&self.table)?;
        Ok(Run {
            batch: batch_for(db, self.batch_size)?,
            table: self.table,
            dry_run: self.dry_run,
            progress: self.progress,
        })
    }
}

/// Options of [`audit`](crate::audit) (Python's keyword options of `audit`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditOptions {
    /// The session table ([`DEFAULT_TABLE`]).
    pub table: String,
}

impl Default for AuditOptions {
    fn default() -> Self {
        AuditOptions {
            table: DEFAULT_TABLE.to_string(),
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
fn batch_for(db: &Database, batch_size: Option<usize>) -> Result<Option<usize>> {
    if batch_size == Some(0) {
        return Err(Error::InvalidArgument {
            argument: "batch_size",
            path: None,
            message: "a batch holds at least one row".to_string(),
        });
    }
    Ok(match db {
        Database::Postgres(_) => Some(batch_size.unwrap_or(DEFAULT_POSTGRES_BATCH)),
        Database::Sqlite(_) => batch_size,
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
