//! A version row as a database gives it back, checked before it is used, and the registry it
//! names: what comes back from a store is input (a row edited by hand, a table restored from
//! another backup), and a row's sequence number orders every process's turns, its fingerprint
//! is shown in messages and its counts in tables.

use tool_intent::error::StoreFault;
use tool_intent::{Error, Registry, Result};

use crate::{VersionRow, VersionStore};

/// The registry of a version the store's own list names: a listed version whose registry the
/// store does not hold is a store edited or restored in part (`corrupt_version`), not a turn
/// state's unknown stamp (`unknown_version`).
pub(crate) fn registry_of(store: &mut dyn VersionStore, row: &VersionRow) -> Result<Registry> {
    let kind = store.kind();
    store.load(&row.fingerprint)?.ok_or_else(|| Error::Store {
        fault: StoreFault::CorruptVersion,
        message: format!(
            "the {kind} store lists version {} as {} but does not hold its registry",
            row.sequence, row.fingerprint
        ),
    })
}

/// The columns of [`crate::ROW`], as read.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) struct StoredRow {
    pub(crate) sequence: i64,
    pub(crate) fingerprint: String,
    pub(crate) published_ms: i64,
    pub(crate) tools: Option<i64>,
    pub(crate) used_ms: Option<i64>,
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
impl StoredRow {
    /// The row, if it is one this library writes: a sequence from 1 that leaves room for the
    /// next (the store numbers `newest + 1` in a signed 64-bit column), a `sha256:` fingerprint
    /// of 64 lowercase hex digits, no negative count or time. Otherwise `corrupt_version`
    /// naming the row and the column.
    pub(crate) fn checked(self, kind: &str) -> Result<VersionRow> {
        let fault = |what: String| Error::Store {
            fault: StoreFault::CorruptVersion,
            message: format!(
                "the {kind} store's version row {} is not one this library writes: {what}",
                self.sequence
            ),
        };
        if !(1..i64::MAX).contains(&self.sequence) {
            return Err(fault("its sequence number is out of range".into()));
        }
        if !tool_intent::registry::is_fingerprint(&self.fingerprint) {
            return Err(fault(format!(
                "its fingerprint {} is not sha256: and 64 lowercase hex digits",
                tool_intent::error::quoted(&self.fingerprint)
            )));
        }
        if self.published_ms < 0 || self.used_ms.is_some_and(|t| t < 0) {
            return Err(fault("a time before 1970".into()));
        }
        let tools = self
            .tools
            .map(usize::try_from)
            .transpose()
            .map_err(|_| fault("a negative tool count".into()))?;
        Ok(VersionRow {
            sequence: self.sequence as u64,
            fingerprint: self.fingerprint,
            published_ms: self.published_ms,
            tools: tools.unwrap_or(0),
            removed: tools.is_none(),
            used_ms: self.used_ms,
        })
    }
}

#[cfg(all(test, any(feature = "sqlite", feature = "postgres")))]
mod tests {
    use super::*;

    fn row() -> StoredRow {
        StoredRow {
            sequence: 3,
            fingerprint: format!("sha256:{}", "ab".repeat(32)),
            published_ms: 1_700_000_000_000,
            tools: Some(17),
            used_ms: None,
        }
    }

    #[test]
    fn a_row_this_library_writes_reads_back() {
        let r = row().checked("sqlite").unwrap();
        assert_eq!((r.sequence, r.tools, r.removed), (3, 17, false));
        let removed = StoredRow {
            tools: None,
            ..row()
        }
        .checked("sqlite")
        .unwrap();
        assert_eq!((removed.tools, removed.removed), (0, true));
    }

    #[test]
    fn an_edited_row_is_corrupt_naming_what() {
        for (edited, what) in [
            (
                StoredRow {
                    sequence: 0,
                    ..row()
                },
                "sequence",
            ),
            (
                StoredRow {
                    sequence: -4,
                    ..row()
                },
                "sequence",
            ),
            (
                StoredRow {
                    sequence: i64::MAX,
                    ..row()
                },
                "sequence",
            ),
            (
                StoredRow {
                    fingerprint: "sha256:00".into(),
                    ..row()
                },
                "fingerprint",
            ),
            (
                StoredRow {
                    fingerprint: format!("sha256:{}", "AB".repeat(32)),
                    ..row()
                },
                "fingerprint",
            ),
            (
                StoredRow {
                    fingerprint: "\u{1b}[2J".into(),
                    ..row()
                },
                "\\u{001b}",
            ),
            (
                StoredRow {
                    published_ms: -1,
                    ..row()
                },
                "1970",
            ),
            (
                StoredRow {
                    used_ms: Some(-1),
                    ..row()
                },
                "1970",
            ),
            (
                StoredRow {
                    tools: Some(-3),
                    ..row()
                },
                "negative tool count",
            ),
        ] {
            let e = edited.checked("sqlite").unwrap_err();
            assert_eq!(e.code(), "corrupt_version", "{e}");
            assert!(e.to_string().contains(what), "{e}");
            assert!(!e.to_string().contains('\u{1b}'), "{e}");
        }
    }
}
