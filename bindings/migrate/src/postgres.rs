//! The session table in PostgreSQL (the synchronous `postgres` client). A row's key is the
//! table's single integer primary key. Values are read as their text form (`col::text`) and
//! written back through a cast to the column's own type, so `boolean`, `integer`, `text`,
//! `json` and `jsonb` columns all work; the backup keeps the text forms and an undo casts them
//! back (for `jsonb`, exact up to the normalisation PostgreSQL itself applies).

use postgres::{Client, NoTls};

use super::store::{
    check_session_columns, database_error, Backup, Cell, Rewrite, Row, Store, SESSION_COLUMNS,
};
use tool_intent::error::{Error, Result, SourceError};

/// The driver's error as ours, kept as the source. The message adds what its sources say:
/// tokio-postgres says only "error connecting to server" and keeps "Connection refused (os
/// error 111)" in its source.
fn driver_error(e: postgres::Error) -> Error {
    Error::Database {
        message: tool_intent::error::with_sources(&e),
        source: Some(SourceError::new(e)),
    }
}

pub(crate) struct PostgresStore {
    client: Client,
    /// (column, type) of the table last read by `columns`.
    types: Vec<(String, String)>,
    /// Its primary key column.
    key: String,
}

impl PostgresStore {
    pub(crate) fn open(url: &str) -> Result<PostgresStore> {
        Ok(PostgresStore {
            client: Client::connect(url, NoTls).map_err(driver_error)?,
            types: Vec::new(),
            key: String::new(),
        })
    }

    /// A table's (column, type) pairs, in order (none when there is no such table).
    fn column_types(&mut self, table: &str) -> Result<Vec<(String, String)>> {
        let rows = self
            .client
            .query(
                "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a WHERE a.attrelid = to_regclass(quote_ident($1)) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
                &[&table],
            )
            .map_err(driver_error)?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn type_of(&self, column: &str) -> &str {
        self.types
            .iter()
            .find(|(c, _)| c == column)
            .map_or("text", |(_, t)| t.as_str())
    }
}

fn text(row: &postgres::Row, i: usize) -> Result<Cell> {
    Ok(
        match row.try_get::<_, Option<String>>(i).map_err(driver_error)? {
            Some(t) => Cell::Text(t),
            None => Cell::Null,
        },
    )
}

/// `SELECT` of the columns `session_row` reads from `table` by its key column (NULL for a
/// session column the table lacks), for a `WHERE ...` to follow.
fn select_session_row(key: &str, table: &str, columns: &[String]) -> String {
    let has = |c: &str| columns.iter().any(|x| x == c);
    format!(
        "SELECT \"{key}\"::bigint, tools_enabled::text, tools_override::text, {}, {} FROM \"{table}\"",
        if has("web_search") { "web_search::text" } else { "NULL::text" },
        if has("toolset") { "toolset::text" } else { "NULL::text" },
    )
}

/// A session row from a `SELECT key, tools_enabled, tools_override, web_search, toolset`.
fn session_row(r: &postgres::Row) -> Result<Row> {
    Ok(Row {
        key: r.try_get(0).map_err(driver_error)?,
        tools_enabled: text(r, 1)?,
        tools_override: text(r, 2)?,
        web_search: text(r, 3)?,
        toolset: text(r, 4)?,
    })
}

impl Store for PostgresStore {
    fn execute(&mut self, sql: &str) -> Result<()> {
        self.client.batch_execute(sql).map_err(driver_error)
    }

    fn columns(&mut self, table: &str) -> Result<Vec<String>> {
        self.types = self.column_types(table)?;
        let cols: Vec<String> = self.types.iter().map(|(c, _)| c.clone()).collect();
        check_session_columns(table, &cols)?;
        let keys = self
            .client
            .query(
                "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod) FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = to_regclass(quote_ident($1)) AND i.indisprimary",
                &[&table],
            )
            .map_err(driver_error)?;
        let integer = ["smallint", "integer", "bigint"];
        match keys.as_slice() {
            [key] if integer.contains(&key.get::<_, String>(1).as_str()) => {
                self.key = key.get(0);
            }
            _ => {
                return Err(database_error(format!(
                    "table {table:?} needs a single integer primary key (the rows are read and rewritten by it)"
                )))
            }
        }
        Ok(cols)
    }

    fn add_column(&mut self, table: &str, column: &str) -> Result<()> {
        let ty = if column == "web_search" {
            "boolean"
        } else {
            "text"
        };
        self.execute(&format!("ALTER TABLE \"{table}\" ADD COLUMN {column} {ty}"))?;
        self.types.push((column.to_string(), ty.to_string()));
        Ok(())
    }

    fn count(&mut self, table: &str) -> Result<u64> {
        let row = self
            .client
            .query_one(&format!("SELECT count(*) FROM \"{table}\""), &[])
            .map_err(driver_error)?;
        Ok(row.get::<_, i64>(0).max(0) as u64)
    }

    fn read_after(
        &mut self,
        table: &str,
        columns: &[String],
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Row>> {
        let key = &self.key;
        let sql = format!(
            "{} WHERE $1::bigint IS NULL OR \"{key}\" > $1::bigint ORDER BY \"{key}\" LIMIT $2",
            select_session_row(key, table, columns)
        );
        let limit = limit as i64;
        let rows = self
            .client
            .query(&sql, &[&after, &limit])
            .map_err(driver_error)?;
        rows.iter().map(session_row).collect()
    }

    fn ensure_backup(&mut self, backup: &str) -> Result<()> {
        self.client
            .batch_execute(&format!(
                "CREATE TABLE IF NOT EXISTS \"{backup}\" (key bigint PRIMARY KEY, tools_enabled text, tools_override text, web_search text, toolset text, matched text, migrated_at timestamptz DEFAULT now(), written text)"
            ))
            .map_err(driver_error)
    }

    fn backup_columns(&mut self, backup: &str) -> Result<Vec<String>> {
        Ok(self
            .column_types(backup)?
            .into_iter()
            .map(|(c, _)| c)
            .collect())
    }

    fn rewrite(
        &mut self,
        table: &str,
        backup: &str,
        rewrites: &[Rewrite<'_>],
    ) -> Result<Vec<bool>> {
        if rewrites.is_empty() {
            return Ok(Vec::new());
        }
        let ty = self.type_of("tools_override").to_string();
        let key = &self.key;
        // One statement per batch, not two round trips per row: the rows and their values as
        // arrays. Under READ COMMITTED the WHERE is checked again on a row another session
        // updated meanwhile, so a rewritten row no longer matches and is left alone. RETURNING
        // gives the value as the column stores it (jsonb normalises), which an undo compares.
        let keys: Vec<i64> = rewrites.iter().map(|w| w.row.key).collect();
        let old: Vec<Option<String>> = rewrites
            .iter()
            .map(|w| w.row.tools_override.text())
            .collect();
        let new: Vec<&str> = rewrites.iter().map(|w| w.value.as_str()).collect();
        let updated: std::collections::BTreeMap<i64, Option<String>> = self
            .client
            .query(
                &format!(
                    "UPDATE \"{table}\" AS t SET tools_override = i.new::{ty} FROM unnest($1::bigint[], $2::text[], $3::text[]) AS i(key, old, new) WHERE t.\"{key}\" = i.key AND t.tools_override::text IS NOT DISTINCT FROM i.old RETURNING t.\"{key}\"::bigint, t.tools_override::text"
                ),
                &[&keys, &old, &new],
            )
            .map_err(driver_error)?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        let written: Vec<bool> = keys.iter().map(|k| updated.contains_key(k)).collect();
        // The rewrites that landed, each with the value the column now stores.
        let (mine, values): (Vec<&Rewrite<'_>>, Vec<Option<String>>) = rewrites
            .iter()
            .filter_map(|w| updated.get(&w.row.key).map(|v| (w, v.clone())))
            .unzip();
        let column = |f: &dyn Fn(&Row) -> &Cell| -> Vec<Option<String>> {
            mine.iter().map(|w| f(w.row).text()).collect()
        };
        let saved_keys: Vec<i64> = mine.iter().map(|w| w.row.key).collect();
        let matched: Vec<&str> = mine.iter().map(|w| w.matched.as_str()).collect();
        self.client
            .execute(
                &format!("INSERT INTO \"{backup}\" (key, tools_enabled, tools_override, web_search, toolset, matched, written) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) ON CONFLICT (key) DO UPDATE SET tools_enabled = excluded.tools_enabled, tools_override = excluded.tools_override, web_search = excluded.web_search, toolset = excluded.toolset, matched = excluded.matched, migrated_at = now(), written = excluded.written"),
                &[
                    &saved_keys,
                    &column(&|r| &r.tools_enabled),
                    &column(&|r| &r.tools_override),
                    &column(&|r| &r.web_search),
                    &column(&|r| &r.toolset),
                    &matched,
                    &values,
                ],
            )
            .map_err(driver_error)?;
        Ok(written)
    }

    fn read_backup_after(
        &mut self,
        backup: &str,
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Backup>> {
        let limit = limit as i64;
        let rows = self
            .client
            .query(
                &format!("SELECT key, tools_enabled, tools_override, web_search, toolset, written FROM \"{backup}\" WHERE $1::bigint IS NULL OR key > $1::bigint ORDER BY key LIMIT $2"),
                &[&after, &limit],
            )
            .map_err(driver_error)?;
        rows.iter()
            .map(|r| {
                Ok(Backup {
                    original: session_row(r)?,
                    written: text(r, 5)?,
                })
            })
            .collect()
    }

    fn read_rows(&mut self, table: &str, columns: &[String], keys: &[i64]) -> Result<Vec<Row>> {
        let key = &self.key;
        // FOR UPDATE: a server's write to one of these rows waits for this batch to commit,
        // so the values compared are the values overwritten.
        let sql = format!(
            "{} WHERE \"{key}\" = ANY($1::bigint[]) ORDER BY \"{key}\" FOR UPDATE",
            select_session_row(key, table, columns)
        );
        let rows = self.client.query(&sql, &[&keys]).map_err(driver_error)?;
        rows.iter().map(session_row).collect()
    }

    fn restore_rows(&mut self, table: &str, columns: &[String], rows: &[&Backup]) -> Result<u64> {
        if rows.is_empty() {
            return Ok(0);
        }
        let key = &self.key;
        let ty = self.type_of("tools_override").to_string();
        let present: Vec<(usize, &str)> = SESSION_COLUMNS
            .iter()
            .enumerate()
            .filter(|(_, c)| columns.iter().any(|x| x == *c))
            .map(|(k, c)| (k, *c))
            .collect();
        // The compare-and-set on every session column, in its text form as it was read.
        let guard: Vec<String> = present
            .iter()
            .map(|(k, c)| format!("t.{c}::text IS NOT DISTINCT FROM i.m{k}"))
            .collect();
        let keys: Vec<i64> = rows.iter().map(|b| b.original.key).collect();
        let migrated: Vec<Row> = rows.iter().map(|b| b.as_migrated()).collect();
        let col = |k: usize| -> Vec<Option<String>> {
            migrated.iter().map(|m| m.cells()[k].text()).collect()
        };
        let originals: Vec<Option<String>> = rows
            .iter()
            .map(|b| b.original.tools_override.text())
            .collect();
        self.client
            .execute(
                &format!(
                    "UPDATE \"{table}\" AS t SET tools_override = i.original::{ty} FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS i(key, m0, m1, m2, m3, original) WHERE t.\"{key}\" = i.key AND {}",
                    guard.join(" AND ")
                ),
                &[&keys, &col(0), &col(1), &col(2), &col(3), &originals],
            )
            .map_err(driver_error)
    }

    fn forget_backups(&mut self, backup: &str, keys: &[i64]) -> Result<()> {
        self.client
            .execute(
                &format!("DELETE FROM \"{backup}\" WHERE key = ANY($1::bigint[])"),
                &[&keys],
            )
            .map(|_| ())
            .map_err(driver_error)
    }
}
