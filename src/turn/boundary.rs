//! The turn boundary for registry changes.
//!
//! The design note (§7.4) fixes the provider array at turn boundaries: a load made mid-turn
//! joins at the next turn. Registry changes follow the same rule. [`Registry::begin_turn`]
//! stamps the state with the registry's [`fingerprint`](Registry::fingerprint); every later
//! call of that turn (the [`Turn`](crate::Turn) made from its state) runs on the version that
//! fingerprint names, so a server's `tools/list` change mid-turn leaves the rest of the turn's
//! requests byte-identical (the prompt cache keeps its prefix, and a tool the model already
//! saw stays declared while it may still call it). The new tools join at the next boundary.
//! A turn on a held version that is not the current one says so (`turn_registry_earlier`): a
//! stored state can name any held version, and that version's trust decisions then hold for
//! the turn. A turn whose version is no longer held (a restart, a burst of more than
//! [`KEPT_VERSIONS`] changes) runs on the current registry with a `turn_registry_gone`
//! warning.
//!
//! A tool removed mid-turn stays declared until the boundary; dispatching it
//! ([`Turn::resolve`](crate::Turn::resolve)) answers `tool_removed`, which a server hands back to the model as
//! the tool's result. Removing it at once would change the array mid-turn (a cache rewrite),
//! and the model, which saw the tool, could still call it.

use super::state::{TurnState, View};
use crate::registry::{Registry, KEPT_VERSIONS};
use crate::warning::{Warning, WarningCode};

impl Registry {
    /// A turn boundary: what was loaded so far joins the array from now on, and the turn runs
    /// on this registry until the next boundary.
    pub fn begin_turn(&self, state: &TurnState) -> TurnState {
        TurnState {
            loaded: state.loaded.clone(),
            frozen: state.loaded.clone(),
            turn: state.turn.saturating_add(1),
            registry: Some(self.fingerprint().to_string()),
            conversation: state.conversation.clone(),
        }
    }

    /// The version a turn runs on: the one its state was stamped with, if held. The live view
    /// (outside any turn) always reads this registry.
    pub(crate) fn for_turn(&self, state: &TurnState, view: View) -> (&Registry, Option<Warning>) {
        let Some(stamp) = state.registry.as_deref().filter(|_| view == View::Frozen) else {
            return (self, None);
        };
        if let Some(version) = self.version(stamp) {
            // Legitimate mid-turn (the registry changed after the turn began), but a stored
            // state can name any held version: never silently, since the turn then runs on
            // that version's tools and trust decisions.
            let warning = (!std::ptr::eq(version, self)).then(|| {
                Warning::new(
                    WarningCode::TurnRegistryEarlier,
                    "state",
                    format!(
                        "this turn began on registry {stamp}, an earlier version than the current {}: the turn runs on it until the next turn boundary",
                        self.fingerprint()
                    ),
                )
            });
            return (version, warning);
        }
        let warning = Warning::new(
            WarningCode::TurnRegistryGone,
            "state",
            format!(
                "this turn began on registry {stamp}, which is no longer held (the {} latest versions are); the current registry is used, so this turn's array may differ from its earlier requests",
                KEPT_VERSIONS
            ),
        );
        (self, Some(warning))
    }
}
