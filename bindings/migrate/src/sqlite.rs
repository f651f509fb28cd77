//! The session table in a SQLite file (rusqlite, bundled SQLite). Values are read and backed up
//! in their own storage class, so an undo restores them exactly.

use std::path::Path;

use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use rusqlite::{params, Connection, OptionalExtension, ToSql};

use super::store::{
    check_session_columns, database_error, Backup, Cell, Rewrite, Row, Store, SESSION_COLUMNS,
};
use tool_intent::error::{Error, Result, SourceError};

/// The driver's error as ours, kept as the source. rusqlite's text already says what SQLite
/// said; its source only says it again with SQLite's result code ("file is not a database:
/// Error code 26: file is not a database"), so the message is the text alone.
fn driver_error(e: rusqlite::Error) -> Error {
    Error::Database {
        message: e.to_string(),
        source: Some(SourceError::new(e)),
    }
}

pub(crate) struct SqliteStore {
    conn: Connection,
}

impl SqliteStore {
    pub(crate) fn open(path: &Path) -> Result<SqliteStore> {
        if !path.exists() {
            return Err(database_error(format!("no database at {}", path.display())));
        }
        let conn = Connection::open(path).map_err(driver_error)?;
        // Servers write to the table between batches: wait for their short transactions
        // rather than failing with SQLITE_BUSY.
        conn.busy_timeout(std::time::Duration::from_secs(30))
            .map_err(driver_error)?;
        Ok(SqliteStore { conn })
    }
}

impl SqliteStore {
    /// A table's column names, in order (none when there is no such table).
    fn column_names(&self, table: &str) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare(&format!("PRAGMA table_info(\"{table}\")"))
            .map_err(driver_error)?;
        let cols = stmt
            .query_map([], |r| r.get::<_, String>(1))
            .map_err(driver_error)?
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(driver_error)?;
        Ok(cols)
    }
}

impl ToSql for Cell {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Cell::Null => ToSqlOutput::Owned(Value::Null),
            Cell::Int(n) => ToSqlOutput::Owned(Value::Integer(*n)),
            Cell::Real(f) => ToSqlOutput::Owned(Value::Real(*f)),
            Cell::Text(t) => ToSqlOutput::Borrowed(ValueRef::Text(t.as_bytes())),
            Cell::Blob(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
        })
    }
}

/// `SELECT` of the columns `session_row` reads from `table` (NULL for a session column the
/// table lacks), for a `WHERE ...` to follow.
fn select_session_row(table: &str, columns: &[String]) -> String {
    let has = |c: &str| columns.iter().any(|x| x == c);
    format!(
        "SELECT rowid, tools_enabled, tools_override, {}, {} FROM \"{table}\"",
        if has("web_search") {
            "web_search"
        } else {
            "NULL"
        },
        if has("toolset") { "toolset" } else { "NULL" },
    )
}

/// A paged read's statement: `WHERE rowid > ?1` after a row, `WHERE rowid >= ?1` for the
/// first page. A rowid may be -2^63 itself, which `> i64::MIN` would never read (and
/// `audit` would then report no snapshot left while one is). Both keep the rowid range scan.
fn first_page_or_after(sql: &str, after: Option<i64>) -> String {
    match after {
        Some(_) => sql.to_string(),
        None => sql.replace("WHERE rowid > ?1", "WHERE rowid >= ?1"),
    }
}

/// A session row from a `SELECT rowid, tools_enabled, tools_override, web_search, toolset`.
fn session_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    Ok(Row {
        key: r.get(0)?,
        tools_enabled: cell(r.get_ref(1)?),
        tools_override: cell(r.get_ref(2)?),
        web_search: cell(r.get_ref(3)?),
        toolset: cell(r.get_ref(4)?),
    })
}

fn cell(v: ValueRef<'_>) -> Cell {
    match v {
        ValueRef::Null => Cell::Null,
        ValueRef::Integer(n) => Cell::Int(n),
        ValueRef::Real(f) => Cell::Real(f),
        ValueRef::Text(t) => Cell::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Cell::Blob(b.to_vec()),
    }
}

impl Store for SqliteStore {
    fn execute(&mut self, sql: &str) -> Result<()> {
        self.conn.execute_batch(sql).map_err(driver_error)
    }

    fn begin(&mut self) -> Result<()> {
        // IMMEDIATE: take the write lock before reading, so no writer slips in between.
        self.execute("BEGIN IMMEDIATE")
    }

    fn columns(&mut self, table: &str) -> Result<Vec<String>> {
        let cols = self.column_names(table)?;
        check_session_columns(table, &cols)?;
        // Rows are read and rewritten by rowid, which a WITHOUT ROWID table does not have.
        let without_rowid: bool = self
            .conn
            .query_row(
                "SELECT wr FROM pragma_table_list WHERE name = ?1 AND schema = 'main'",
                [table],
                |r| r.get(0),
            )
            .map_err(driver_error)?;
        if without_rowid {
            return Err(database_error(format!(
                "table {table:?} is a WITHOUT ROWID table: its rows are read and rewritten by rowid, so give the migration a table with one (or copy the sessions into one)"
            )));
        }
        Ok(cols)
    }

    fn add_column(&mut self, table: &str, column: &str) -> Result<()> {
        let ty = if column == "web_search" {
            "INTEGER"
        } else {
            "TEXT"
        };
        self.conn
            .execute_batch(&format!("ALTER TABLE \"{table}\" ADD COLUMN {column} {ty}"))
            .map_err(driver_error)
    }

    fn count(&mut self, table: &str) -> Result<u64> {
        self.conn
            .query_row(&format!("SELECT count(*) FROM \"{table}\""), [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n.max(0) as u64)
            .map_err(driver_error)
    }

    fn read_after(
        &mut self,
        table: &str,
        columns: &[String],
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Row>> {
        let sql = format!(
            "{} WHERE rowid > ?1 ORDER BY rowid LIMIT ?2",
            select_session_row(table, columns)
        );
        let mut stmt = self
            .conn
            .prepare_cached(&first_page_or_after(&sql, after))
            .map_err(driver_error)?;
        let rows = stmt
            .query_map(
                params![after.unwrap_or(i64::MIN), limit as i64],
                session_row,
            )
            .map_err(driver_error)?
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(driver_error)?;
        Ok(rows)
    }

    fn ensure_backup(&mut self, backup: &str) -> Result<()> {
        self.conn
            .execute_batch(&format!(
                "CREATE TABLE IF NOT EXISTS \"{backup}\" (rowid INTEGER PRIMARY KEY, tools_enabled, tools_override, web_search, toolset, matched TEXT, migrated_at TEXT, written)"
            ))
            .map_err(driver_error)
    }

    fn backup_columns(&mut self, backup: &str) -> Result<Vec<String>> {
        self.column_names(backup)
    }

    fn rewrite(
        &mut self,
        table: &str,
        backup: &str,
        rewrites: &[Rewrite<'_>],
    ) -> Result<Vec<bool>> {
        // RETURNING: the value as the column stored it (its affinity may convert it), which
        // is what an undo compares against.
        let mut update = self
            .conn
            .prepare_cached(&format!(
                "UPDATE \"{table}\" SET tools_override = ?1 WHERE rowid = ?2 AND tools_override IS ?3 RETURNING tools_override"
            ))
            .map_err(driver_error)?;
        let mut save = self
            .conn
            .prepare_cached(&format!("INSERT INTO \"{backup}\" (rowid, tools_enabled, tools_override, web_search, toolset, matched, migrated_at, written) VALUES (?1, ?2, ?3, ?4, ?5, ?6, datetime('now'), ?7) ON CONFLICT (rowid) DO UPDATE SET tools_enabled = excluded.tools_enabled, tools_override = excluded.tools_override, web_search = excluded.web_search, toolset = excluded.toolset, matched = excluded.matched, migrated_at = excluded.migrated_at, written = excluded.written"))
            .map_err(driver_error)?;
        let mut written = Vec::with_capacity(rewrites.len());
        for w in rewrites {
            let row = w.row;
            // `IS` compares NULLs too: the row is written only if it still holds what was read.
            let stored: Option<Cell> = update
                .query_row(params![w.value, row.key, row.tools_override], |r| {
                    Ok(cell(r.get_ref(0)?))
                })
                .optional()
                .map_err(driver_error)?;
            if let Some(stored) = &stored {
                save.execute(params![
                    row.key,
                    row.tools_enabled,
                    row.tools_override,
                    row.web_search,
                    row.toolset,
                    w.matched,
                    stored
                ])
                .map_err(driver_error)?;
            }
            written.push(stored.is_some());
        }
        Ok(written)
    }

    fn read_backup_after(
        &mut self,
        backup: &str,
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Backup>> {
        let sql = format!(
            "SELECT rowid, tools_enabled, tools_override, web_search, toolset, written FROM \"{backup}\" WHERE rowid > ?1 ORDER BY rowid LIMIT ?2"
        );
        let mut stmt = self
            .conn
            .prepare_cached(&first_page_or_after(&sql, after))
            .map_err(driver_error)?;
        let rows = stmt
            .query_map(params![after.unwrap_or(i64::MIN), limit as i64], |r| {
                Ok(Backup {
                    original: session_row(r)?,
                    written: cell(r.get_ref(5)?),
                })
            })
            .map_err(driver_error)?
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(driver_error)?;
        Ok(rows)
    }

    fn read_rows(&mut self, table: &str, columns: &[String], keys: &[i64]) -> Result<Vec<Row>> {
        let sql = format!("{} WHERE rowid = ?1", select_session_row(table, columns));
        let mut stmt = self.conn.prepare_cached(&sql).map_err(driver_error)?;
        let mut rows = Vec::with_capacity(keys.len());
        for key in keys {
            let row = stmt
                .query_row([key], session_row)
                .optional()
                .map_err(driver_error)?;
            rows.extend(row);
        }
        Ok(rows)
    }

    fn restore_rows(&mut self, table: &str, columns: &[String], rows: &[&Backup]) -> Result<u64> {
        // `IS` compares NULLs too. ?6 is always used, so the statement takes six parameters
        // whichever session columns the table has.
        let guard: Vec<String> = SESSION_COLUMNS
            .iter()
            .enumerate()
            .filter(|(_, c)| columns.iter().any(|x| x == *c))
            .map(|(k, c)| format!("{c} IS ?{}", k + 2))
            .collect();
        let mut update = self
            .conn
            .prepare_cached(&format!(
                "UPDATE \"{table}\" SET tools_override = ?6 WHERE rowid = ?1 AND {}",
                guard.join(" AND ")
            ))
            .map_err(driver_error)?;
        let mut written = 0;
        for b in rows {
            let migrated = b.as_migrated();
            let [te, to, ws, ts] = migrated.cells();
            written += update
                .execute(params![
                    b.original.key,
                    te,
                    to,
                    ws,
                    ts,
                    b.original.tools_override
                ])
                .map_err(driver_error)? as u64;
        }
        Ok(written)
    }

    fn forget_backups(&mut self, backup: &str, keys: &[i64]) -> Result<()> {
        let mut forget = self
            .conn
            .prepare_cached(&format!("DELETE FROM \"{backup}\" WHERE rowid = ?1"))
            .map_err(driver_error)?;
        for key in keys {
            forget.execute([key]).map_err(driver_error)?;
        }
        Ok(())
    }
}
