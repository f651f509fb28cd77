//! Joining texts with a separator: the crate's one `join`.
//!
//! The standard `[S]::join` instantiates a length-summing copy loop per item type (about
//! 0.4 KB of wasm each, measured with twiggy); this one is a plain loop, and messages,
//! catalog lines and payload pieces all go through it.

/// The parts with `separator` between each two.
pub(crate) fn join<S: AsRef<str>>(parts: &[S], separator: &str) -> String {
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(separator);
        }
        out.push_str(part.as_ref());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::join;

    #[test]
    fn joins_as_the_standard_join_does() {
        let cases: [&[&str]; 5] = [&[], &[""], &["a"], &["a", "b"], &["", "x", "", "yz"]];
        for parts in cases {
            for separator in ["", ", ", "\n"] {
                assert_eq!(join(parts, separator), parts.join(separator), "{parts:?}");
                let owned: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
                assert_eq!(join(&owned, separator), parts.join(separator));
            }
        }
    }
}
