//! The sessions' side of the fleet test: each session's turn state between requests (the
//! driver is their database, as an agent server's session table is) and what its replies
//! say against the test's rules, counted in [`Figures`].

use serde_json::{json, Value};

pub(crate) struct Session {
    state: Value,
    messages: bool,
    /// Sequence numbers of its turn boundaries, in order.
    sequences: Vec<u64>,
    /// The turn in progress: requests left, and the first request's bytes.
    left: u64,
    first: Option<(String, String, String)>,
    turns_done: u64,
    /// The array of its first planned request (messages mode keeps it for the session).
    session_tools: Option<String>,
    /// The step of each of its turn boundaries.
    boundary_steps: Vec<usize>,
}

/// What the run counted: the five rules' breaches and the timings.
#[derive(Default)]
pub(crate) struct Figures {
    pub(crate) requests: u64,
    pub(crate) retries: u64,
    pub(crate) mid_turn_byte_changes: u64,
    pub(crate) version_regressions: u64,
    pub(crate) failed_turns: u64,
    pub(crate) late_adoptions: u64,
    pub(crate) rewrites: u64,
    pub(crate) plan_micros: Vec<f64>,
    pub(crate) held_micros: Vec<f64>,
    pub(crate) begin_micros: Vec<f64>,
}

impl Session {
    /// A new session; `messages` sessions send `toolChanges: "messages"`.
    pub(crate) fn new(messages: bool) -> Session {
        Session {
            state: Value::Null,
            messages,
            sequences: Vec::new(),
            left: 0,
            first: None,
            turns_done: 0,
            session_tools: None,
            boundary_steps: Vec::new(),
        }
    }

    /// Whether its next request is a turn boundary.
    pub(crate) fn at_boundary(&self) -> bool {
        self.left == 0
    }

    /// Its next request: a turn boundary, or a plan within the turn.
    pub(crate) fn request(&self) -> Value {
        if self.at_boundary() {
            json!({"op": "begin", "state": self.state})
        } else {
            json!({
                "op": "plan",
                "state": self.state,
                "toolChanges": if self.messages { "messages" } else { "array" },
            })
        }
    }

    /// It has taken `turns` turns and has no request left.
    pub(crate) fn finished(&self, turns: u64) -> bool {
        self.turns_done >= turns && self.at_boundary()
    }

    pub(crate) fn turns_done(&self) -> u64 {
        self.turns_done
    }

    /// A request no live process answered, or answered with an error: the turn is lost.
    pub(crate) fn failed(&mut self, figures: &mut Figures) {
        figures.failed_turns += 1;
        self.left = 0;
        self.first = None;
        self.turns_done += 1;
    }

    /// A turn boundary's reply at `step`; the turn then sends `requests` plans.
    pub(crate) fn began(
        &mut self,
        reply: &Value,
        step: usize,
        requests: u64,
        figures: &mut Figures,
    ) {
        let sequence = reply["sequence"].as_u64().unwrap_or(0);
        if self.sequences.last().is_some_and(|&last| sequence < last) {
            figures.version_regressions += 1;
        }
        self.sequences.push(sequence);
        self.boundary_steps.push(step);
        figures
            .begin_micros
            .push(reply["micros"].as_f64().unwrap_or(0.0));
        self.state = reply["state"].clone();
        self.left = requests;
        self.first = None;
    }

    /// A plan's reply: its tool bytes must be the turn's first request's, and with change
    /// messages the array must be the session's first.
    pub(crate) fn planned(&mut self, id: usize, reply: &Value, figures: &mut Figures) {
        let bytes = (
            reply["tools"].as_str().unwrap_or("").to_string(),
            reply["catalog"].as_str().unwrap_or("").to_string(),
            reply["changes"].as_str().unwrap_or("").to_string(),
        );
        figures
            .plan_micros
            .push(reply["micros"].as_f64().unwrap_or(0.0));
        figures
            .held_micros
            .push(reply["heldMicros"].as_f64().unwrap_or(0.0));
        match &self.first {
            None => {
                if self.messages {
                    match &self.session_tools {
                        Some(tools) if *tools != bytes.0 => figures.rewrites += 1,
                        Some(_) => {}
                        None => self.session_tools = Some(bytes.0.clone()),
                    }
                }
                self.first = Some(bytes);
            }
            Some(first) if *first != bytes => {
                figures.mid_turn_byte_changes += 1;
                eprintln!(
                    "fleet: session {id} ({}) turn {}: a request's bytes differ from the turn's first (tools {}, catalog {}, changes {}) on registry {}",
                    if self.messages { "messages" } else { "array" },
                    self.turns_done + 1,
                    first.0 != bytes.0,
                    first.1 != bytes.1,
                    first.2 != bytes.2,
                    reply["registry"]
                );
            }
            Some(_) => {}
        }
        self.left -= 1;
        if self.left == 0 {
            // The turn is done: keep the state its plan wrote (the conversation's record,
            // with change messages), as the session table would.
            if !reply["state"].is_null() {
                self.state = reply["state"].clone();
            }
            self.turns_done += 1;
        }
    }
}

/// Sessions not on a published version by their second turn boundary after its
/// publication, counted once per version and session; `published` is (sequence, step).
pub(crate) fn late_adoptions(published: &[(u64, usize)], sessions: &[Session]) -> u64 {
    let mut late = 0;
    for (sequence, at) in published {
        for s in sessions {
            let after: Vec<u64> = s
                .boundary_steps
                .iter()
                .zip(&s.sequences)
                .filter(|(&b, _)| b > *at)
                .map(|(_, &q)| q)
                .collect();
            if after.len() >= 2 && after[1] < *sequence {
                late += 1;
            }
        }
    }
    late
}

pub(crate) fn quantile(xs: &mut [f64], q: f64) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[((xs.len() - 1) as f64 * q).round() as usize]
}
