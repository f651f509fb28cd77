//! BERT's tokenizer, as all-MiniLM-L6-v2 uses it (its `tokenizer.json`: `BertNormalizer` with
//! lower-casing and accent stripping, `BertPreTokenizer`, `WordPiece` with `##` continuations
//! and at most 100 characters a word). Reference: Devlin et al., BERT, the original
//! `tokenization.py` (`BasicTokenizer`, `WordpieceTokenizer`), which `benches/retrieval/minilm.py`
//! follows too.
//!
//! 1. clean: NUL, U+FFFD and control characters are dropped, whitespace becomes a space;
//! 2. each CJK ideograph stands alone;
//! 3. lower-case, decompose (NFD) and drop combining marks (`café` → `cafe`);
//! 4. split at whitespace and around every punctuation character (ASCII symbols count);
//! 5. each word: greedy longest-match-first pieces from the vocabulary; a word with a part no
//!    piece covers, or longer than 100 characters, is `[UNK]`.

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

use super::table::StaticTable;

/// Longest word WordPiece splits (in characters); a longer one is `[UNK]`.
const MAX_WORD_CHARS: usize = 100;

/// Calls `each` with the id of every token of `text`, in order.
pub(super) fn tokens(table: &StaticTable, text: &str, mut each: impl FnMut(u32)) {
    let mut word = String::new();
    let mut piece = String::new();
    let mut ids = Vec::new();
    let mut flush = |word: &mut String| {
        if !word.is_empty() {
            word_pieces(table, word, &mut piece, &mut ids, &mut each);
            word.clear();
        }
    };
    for c in text.chars().flat_map(char::to_lowercase).nfd() {
        if c == '\0' || c == '\u{fffd}' {
            continue;
        }
        if is_whitespace(c) {
            flush(&mut word);
            continue;
        }
        let group = c.general_category_group();
        if group == GeneralCategoryGroup::Other
            || group == GeneralCategoryGroup::Mark && is_nonspacing(c)
        {
            continue;
        }
        if is_punctuation(c) || is_cjk(c) {
            flush(&mut word);
            word.push(c);
            flush(&mut word);
            continue;
        }
        word.push(c);
    }
    flush(&mut word);
}

/// The pieces of one word, through `each`; `piece` and `ids` are the caller's scratch buffers
/// (one per text, not one per word).
fn word_pieces(
    table: &StaticTable,
    word: &str,
    piece: &mut String,
    ids: &mut Vec<u32>,
    each: &mut impl FnMut(u32),
) {
    let unknown = |each: &mut dyn FnMut(u32)| {
        if let Some(id) = table.unknown() {
            each(id);
        }
    };
    if word.chars().count() > MAX_WORD_CHARS {
        return unknown(each);
    }
    // Find every piece before emitting any: an uncovered part makes the whole word [UNK].
    ids.clear();
    let mut start = 0;
    while start < word.len() {
        let mut end = word.len();
        let mut found = None;
        while end > start {
            piece.clear();
            if start > 0 {
                piece.push_str("##");
            }
            piece.push_str(&word[start..end]);
            if let Some(id) = table.id(piece) {
                found = Some(id);
                break;
            }
            // Back off one character (not one byte).
            end = word[..end]
                .char_indices()
                .next_back()
                .map_or(start, |(i, _)| i);
        }
        match found {
            Some(id) => ids.push(id),
            None => return unknown(each),
        }
        start = end;
    }
    ids.iter().for_each(|&id| each(id));
}

/// Whitespace as BERT counts it: space, tab, newline, carriage return and category Zs.
fn is_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
        || c.general_category() == unicode_properties::GeneralCategory::SpaceSeparator
}

/// A combining mark that NFD split off a letter (category Mn): dropped with the accent.
fn is_nonspacing(c: char) -> bool {
    c.general_category() == unicode_properties::GeneralCategory::NonspacingMark
}

/// Every ASCII non-alphanumeric symbol, and Unicode punctuation (category P*).
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.general_category_group() == GeneralCategoryGroup::Punctuation
}

/// The CJK Unified Ideograph blocks BERT's `_is_chinese_char` lists.
fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::super::table::table;
    use super::*;

    fn pieces(text: &str) -> Vec<String> {
        let t = table().unwrap();
        let mut names = Vec::new();
        // The vocabulary in id order, to name the ids back.
        let bytes = super::super::table::vocabulary_bytes();
        let vocab: Vec<&str> = std::str::from_utf8(&bytes).unwrap().split('\n').collect();
        tokens(t, text, |id| names.push(vocab[id as usize].to_string()));
        names
    }

    #[test]
    fn splits_like_berts_tokenizer() {
        // Expected pieces from the model's own tokenizer (tokenizers 0.x, all-MiniLM-L6-v2).
        assert_eq!(pieces("Playing café!"), ["playing", "cafe", "!"]);
        assert_eq!(
            pieces("create_github_issue"),
            ["create", "_", "gi", "##th", "##ub", "_", "issue"]
        );
        assert_eq!(pieces("tokenization"), ["token", "##ization"]);
        assert_eq!(pieces("中文"), ["中", "文"]);
        assert_eq!(pieces("a\u{0}b\tc"), ["ab", "c"]);
        assert_eq!(pieces(&"x".repeat(101)), ["[UNK]"]);
        assert_eq!(pieces("\u{1F600}"), ["[UNK]"]);
        assert!(pieces("   ").is_empty());
    }
}
