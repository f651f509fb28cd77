//! The store in memory: what one process had before stores existed, and what the tests of
//! [`SharedRegistry`](crate::SharedRegistry) run against. Clones share one store (as the
//! processes of a fleet share a database), each noticing the others' publications.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use tool_intent::{Registry, Result};

use crate::retention::{to_remove, GcReport, Retention};
use crate::{rebuild, unavailable, Expect, Publication, StoredVersion, VersionRow, VersionStore};

#[derive(Debug, Default)]
struct Inner {
    versions: Vec<VersionRow>,
    documents: BTreeMap<String, (String, Vec<String>)>,
    tools: BTreeMap<String, String>,
    /// One more at each publication or removal.
    changes: u64,
    /// (model, tool text) → embedding bytes.
    embeddings: BTreeMap<(String, String), Vec<u8>>,
    /// Fingerprint → when a turn was last planned on it.
    used: BTreeMap<String, i64>,
}

impl Inner {
    /// A row as a store reads it back: with its version's last use.
    fn read(&self, row: &VersionRow) -> VersionRow {
        VersionRow {
            used_ms: self.used.get(&row.fingerprint).copied(),
            ..row.clone()
        }
    }

    fn rows(&self) -> Vec<VersionRow> {
        self.versions.iter().map(|r| self.read(r)).collect()
    }
}

/// Versions in this process's memory; clones share them.
#[derive(Debug, Clone, Default)]
pub struct MemoryStore {
    inner: Arc<Mutex<Inner>>,
    seen: u64,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut Inner) -> Result<T>) -> Result<T> {
        let mut inner = self
            .inner
            .lock()
            .map_err(|_| unavailable("to lock the memory store", "a thread panicked holding it"))?;
        f(&mut inner)
    }
}

impl VersionStore for MemoryStore {
    fn publish(&mut self, version: &StoredVersion, expect: Expect) -> Result<Publication> {
        self.with(|inner| {
            let newest = inner.versions.last().cloned();
            let row = match crate::decide(newest, version, expect) {
                Ok(row) => row,
                Err(outcome) => return Ok(outcome),
            };
            for (digest, body) in &version.tools {
                inner
                    .tools
                    .entry(digest.clone())
                    .or_insert_with(|| body.clone());
            }
            let digests = version.digests().iter().map(|d| d.to_string()).collect();
            inner.documents.insert(
                version.fingerprint.clone(),
                (version.skeleton.clone(), digests),
            );
            for r in inner
                .versions
                .iter_mut()
                .filter(|r| r.fingerprint == row.fingerprint)
            {
                r.removed = false;
            }
            inner.versions.push(row.clone());
            inner.changes += 1;
            Ok(Publication::Published(row))
        })
    }

    fn newest(&mut self) -> Result<Option<VersionRow>> {
        self.with(|inner| Ok(inner.versions.last().map(|r| inner.read(r))))
    }

    fn find(&mut self, fingerprint: &str) -> Result<Option<VersionRow>> {
        self.with(|inner| {
            Ok(inner
                .versions
                .iter()
                .rev()
                .find(|r| r.fingerprint == fingerprint)
                .map(|r| inner.read(r)))
        })
    }

    fn load(&mut self, fingerprint: &str) -> Result<Option<Registry>> {
        let found = self.with(|inner| {
            Ok(inner.documents.get(fingerprint).map(|(skeleton, digests)| {
                let tools: BTreeMap<String, String> = digests
                    .iter()
                    .filter_map(|d| inner.tools.get(d).map(|b| (d.clone(), b.clone())))
                    .collect();
                (skeleton.clone(), tools)
            }))
        })?;
        let Some((skeleton, tools)) = found else {
            return Ok(None);
        };
        rebuild(fingerprint, &skeleton, &mut |d| Ok(tools.get(d).cloned())).map(Some)
    }

    fn versions(&mut self) -> Result<Vec<VersionRow>> {
        self.with(|inner| Ok(inner.rows()))
    }

    fn changed(&mut self) -> Result<bool> {
        let changes = self.with(|inner| Ok(inner.changes))?;
        let changed = changes != self.seen;
        self.seen = changes;
        Ok(changed)
    }

    fn mark_used(&mut self, fingerprint: &str, now_ms: i64) -> Result<()> {
        self.with(|inner| {
            let used = inner.used.entry(fingerprint.to_string()).or_insert(now_ms);
            *used = (*used).max(now_ms);
            Ok(())
        })
    }

    fn gc(&mut self, retention: &Retention, now_ms: i64, in_use: &[&str]) -> Result<GcReport> {
        self.with(|inner| {
            let removed = to_remove(&inner.rows(), retention, now_ms, in_use);
            for fp in &removed {
                inner.documents.remove(fp);
                for r in inner.versions.iter_mut().filter(|r| &r.fingerprint == fp) {
                    r.removed = true;
                    r.tools = 0;
                }
            }
            let used: std::collections::BTreeSet<&String> =
                inner.documents.values().flat_map(|(_, d)| d).collect();
            let before = inner.tools.len();
            let unused: Vec<String> = inner
                .tools
                .keys()
                .filter(|d| !used.contains(d))
                .cloned()
                .collect();
            for d in &unused {
                inner.tools.remove(d);
            }
            if !removed.is_empty() {
                inner.changes += 1;
            }
            Ok(GcReport {
                removed,
                kept: inner.documents.len(),
                tools_removed: before - inner.tools.len(),
            })
        })
    }

    fn embeddings(&mut self, model: &str) -> Result<Vec<(String, Vec<u8>)>> {
        self.with(|inner| {
            Ok(inner
                .embeddings
                .iter()
                .filter(|((m, _), _)| m == model)
                .map(|((_, t), v)| (t.clone(), v.clone()))
                .collect())
        })
    }

    fn add_embeddings(&mut self, model: &str, rows: &[(String, Vec<u8>)]) -> Result<()> {
        self.with(|inner| {
            for (text, vector) in rows {
                inner
                    .embeddings
                    .entry((model.to_string(), text.clone()))
                    .or_insert_with(|| vector.clone());
            }
            Ok(())
        })
    }

    fn kind(&self) -> &'static str {
        "memory"
    }

    fn size_bytes(&mut self) -> Result<u64> {
        self.with(|inner| {
            let documents: usize = inner
                .documents
                .iter()
                .map(|(fp, (skeleton, digests))| {
                    fp.len() + skeleton.len() + digests.iter().map(String::len).sum::<usize>()
                })
                .sum();
            let tools: usize = inner.tools.iter().map(|(d, b)| d.len() + b.len()).sum();
            Ok((documents + tools) as u64)
        })
    }
}
