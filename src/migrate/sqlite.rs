//! The session table in a SQLite file (rusqlite, bundled SQLite). Values are read and backed up
//! in their own storage class, so an undo restores them exactly.

use std::path::Path;

use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use rusqlite::{params, Connection, OptionalExtension, ToSql};

use super::store::{
    check_session_columns, database_error, driver_error, Cell, Rewrite, Row, Store,
};
use crate::error::Result;

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
        let mut stmt = self
            .conn
            .prepare(&format!("PRAGMA table_info(\"{table}\")"))
            .map_err(driver_error)?;
        let cols = stmt
            .query_map([], |r| r.get::<_, String>(1))
            .map_err(driver_error)?
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(driver_error)?;
        check_session_columns(table, &cols)?;
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
        let has = |c: &str| columns.iter().any(|x| x == c);
        let sql = format!(
            "SELECT rowid, tools_enabled, tools_override, {}, {} FROM \"{table}\" WHERE rowid > ?1 ORDER BY rowid LIMIT ?2",
            if has("web_search") { "web_search" } else { "NULL" },
            if has("toolset") { "toolset" } else { "NULL" },
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(driver_error)?;
        let rows = stmt
            .query_map(params![after.unwrap_or(i64::MIN), limit as i64], |r| {
                Ok(Row {
                    key: r.get(0)?,
                    tools_enabled: cell(r.get_ref(1)?),
                    tools_override: cell(r.get_ref(2)?),
                    web_search: cell(r.get_ref(3)?),
                    toolset: cell(r.get_ref(4)?),
                })
            })
            .map_err(driver_error)?
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(driver_error)?;
        Ok(rows)
    }

    fn ensure_backup(&mut self, backup: &str) -> Result<()> {
        self.conn
            .execute_batch(&format!(
                "CREATE TABLE IF NOT EXISTS \"{backup}\" (rowid INTEGER PRIMARY KEY, tools_enabled, tools_override, web_search, toolset, matched TEXT, migrated_at TEXT)"
            ))
            .map_err(driver_error)
    }

    fn backup_exists(&mut self, backup: &str) -> Result<bool> {
        let found: Option<String> = self
            .conn
            .query_row(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [backup],
                |r| r.get(0),
            )
            .optional()
            .map_err(driver_error)?;
        Ok(found.is_some())
    }

    fn rewrite(
        &mut self,
        table: &str,
        backup: &str,
        rewrites: &[Rewrite<'_>],
    ) -> Result<Vec<bool>> {
        let mut update = self
            .conn
            .prepare_cached(&format!(
                "UPDATE \"{table}\" SET tools_override = ?1 WHERE rowid = ?2 AND tools_override IS ?3"
            ))
            .map_err(driver_error)?;
        let mut save = self
            .conn
            .prepare_cached(&format!("INSERT OR IGNORE INTO \"{backup}\" (rowid, tools_enabled, tools_override, web_search, toolset, matched, migrated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, datetime('now'))"))
            .map_err(driver_error)?;
        let mut written = Vec::with_capacity(rewrites.len());
        for w in rewrites {
            let row = w.row;
            // `IS` compares NULLs too: the row is written only if it still holds what was read.
            let updated = update
                .execute(params![w.value, row.key, row.tools_override])
                .map_err(driver_error)?;
            if updated > 0 {
                save.execute(params![
                    row.key,
                    row.tools_enabled,
                    row.tools_override,
                    row.web_search,
                    row.toolset,
                    w.matched
                ])
                .map_err(driver_error)?;
            }
            written.push(updated > 0);
        }
        Ok(written)
    }

    fn restore(&mut self, table: &str, backup: &str, columns: &[String]) -> Result<u64> {
        let sets: Vec<String> = ["tools_enabled", "tools_override", "web_search", "toolset"]
            .iter()
            .filter(|c| columns.iter().any(|x| x == *c))
            .map(|c| format!("{c} = b.{c}"))
            .collect();
        let restored = self
            .conn
            .execute(
                &format!(
                    "UPDATE \"{table}\" SET {} FROM \"{backup}\" AS b WHERE \"{table}\".rowid = b.rowid",
                    sets.join(", ")
                ),
                [],
            )
            .map_err(driver_error)?;
        self.conn
            .execute_batch(&format!("DROP TABLE \"{backup}\""))
            .map_err(driver_error)?;
        Ok(restored as u64)
    }
}
