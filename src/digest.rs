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

/// Whether `text` is a fingerprint as this crate writes one: `sha256:` and 64 lowercase hex
/// digits. What comes back from storage (a turn state's stamp, a store's version row) is held
/// to it, since a stamp reaches messages and is compared byte for byte.
pub fn is_fingerprint(text: &str) -> bool {
    text.len() == 71
        && text.starts_with("sha256:")
        && text
            .bytes()
            .skip(7)
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// `sha256:<hex>` of some bytes (what a prompt cache keys on, for a payload).
pub fn fingerprint(bytes: &[u8]) -> String {
    sha256_hex(&Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_written_form_is_a_fingerprint() {
        assert!(is_fingerprint(&fingerprint(b"abc")));
        let upper = fingerprint(b"abc")
            .to_uppercase()
            .replace("SHA256", "sha256");
        for text in [
            "",
            "sha256:",
            "sha256:00",
            &upper,
            &format!("md5:{}", "a".repeat(64)),
        ] {
            assert!(!is_fingerprint(text), "{text}");
        }
        assert!(!is_fingerprint(&format!("{}0", fingerprint(b"abc"))));
    }

    #[test]
    fn fingerprint_of_known_bytes() {
        assert_eq!(
            fingerprint(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
