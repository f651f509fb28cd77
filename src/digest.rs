//! `sha256:<hex>`: the form of every fingerprint the crate writes (a registry's content, a
//! payload's bytes, one entry of a declared array).

use sha2::{Digest, Sha256};

/// `sha256:<hex>` of a digest.
pub(crate) fn sha256_hex(digest: &[u8]) -> String {
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in digest {
        // Both halves of a byte are below 16, so `from_digit` always has a digit for them.
        out.push(char::from_digit(u32::from(b >> 4), 16).unwrap_or('0'));
        out.push(char::from_digit(u32::from(b & 15), 16).unwrap_or('0'));
    }
    out
}

/// `sha256:<hex>` of some bytes (what a prompt cache keys on, for a payload).
pub fn fingerprint(bytes: &[u8]) -> String {
    sha256_hex(&Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_of_known_bytes() {
        assert_eq!(
            fingerprint(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
