//! One request of the report as its parts, and where two requests first differ, at a cost of
//! the parts that changed (the messages only grow, so they are never compared whole).

use serde_json::Value;

use crate::counter::TokenCounter;
use crate::provider::Provider;

/// One request as the report lays it out: `tools`, `"\n\n" + system`, the catalog part
/// (`"\n\n" + catalog`, or nothing), then `"\n\n"` and the messages, which only ever grow.
/// Each part's tokens are counted once when it is made, and a request's tokens are the sum of
/// its parts'; that keeps a turn's cost to its own new bytes (see [`Registry::cache_report`]).
pub(super) struct Parts {
    pub(super) tools: String,
    pub(super) tools_tokens: usize,
    pub(super) catalog: String,
    pub(super) catalog_tokens: usize,
    /// Bytes of the messages this request holds (a prefix of the session's messages).
    pub(super) messages_len: usize,
    /// Their tokens.
    pub(super) messages_tokens: usize,
}

/// The session's messages, which only grow: the text, and each appended piece's end with the
/// tokens through it (counted once, when appended).
pub(super) struct History {
    pub(super) text: String,
    pub(super) segments: Vec<(usize, usize)>,
}

impl History {
    /// A history holding `start`.
    pub(super) fn new(start: &str, counter: &dyn TokenCounter) -> History {
        let mut history = History {
            text: String::new(),
            segments: Vec::new(),
        };
        history.append(start, counter);
        history
    }

    /// Appends a piece, counting its tokens.
    pub(super) fn append(&mut self, piece: &str, counter: &dyn TokenCounter) {
        let tokens = self.tokens() + counter.count(piece);
        self.text.push_str(piece);
        self.segments.push((self.text.len(), tokens));
    }

    /// The tokens of the whole history (the sum of its pieces').
    pub(super) fn tokens(&self) -> usize {
        self.segments.last().map_or(0, |&(_, tokens)| tokens)
    }
}

/// The parts of a request, in order, borrowing the session's system prompt and messages.
fn sections<'a>(p: &'a Parts, system: &'a str, messages: &'a str) -> [&'a str; 4] {
    [&p.tools, system, &p.catalog, &messages[..p.messages_len]]
}

/// The first byte where `after` stops extending `before` (at a character boundary of
/// `before`), or `None` when `before` is a prefix of `after`. Equal leading parts are skipped
/// whole, and when tools and catalog are unchanged the answer is `None` at once (the system
/// prompt is the same and the messages only grow), so a turn costs its new bytes, not the
/// session's.
pub(super) fn first_difference(
    before: &Parts,
    after: &Parts,
    system: &str,
    messages: &str,
) -> Option<usize> {
    if before.tools == after.tools && before.catalog == after.catalog {
        return None;
    }
    let (b, a) = (
        sections(before, system, messages),
        sections(after, system, messages),
    );
    let mut offset = 0;
    let mut i = 0;
    while i < 3 && b[i] == a[i] {
        offset += b[i].len();
        i += 1;
    }
    // From the first differing part on, byte by byte; this stops at the first difference,
    // which is inside that part or just past it.
    let same = b[i..]
        .iter()
        .flat_map(|s| s.bytes())
        .zip(a[i..].iter().flat_map(|s| s.bytes()))
        .take_while(|(x, y)| x == y)
        .count();
    let total: usize = b.iter().map(|s| s.len()).sum();
    if offset + same == total {
        return None;
    }
    // Back to a character boundary of `before`.
    let mut at = offset + same;
    let mut start = 0;
    for s in b {
        if at < start + s.len() {
            let mut local = at - start;
            while !s.is_char_boundary(local) {
                local -= 1;
            }
            at = start + local;
            break;
        }
        start += s.len();
    }
    Some(at)
}

/// Tokens of the request `p` from byte `at` on: the part `at` falls in is counted from there,
/// the parts after it by their kept counts. In the messages, only the segment `at` falls in
/// is counted again (`History::segments`), so a
/// difference at the start of a long history — a catalog that grew at its end shifts every
/// later byte — costs that segment, not the whole history again.
pub(super) fn tokens_from(
    p: &Parts,
    at: usize,
    (system, system_tokens): (&str, usize),
    history: &History,
    counter: &dyn TokenCounter,
) -> usize {
    let (messages, segments) = (history.text.as_str(), &history.segments);
    let parts = sections(p, system, messages);
    let kept = [
        p.tools_tokens,
        system_tokens,
        p.catalog_tokens,
        p.messages_tokens,
    ];
    let mut start = 0;
    for (k, s) in parts.iter().enumerate() {
        if at < start + s.len() {
            let local = at - start;
            if k == 3 {
                // The segment holding `local`: every later one is counted already.
                let i = segments.partition_point(|&(end, _)| end <= local);
                if let Some(&(end, through)) = segments.get(i).filter(|(end, _)| *end <= s.len()) {
                    return counter.count(&s[local..end])
                        + p.messages_tokens.saturating_sub(through);
                }
            }
            return counter.count(&s[local..]) + kept[k + 1..].iter().sum::<usize>();
        }
        start += s.len();
    }
    0
}

/// The tools part of the cached prefix in a native mode, from the payload's entries (see the
/// module docs).
pub(super) fn prefix_tools(entries: &[Value], provider: Provider) -> String {
    let deferred = |e: &Value| e.get("defer_loading") == Some(&Value::Bool(true));
    let kept: Vec<Value> = match provider {
        Provider::Anthropic => entries.iter().filter(|e| !deferred(e)).cloned().collect(),
        Provider::OpenAiResponses => entries
            .iter()
            .map(|e| {
                if !deferred(e) {
                    return e.clone();
                }
                let mut seen = serde_json::Map::new();
                for key in ["type", "name", "description"] {
                    if let Some(v) = e.get(key) {
                        seen.insert(key.to_string(), v.clone());
                    }
                }
                Value::Object(seen)
            })
            .collect(),
        _ => entries.to_vec(),
    };
    crate::json_text::text(&Value::Array(kept))
}

/// `seed` repeated to exactly `bytes` (ASCII seeds only, so any cut is a boundary).
pub(super) fn filler(seed: &str, bytes: usize) -> String {
    seed.chars()
        .filter(char::is_ascii)
        .cycle()
        .take(bytes)
        .collect()
}
