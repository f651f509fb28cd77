//! [`TurnPlan`]: what one turn sends — the payload with its fingerprint, the catalog text, and
//! the names of every half.
//!
//! A plan owns what it returns: it holds the registry version it was made on (a shared handle)
//! and the positions of its names, so it outlives the [`Turn`](super::Turn) that made it and a
//! binding keeps it without borrowing anything. Names are read from the registry when asked
//! for, not copied per turn: plans of 10,000-tool registries list every name.

use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::state::TurnState;
use crate::error::{Error, Result};
use crate::provider::{
    DeferralMode, Provider, ToolChanges, ANTHROPIC_BETAS, ANTHROPIC_TOOL_SEARCH_NAME,
};
use crate::registry::{Memo, MemoSlot, Registry, ToolSet};
use crate::warning::Warning;

/// The registry's renamed tools ([`crate::Tool::is_renamed`]), in wire-name order, found
/// once per registry: a plan lists those of its halves without reading every tool (3 to 8% of
/// a 1,000-tool plan in wasm, a cache miss per tool), and most registries rename none.
struct RenamedTools(Vec<usize>);

impl Memo for RenamedTools {
    const SLOT: MemoSlot = MemoSlot::RenamedTools;
}

/// Positions of the renamed tools among `halves`' tools, in wire-name order.
pub(super) fn renamed_among(registry: &Registry, halves: &[&[usize]]) -> Vec<usize> {
    let find = |registry: &Registry| {
        // In wire-name order: the names are sorted as `&str` (the crate's one name sort,
        // `sort.rs`) and mapped back to their positions.
        let mut names: Vec<&str> = registry
            .tools()
            .iter()
            .filter(|t| t.is_renamed())
            .map(|t| t.name.as_str())
            .collect();
        crate::sort::sort_names(&mut names);
        RenamedTools(names.iter().filter_map(|n| registry.index_of(n)).collect())
    };
    let all = &registry.memo_or_build(find).0;
    if all.is_empty() {
        return Vec::new();
    }
    let mut listed = ToolSet::empty(registry.len());
    for &i in halves.iter().flat_map(|half| half.iter()) {
        listed.insert(i);
    }
    all.iter()
        .copied()
        .filter(|&i| listed.contains(i))
        .collect()
}

/// One turn: names of every half, warnings, and the exact payload with its fingerprint.
#[derive(Debug, Clone)]
pub struct TurnPlan {
    /// The registry version the positions below index.
    pub(super) registry: Registry,
    pub(super) array: Vec<PlanName>,
    pub(super) catalog: Vec<usize>,
    pub(super) promoted: Vec<usize>,
    /// Positions of renamed MCP tools, in wire-name order.
    pub(super) renamed: Vec<usize>,
    /// Warnings of the expansion and of the turn state.
    pub warnings: Vec<Warning>,
    /// The target API.
    pub provider: Provider,
    /// The deferral mode.
    pub mode: DeferralMode,
    /// How changes of the offered tools reach the model.
    pub tool_changes: ToolChanges,
    /// `sha256:<hex>` of `payload`.
    pub fingerprint: String,
    /// The exact provider tools-array JSON.
    pub payload: String,
    /// The catalog text for the system prompt ("" when there is none).
    pub catalog_text: String,
    /// Top-level request fields the tools need besides `tools`, as a JSON object ("" when
    /// none): OpenAI Chat's `web_search_options` for a built-in web search, Gemini's
    /// `toolConfig` when its built-in goes with function declarations; with `tool_changes:
    /// messages` on OpenAI Responses, the `allowed_tools` tool choice.
    pub request_fields: String,
    /// With `tool_changes: messages`: the items to append to the conversation after the
    /// turn's newest user message, as a JSON array ("" when nothing changed): an Anthropic or
    /// Bedrock Converse `system` message of change blocks, OpenAI Responses input items.
    pub changes: String,
    /// With `tool_changes: messages`: the turn state to keep, with the conversation's record
    /// after this turn's change message.
    pub state: Option<TurnState>,
}

/// A name in the provider array: a registry tool, or the provider's own search tool (native
/// modes), which has no registry position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PlanName {
    Tool(usize),
    Static(&'static str),
}

/// A renamed MCP tool: its wire name, the name its server knows, and the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Renamed<'p> {
    /// The name in the payload and the catalog.
    pub wire: &'p str,
    /// The server's own name, for dispatch.
    pub source: &'p str,
    /// The MCP server the tool came from.
    pub server: &'p str,
}

impl PlanName {
    /// The array name of a payload entry: a registry tool's position, or the provider's
    /// search tool. Any other name is an error: the payload holds only those.
    pub(super) fn of(registry: &Registry, name: &str) -> Result<PlanName> {
        if let Some(i) = registry.index_of(name) {
            return Ok(PlanName::Tool(i));
        }
        if name == ANTHROPIC_TOOL_SEARCH_NAME {
            return Ok(PlanName::Static(ANTHROPIC_TOOL_SEARCH_NAME));
        }
        Err(Error::internal(format!(
            "the payload names {}, which is neither a registry tool nor a provider's search tool",
            crate::error::quoted(name)
        )))
    }
}

impl TurnPlan {
    /// Names in the provider array, array order (in catalog mode resident then promoted; in
    /// native mode every declared tool and the provider's search tool).
    pub fn array(&self) -> Vec<&str> {
        self.array
            .iter()
            .map(|n| match *n {
                PlanName::Tool(i) => self.registry.name(i),
                PlanName::Static(name) => name,
            })
            .collect()
    }

    /// Names in the catalog text (deferred, not promoted), registry order; empty in native
    /// mode, which sends no catalog.
    pub fn catalog(&self) -> Vec<&str> {
        self.names(&self.catalog)
    }

    /// Promoted tools (loaded by `tool_search`), load order.
    pub fn promoted(&self) -> Vec<&str> {
        self.names(&self.promoted)
    }

    /// The renamed MCP tools among the array and the catalog (their servers' names hold
    /// characters providers refuse, are too long, or collide), in wire-name order.
    pub fn renamed(&self) -> Vec<Renamed<'_>> {
        self.renamed
            .iter()
            .filter_map(|&i| self.registry.tool(i))
            .map(|t| Renamed {
                wire: &t.name,
                source: t.source_name(),
                server: crate::registry::server_of(&t.name).unwrap_or(""),
            })
            .collect()
    }

    /// The array, catalog and promoted names, each list joined by a newline ("" for an
    /// empty list), for a binding that hands each list over as one string to split (the wasm
    /// binding: one crossing a list, not one a name). No name holds a newline: registry
    /// names are provider-safe (`^[a-zA-Z0-9_-]{1,64}$`, checked at load) and the provider
    /// search tool's name is a constant (tests hold both), so the newlines are exactly the
    /// separators, and no name is empty, so "" is exactly the empty list.
    pub fn joined_names(&self) -> [String; 3] {
        let mut array = String::with_capacity(self.array.len() * 24);
        for (k, name) in self.array.iter().enumerate() {
            if k > 0 {
                array.push('\n');
            }
            array.push_str(match *name {
                PlanName::Tool(i) => self.registry.name(i),
                PlanName::Static(name) => name,
            });
        }
        let [mut catalog, mut promoted] = [String::new(), String::new()];
        self.registry.push_name_lines(&self.catalog, &mut catalog);
        self.registry.push_name_lines(&self.promoted, &mut promoted);
        [array, catalog, promoted]
    }

    fn names(&self, positions: &[usize]) -> Vec<&str> {
        positions.iter().map(|&i| self.registry.name(i)).collect()
    }

    /// Compact JSON `{array, catalog, promoted, renamed, warnings, provider, mode,
    /// fingerprint}` (and `betas`, `state` with change messages): the plan's one writer, its
    /// `Serialize` impl. The payload and catalog text are not in it (they are strings a caller
    /// sends as they are). An `internal` error if serde_json refused it, which plain structs
    /// of strings and lists never make it do.
    pub fn to_json(&self) -> Result<String> {
        serialised(self)
    }

    /// [`TurnPlan::to_json`] with the three name lists empty (`[]`), for a binding that hands
    /// the names over its own way (the wasm binding splits one newline-joined string per list
    /// on the JS side, which costs a fraction of parsing them as JSON).
    pub fn to_json_without_names(&self) -> Result<String> {
        serialised(&WithoutNames(self))
    }

    fn write<S: Serializer>(
        &self,
        serializer: S,
        with_names: bool,
    ) -> std::result::Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("TurnPlan", 10)?;
        let (array, catalog, promoted) = if with_names {
            (self.array(), self.catalog(), self.promoted())
        } else {
            (Vec::new(), Vec::new(), Vec::new())
        };
        out.serialize_field("array", &array)?;
        out.serialize_field("catalog", &catalog)?;
        out.serialize_field("promoted", &promoted)?;
        out.serialize_field("renamed", &self.renamed())?;
        out.serialize_field("warnings", &self.warnings)?;
        out.serialize_field("provider", &self.provider)?;
        out.serialize_field("mode", &self.mode)?;
        out.serialize_field("fingerprint", &self.fingerprint)?;
        if let Some(state) = &self.state {
            out.serialize_field("betas", &self.betas())?;
            out.serialize_field("state", state)?;
        }
        out.end()
    }

    /// The provider betas the request needs: on Anthropic, the change-message beta with
    /// `tool_changes: messages-by-reference`, and the inline-tools beta too with `messages`
    /// (which gives tools by value); empty otherwise.
    pub fn betas(&self) -> Vec<&'static str> {
        let betas = &ANTHROPIC_BETAS;
        match (self.provider, self.tool_changes) {
            (Provider::Anthropic, ToolChanges::Messages) => betas.to_vec(),
            (Provider::Anthropic, ToolChanges::MessagesByReference) => betas[..1].to_vec(),
            _ => Vec::new(),
        }
    }
}

/// The object [`TurnPlan::to_json`] writes.
impl Serialize for TurnPlan {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        self.write(serializer, true)
    }
}

/// The plan with its name lists empty ([`TurnPlan::to_json_without_names`]).
struct WithoutNames<'a>(&'a TurnPlan);

impl Serialize for WithoutNames<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        self.0.write(serializer, false)
    }
}

/// A plain struct of the crate as compact JSON. serde_json fails only on a map key that is not
/// a string, a `Serialize` impl that returns an error, or a failing writer; the crate's output
/// structs have none of these (string keys, derived impls, a `Vec` to write into), so the error
/// arm is a defect, reported as `internal` rather than written as an empty value.
pub(super) fn serialised(value: &impl Serialize) -> Result<String> {
    serde_json::to_string(value)
        .map_err(|_| Error::internal("serde_json refused one of the crate's own output structs"))
}
