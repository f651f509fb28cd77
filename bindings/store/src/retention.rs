//! Which versions a store keeps: the newest `keep_newest`, anything that was the newest
//! version within the last `keep_for_ms`, and whatever a caller says a live turn uses. A turn
//! begins on the newest version of its boundary, so the time that counts is when a version
//! stopped being the newest (its successor's publication), not its own publication: a version
//! published a week ago and replaced a minute ago has turns running on it. A removed version keeps its
//! row in the sequence (a session stamped with it still moves forward at its next turn
//! boundary); its document goes, and then every tool no kept version has.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::VersionRow;

/// How long versions are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// The newest versions kept whatever their age.
    pub keep_newest: usize,
    /// Versions that were the newest less than this long ago (milliseconds) are kept: a turn
    /// that began on one may still be running.
    pub keep_for_ms: i64,
}

impl Default for Retention {
    /// The newest 16, and a day.
    fn default() -> Self {
        Retention {
            keep_newest: 16,
            keep_for_ms: 24 * 60 * 60 * 1000,
        }
    }
}

/// What a [`VersionStore::gc`](crate::VersionStore::gc) removed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GcReport {
    /// Fingerprints of the versions removed, oldest first.
    pub removed: Vec<String>,
    /// Versions still held.
    pub kept: usize,
    /// Tools removed (no kept version had them).
    pub tools_removed: usize,
}

/// The fingerprints to remove from `versions` (sequence order): held ones only, never the
/// newest, never one that a kept row names.
pub(crate) fn to_remove(
    versions: &[VersionRow],
    retention: &Retention,
    now_ms: i64,
    in_use: &[&str],
) -> Vec<String> {
    let mut keep: BTreeSet<&str> = in_use.iter().copied().collect();
    // Newest first, with the time each row stopped being the newest (the newest never did).
    let mut replaced_at: Option<i64> = None;
    for (k, row) in versions.iter().rev().enumerate() {
        let newest_within = replaced_at.is_none_or(|at| now_ms - at < retention.keep_for_ms);
        if k < retention.keep_newest.max(1) || newest_within {
            keep.insert(&row.fingerprint);
        }
        replaced_at = Some(row.published_ms);
    }
    let mut out: Vec<String> = Vec::new();
    for row in versions {
        if !row.removed
            && !keep.contains(row.fingerprint.as_str())
            && !out.contains(&row.fingerprint)
        {
            out.push(row.fingerprint.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(sequence: u64, fingerprint: &str, published_ms: i64) -> VersionRow {
        VersionRow {
            sequence,
            fingerprint: fingerprint.into(),
            published_ms,
            tools: 1,
            removed: false,
        }
    }

    #[test]
    fn keeps_the_newest_the_recently_replaced_and_the_used() {
        let rows = [
            row(1, "a", 0),
            row(2, "b", 10),
            row(3, "c", 20),
            row(4, "d", 990),
            row(5, "e", 995),
        ];
        let keep = |n, ms, used: &[&str]| {
            to_remove(
                &rows,
                &Retention {
                    keep_newest: n,
                    keep_for_ms: ms,
                },
                1000,
                used,
            )
        };
        assert_eq!(keep(2, 0, &[]), ["a", "b", "c"]);
        // c was published long ago but was the newest until 10 ms ago: turns may run on it.
        assert_eq!(keep(2, 100, &[]), ["a", "b"]);
        assert_eq!(keep(1, 50, &[]), ["a", "b"]);
        assert_eq!(keep(1, 1001, &[]), Vec::<String>::new());
        assert_eq!(keep(2, 0, &["b"]), ["a", "c"]);
        // The newest is kept even when asked to keep none.
        assert_eq!(keep(0, 0, &[]), ["a", "b", "c", "d"]);
        // A version published again later is kept by its newer row.
        let again = [row(1, "a", 0), row(2, "b", 10), row(3, "a", 999)];
        assert_eq!(
            to_remove(
                &again,
                &Retention {
                    keep_newest: 1,
                    keep_for_ms: 0
                },
                1000,
                &[]
            ),
            ["b"]
        );
    }
}
