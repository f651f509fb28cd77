//! Sets of registry positions and the contiguous name table glob scans read.

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

/// All names in one buffer, so glob scans over 10,000 tools read contiguous memory.
#[derive(Debug, Clone, Default)]
pub(crate) struct NameTable {
    blob: String,
    ends: Vec<usize>,
}

impl NameTable {
    pub(crate) fn new<'a>(names: impl Iterator<Item = &'a str>) -> Self {
        let mut t = NameTable::default();
        for n in names {
            t.blob.push_str(n);
            t.ends.push(t.blob.len());
        }
        t
    }

    /// (position, name) in registry order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (usize, &str)> + '_ {
        let mut start = 0;
        self.ends.iter().enumerate().map(move |(i, &end)| {
            let s = self.blob.get(start..end).unwrap_or("");
            start = end;
            (i, s)
        })
    }

    /// The name at a position ("" when out of range).
    pub(crate) fn get(&self, index: usize) -> &str {
        let Some(&end) = self.ends.get(index) else {
            return "";
        };
        let start = match index.checked_sub(1) {
            Some(prev) => self.ends.get(prev).copied().unwrap_or(0),
            None => 0,
        };
        self.blob.get(start..end).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
