//! What every fuzz target checks of the errors and warnings it meets: their text shows hostile
//! input escaped, never raw, since a control or bidirectional-format character would hide or
//! reorder the rest of the line in a terminal or a log (`tool_intent::error`, `quoted`); and it
//! stays short whatever the input's size (names and paths cut, lists of names cut after five).
//! And what they check of every registry they load and plan they make: its names are
//! provider-safe, so a plan's newline-joined name lists split back into its lists.

use tool_intent::{Error, Registry, TurnPlan, Warning};

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

/// Every name of a loaded registry matches `^[a-zA-Z0-9_-]{1,64}$`, the rule the loader
/// enforces (whatever a document or a server's list holds, names are checked or mapped).
pub fn names_provider_safe(registry: &Registry) {
    for tool in registry.tools() {
        let n = &tool.name;
        let safe = !n.is_empty()
            && n.len() <= 64
            && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        assert!(safe, "a loaded registry holds the name {n:?}");
    }
}

/// A plan's joined name lists split on newlines into its lists (the wasm binding hands
/// them over so), the empty string being the empty list.
pub fn joined_names_split_back(plan: &TurnPlan) {
    let [array, catalog, promoted] = plan.joined_names();
    let split = |joined: &str| -> Vec<String> {
        if joined.is_empty() {
            Vec::new()
        } else {
            joined.split('\n').map(String::from).collect()
        }
    };
    assert_eq!(split(&array), plan.array());
    assert_eq!(split(&catalog), plan.catalog());
    assert_eq!(split(&promoted), plan.promoted());
}
