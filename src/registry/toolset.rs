//! Sets of registry positions, the contiguous name table glob scans read, and the sorted
//! name index lookups use.

use std::cmp::Ordering;

/// A set of tools as a mask in registry order; iteration order is registry order by design,
/// so no set operation can leak a hash order into an output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ToolSet(Vec<bool>);

impl ToolSet {
    pub(crate) fn empty(len: usize) -> Self {
        ToolSet(vec![false; len])
    }
    pub(crate) fn full(len: usize) -> Self {
        ToolSet(vec![true; len])
    }
    pub(crate) fn contains(&self, i: usize) -> bool {
        self.0.get(i).copied().unwrap_or(false)
    }
    pub(crate) fn insert(&mut self, i: usize) {
        if let Some(b) = self.0.get_mut(i) {
            *b = true;
        }
    }
    pub(crate) fn remove(&mut self, i: usize) {
        if let Some(b) = self.0.get_mut(i) {
            *b = false;
        }
    }
    pub(crate) fn union_with(&mut self, other: &ToolSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= *b;
        }
    }
    pub(crate) fn intersect_with(&mut self, other: &ToolSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= *b;
        }
    }
    pub(crate) fn subtract(&mut self, other: &ToolSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= !*b;
        }
    }
    pub(crate) fn is_empty(&self) -> bool {
        !self.0.iter().any(|b| *b)
    }
    /// Members in registry order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0
            .iter()
            .enumerate()
            .filter(|(_, b)| **b)
            .map(|(i, _)| i)
    }
}

/// All names in one buffer, each followed by a newline (names hold none: the loader refuses
/// them), so glob scans over 10,000 tools read contiguous memory and the names of a run of
/// positions are one slice of it, separators included.
#[derive(Debug, Clone, Default)]
pub(crate) struct NameTable {
    blob: String,
    /// Where each name ends (its newline's offset).
    ends: Vec<usize>,
}

impl NameTable {
    pub(crate) fn new<'a>(names: impl Iterator<Item = &'a str>) -> Self {
        let mut t = NameTable::default();
        for n in names {
            t.blob.push_str(n);
            t.ends.push(t.blob.len());
            t.blob.push('\n');
        }
        t
    }

    /// Where the name at a position starts (the buffer's length past the last one).
    fn start(&self, index: usize) -> usize {
        match index.checked_sub(1) {
            Some(prev) => self.ends.get(prev).map_or(self.blob.len(), |end| end + 1),
            None => 0,
        }
    }

    /// (position, name) in registry order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (usize, &str)> + '_ {
        let mut start = 0;
        self.ends.iter().enumerate().map(move |(i, &end)| {
            let s = self.blob.get(start..end).unwrap_or("");
            start = end + 1;
            (i, s)
        })
    }

    /// Appends the names at `positions` (ascending, as a split's lists are) to `out`, joined
    /// by newlines, each run of consecutive positions copied as one slice of the buffer: a
    /// plan's catalog of 1,000 names is a few copies, not a thousand (each a `memory.copy`
    /// call in wasm; with them, 30% of a 1,000-tool plan). A position out of range adds "".
    pub(crate) fn push_lines(&self, positions: &[usize], out: &mut String) {
        let mut rest = positions;
        while let Some(&first) = rest.first() {
            if rest.len() != positions.len() {
                out.push('\n');
            }
            // The run of consecutive positions from `first` that name tools.
            let run = rest
                .iter()
                .zip(first..self.ends.len())
                .take_while(|(&p, q)| p == *q)
                .count();
            if let Some(&end) = run.checked_sub(1).and_then(|r| self.ends.get(first + r)) {
                out.push_str(self.blob.get(self.start(first)..end).unwrap_or(""));
            }
            rest = rest.get(run.max(1)..).unwrap_or(&[]);
        }
    }

    /// The name at a position ("" when out of range).
    pub(crate) fn get(&self, index: usize) -> &str {
        let Some(&end) = self.ends.get(index) else {
            return "";
        };
        self.blob.get(self.start(index)..end).unwrap_or("")
    }
}

/// Registry positions sorted by name ignoring ASCII case: exact and case-folded lookups by
/// binary search over the name table, with no key copies (names are unique ignoring case, so
/// one order serves both).
#[derive(Debug, Clone, Default)]
pub(crate) struct NameIndex(Vec<u32>);

/// Byte order ignoring ASCII case (names are ASCII; other bytes compare as they are, the
/// same folding `str::to_ascii_lowercase` does).
pub(crate) fn cmp_folded(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (x.to_ascii_lowercase(), y.to_ascii_lowercase());
        if x != y {
            return x.cmp(&y);
        }
    }
    a.len().cmp(&b.len())
}

/// Positions in name order ignoring case, then position order (every caller shares this
/// instantiation of the crate's merge sort, `sort.rs`, which keeps the wasm module small).
pub(crate) fn sort_by_folded_name(positions: &mut [u32], names: &NameTable) {
    // Compared as lowered copies (one pass over the names): a plain byte comparison instead
    // of lowering both names in every comparison, the same order as `cmp_folded`.
    let lowered = names.blob.to_ascii_lowercase();
    let name = |i: u32| -> &[u8] {
        let i = i as usize;
        let start = names.start(i);
        let end = names.ends.get(i).copied().unwrap_or(start);
        lowered.as_bytes().get(start..end).unwrap_or(&[])
    };
    crate::sort::sort_by(positions, |&a, &b| (name(a), a) < (name(b), b));
}

impl NameIndex {
    /// Sorts the names; a pair equal ignoring case is returned as (earlier, later) position,
    /// the pair whose later member comes first in registry order.
    pub(crate) fn new(names: &NameTable) -> Result<NameIndex, (usize, usize)> {
        let mut sorted: Vec<u32> = (0..names.ends.len() as u32).collect();
        sort_by_folded_name(&mut sorted, names);
        let collision = sorted
            .windows(2)
            .filter(|w| cmp_folded(names.get(w[0] as usize), names.get(w[1] as usize)).is_eq())
            .map(|w| (w[0] as usize, w[1] as usize))
            .min_by_key(|&(_, later)| later);
        match collision {
            Some(pair) => Err(pair),
            None => Ok(NameIndex(sorted)),
        }
    }

    /// The position of the name equal to `name` ignoring ASCII case.
    pub(crate) fn find_folded(&self, names: &NameTable, name: &str) -> Option<usize> {
        self.0
            .binary_search_by(|&i| cmp_folded(names.get(i as usize), name))
            .ok()
            .map(|k| self.0[k] as usize)
    }

    /// The index of a registry made from another (`from`: each new position's old position,
    /// or `None` for a new tool), merged from the old order and the new tools sorted alone:
    /// linear in the registry plus a sort of the new tools. Names must be unique ignoring
    /// case (the caller checked).
    pub(crate) fn merged(
        previous: &NameIndex,
        from: &[Option<usize>],
        names: &NameTable,
    ) -> NameIndex {
        let mut to_new = vec![u32::MAX; previous.0.len()];
        let mut fresh: Vec<u32> = Vec::new();
        for (i, f) in from.iter().enumerate() {
            match f {
                Some(o) => {
                    if let Some(slot) = to_new.get_mut(*o) {
                        *slot = i as u32;
                    }
                }
                None => fresh.push(i as u32),
            }
        }
        sort_by_folded_name(&mut fresh, names);
        let mut kept = previous
            .0
            .iter()
            .map(|&o| to_new[o as usize])
            .filter(|&n| n != u32::MAX)
            .peekable();
        let mut fresh = fresh.into_iter().peekable();
        let mut out = Vec::with_capacity(from.len());
        loop {
            let next = match (kept.peek(), fresh.peek()) {
                (Some(&k), Some(&f)) => {
                    if cmp_folded(names.get(k as usize), names.get(f as usize)).is_lt() {
                        kept.next()
                    } else {
                        fresh.next()
                    }
                }
                (Some(_), None) => kept.next(),
                (None, Some(_)) => fresh.next(),
                (None, None) => break,
            };
            out.extend(next);
        }
        NameIndex(out)
    }

    /// Positions of the names starting with `prefix` ignoring ASCII case: one binary search,
    /// then the contiguous run (a server's tools under `mcp__<server>__*` without a scan).
    pub(crate) fn with_folded_prefix<'a>(
        &'a self,
        names: &'a NameTable,
        prefix: &'a str,
    ) -> impl Iterator<Item = usize> + 'a {
        let start = self
            .0
            .partition_point(|&i| cmp_folded(names.get(i as usize), prefix).is_lt());
        self.0[start..]
            .iter()
            .map(|&i| i as usize)
            .take_while(move |&i| {
                let name = names.get(i).as_bytes();
                name.len() >= prefix.len()
                    && name[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
            })
    }

    /// The position of exactly `name`.
    pub(crate) fn find(&self, names: &NameTable, name: &str) -> Option<usize> {
        self.find_folded(names, name)
            .filter(|&i| names.get(i) == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `push_lines` gives what joining each position's name with "\n" gives, for runs, gaps,
    /// lists out of order (a promoted list is in load order), repeats and positions out of
    /// range; `get` and `iter` read the table as it was given.
    #[test]
    fn lines_of_positions_are_the_names_joined() {
        let names = ["a", "bb", "ccc", "d", "ee", "f", "gggg"];
        let table = NameTable::new(names.iter().copied());
        let name = |i: usize| names.get(i).copied().unwrap_or("");
        assert_eq!(table.iter().map(|(_, n)| n).collect::<Vec<_>>(), names);
        for i in 0..names.len() + 2 {
            assert_eq!(table.get(i), name(i), "{i}");
        }
        let cases: [&[usize]; 11] = [
            &[],
            &[0],
            &[6],
            &[0, 1, 2, 3, 4, 5, 6],
            &[1, 2, 4, 5, 6],
            &[0, 2, 4, 6],
            &[5, 6, 7, 8],
            &[9, 0, 1],
            &[3, 1, 2, 0],
            &[2, 2, 3],
            &[6, 7, 0],
        ];
        for positions in cases {
            let mut out = String::from("head\n");
            table.push_lines(positions, &mut out);
            let expected: Vec<&str> = positions.iter().map(|&i| name(i)).collect();
            assert_eq!(
                out,
                format!("head\n{}", expected.join("\n")),
                "{positions:?}"
            );
        }
    }

    #[test]
    fn set_algebra_keeps_registry_order() {
        let mut a = ToolSet::empty(5);
        a.insert(3);
        a.insert(1);
        let mut b = ToolSet::full(5);
        b.remove(1);
        let mut u = a.clone();
        u.intersect_with(&b);
        assert_eq!(u.iter().collect::<Vec<_>>(), [3]);
        u.union_with(&a);
        assert_eq!(u.iter().collect::<Vec<_>>(), [1, 3]);
        u.subtract(&a);
        assert!(u.is_empty());
        assert!(!a.contains(99));
    }

    #[test]
    fn name_index_finds_exact_and_folded_names_and_reports_twins() {
        let t = NameTable::new(["Read", "write", "mcp__a__b", "shell"].into_iter());
        let idx = NameIndex::new(&t).unwrap();
        assert_eq!(idx.find(&t, "Read"), Some(0));
        assert_eq!(idx.find(&t, "read"), None);
        assert_eq!(idx.find_folded(&t, "READ"), Some(0));
        assert_eq!(idx.find(&t, "shell"), Some(3));
        assert_eq!(idx.find(&t, "nope"), None);
        let twins = NameTable::new(["a", "B", "c", "b", "A"].into_iter());
        assert_eq!(NameIndex::new(&twins).unwrap_err(), (1, 3));
    }

    #[test]
    fn prefix_runs_are_found_ignoring_case() {
        let t =
            NameTable::new(["mcp__a__x", "b", "MCP__A__y", "mcp__ab__z", "mcp__a_"].into_iter());
        let idx = NameIndex::new(&t).unwrap();
        let mut hits: Vec<usize> = idx.with_folded_prefix(&t, "mcp__a__").collect();
        hits.sort_unstable();
        assert_eq!(hits, [0, 2]);
        assert_eq!(idx.with_folded_prefix(&t, "zz").count(), 0);
        assert_eq!(idx.with_folded_prefix(&t, "").count(), 5);
    }

    #[test]
    fn name_table_reads_back_every_name() {
        let t = NameTable::new(["a", "bc", "", "d"].into_iter());
        assert_eq!(t.get(1), "bc");
        assert_eq!(t.get(2), "");
        assert_eq!(t.get(9), "");
        assert_eq!(
            t.iter().map(|(_, n)| n).collect::<Vec<_>>(),
            ["a", "bc", "", "d"]
        );
    }
}
