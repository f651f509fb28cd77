//! Words and terms for keyword search: the same rules on the tool side and the query side.
//!
//! A *word* is a maximal run of ASCII letters and digits or non-ASCII characters, lower-cased
//! (ASCII folding only: Unicode tables would bloat the wasm package). `_`, `-`, `.`, `__`
//! and every other ASCII punctuation separate words, so snake_case, kebab-case and dotted
//! names split; a camelCase word (`createIssue`) yields its parts (`create`, `issue`) and the
//! whole (`createissue`), so both `GitHub` and `github` find a tool that says either.
//! Numbers are words.
//!
//! A *term* is a word that is not an English stop word, lightly stemmed ([`stem`]): plurals,
//! `-ing` and `-ed` fold onto one stem, so "creating issues" matches `create_issue`.

/// Calls `each` with every word of `text`, lower-cased, in order; a camelCase word gives its
/// parts, then the whole.
pub(super) fn words(text: &str, each: impl FnMut(&str)) {
    split(text, true, &mut String::new(), each);
}

/// [`words`] with a caller's scratch buffer for lower-casing (the index build splits every
/// field of every tool; one buffer saves an allocation per field with a capital in it).
pub(super) fn words_with(text: &str, scratch: &mut String, each: impl FnMut(&str)) {
    split(text, true, scratch, each);
}

/// Like [`words`], but a camelCase word gives only its parts: a name as a word sequence
/// (`createIssue` and `create_issue` are both `create`, `issue`).
pub(super) fn name_words(text: &str, each: impl FnMut(&str)) {
    split(text, false, &mut String::new(), each);
}

fn split(text: &str, camel_whole: bool, lower: &mut String, mut each: impl FnMut(&str)) {
    // Byte-wise: word boundaries are ASCII bytes, so every slice between them is UTF-8
    // (non-ASCII bytes are word bytes). A word without capitals is passed as a slice of
    // `text`; only a word with capitals is copied, lower-cased.
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if CLASS[usize::from(bytes[i])] == 0 {
            i += 1;
            continue;
        }
        let start = i;
        let mut class = 0;
        while let Some(&b) = bytes.get(i) {
            let c = CLASS[usize::from(b)];
            if c == 0 {
                break;
            }
            class |= c;
            i += 1;
        }
        let capitals = class & CAPITAL != 0;
        let word = &text[start..i];
        if !capitals {
            each(word);
            continue;
        }
        lower.clear();
        lower.push_str(word);
        lower.make_ascii_lowercase();
        // camelCase: a capital after a lower-case letter or a digit starts a part.
        let b = word.as_bytes();
        let mut part = 0;
        let mut parts = 0;
        for k in 1..b.len() {
            if b[k].is_ascii_uppercase()
                && (b[k - 1].is_ascii_lowercase() || b[k - 1].is_ascii_digit())
            {
                each(&lower[part..k]);
                part = k;
                parts += 1;
            }
        }
        each(&lower[part..]);
        if parts > 0 && camel_whole {
            each(lower);
        }
    }
}

/// Per byte: 0 for a separator, `WORD` for a word byte, `WORD | CAPITAL` for A–Z. One table
/// load per byte: indexing runs this over every byte of every description.
const CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || !c.is_ascii() {
            table[b] = WORD;
        }
        if c.is_ascii_uppercase() {
            table[b] |= CAPITAL;
        }
        b += 1;
    }
    table
};
const WORD: u8 = 1;
const CAPITAL: u8 = 2;

/// Calls `each` with every term of `text` (words minus stop words, stemmed), in order.
pub(super) fn terms(text: &str, mut each: impl FnMut(&str)) {
    words(text, |w| {
        if !is_stop_word(w) {
            each(stem(w));
        }
    });
}

/// Common English words that say nothing about which tool is meant ("the", "with", "please"),
/// sorted, separated by single spaces. (Kept as one string: it compresses to less of the
/// wasm package than a table, and is only read once per distinct word.)
const STOP_WORDS: &str = "a about after all also am an and any are as at be been being \
    both but by can could did do does each for from had has have he her here him \
    his how i if in into is it its just me my of on or our please she should so \
    some than that the their them then there these they this those to too us very \
    was we were what when where which who whom why will with would you your";

/// Whether `word` (lower-case) is a stop word. Only the stop words with the word's first
/// letter are compared (at most 13, for `t` and `w`): a query's every word passes here, and
/// comparing against the whole list was a third of a keyword query's time.
pub(super) fn is_stop_word(word: &str) -> bool {
    let b = word.as_bytes();
    let Some(&first) = b.first() else {
        return false;
    };
    if b.len() > LONGEST_STOP_WORD || !first.is_ascii_lowercase() {
        return false;
    }
    let letter = usize::from(first - b'a');
    let (start, end) = (
        usize::from(FIRST_LETTER_AT[letter]),
        usize::from(FIRST_LETTER_AT[letter + 1]),
    );
    STOP_WORDS.as_bytes()[start..end]
        .split(|&c| c == b' ')
        .any(|s| s == b)
}

const LONGEST_STOP_WORD: usize = 6;

/// Where in [`STOP_WORDS`] the words of each letter begin (`[0]` for `a`, `[26]` the end):
/// the list is sorted, so the words of one letter are one run.
const FIRST_LETTER_AT: [u16; 27] = {
    let text = STOP_WORDS.as_bytes();
    // Offsets fit a u16 (checked when the crate compiles).
    assert!(text.len() <= u16::MAX as usize);
    let mut at = [text.len() as u16; 27];
    // The next letter whose start is not known yet; a letter no word starts with gets the
    // next word's start (an empty run).
    let mut letter = 0;
    let mut i = 0;
    while i < text.len() {
        if i == 0 || text[i - 1] == b' ' {
            let first = (text[i] - b'a') as usize;
            while letter <= first {
                at[letter] = i as u16;
                letter += 1;
            }
        }
        i += 1;
    }
    at
};

/// A light English stemmer: folds plurals (`issues`, `queries`, `addresses`), `-ing` and
/// `-ed`, then a final `e`, so `create`, `creates`, `created` and `creating` share the stem
/// `creat`. Words of three letters or fewer, numbers and non-ASCII words are kept as they are.
/// Both sides of a comparison are stemmed alike, so a stem need not be an English word.
pub(super) fn stem(word: &str) -> &str {
    let b = word.as_bytes();
    if b.len() <= 3 || !b.iter().all(u8::is_ascii_lowercase) {
        return word;
    }
    let mut end = b.len();
    // Plurals. ("-ies" keeps the "i": "queries" and "query" meet below, at "queri".)
    if word.ends_with("sses") || word.ends_with("ies") {
        end -= 2;
    } else if b[end - 1] == b's' && !matches!(b[end - 2], b's' | b'u' | b'i') {
        end -= 1;
    }
    // "-ing" / "-ed", when a vowel is left before them ("string" and "bed" stay).
    for suffix in ["ing", "ed"] {
        let rest = &word[..end];
        if let Some(base) = rest.strip_suffix(suffix) {
            if base.len() >= 3 && base.bytes().any(is_vowel) {
                end = base.len();
                // "running" → "run": undo a doubled final consonant.
                let bb = base.as_bytes();
                let n = bb.len();
                if bb[n - 1] == bb[n - 2]
                    && !is_vowel(bb[n - 1])
                    && !matches!(bb[n - 1], b'l' | b's' | b'z')
                {
                    end -= 1;
                }
            }
            break;
        }
    }
    // Derived forms onto their verb: "calculation", "calculator" → "calculat".
    for (suffix, keep) in [("ation", 2), ("ator", 2), ("ly", 0)] {
        let rest = &word[..end];
        if let Some(base) = rest.strip_suffix(suffix) {
            if base.len() >= 4 {
                end = base.len() + keep;
            }
            break;
        }
    }
    // A final "e" or "y" goes, so "create"/"created" and "query"/"queries" agree.
    if end > 4 && matches!(b[end - 1], b'e' | b'y' | b'i') {
        end -= 1;
    }
    &word[..end]
}

fn is_vowel(c: u8) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        words(text, |w| out.push(w.to_string()));
        out
    }

    fn all_terms(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        terms(text, |w| out.push(w.to_string()));
        out
    }

    #[test]
    fn names_split_at_every_convention() {
        assert_eq!(
            all_words("mcp__github__create_issue"),
            ["mcp", "github", "create", "issue"]
        );
        assert_eq!(
            all_words("browser_take-screenshot"),
            ["browser", "take", "screenshot"]
        );
        assert_eq!(
            all_words("math.triangle_area"),
            ["math", "triangle", "area"]
        );
        // camelCase: the parts, then the whole word.
        assert_eq!(all_words("getUser"), ["get", "user", "getuser"]);
        assert_eq!(all_words("GitHub"), ["git", "hub", "github"]);
        assert_eq!(all_words("HTTP API"), ["http", "api"]);
        let mut parts = Vec::new();
        name_words("mcp__github__createIssue", |w| parts.push(w.to_string()));
        assert_eq!(parts, ["mcp", "github", "create", "issue"]);
    }

    #[test]
    fn numbers_are_terms() {
        assert_eq!(
            all_terms("the 3 sides of 12.5 cm"),
            ["3", "side", "12", "5", "cm"]
        );
        assert_eq!(all_words("mp3 side1"), ["mp3", "side1"]);
    }

    #[test]
    fn stop_words_are_dropped_and_the_list_is_sorted() {
        let list: Vec<&str> = STOP_WORDS.split(' ').collect();
        assert!(
            list.windows(2).all(|w| w[0] < w[1]),
            "sorted, single spaces"
        );
        assert_eq!(list.len(), 84);
        assert_eq!(list.iter().map(|w| w.len()).max(), Some(LONGEST_STOP_WORD));
        assert!(list.iter().all(|w| is_stop_word(w)));
        assert!(!is_stop_word("they'") && !is_stop_word("") && !is_stop_word("abouts"));
        assert_eq!(
            all_terms("What is the weather in the city of Paris?"),
            ["weather", "city", "paris"]
        );
        assert!(is_stop_word("the") && !is_stop_word("weather"));
    }

    #[test]
    fn stop_words_are_found_by_their_first_letter_and_nothing_else_is() {
        let list: Vec<&str> = STOP_WORDS.split(' ').collect();
        // Each word, each word cut short or made longer, every letter alone: a stop word
        // exactly when the list has it (a wrong run in FIRST_LETTER_AT misses one side).
        let mut probes: Vec<String> = ('a'..='z').map(String::from).collect();
        for w in &list {
            probes.push(w.to_string());
            probes.push(w[..w.len() - 1].to_string());
            probes.push(format!("{w}s"));
            probes.push(format!("z{w}"));
        }
        for probe in &probes {
            assert_eq!(
                is_stop_word(probe),
                list.contains(&probe.as_str()),
                "{probe:?}"
            );
        }
        assert_eq!(FIRST_LETTER_AT[26] as usize, STOP_WORDS.len());
        assert!(!is_stop_word("The") && !is_stop_word("1") && !is_stop_word("é"));
    }

    #[test]
    fn stemming_folds_plural_ing_and_ed() {
        for group in [
            &["create", "creates", "created", "creating"][..],
            &["issue", "issues"],
            &["query", "queries"],
            &["run", "running", "runs"],
            &["address", "addresses"],
            &["search", "searches", "searching", "searched"],
            &["file", "files"],
            &["calculate", "calculates", "calculated", "calculating"],
        ] {
            let stems: Vec<&str> = group.iter().map(|w| stem(w)).collect();
            assert!(
                stems.windows(2).all(|p| p[0] == p[1]),
                "{group:?} → {stems:?}"
            );
        }
        // Not over-folded: these stay apart.
        assert_ne!(stem("string"), stem("stress"));
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("analysis"), "analysis");
        assert_eq!(stem("42"), "42");
    }
}
