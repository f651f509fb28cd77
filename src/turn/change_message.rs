//! The turn's side of `tool_changes: messages` (`tool_changes.rs`): this turn's change message
//! and the conversation's record after it, made once per [`Turn`] when it is made (so the
//! turn's state — what its plan, its searches and `Turn::state` hand back — carries the
//! record), and which names a change message has withdrawn.

use super::payload::{render_split, RenderOptions};
use super::record::{ConversationTools, DeclaredEntry};
use super::tool_changes::{self, Offer, Outcome, Target};
use super::Turn;
use crate::error::Result;
use crate::provider::DeferralMode;
use crate::registry::tool_entry;

impl Turn {
    /// The turn's change message (`tool_changes: messages`), made once by
    /// [`Registry::turn`](crate::Registry::turn), which keeps the record it leaves in the
    /// turn's state.
    pub(super) fn conversation(&self) -> Result<&Outcome> {
        self.conversation.as_ref().ok_or_else(|| {
            crate::Error::internal("no change message in a turn with tool_changes messages")
        })
    }

    /// Plans the turn's change message against `previous`, the record the previous turn left.
    pub(super) fn plan_changes(&self, previous: Option<ConversationTools>) -> Result<Outcome> {
        tool_changes::check(self.provider, self.mode, self.tool_changes)?;
        let expansion = &self.expansion;
        let version = expansion.registry();
        let provider_split = &self.provider_split;
        let refused = |i: usize| provider_split.refused(i);
        let options = RenderOptions {
            provider: self.provider,
            mode: self.mode,
            cache_control: false,
            view: self.view,
        };
        let offered = render_split(expansion, &provider_split.split, &refused, options)?;
        let offers: Vec<Offer<'_>> = offered
            .array
            .iter()
            .map(|name| {
                // Catalog and Anthropic native-client payloads hold registry tools only.
                let index = version.index_of(name).ok_or_else(|| {
                    crate::Error::internal(
                        "a payload with change messages names a tool the registry lacks",
                    )
                })?;
                Ok(Offer {
                    index,
                    name,
                    entry: DeclaredEntry {
                        base: tool_entry(version, index, self.provider)?,
                        deferred: self.mode.declares_deferred() && expansion.is_deferred(index),
                        cache_control: false,
                    },
                })
            })
            .collect::<Result<_>>()?;
        // Only catalog mode lists deferred tools by name.
        let catalog: Vec<&str> = match self.mode {
            DeferralMode::Catalog => provider_split
                .split
                .catalog
                .iter()
                .map(|&i| version.name(i))
                .collect(),
            _ => Vec::new(),
        };
        // The versions a stored record is checked against: the current one and the earlier
        // ones it holds (the turn's version is one of them, `Registry::for_turn`).
        let held: Vec<&crate::Registry> = std::iter::once(&self.registry)
            .chain(self.registry.earlier_versions())
            .collect();
        let outcome = tool_changes::plan(
            expansion,
            &offers,
            &catalog,
            previous,
            &held,
            &refused,
            Target::of(
                self.provider,
                self.mode,
                self.tool_changes,
                self.cache_control,
            ),
        )?;
        Ok(outcome)
    }

    /// Whether the conversation knows `name` (declared or added by a change message) and this
    /// turn does not offer it (`tool_changes: messages`).
    pub(super) fn withdrawn(&self, name: &str) -> bool {
        self.tool_changes.is_messages()
            && self
                .state
                .conversation
                .as_ref()
                .is_some_and(|c| c.known.contains_key(name))
    }
}
