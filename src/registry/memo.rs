//! Per-registry memos: values derived from the immutable registry (rendered entries, token
//! counts, the search index), built on first use and dropped with it.
//!
//! The registry does not know the memo types: each module that derives something owns its
//! type and sizes it from its own enums; the registry only holds one lazily filled slot per
//! type. Memos are pure functions of the registry, so caching can never change an output.

use std::any::Any;
use std::sync::OnceLock;

/// Every memo type of the crate, one slot each: the slot count is this enum's size, so the
/// slots cannot run out at run time (a new memo type adds a variant here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MemoSlot {
    /// `registry/rendered.rs`: each tool's rendered entry per provider.
    RenderedEntries,
    /// `budget`: each tool's token count per counter and provider.
    TokenCounts,
    /// `search`: the keyword index.
    KeywordIndex,
    /// `turn/split.rs`: which tools each provider refuses.
    ProviderRules,
    /// `turn/deferral.rs`: which tools are deferred when available.
    Deferrable,
    /// `turn/turn_plan.rs`: the renamed tools, in wire-name order.
    RenamedTools,
    /// `search::hybrid`: every tool's embedding (feature `hybrid`; the slot is one pointer
    /// either way).
    #[cfg_attr(not(feature = "hybrid"), allow(dead_code))]
    EmbeddingIndex,
    /// `search::model`: every tool's text as the model embeds it (feature `model`).
    #[cfg_attr(not(feature = "model"), allow(dead_code))]
    ModelTexts,
}

const SLOTS: usize = 8;
// The array below has one slot per variant: a variant added without growing it fails here.
const _: () = assert!(MemoSlot::ModelTexts as usize + 1 == SLOTS);

/// A registry's memo: the one kept with it, or one built for this call (only if its slot were
/// taken, which `every_slot_has_exactly_one_memo_type` proves does not happen).
pub(crate) enum MemoRef<'a, T> {
    Kept(&'a T),
    Built(T),
}

impl<T> std::ops::Deref for MemoRef<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        match self {
            MemoRef::Kept(memo) => memo,
            MemoRef::Built(memo) => memo,
        }
    }
}

/// A value derived from a registry and kept with it, in its own slot.
pub(crate) trait Memo: Any + Send + Sync {
    /// The slot this type owns (no other memo type may name it; `tests` checks).
    const SLOT: MemoSlot;
}

/// The memo slots of one registry.
#[derive(Default)]
pub(crate) struct Memos {
    slots: [OnceLock<Box<dyn Any + Send + Sync>>; SLOTS],
    /// The content fingerprint, typed rather than in a slot: it is an output (turn states are
    /// stamped with it), so it has no "not cached" case to fall back on.
    fingerprint: OnceLock<String>,
}

impl Memos {
    /// The memo of type `T`, built by `build` the first time (and only once, unless two
    /// threads race on the empty slot; then one result is kept). `None` only if two memo
    /// types claimed one slot, which `every_slot_has_exactly_one_memo_type` proves does not
    /// happen; callers would then compute the value without caching it, so the output is the
    /// same either way.
    pub(crate) fn get_or_build<T: Memo>(&self, build: impl FnOnce() -> T) -> Option<&T> {
        self.slots[T::SLOT as usize]
            .get_or_init(|| Box::new(build()))
            .downcast_ref::<T>()
    }
}

impl Memos {
    /// The registry's fingerprint, computed by `build` the first time.
    pub(crate) fn fingerprint(&self, build: impl FnOnce() -> String) -> &str {
        self.fingerprint.get_or_init(build)
    }
}

impl std::fmt::Debug for Memos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let used = self.slots.iter().filter(|s| s.get().is_some()).count();
        write!(f, "Memos({used} of {SLOTS} built)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Seven(u32);
    impl Memo for Seven {
        const SLOT: MemoSlot = MemoSlot::RenderedEntries;
    }
    struct Name(String);
    impl Memo for Name {
        const SLOT: MemoSlot = MemoSlot::TokenCounts;
    }
    struct Impostor;
    impl Memo for Impostor {
        const SLOT: MemoSlot = MemoSlot::RenderedEntries;
    }

    #[test]
    fn one_value_per_type_built_once() {
        let m = Memos::default();
        let builds = std::cell::Cell::new(0);
        let seven = || {
            builds.set(builds.get() + 1);
            Seven(7)
        };
        assert_eq!(m.get_or_build(seven).map(|s| s.0), Some(7));
        assert_eq!(m.get_or_build(|| Seven(8)).map(|s| s.0), Some(7));
        assert_eq!(
            m.get_or_build(|| Name("s".into())).map(|n| n.0.as_str()),
            Some("s")
        );
        assert_eq!(builds.get(), 1);
        // A type on another's slot gets nothing (its caller computes without caching).
        assert!(m.get_or_build(|| Impostor).is_none());
    }

    /// Every `impl Memo for T` in the crate's sources claims its own slot, and every slot is
    /// claimed: so no memo type ever finds its slot taken (`get_or_build`'s `None`).
    #[test]
    fn every_slot_has_exactly_one_memo_type() {
        fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    sources(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let mut files = Vec::new();
        sources(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut files,
        );
        let mut claims: Vec<(String, String)> = Vec::new();
        for file in files.iter().filter(|f| !f.ends_with("registry/memo.rs")) {
            let text = std::fs::read_to_string(file).unwrap();
            let mut rest = text.as_str();
            while let Some(i) = rest.find("impl Memo for ") {
                rest = &rest[i + "impl Memo for ".len()..];
                let ty: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
                let slot_at = rest.find("MemoSlot::").expect("a SLOT in the impl");
                let slot: String = rest[slot_at + "MemoSlot::".len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric())
                    .collect();
                claims.push((slot, ty));
            }
        }
        claims.sort();
        let slots: Vec<&str> = claims.iter().map(|(s, _)| s.as_str()).collect();
        let mut all = [
            "RenderedEntries",
            "TokenCounts",
            "KeywordIndex",
            "ProviderRules",
            "Deferrable",
            "RenamedTools",
            "EmbeddingIndex",
            "ModelTexts",
        ];
        all.sort();
        assert_eq!(
            slots, all,
            "one memo type per slot, every slot used: {claims:?}"
        );
        assert_eq!(all.len(), SLOTS);
    }
}
