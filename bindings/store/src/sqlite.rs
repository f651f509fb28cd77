//! The embedded store: one SQLite file that the processes of one machine share (WAL mode, so
//! readers never wait for the publisher). A process notices another's publication through
//! `PRAGMA data_version`, which changes when another connection commits
//! (<https://www.sqlite.org/pragma.html#pragma_data_version>): one read of the file's header
//! per turn boundary when nothing changed.

use std::collections::BTreeMap;
use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use tool_intent::{Error, Registry, Result};

use crate::retention::{to_remove, GcReport, Retention};
use crate::row::StoredRow;
use crate::{
    rebuild, unavailable, Expect, Publication, StoredVersion, VersionRow, VersionStore, ROW,
    SCHEMA_VERSION,
};

/// Versions in a SQLite file.
pub struct SqliteStore {
    db: Connection,
    data_version: Option<i64>,
}

fn failed(doing: &'static str) -> impl Fn(rusqlite::Error) -> Error {
    move |e| unavailable(doing, e)
}

impl SqliteStore {
    /// Opens (creating if needed) the store in the file at `path`.
    pub fn open(path: &Path) -> Result<SqliteStore> {
        let doing = "to open its SQLite file";
        let db = Connection::open(path)
            .map_err(|e| unavailable(doing, format_args!("{}: {e}", path.display())))?;
        // Several processes write the file: wait for a writer rather than fail at once.
        db.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(failed(doing))?;
        db.pragma_update(None, "journal_mode", "WAL")
            .map_err(failed(doing))?;
        db.execute_batch(&crate::schema("INTEGER", "BLOB"))
            .map_err(failed(doing))?;
        check_schema(&db)?;
        Ok(SqliteStore {
            db,
            data_version: None,
        })
    }
}

/// Writes this release's schema version into a new store; refuses one a newer release wrote.
fn check_schema(db: &Connection) -> Result<()> {
    let doing = "to read its schema version";
    db.execute(
        "INSERT OR IGNORE INTO tool_intent_store_meta (key, value) VALUES ('schema', ?1)",
        params![SCHEMA_VERSION.to_string()],
    )
    .map_err(failed(doing))?;
    let written: String = db
        .query_row(
            "SELECT value FROM tool_intent_store_meta WHERE key = 'schema'",
            [],
            |r| r.get(0),
        )
        .map_err(failed(doing))?;
    crate::schema_is_known(&written)
}

fn row_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredRow> {
    Ok(StoredRow {
        sequence: r.get(0)?,
        fingerprint: r.get(1)?,
        published_ms: r.get(2)?,
        tools: r.get(3)?,
        used_ms: r.get(4)?,
    })
}

/// A row read back, checked ([`StoredRow::checked`]).
fn checked(row: Option<StoredRow>) -> Result<Option<VersionRow>> {
    row.map(|r| r.checked(KIND)).transpose()
}

/// Rows read back, each checked.
fn all_checked(rows: Vec<StoredRow>) -> Result<Vec<VersionRow>> {
    rows.into_iter().map(|r| r.checked(KIND)).collect()
}

const KIND: &str = "sqlite";

impl VersionStore for SqliteStore {
    fn publish(&mut self, version: &StoredVersion, expect: Expect) -> Result<Publication> {
        let doing = "to publish a registry version";
        // IMMEDIATE: the write lock first, so two publishers are ordered, not interleaved.
        let tx = self
            .db
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed(doing))?;
        let newest = checked(
            tx.query_row(&format!("{ROW} ORDER BY v.seq DESC LIMIT 1"), [], row_of)
                .optional()
                .map_err(failed(doing))?,
        )?;
        let row = match crate::decide(newest, version, expect) {
            Ok(row) => row,
            Err(outcome) => return Ok(outcome),
        };
        {
            let mut tool = tx
                .prepare_cached(
                    "INSERT OR IGNORE INTO tool_intent_tools (digest, body) VALUES (?1, ?2)",
                )
                .map_err(failed(doing))?;
            for (digest, body) in &version.tools {
                tool.execute(params![digest, body]).map_err(failed(doing))?;
            }
        }
        tx.execute(
            "INSERT OR IGNORE INTO tool_intent_documents (fingerprint, skeleton, tools) VALUES (?1, ?2, ?3)",
            params![version.fingerprint, version.skeleton, version.tools.len() as i64],
        )
        .map_err(failed(doing))?;
        tx.execute(
            "INSERT INTO tool_intent_versions (seq, fingerprint, published_ms) VALUES (?1, ?2, ?3)",
            params![row.sequence as i64, row.fingerprint, row.published_ms],
        )
        .map_err(failed(doing))?;
        tx.commit().map_err(failed(doing))?;
        Ok(Publication::Published(row))
    }

    fn newest(&mut self) -> Result<Option<VersionRow>> {
        checked(
            self.db
                .query_row(&format!("{ROW} ORDER BY v.seq DESC LIMIT 1"), [], row_of)
                .optional()
                .map_err(failed("to read its newest version"))?,
        )
    }

    fn find(&mut self, fingerprint: &str) -> Result<Option<VersionRow>> {
        checked(
            self.db
                .query_row(
                    &format!("{ROW} WHERE v.fingerprint = ?1 ORDER BY v.seq DESC LIMIT 1"),
                    params![fingerprint],
                    row_of,
                )
                .optional()
                .map_err(failed("to find a version"))?,
        )
    }

    fn load(&mut self, fingerprint: &str) -> Result<Option<Registry>> {
        let doing = "to read a version";
        let document: Option<String> = self
            .db
            .query_row(
                "SELECT skeleton FROM tool_intent_documents WHERE fingerprint = ?1",
                params![fingerprint],
                |r| r.get(0),
            )
            .optional()
            .map_err(failed(doing))?;
        let Some(skeleton) = document else {
            return Ok(None);
        };
        let mut read = self
            .db
            .prepare_cached("SELECT body FROM tool_intent_tools WHERE digest = ?1")
            .map_err(failed(doing))?;
        let mut body = |digest: &str| -> Result<Option<String>> {
            read.query_row(params![digest], |r| r.get(0))
                .optional()
                .map_err(failed(doing))
        };
        rebuild(fingerprint, &skeleton, &mut body).map(Some)
    }

    fn versions(&mut self) -> Result<Vec<VersionRow>> {
        let doing = "to list its versions";
        let mut q = self
            .db
            .prepare(&format!("{ROW} ORDER BY v.seq"))
            .map_err(failed(doing))?;
        let rows = q.query_map([], row_of).map_err(failed(doing))?;
        all_checked(
            rows.collect::<rusqlite::Result<Vec<_>>>()
                .map_err(failed(doing))?,
        )
    }

    fn changed(&mut self) -> Result<bool> {
        let now: i64 = self
            .db
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(failed("to read its data version"))?;
        let changed = self.data_version != Some(now);
        self.data_version = Some(now);
        Ok(changed)
    }

    fn mark_used(&mut self, fingerprint: &str, now_ms: i64) -> Result<()> {
        self.db
            .execute(
                "INSERT INTO tool_intent_use (fingerprint, used_ms) VALUES (?1, ?2) \
                 ON CONFLICT (fingerprint) DO UPDATE SET used_ms = max(used_ms, excluded.used_ms)",
                params![fingerprint, now_ms],
            )
            .map_err(failed("to mark a version used"))?;
        Ok(())
    }

    fn gc(&mut self, retention: &Retention, now_ms: i64, in_use: &[&str]) -> Result<GcReport> {
        let doing = "to remove old versions";
        // The write lock first: no publication or use mark lands between the list and the
        // removal.
        let tx = self
            .db
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed(doing))?;
        let versions = {
            let mut q = tx
                .prepare(&format!("{ROW} ORDER BY v.seq"))
                .map_err(failed(doing))?;
            let rows = q.query_map([], row_of).map_err(failed(doing))?;
            all_checked(
                rows.collect::<rusqlite::Result<Vec<_>>>()
                    .map_err(failed(doing))?,
            )?
        };
        let removed = to_remove(&versions, retention, now_ms, in_use);
        for fp in &removed {
            tx.execute(
                "DELETE FROM tool_intent_documents WHERE fingerprint = ?1",
                params![fp],
            )
            .map_err(failed(doing))?;
        }
        // The tools the kept documents name.
        let mut used: BTreeMap<String, ()> = BTreeMap::new();
        {
            let mut q = tx
                .prepare("SELECT fingerprint, skeleton FROM tool_intent_documents")
                .map_err(failed(doing))?;
            let documents = q
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
                .map_err(failed(doing))?;
            for document in documents {
                let (fingerprint, skeleton) = document.map_err(failed(doing))?;
                let digests = crate::digests_of(&fingerprint, &skeleton)?;
                used.extend(digests.into_iter().map(|d| (d, ())));
            }
        }
        let all: Vec<String> = {
            let mut q = tx
                .prepare("SELECT digest FROM tool_intent_tools")
                .map_err(failed(doing))?;
            let rows = q
                .query_map([], |r| r.get::<_, String>(0))
                .map_err(failed(doing))?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
                .map_err(failed(doing))?
        };
        let mut tools_removed = 0;
        for digest in all.iter().filter(|d| !used.contains_key(*d)) {
            tools_removed += tx
                .execute(
                    "DELETE FROM tool_intent_tools WHERE digest = ?1",
                    params![digest],
                )
                .map_err(failed(doing))?;
        }
        let kept: i64 = tx
            .query_row("SELECT count(*) FROM tool_intent_documents", [], |r| {
                r.get(0)
            })
            .map_err(failed(doing))?;
        tx.commit().map_err(failed(doing))?;
        Ok(GcReport {
            removed,
            kept: kept as usize,
            tools_removed,
        })
    }

    fn embeddings(&mut self, model: &str) -> Result<Vec<(String, Vec<u8>)>> {
        let doing = "to read tool embeddings";
        let mut q = self
            .db
            .prepare(
                "SELECT text, vector FROM tool_intent_embeddings WHERE model = ?1 ORDER BY text",
            )
            .map_err(failed(doing))?;
        let rows = q
            .query_map(params![model], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(failed(doing))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(failed(doing))
    }

    fn add_embeddings(&mut self, model: &str, rows: &[(String, Vec<u8>)]) -> Result<()> {
        let doing = "to share tool embeddings";
        let tx = self.db.transaction().map_err(failed(doing))?;
        {
            let mut insert = tx
                .prepare_cached(
                    "INSERT OR IGNORE INTO tool_intent_embeddings (model, text, vector) VALUES (?1, ?2, ?3)",
                )
                .map_err(failed(doing))?;
            for (text, vector) in rows {
                insert
                    .execute(params![model, text, vector])
                    .map_err(failed(doing))?;
            }
        }
        tx.commit().map_err(failed(doing))
    }

    fn kind(&self) -> &'static str {
        KIND
    }

    fn size_bytes(&mut self) -> Result<u64> {
        let doing = "to measure its size";
        let pages: i64 = self
            .db
            .query_row("PRAGMA page_count", [], |r| r.get(0))
            .map_err(failed(doing))?;
        let page: i64 = self
            .db
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .map_err(failed(doing))?;
        Ok((pages * page) as u64)
    }
}

#[cfg(test)]
mod tests;
