//! What a migration, undo or audit run reports: the counts and rows of [`Report`], its readable
//! text, and the rows an audit finds ([`AuditRow`]).

use std::collections::BTreeMap;

use serde::Serialize;

/// What a run found and did.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The session table.
    pub table: String,
    /// Whether nothing was changed.
    pub dry_run: bool,
    /// Whether this was an undo run.
    pub undo: bool,
    /// Rows read.
    pub rows_read: u64,
    /// Rows whose override was null (nothing to do).
    pub null_rows: u64,
    /// Rows that already held an intent object.
    pub intents_kept: u64,
    /// Rows that held a real hand-pick (left byte-identical).
    pub hand_picks_kept: u64,
    /// Snapshot rows rewritten (or, in a dry run, that would be), by what they matched.
    pub snapshots_rewritten: BTreeMap<String, u64>,
    /// Rows left alone because they could not be read.
    pub unreadable_rows: Vec<UnreadableRow>,
    /// Columns the run added to the table (`web_search`, `toolset`).
    pub columns_added: Vec<String>,
    /// Where the originals are kept.
    pub backup_table: String,
    /// Rows restored by an undo run (in a dry run: that would be).
    pub rows_restored: u64,
    /// Backed-up rows an undo run left as the application last wrote them, and why.
    pub rows_not_restored: Vec<NotRestored>,
    /// Snapshot rows a server rewrote after the run read them: left alone (their keys).
    pub rows_changed_concurrently: Vec<i64>,
    /// Transactions committed with rewrites (1 for a one-transaction run).
    pub batches: u64,
}

/// A backed-up row an undo left alone: the application wrote it after the migration (or
/// deleted it), and its write wins over the backup.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct NotRestored {
    /// The row's key (SQLite rowid, PostgreSQL primary key).
    pub rowid: i64,
    /// `changed`: the row no longer holds what the migration left in `columns` (an update,
    /// or a deleted row whose key a new row reuses); `deleted`: no row has that key.
    pub reason: &'static str,
    /// The session columns that differ from what the migration left (`changed` only).
    pub columns: Vec<&'static str>,
}

/// A row a run could not read.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UnreadableRow {
    /// The row's key (SQLite rowid, PostgreSQL primary key).
    pub rowid: i64,
    /// Why.
    pub reason: String,
}

impl Report {
    /// Snapshot rows rewritten in all.
    pub fn snapshots_total(&self) -> u64 {
        self.snapshots_rewritten.values().sum()
    }

    /// The report as people read it.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.undo {
            out.push_str(&format!(
                "undo{}: {} {} of {} from {}\n",
                if self.dry_run {
                    " (dry run, nothing changed)"
                } else {
                    ""
                },
                if self.dry_run {
                    "would restore"
                } else {
                    "restored"
                },
                rows(self.rows_restored),
                self.table,
                self.backup_table
            ));
            if !self.rows_not_restored.is_empty() {
                out.push_str(&format!(
                    "  left as the application wrote them since: {}\n",
                    rows(self.rows_not_restored.len() as u64)
                ));
            }
            for r in self.rows_not_restored.iter().take(20) {
                match r.reason {
                    "changed" => out.push_str(&format!(
                        "    row {}: changed ({})\n",
                        r.rowid,
                        r.columns.join(", ")
                    )),
                    reason => out.push_str(&format!("    row {}: {reason}\n", r.rowid)),
                }
            }
            if self.rows_not_restored.len() > 20 {
                out.push_str(&format!(
                    "    ... and {} more (see --json)\n",
                    self.rows_not_restored.len() - 20
                ));
            }
            return out;
        }
        let line =
            |out: &mut String, label: &str, n: u64| out.push_str(&format!("  {label:<22}{n:>8}\n"));
        let header = if self.dry_run {
            " (dry run, nothing changed)"
        } else {
            ""
        };
        out.push_str(&format!("migrate{header}: table {}\n", self.table));
        line(&mut out, "rows read", self.rows_read);
        line(&mut out, "null (follow)", self.null_rows);
        line(&mut out, "intents kept", self.intents_kept);
        line(&mut out, "hand-picks kept", self.hand_picks_kept);
        let rewritten = if self.dry_run {
            "snapshots to rewrite"
        } else {
            "snapshots rewritten"
        };
        line(&mut out, rewritten, self.snapshots_total());
        for (k, n) in &self.snapshots_rewritten {
            out.push_str(&format!("    {k:<36}{n:>8}\n"));
        }
        line(
            &mut out,
            "changed meanwhile",
            self.rows_changed_concurrently.len() as u64,
        );
        line(&mut out, "unreadable", self.unreadable_rows.len() as u64);
        for r in self.unreadable_rows.iter().take(20) {
            out.push_str(&format!("    row {}: {}\n", r.rowid, r.reason));
        }
        if self.unreadable_rows.len() > 20 {
            out.push_str(&format!(
                "    ... and {} more (see --json)\n",
                self.unreadable_rows.len() - 20
            ));
        }
        if !self.columns_added.is_empty() {
            out.push_str(&format!(
                "  columns {}: {}\n",
                if self.dry_run { "to add" } else { "added" },
                self.columns_added.join(", ")
            ));
        }
        if !self.dry_run && self.snapshots_total() > 0 {
            out.push_str(&format!(
                "  originals kept in {} (undo: tool-intent migrate --undo)\n",
                self.backup_table
            ));
        }
        out
    }
}

/// Keys of this crate's JSON output whose values are data, not field names (the counts of
/// `snapshotsRewritten` are by snapshot name), as [`tool_intent::json::DATA_KEYS`] are.
pub const DATA_KEYS: [&str; 1] = ["snapshotsRewritten"];

/// A row that still holds a snapshot.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct AuditRow {
    /// The row's key (SQLite rowid, PostgreSQL primary key).
    pub rowid: i64,
    /// Which known expansion it equals.
    pub matched: String,
    /// The canonical intent a migration would store.
    pub intent: String,
}

/// "1 row", "2 rows".
fn rows(n: u64) -> String {
    format!("{n} row{}", if n == 1 { "" } else { "s" })
}
