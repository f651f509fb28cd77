//! Which versions a store keeps. A turn plans on its version with the [`KEPT_VERSIONS`]
//! versions before it in the store's order (`SharedRegistry::registry_for`), so `gc` keeps:
//! - the newest `keep_newest`;
//! - anything that was the newest version within the last `keep_for_ms`: a turn begins on the
//!   newest version of its boundary, so the time that counts is when a version stopped being
//!   the newest (its successor's publication), not its own publication — a version published
//!   a week ago and replaced a minute ago has turns running on it;
//! - anything a turn was planned on within the last `keep_for_ms` (every process marks the
//!   versions it plans on, at most once a minute each: a live turn keeps its version however
//!   old it is), and whatever a caller says a live turn uses;
//! - the [`KEPT_VERSIONS`] versions before each version kept for a turn (a used one, or one
//!   a caller names): removing one would change what the turn's record is checked against,
//!   and so the bytes of its next request.
//!
//! A removed version keeps its row in the sequence (a session stamped with it still moves
//! forward at its next turn boundary); its document goes, and then every tool no kept version
//! has.

use std::collections::BTreeSet;

use serde::Serialize;

use tool_intent::registry::KEPT_VERSIONS;
use tool_intent::{Error, Result};

use crate::VersionRow;

/// How long versions are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// The newest versions kept whatever their age.
    pub keep_newest: usize,
    /// Versions that were the newest, or that a turn was planned on, less than this long ago
    /// (milliseconds) are kept: a turn that began on one may still be running. A turn idle
    /// for longer may find its version removed (`unknown_version`).
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

/// Milliseconds in an hour: `keep_hours`, the option's unit, in `keep_for_ms`'s.
const MS_PER_HOUR: f64 = 3_600_000.0;

impl Retention {
    /// The retention of `gc`'s options as the CLI (`--keep-newest`, `--keep-hours`) and
    /// Python (`keep_newest=`, `keep_hours=`) take them: an option left out is the
    /// default's; `keep_hours` is a number of hours, 0 or more (a fraction is kept to the
    /// millisecond; more hours than `i64` milliseconds hold keep everything), else
    /// `invalid_argument` on `keep_hours`.
    pub fn from_options(keep_newest: Option<usize>, keep_hours: Option<f64>) -> Result<Retention> {
        let default = Retention::default();
        let keep_for_ms = match keep_hours {
            None => default.keep_for_ms,
            // `as` saturates at i64::MAX: a span longer than the clock's keeps everything.
            Some(hours) if hours.is_finite() && hours >= 0.0 => (hours * MS_PER_HOUR) as i64,
            Some(hours) => {
                return Err(Error::InvalidArgument {
                    argument: "keep_hours",
                    path: None,
                    message: format!("expected a number of hours, 0 or more, found {hours}"),
                })
            }
        };
        Ok(Retention {
            keep_newest: keep_newest.unwrap_or(default.keep_newest),
            keep_for_ms,
        })
    }

    /// `keep_for_ms` in hours, the unit of the `keep_hours` option.
    pub fn keep_hours(&self) -> f64 {
        self.keep_for_ms as f64 / MS_PER_HOUR
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
    let within = |ms: i64| now_ms - ms < retention.keep_for_ms;
    // The versions turns run on: named by the caller, or marked used within the window.
    let mut planned_on: BTreeSet<&str> = in_use.iter().copied().collect();
    planned_on.extend(
        versions
            .iter()
            .filter(|r| r.used_ms.is_some_and(within))
            .map(|r| r.fingerprint.as_str()),
    );
    let mut keep = planned_on.clone();
    // Newest first, with the time each row stopped being the newest (the newest never did).
    let mut replaced_at: Option<i64> = None;
    for (k, row) in versions.iter().rev().enumerate() {
        if k < retention.keep_newest.max(1) || replaced_at.is_none_or(within) {
            keep.insert(&row.fingerprint);
        }
        replaced_at = Some(row.published_ms);
    }
    // What a turn on each of those plans beside: the versions before its first row, as
    // `SharedRegistry::registry_for` takes them.
    for fingerprint in &planned_on {
        let Some(first) = versions.iter().position(|r| r.fingerprint == *fingerprint) else {
            continue;
        };
        keep.extend(
            versions[..first]
                .iter()
                .rev()
                .filter(|r| !r.removed && r.fingerprint != *fingerprint)
                .take(KEPT_VERSIONS)
                .map(|r| r.fingerprint.as_str()),
        );
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

    #[test]
    fn options_in_hours_read_as_the_default_fills_them() {
        let default = Retention::default();
        assert_eq!(Retention::from_options(None, None).unwrap(), default);
        assert_eq!(default.keep_hours(), 24.0);
        let r = Retention::from_options(Some(3), Some(0.5)).unwrap();
        assert_eq!((r.keep_newest, r.keep_for_ms), (3, 1_800_000));
        assert_eq!(r.keep_hours(), 0.5);
        let zero = Retention::from_options(None, Some(0.0)).unwrap();
        assert_eq!(
            (zero.keep_newest, zero.keep_for_ms),
            (default.keep_newest, 0)
        );
        let forever = Retention::from_options(None, Some(1e300)).unwrap();
        assert_eq!(forever.keep_for_ms, i64::MAX);
        for wrong in [-1.0, -0.001, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let e = Retention::from_options(None, Some(wrong)).unwrap_err();
            assert_eq!(
                (e.code(), e.input()),
                ("invalid_argument", Some("keep_hours")),
                "{wrong}"
            );
        }
    }

    fn row(sequence: u64, fingerprint: &str, published_ms: i64) -> VersionRow {
        VersionRow {
            sequence,
            fingerprint: fingerprint.into(),
            published_ms,
            tools: 1,
            removed: false,
            used_ms: None,
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
        // A version a live turn uses keeps the versions before it too.
        assert_eq!(keep(2, 0, &["b"]), ["c"]);
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

    #[test]
    fn keeps_what_a_turn_planned_on_lately_and_the_versions_it_plans_beside() {
        // 20 versions a ms apart, long ago; the 3rd was planned on 5 ms before `now`.
        let mut rows: Vec<VersionRow> = (1..=20)
            .map(|s| row(s, &format!("v{s}"), s as i64))
            .collect();
        rows[2].used_ms = Some(995);
        let retention = Retention {
            keep_newest: 2,
            keep_for_ms: 100,
        };
        let removed = to_remove(&rows, &retention, 1000, &[]);
        // v3 and the two before it (fewer than KEPT_VERSIONS exist) stay; v4..v18 go.
        let expected: Vec<String> = (4..=18).map(|s| format!("v{s}")).collect();
        assert_eq!(removed, expected);
        // Used too long ago: it goes with the rest.
        rows[2].used_ms = Some(800);
        assert_eq!(to_remove(&rows, &retention, 1000, &[]).len(), 18);
        // A version named by the caller keeps its KEPT_VERSIONS predecessors, no more.
        let removed = to_remove(&rows, &retention, 1000, &["v15"]);
        let kept_before = 15 - 1 - KEPT_VERSIONS;
        let expected: Vec<String> = (1..=kept_before)
            .chain(16..=18)
            .map(|s| format!("v{s}"))
            .collect();
        assert_eq!(removed, expected);
    }
}
