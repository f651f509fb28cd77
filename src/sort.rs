//! One small sort for the whole crate: a bottom-up merge sort.
//!
//! The standard library's sorts are fast and large: each element type instantiates its own
//! quicksort, pivot selection and small-sort networks (about 3 KB of wasm each). The crate
//! sorts only names and name positions, at load and per call, where an `O(n log n)` merge is
//! as fast as needed; one routine per element type keeps the wasm module small.

/// Sorts names in `str` order (every name sort of the crate: one instantiation).
pub(crate) fn sort_names(v: &mut [&str]) {
    sort_by(v, |a, b| a < b);
}

/// The names sorted, each once.
pub(crate) fn sorted_unique_refs<S: AsRef<str>>(names: &[S]) -> Vec<&str> {
    let mut refs: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    sort_names(&mut refs);
    refs.dedup();
    refs
}

/// The names sorted, each once, as owned strings.
pub(crate) fn sorted_unique<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    owned(&sorted_unique_refs(names))
}

/// The names as owned strings.
pub(crate) fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

/// The length of the runs insertion-sorted before merging.
const RUN: usize = 16;

/// Sorts `v` by `less` (stable: equal elements keep their order).
pub(crate) fn sort_by<T: Copy>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let n = v.len();
    // Runs of RUN sorted in place by insertion (stable: an element moves left only past
    // greater ones), then merged pairwise: fewer passes than merging from runs of one.
    for run in v.chunks_mut(RUN) {
        for k in 1..run.len() {
            let mut j = k;
            while j > 0 && less(&run[j], &run[j - 1]) {
                run.swap(j, j - 1);
                j -= 1;
            }
        }
    }
    if n <= RUN {
        return;
    }
    let mut buf: Vec<T> = v.to_vec();
    let mut width = RUN;
    // Each pass merges runs of `width` from `src` into `dst`, then the two swap roles.
    let mut from_v = true;
    while width < n {
        let (src, dst): (&[T], &mut [T]) = if from_v {
            (&*v, &mut buf[..])
        } else {
            (&buf[..], &mut *v)
        };
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j) = (start, mid);
            for slot in dst[start..end].iter_mut() {
                // Take from the right run only when it is strictly less: stable.
                if j < end && (i >= mid || less(&src[j], &src[i])) {
                    *slot = src[j];
                    j += 1;
                } else {
                    *slot = src[i];
                    i += 1;
                }
            }
            start = end;
        }
        from_v = !from_v;
        width *= 2;
    }
    if !from_v {
        v.copy_from_slice(&buf);
    }
}

#[cfg(test)]
mod tests {
    use super::sort_by;

    #[test]
    fn sorts_short_and_odd_lengths_as_the_standard_sort_does() {
        for n in 0..40u32 {
            // A fixed scramble of 0..n with repeats.
            let mut v: Vec<u32> = (0..n).map(|i| (i * 7 + 3) % 11).collect();
            let mut want = v.clone();
            want.sort();
            sort_by(&mut v, |a, b| a < b);
            assert_eq!(v, want, "n = {n}");
        }
    }

    proptest::proptest! {
        #[test]
        fn is_the_standard_stable_sort(v in proptest::collection::vec((0u8..8, proptest::num::u16::ANY), 0..300)) {
            // Keys repeat (0..8) and the second field tells equal keys apart: stability shows.
            let mut want = v.clone();
            want.sort_by_key(|x| x.0);
            let mut got = v;
            sort_by(&mut got, |a, b| a.0 < b.0);
            proptest::prop_assert_eq!(got, want);
        }

        #[test]
        fn sorts_names_as_str_ordering_does(v in proptest::collection::vec("[a-c_]{0,4}", 0..100)) {
            let mut refs: Vec<&str> = v.iter().map(String::as_str).collect();
            let mut want = refs.clone();
            want.sort();
            sort_by(&mut refs, |a, b| a < b);
            proptest::prop_assert_eq!(refs, want);
        }
    }
}
