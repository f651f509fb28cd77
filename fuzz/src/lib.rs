//! What every fuzz target checks of the errors and warnings it meets: their text shows hostile
//! input escaped, never raw, since a control or bidirectional-format character would hide or
//! reorder the rest of the line in a terminal or a log (`tool_intent::error`, `quoted`); and it
//! stays short whatever the input's size (names and paths cut, lists of names cut after five).

use tool_intent::{Error, Warning};

/// The longest message shown: a few names and a path, each cut.
const LONGEST_SHOWN: usize = 2048;

/// The first control character, bidirectional or zero-width format one, or line or paragraph
/// separator in `text`.
fn hidden(text: &str) -> Option<char> {
    text.chars().find(|&c| {
        c.is_control()
            || matches!(c, '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
    })
}

/// Panics if `text` holds a character [`hidden`] finds or is longer than [`LONGEST_SHOWN`].
pub fn shown_safely(text: &str) {
    assert!(text.len() <= LONGEST_SHOWN, "{} bytes shown: {text:?}", text.len());
    nothing_hidden(text);
}

/// Panics if `text` holds a character [`hidden`] finds, whatever its length (a report's event
/// lists every tool that joined, so it is as long as the registry makes it).
pub fn nothing_hidden(text: &str) {
    let raw = hidden(text);
    assert!(raw.is_none(), "{raw:?} shown raw in {text:?}");
}

/// An error's message is shown safely, and its path (kept whole by `Error::path`, however
/// long) holds nothing hidden.
pub fn error_shown_safely(e: &Error) {
    shown_safely(&e.to_string());
    if let Some(path) = e.path() {
        let raw = hidden(path);
        assert!(raw.is_none(), "{raw:?} raw in the path {path:?}");
    }
}

/// Each warning's message is shown safely, and its origin (`source:<name>`, uncut) holds
/// nothing hidden.
pub fn warnings_shown_safely(warnings: &[Warning]) {
    for w in warnings {
        shown_safely(&w.message);
        let raw = hidden(&w.origin);
        assert!(raw.is_none(), "{raw:?} raw in the origin {:?}", w.origin);
    }
}
