//! The turn: [`Registry::turn`] makes one [`Turn`] value per request — the registry version
//! the turn runs on, the expansion of its [`TurnRequest`] and its state — and every per-turn
//! call is a method of it: [`Turn::plan`] (the payload, catalog text, names and fingerprint),
//! [`Turn::search`] (a `tool_search` call), [`Turn::resolve`] (dispatch) and [`Turn::budget`]
//! (the token cost). A server that plans, searches and dispatches in one turn expands once.
//! [`Registry::plan_turn`] is the one-call path for the common case. The CLI, the wasm package
//! (a `Turn` class) and the Python module (a `Turn` class) expose the same methods, so no
//! binding orchestrates anything itself.
//!
//! Vocabulary (the same in Rust, JSON, JS and Python): the **array** is what the provider
//! receives as `tools`; the **catalog** is the deferred tools listed by name in the system
//! prompt; **promoted** tools were loaded by `tool_search` and sit at the end of the array.
//!
//! This room holds everything of one turn, in the order a turn uses it: the request's options
//! (`options.rs`), the expansion of its intent against the registry version (`expand.rs`,
//! with the resident/deferred rule in `deferral.rs`), the turn state (`state.rs`) and its boundary (`boundary.rs`), the provider
//! split made once per turn (`split.rs`), the payload (`payload.rs`), the plan
//! (`turn_plan.rs`), the budget (`budget.rs`) and, with `tool_changes: messages`, the change
//! message (`change_message.rs`, `tool_changes.rs`) with the conversation's record
//! (`record.rs`) and its check (`record_check.rs`). What each provider accepts is
//! `crate::provider`'s; the tools are `crate::registry`'s.

use serde::Serialize;

use crate::counter::TokenCounter;
use crate::error::{Error, Result};
use crate::intent::ToolsOverride;
use crate::provider::rules::{check_count, check_mode};
use crate::provider::search_output::client_search_output;
use crate::provider::{DeferralMode, Provider, ToolChanges};
use crate::registry::{goes_beside, tool_entry, Registry, Tool};
use crate::search::{self, SearchCall, SearchResult};
use crate::warning::{Warning, WarningCode};

mod boundary;
pub mod budget;
mod change_message;
mod deferral;
pub mod expand;
mod options;
mod payload;
pub mod record;
mod record_check;
pub(crate) mod split;
mod state;
pub mod tool_changes;
mod turn_plan;

pub use budget::Budget;
use expand::{expand, ExpandContext, Expansion};
pub use options::{
    js_key, option_error, search_argument_error, BudgetOptions, CacheReportOptions, CallOptions,
    SearchOptions,
};
use payload::{render_split, RenderOptions};
pub use split::{catalog_text, split, system_prompt_with_catalog, Split, CATALOG_HEADER};
use split::{split_for, ProviderSplit};
pub use state::{record_loaded, TurnState, View};
use turn_plan::PlanName;
pub use turn_plan::{Renamed, TurnPlan};

/// Everything one turn needs besides the registry.
#[derive(Debug, Clone, Default)]
pub struct TurnRequest {
    /// The session's (or request's) override.
    pub tools_override: ToolsOverride,
    /// The agent profile's tools setting; `None` = no profile setting.
    pub profile: Option<ToolsOverride>,
    /// The request's source (`webui`, `tui`, a channel).
    pub source: Option<String>,
    /// The session's turn state (the default for a new session): the one source of which
    /// tools `tool_search` loaded.
    pub state: TurnState,
    /// The target API.
    pub provider: Provider,
    /// How deferred tools reach the model.
    pub mode: DeferralMode,
    /// How later changes of the offered tools reach the model (`messages`: change messages
    /// inside the conversation, `tool_changes.rs`).
    pub tool_changes: ToolChanges,
    /// Explicit prompt caching: a cache breakpoint on the last non-deferred tool.
    pub cache_control: bool,
    /// Which loaded set the array shows.
    pub view: View,
}

/// A `tool_search` result with the turn state that records its loads.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchOutcome {
    /// The result handed back to the model.
    #[serde(flatten)]
    pub result: SearchResult,
    /// The turn state with the hits recorded as loaded.
    pub state: TurnState,
    /// In `native-client` mode: the provider-shaped result to send instead of `text`, as JSON
    /// text (Anthropic: `tool_reference` blocks for the `tool_result` content; OpenAI
    /// Responses: a `tool_search_output` item, to which the caller adds the call's `call_id`).
    #[serde(skip)]
    pub provider_output: Option<String>,
}

impl SearchOutcome {
    /// Compact JSON `{hits, notFound, text, state, providerOutput?}`, with the provider output
    /// written in as the JSON it already is (no parse and re-serialisation).
    /// An `internal` error if serde_json refused the outcome, which its plain structs of
    /// strings and lists never make it do.
    pub fn to_json(&self) -> Result<String> {
        let mut out = turn_plan::serialised(self)?;
        if let Some(output) = &self.provider_output {
            out.pop();
            out.push_str(",\"providerOutput\":");
            out.push_str(output);
            out.push('}');
        }
        Ok(out)
    }
}

/// One turn, made once per request by [`Registry::turn`]: the registry version the turn runs
/// on (the one its state was stamped with at [`Registry::begin_turn`], while held), the
/// expansion of the request against it, and the request's state and rendering options. Its
/// methods never expand again. It owns what it holds (registry handles are shared, not
/// copied), so a binding keeps it as it is.
#[derive(Debug, Clone)]
pub struct Turn {
    /// The current registry: what dispatch checks a tool still exists in.
    registry: Registry,
    /// The expansion on the turn's registry version (`expansion.registry()`).
    expansion: Expansion,
    state: TurnState,
    provider: Provider,
    mode: DeferralMode,
    tool_changes: ToolChanges,
    cache_control: bool,
    view: View,
    /// `turn_registry_gone` when the version the turn began on is no longer held,
    /// `turn_registry_earlier` when it is held but not the current one.
    version_warning: Option<Warning>,
    /// The expansion split for the provider, made once when the turn is made.
    provider_split: ProviderSplit,
    /// With `tool_changes: messages`: the turn's change message and the conversation's record
    /// after it (the record is in `state` too).
    conversation: Option<tool_changes::Outcome>,
}

impl Registry {
    /// Starts the calls of one turn: finds the registry version the turn runs on and expands
    /// the request against it, once. Fails only for caller errors (an unknown source).
    pub fn turn(&self, request: &TurnRequest) -> Result<Turn> {
        let (version, version_warning) = self.for_turn(&request.state, request.view);
        let expansion = expand(
            version,
            &request.tools_override,
            ExpandContext {
                profile: request.profile.as_ref(),
                source: request.source.as_deref(),
            },
        )?;
        let provider_split = split_for(
            &expansion,
            &request.state,
            request.view,
            request.provider,
            request.mode,
        )?;
        let mut turn = Turn {
            registry: self.clone(),
            provider_split,
            expansion,
            state: request.state.clone(),
            provider: request.provider,
            mode: request.mode,
            tool_changes: request.tool_changes,
            cache_control: request.cache_control,
            view: request.view,
            version_warning,
            conversation: None,
        };
        if turn.tool_changes.is_messages() {
            // Made now, so the turn's state is the state to keep from the start.
            let previous = turn.state.conversation.take();
            let mut outcome = turn.plan_changes(previous)?;
            turn.state.conversation = Some(std::mem::take(&mut outcome.record));
            turn.conversation = Some(outcome);
        }
        Ok(turn)
    }

    /// The one-call path: `self.turn(request)?.plan()`.
    pub fn plan_turn(&self, request: &TurnRequest) -> Result<TurnPlan> {
        self.turn(request)?.plan()
    }
}

impl Turn {
    /// The current registry (what dispatch checks a tool still exists in).
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The expansion of the turn's request (on the turn's registry version).
    pub fn expansion(&self) -> &Expansion {
        &self.expansion
    }

    /// The turn state: the request's, with this turn's loads once it searches and, with
    /// `tool_changes: messages`, the conversation's record after this turn's change message —
    /// the state to keep.
    pub fn state(&self) -> &TurnState {
        &self.state
    }

    /// The registry version the turn runs on.
    pub fn version(&self) -> &Registry {
        self.expansion.registry()
    }

    /// The target API.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The deferral mode.
    pub fn mode(&self) -> DeferralMode {
        self.mode
    }

    /// Warnings of the turn: the expansion's, then `turn_registry_gone` when the version the
    /// turn began on is no longer held, or `turn_registry_earlier` when it is an earlier one.
    pub fn warnings(&self) -> Vec<Warning> {
        let mut all = self.expansion.warnings().to_vec();
        all.extend(self.version_warning.iter().cloned());
        all
    }

    /// Splits the expansion for the turn state, renders the provider payload and
    /// fingerprints it: what the provider receives this turn.
    pub fn plan(&self) -> Result<TurnPlan> {
        let expansion = &self.expansion;
        let version = expansion.registry();
        let state = &self.state;
        let options = RenderOptions {
            provider: self.provider,
            mode: self.mode,
            cache_control: self.cache_control,
            view: self.view,
        };
        let provider_split = &self.provider_split;
        let split = &provider_split.split;
        let payload = match &self.conversation {
            // With change messages: the array the conversation declared, rendered (and
            // fingerprinted) once when the turn was made.
            Some(outcome) => outcome.payload.clone(),
            None => render_split(expansion, split, &|i| provider_split.refused(i), options)?,
        };
        // The catalog-mode array holds the tools sent in full (resident and promoted).
        check_count(self.provider, payload.array.len(), split.array.len())?;
        let mut warnings = expansion.warnings().to_vec();
        warnings.extend(provider_split.warnings.iter().cloned());
        // Loaded names that are not deferred tools here (removed from the registry, disabled
        // since): one summary, however many (a hostile state may carry thousands).
        let stale: Vec<&String> = state
            .loaded_for(self.view)
            .iter()
            .filter(|name| {
                version
                    .index_of(name)
                    .is_none_or(|i| !expansion.is_deferred(i))
            })
            .collect();
        if !stale.is_empty() {
            warnings.push(Warning::new(
                WarningCode::UnknownLoadedTool,
                "loaded",
                format!(
                    "loaded names that are not deferred tools of this expansion are ignored ({}): {}",
                    stale.len(),
                    crate::error::some_names(&stale)
                ),
            ));
        }
        warnings.extend(self.version_warning.iter().cloned());
        let (array, catalog) = match self.mode {
            // The array's tools as the payload orders them: a built-in OpenAI Chat takes as a
            // request field is not in it, and Gemini's comes after its function declarations.
            DeferralMode::Catalog => {
                let beside = |i: usize| goes_beside(version, i, self.provider);
                let mut array: Vec<PlanName> = split
                    .array
                    .iter()
                    .filter(|&&i| !beside(i))
                    .map(|&i| PlanName::Tool(i))
                    .collect();
                if self.provider == Provider::Gemini {
                    array.extend(
                        split
                            .array
                            .iter()
                            .filter(|&&i| beside(i))
                            .map(|&i| PlanName::Tool(i)),
                    );
                }
                (array, split.catalog.clone())
            }
            DeferralMode::Native | DeferralMode::NativeClient => (
                payload
                    .array
                    .iter()
                    .map(|name| PlanName::of(version, name))
                    .collect::<Result<_>>()?,
                Vec::new(),
            ),
        };
        let renamed = turn_plan::renamed_among(version, &[&split.array, &split.catalog]);
        let mut plan = TurnPlan {
            registry: version.clone(),
            array,
            catalog,
            promoted: split.promoted.clone(),
            renamed,
            warnings,
            provider: self.provider,
            mode: self.mode,
            fingerprint: payload.fingerprint,
            payload: payload.json,
            catalog_text: payload.catalog,
            request_fields: payload.request_fields,
            changes: String::new(),
            state: None,
            tool_changes: self.tool_changes,
        };
        if self.tool_changes.is_messages() {
            // This turn's changes as a message, and the state to keep.
            let outcome = self.conversation()?;
            plan.changes.clone_from(&outcome.items);
            plan.warnings.extend(outcome.warnings.iter().cloned());
            plan.state = Some(self.state.clone());
        }
        Ok(plan)
    }

    /// Runs one `tool_search` call: the query against this turn's deferred tools. The hits
    /// are recorded as loaded in the turn's state (so a second search of the same turn keeps
    /// the first one's loads), and the outcome carries that state to persist; the loads join
    /// the array at the next [`Registry::begin_turn`]. A tool added to the registry mid-turn
    /// is not declared in this turn's array, so it is found from the next turn on.
    pub fn search(&mut self, call: &SearchCall<'_>) -> Result<SearchOutcome> {
        check_mode(self.provider, self.mode)?;
        let version = self.expansion.registry();
        let refused = |i: usize| self.provider_split.refused(i);
        // In full in the request: the turn's provider split already says (its array, refused
        // tools left out); a promoted tool in it is deferred, so `select:` loads it first.
        let declared = |i: usize| self.provider_split.split.array.contains(&i);
        let mut result = search::run(
            self.expansion.registry(),
            &self.expansion.deferred_set(),
            call,
            &refused,
            &declared,
        )?;
        // A full loaded list first forgets names this registry lacks: then every hit fits
        // (`TurnState::make_room`), and the text that told the model "Loaded" stays true.
        let room = self.state.make_room(version, result.hits.len());
        let state = record_loaded(room.as_ref().unwrap_or(&self.state), &result.hits)?;
        let provider_output = match self.mode {
            DeferralMode::NativeClient => {
                let entry_of = |name: &str| {
                    let i = version
                        .index_of(name)
                        .ok_or_else(|| Error::internal(format!("no tool named {name}")))?;
                    tool_entry(version, i, self.provider)
                };
                Some(client_search_output(
                    &result.hits,
                    &result.text,
                    self.provider,
                    &entry_of,
                )?)
            }
            _ => None,
        };
        result.warnings.extend(self.version_warning.iter().cloned());
        // The state handed back keeps only names this registry knows: a state bloated with
        // unknown names shrinks at the first search instead of travelling on.
        let state = state.retain_known(version);
        self.state = state.clone();
        Ok(SearchOutcome {
            result,
            state,
            provider_output,
        })
    }

    /// Dispatch: the tool a call names, if this turn may call it (a `tool_not_available`
    /// error otherwise). The turn's registry version decides what may be called; the
    /// definition returned is the current registry's, and a tool removed from it since the
    /// turn began answers `tool_removed`.
    pub fn resolve(&self, name: &str) -> Result<&Tool> {
        let declared = match self.expansion.resolve(name) {
            Ok(tool) => tool,
            // A tool this conversation was offered and a change message withdrew: the model
            // may still call it (removal is a hint to the model, not enforcement).
            Err(_) if self.withdrawn(name) => {
                return Err(Error::ToolRemoved {
                    name: name.to_string(),
                    server: crate::registry::server_of(name).map(str::to_string),
                    withdrawn: true,
                })
            }
            Err(e) => return Err(e),
        };
        if declared.builtin().is_some_and(|b| b.runs_on(self.provider)) {
            return Err(Error::ProviderExecuted {
                name: declared.name.clone(),
                provider: self.provider.as_str().to_string(),
            });
        }
        if self.expansion.registry().same_version(&self.registry) {
            return Ok(declared);
        }
        self.registry
            .tool_named(&declared.name)
            .map_err(|_| Error::ToolRemoved {
                name: declared.name.clone(),
                server: crate::registry::server_of(&declared.name).map(str::to_string),
                withdrawn: false,
            })
    }

    /// The token budget of the turn, half by half, as its mode sends it (counters:
    /// [`crate::counter::shared_counter`]).
    pub fn budget(&self, counter: &dyn TokenCounter) -> Result<Budget> {
        let mut budget = budget::estimate(
            &self.expansion,
            &self.provider_split.split,
            self.provider,
            self.mode,
            counter,
        )?;
        if self.tool_changes.is_messages() {
            let outcome = self.conversation()?;
            budget.declared_tokens = Some(counter.count(&outcome.payload.json));
            budget.changes_tokens = Some(counter.count(&outcome.items));
        }
        Ok(budget)
    }
}

#[cfg(test)]
mod expand_tests;
#[cfg(test)]
mod tests;
