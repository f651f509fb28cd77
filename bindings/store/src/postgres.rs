//! The fleet's store: a PostgreSQL database. Publishers are ordered by a lock on the versions
//! table held to the end of the publishing transaction; each publication sends
//! `NOTIFY tool_intent_versions` in that transaction, which PostgreSQL delivers to every
//! listening session when it commits (<https://www.postgresql.org/docs/current/sql-notify.html>),
//! so a process learns of a new version without asking at every turn boundary: a listener
//! thread with a connection of its own waits for the notifications and raises a flag, and a
//! turn boundary reads the flag (no round trip when nothing changed).
//!
//! A connection the server closes (a restart, a failover, an idle timeout) is made again: the
//! store's own on the next call, which runs once more on the new connection when the old one
//! died under it (every call is safe to repeat: a publication repeated finds its fingerprint
//! already newest); the listener's after a second, and a boundary asks the store itself until
//! it listens again (notifications sent meanwhile are lost).

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use postgres::{Client, NoTls, Row};
use tool_intent::{Error, Registry, Result};

use crate::retention::{to_remove, GcReport, Retention};
use crate::row::StoredRow;
use crate::schema_is_known;
use crate::{
    rebuild, unavailable, Expect, Publication, StoredVersion, VersionRow, VersionStore, ROW,
    SCHEMA_VERSION,
};

const CHANNEL: &str = "tool_intent_versions";

mod listener;
use listener::Listener;

/// Versions in a PostgreSQL database.
pub struct PostgresStore {
    url: String,
    client: Client,
    listener: Listener,
}

/// How long a failed call waits to learn whether its connection is still up.
const VALID_WAIT: Duration = Duration::from_secs(5);

fn failed(doing: &'static str) -> impl Fn(postgres::Error) -> Error {
    move |e| unavailable(doing, tool_intent::error::with_sources(&e))
}

/// A row read back, checked ([`StoredRow::checked`]). The columns' types are the schema's
/// (`bigint`, `text`, `NOT NULL` where it says so), which PostgreSQL enforces.
fn row_of(r: &Row) -> Result<VersionRow> {
    StoredRow {
        sequence: r.get(0),
        fingerprint: r.get(1),
        published_ms: r.get(2),
        tools: r.get(3),
        used_ms: r.get(4),
    }
    .checked(KIND)
}

const KIND: &str = "postgres";

impl PostgresStore {
    /// Connects to the database at `url` (a `postgres://` URL), creates the tables on first
    /// use, and listens for publications.
    pub fn connect(url: &str) -> Result<PostgresStore> {
        let doing = "to connect";
        let mut client = Client::connect(url, NoTls).map_err(failed(doing))?;
        // Two processes creating the tables at once: one waits for the other.
        let mut tx = client.transaction().map_err(failed(doing))?;
        tx.execute("SELECT pg_advisory_xact_lock(7431001)", &[])
            .map_err(failed(doing))?;
        tx.batch_execute(&crate::schema("BIGINT", "BYTEA"))
            .map_err(failed(doing))?;
        tx.execute(
            "INSERT INTO tool_intent_store_meta (key, value) VALUES ('schema', $1) ON CONFLICT DO NOTHING",
            &[&SCHEMA_VERSION.to_string()],
        )
        .map_err(failed(doing))?;
        let written: String = tx
            .query_one(
                "SELECT value FROM tool_intent_store_meta WHERE key = 'schema'",
                &[],
            )
            .map_err(failed(doing))?
            .get(0);
        tx.commit().map_err(failed(doing))?;
        schema_is_known(&written)?;
        let listener = Listener::start(url)?;
        Ok(PostgresStore {
            url: url.to_string(),
            client,
            listener,
        })
    }

    /// Runs `op` on the store's connection, connecting again first if the server closed it,
    /// and once more on a new connection if it died during `op`.
    fn run<T>(&mut self, mut op: impl FnMut(&mut Client) -> Result<T>) -> Result<T> {
        if self.client.is_closed() {
            self.reconnect()?;
        }
        let first = op(&mut self.client);
        // The error of a connection the server ended arrives before the client knows it is
        // closed: ask the connection (one round trip, on failures only).
        if first.is_err() && (self.client.is_closed() || self.client.is_valid(VALID_WAIT).is_err())
        {
            self.reconnect()?;
            return op(&mut self.client);
        }
        first
    }

    fn reconnect(&mut self) -> Result<()> {
        self.client = Client::connect(&self.url, NoTls).map_err(failed("to connect again"))?;
        Ok(())
    }
}

impl VersionStore for PostgresStore {
    fn publish(&mut self, version: &StoredVersion, expect: Expect) -> Result<Publication> {
        let doing = "to publish a registry version";
        self.run(|client| {
        let mut tx = client.transaction().map_err(failed(doing))?;
        // Publishers one at a time (readers are not blocked: EXCLUSIVE lets SELECT through).
        tx.batch_execute("LOCK TABLE tool_intent_versions IN EXCLUSIVE MODE")
            .map_err(failed(doing))?;
        let newest = tx
            .query_opt(&format!("{ROW} ORDER BY v.seq DESC LIMIT 1"), &[])
            .map_err(failed(doing))?
            .map(|r| row_of(&r))
            .transpose()?;
        let row = match crate::decide(newest, version, expect) {
            Ok(row) => row,
            Err(outcome) => return Ok(outcome),
        };
        let (digests, bodies): (Vec<&str>, Vec<&str>) = version
            .tools
            .iter()
            .map(|(d, b)| (d.as_str(), b.as_str()))
            .unzip();
        tx.execute(
            "INSERT INTO tool_intent_tools (digest, body) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING",
            &[&digests, &bodies],
        )
        .map_err(failed(doing))?;
        tx.execute(
            "INSERT INTO tool_intent_documents (fingerprint, skeleton, tools) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            &[&version.fingerprint, &version.skeleton, &(version.tools.len() as i64)],
        )
        .map_err(failed(doing))?;
        tx.execute(
            "INSERT INTO tool_intent_versions (seq, fingerprint, published_ms) VALUES ($1, $2, $3)",
            &[&(row.sequence as i64), &row.fingerprint, &row.published_ms],
        )
        .map_err(failed(doing))?;
        tx.execute(
            "SELECT pg_notify($1, $2)",
            &[&CHANNEL, &row.sequence.to_string()],
        )
        .map_err(failed(doing))?;
        tx.commit().map_err(failed(doing))?;
        Ok(Publication::Published(row))
        })
    }

    fn newest(&mut self) -> Result<Option<VersionRow>> {
        self.run(|client| {
            client
                .query_opt(&format!("{ROW} ORDER BY v.seq DESC LIMIT 1"), &[])
                .map_err(failed("to read its newest version"))?
                .map(|r| row_of(&r))
                .transpose()
        })
    }

    fn find(&mut self, fingerprint: &str) -> Result<Option<VersionRow>> {
        self.run(|client| {
            client
                .query_opt(
                    &format!("{ROW} WHERE v.fingerprint = $1 ORDER BY v.seq DESC LIMIT 1"),
                    &[&fingerprint],
                )
                .map_err(failed("to find a version"))?
                .map(|r| row_of(&r))
                .transpose()
        })
    }

    fn load(&mut self, fingerprint: &str) -> Result<Option<Registry>> {
        let doing = "to read a version";
        self.run(|client| {
            let Some(document) = client
                .query_opt(
                    "SELECT skeleton FROM tool_intent_documents WHERE fingerprint = $1",
                    &[&fingerprint],
                )
                .map_err(failed(doing))?
            else {
                return Ok(None);
            };
            let skeleton: String = document.get(0);
            let digests = crate::digests_of(fingerprint, &skeleton)?;
            // Every tool in one round trip.
            let bodies: BTreeMap<String, String> = client
                .query(
                    "SELECT digest, body FROM tool_intent_tools WHERE digest = ANY($1)",
                    &[&digests],
                )
                .map_err(failed(doing))?
                .iter()
                .map(|r| (r.get(0), r.get(1)))
                .collect();
            rebuild(fingerprint, &skeleton, &mut |d| Ok(bodies.get(d).cloned())).map(Some)
        })
    }

    fn versions(&mut self) -> Result<Vec<VersionRow>> {
        self.run(|client| {
            client
                .query(&format!("{ROW} ORDER BY v.seq"), &[])
                .map_err(failed("to list its versions"))?
                .iter()
                .map(row_of)
                .collect()
        })
    }

    fn changed(&mut self) -> Result<bool> {
        // A listener that lost its connection cannot tell: say "changed", so the caller asks
        // the store itself (through this store's own connection).
        if !self.listener.alive.load(Ordering::Acquire) {
            return Ok(true);
        }
        Ok(self.listener.changed.swap(false, Ordering::AcqRel))
    }

    fn mark_used(&mut self, fingerprint: &str, now_ms: i64) -> Result<()> {
        self.run(|client| {
            client
                .execute(
                    "INSERT INTO tool_intent_use (fingerprint, used_ms) VALUES ($1, $2) \
                     ON CONFLICT (fingerprint) DO UPDATE \
                     SET used_ms = GREATEST(tool_intent_use.used_ms, EXCLUDED.used_ms)",
                    &[&fingerprint, &now_ms],
                )
                .map_err(failed("to mark a version used"))?;
            Ok(())
        })
    }

    fn gc(&mut self, retention: &Retention, now_ms: i64, in_use: &[&str]) -> Result<GcReport> {
        let doing = "to remove old versions";
        self.run(|client| {
            let mut tx = client.transaction().map_err(failed(doing))?;
            // Publications wait for the removal; the list is read under the lock, so a version
            // published meanwhile is not in it.
            tx.batch_execute("LOCK TABLE tool_intent_versions IN EXCLUSIVE MODE")
                .map_err(failed(doing))?;
            let versions: Vec<VersionRow> = tx
                .query(&format!("{ROW} ORDER BY v.seq"), &[])
                .map_err(failed(doing))?
                .iter()
                .map(row_of)
                .collect::<Result<_>>()?;
            let removed = to_remove(&versions, retention, now_ms, in_use);
            tx.execute(
                "DELETE FROM tool_intent_documents WHERE fingerprint = ANY($1)",
                &[&removed],
            )
            .map_err(failed(doing))?;
            let mut used: Vec<String> = Vec::new();
            for r in tx
                .query(
                    "SELECT fingerprint, skeleton FROM tool_intent_documents",
                    &[],
                )
                .map_err(failed(doing))?
            {
                let (fingerprint, skeleton): (String, String) = (r.get(0), r.get(1));
                used.extend(crate::digests_of(&fingerprint, &skeleton)?);
            }
            used.sort();
            used.dedup();
            let tools_removed = tx
                .execute(
                    "DELETE FROM tool_intent_tools WHERE NOT (digest = ANY($1))",
                    &[&used],
                )
                .map_err(failed(doing))? as usize;
            let kept: i64 = tx
                .query_one("SELECT count(*) FROM tool_intent_documents", &[])
                .map_err(failed(doing))?
                .get(0);
            tx.commit().map_err(failed(doing))?;
            Ok(GcReport {
                removed,
                kept: kept as usize,
                tools_removed,
            })
        })
    }

    fn embeddings(&mut self, model: &str) -> Result<Vec<(String, Vec<u8>)>> {
        self.run(|client| {
            Ok(client
                .query(
                    "SELECT text, vector FROM tool_intent_embeddings WHERE model = $1 ORDER BY text",
                    &[&model],
                )
                .map_err(failed("to read tool embeddings"))?
                .iter()
                .map(|r| (r.get(0), r.get(1)))
                .collect())
        })
    }

    fn add_embeddings(&mut self, model: &str, rows: &[(String, Vec<u8>)]) -> Result<()> {
        let (texts, vectors): (Vec<&str>, Vec<&[u8]>) =
            rows.iter().map(|(t, v)| (t.as_str(), v.as_slice())).unzip();
        self.run(|client| {
            client
                .execute(
                    "INSERT INTO tool_intent_embeddings (model, text, vector) \
                     SELECT $1, * FROM unnest($2::text[], $3::bytea[]) ON CONFLICT DO NOTHING",
                    &[&model, &texts, &vectors],
                )
                .map_err(failed("to share tool embeddings"))?;
            Ok(())
        })
    }

    fn kind(&self) -> &'static str {
        KIND
    }

    fn size_bytes(&mut self) -> Result<u64> {
        let size: i64 = self.run(|client| {
            Ok(client
                .query_one(
                    "SELECT (pg_total_relation_size('tool_intent_tools') + pg_total_relation_size('tool_intent_documents') \
                     + pg_total_relation_size('tool_intent_versions') + pg_total_relation_size('tool_intent_store_meta') \
                     + pg_total_relation_size('tool_intent_use') + pg_total_relation_size('tool_intent_embeddings'))::bigint",
                    &[],
                )
                .map_err(failed("to measure its size"))?
                .get(0))
        })?;
        Ok(size as u64)
    }
}
