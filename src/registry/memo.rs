//! Per-registry memos: values derived from the immutable registry (rendered entries, token
//! counts, the search index), built on first use and dropped with it.
//!
//! The registry does not know the memo types: each module that derives something owns its
//! type and sizes it from its own enums; the registry only holds one lazily filled slot per
//! type. Memos are pure functions of the registry, so caching can never change an output.

use std::any::{Any, TypeId};
use std::sync::OnceLock;

/// Enough slots for every memo type in the crate (the render cache, the token cache, the
/// search index), with room to spare.
const SLOTS: usize = 6;

type Slot = OnceLock<(TypeId, Box<dyn Any + Send + Sync>)>;

/// The memo slots of one registry.
#[derive(Default)]
pub(crate) struct Memos {
    slots: [Slot; SLOTS],
}

impl Memos {
    /// The memo of type `T`, built by `build` the first time (and only once, unless two
    /// threads race on a new slot; then one result is kept).
    pub(crate) fn get_or_build<T: Any + Send + Sync>(&self, build: impl Fn() -> T) -> &T {
        let id = TypeId::of::<T>();
        for slot in &self.slots {
            let (slot_id, value) = slot.get_or_init(|| (id, Box::new(build())));
            if *slot_id == id {
                if let Some(v) = value.downcast_ref::<T>() {
                    return v;
                }
            }
        }
        // More memo types than slots: a defect (the crate has three). Leaking keeps it total
        // rather than panicking inside wasm.
        Box::leak(Box::new(build()))
    }
}

impl std::fmt::Debug for Memos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let used = self.slots.iter().filter(|s| s.get().is_some()).count();
        write!(f, "Memos({used} of {SLOTS} used)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_type_built_once() {
        let m = Memos::default();
        let builds = std::cell::Cell::new(0);
        let seven = || {
            builds.set(builds.get() + 1);
            7u32
        };
        assert_eq!(*m.get_or_build(seven), 7);
        assert_eq!(*m.get_or_build(|| 8u32), 7);
        assert_eq!(m.get_or_build(|| "s".to_string()), "s");
        assert_eq!(*m.get_or_build(seven), 7);
        assert_eq!(builds.get(), 1);
    }
}
