//! Registry versions: the content fingerprint a turn is stamped with, and the earlier
//! versions a registry made by a server change keeps for turns still running on them (the
//! turn boundary itself is `turn/boundary.rs`).
//!
//! A registry made by a change ([`Registry::set_mcp_server`] and friends) keeps the registry
//! it was made from as an earlier version, up to [`KEPT_VERSIONS`] of them (newest first):
//! enough for the bursts of `list_changed` a server sends as it starts, cheap because versions
//! share their tools, settings and memos.

use sha2::{Digest, Sha256};

use super::Registry;
use crate::digest::sha256_hex;

/// How many earlier versions a registry keeps for turns that began on them.
pub const KEPT_VERSIONS: usize = 8;

impl Registry {
    /// `sha256:<hex>` of the registry's content (its settings, then every tool's name,
    /// description, canonical schema and other fields in registry order): equal registries have
    /// equal fingerprints on every target, so a state stamped by one process is recognised by
    /// another that loaded the same document and server lists.
    pub fn fingerprint(&self) -> &str {
        self.data.memos.fingerprint(|| self.compute_fingerprint())
    }

    fn compute_fingerprint(&self) -> String {
        let mut h = Sha256::new();
        h.update(crate::json_text::text(&self.settings_value()).as_bytes());
        for t in self.tools() {
            for part in [t.name.as_str(), &t.description] {
                h.update((part.len() as u64).to_le_bytes());
                h.update(part.as_bytes());
            }
            h.update(t.schema.canonical_digest());
            let mut rest = serde_json::Map::new();
            if let Some(title) = &t.title {
                rest.insert("title".into(), title.clone().into());
            }
            if let Some(a) = &t.annotations {
                rest.insert("annotations".into(), a.clone());
            }
            if let Some(d) = t.defer {
                rest.insert("defer".into(), d.into());
            }
            rest.insert("strict".into(), t.strict.into());
            if let Some(s) = &t.source {
                rest.insert("source".into(), s.clone().into());
            }
            if !t.extra.is_empty() {
                rest.insert("extra".into(), serde_json::Value::Object(t.extra.clone()));
            }
            if let Some(b) = &t.builtin {
                rest.insert("builtin".into(), b.to_value());
            }
            let rest = crate::json_text::text(&serde_json::Value::Object(rest));
            h.update((rest.len() as u64).to_le_bytes());
            h.update(rest.as_bytes());
        }
        let digest = h.finalize();
        sha256_hex(&digest)
    }

    /// The version with this fingerprint: this registry or an earlier one it holds.
    pub(crate) fn version(&self, fingerprint: &str) -> Option<&Registry> {
        if self.fingerprint() == fingerprint {
            return Some(self);
        }
        self.data
            .earlier
            .iter()
            .find(|r| r.fingerprint() == fingerprint)
    }

    /// This registry as the successor of `previous`: `previous` (without its own history)
    /// becomes the newest earlier version.
    pub(crate) fn after(mut self, previous: &Registry) -> Registry {
        #[cfg(feature = "model")]
        {
            self.data_mut().model = previous.data.model.clone();
        }
        let mut flat = previous.clone();
        let older = std::mem::take(&mut flat.data_mut().earlier);
        self.data_mut().earlier = std::iter::once(flat)
            .chain(older)
            .take(KEPT_VERSIONS)
            .collect();
        self
    }

    /// Whether a turn stamped with `fingerprint` runs on a version this registry holds (itself
    /// or an earlier one).
    pub fn holds(&self, fingerprint: &str) -> bool {
        self.version(fingerprint).is_some()
    }

    /// This registry, also holding `version` as its newest earlier version (unless it already
    /// holds it): for a turn that began on a version this process never held, read back from a
    /// registry version store. The turn then runs on `version`'s tools and trust decisions
    /// (with `turn_registry_earlier`), while dispatch checks this registry, as for a version
    /// the process held itself.
    pub fn holding(&self, version: &Registry) -> Registry {
        if self.holds(version.fingerprint()) {
            return self.clone();
        }
        let mut flat = version.clone();
        flat.data_mut().earlier = Vec::new();
        let mut out = self.clone();
        let older = std::mem::take(&mut out.data_mut().earlier);
        out.data_mut().earlier = std::iter::once(flat)
            .chain(older)
            .take(KEPT_VERSIONS)
            .collect();
        out
    }

    /// The earlier versions held, newest first.
    pub(crate) fn earlier_versions(&self) -> impl Iterator<Item = &Registry> {
        self.data.earlier.iter()
    }
}
