//! What every fuzz target checks of the errors and warnings it meets: their text shows hostile
//! input escaped, never raw, since a control or bidirectional-format character would hide or
//! reorder the rest of the line in a terminal or a log (`tool_intent::error`, `quoted`).

use tool_intent::{Error, Warning};

/// Panics if `text` holds a control character or a bidirectional or zero-width format one.
pub fn shown_safely(text: &str) {
    let hidden = text.chars().find(|&c| {
        c.is_control()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
    });
    assert!(hidden.is_none(), "{hidden:?} shown raw in {text:?}");
}

/// An error's message and path show what they quote escaped.
pub fn error_shown_safely(e: &Error) {
    shown_safely(&e.to_string());
    if let Some(path) = e.path() {
        shown_safely(path);
    }
}

/// Each warning's message and origin show what they quote escaped.
pub fn warnings_shown_safely(warnings: &[Warning]) {
    for w in warnings {
        shown_safely(&w.message);
        shown_safely(&w.origin);
    }
}
