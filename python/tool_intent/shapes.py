"""The shapes of what the module returns, as typing.TypedDict classes: the Python side of the
TypeScript declarations (bindings/wasm/src/types.d.ts), with the same fields in snake_case.
They are plain dicts at run time; a type checker reads their keys (`outcome["not_found"]`).
python/tests/test_shapes.py checks real results against each of them, key by key, so a field
the core adds or drops fails there.

Keys a result may leave out are declared in a `total=False` subclass (Python 3.9 has no
`NotRequired`)."""

from typing import TYPE_CHECKING, Any, Dict, List, Literal, Optional, TypedDict

if TYPE_CHECKING:
    from ._tool_intent import Registry

__all__ = [
    "AuditRow",
    "Budget",
    "BudgetRow",
    "CacheReport",
    "CacheTurn",
    "CheckFinding",
    "ConversationTools",
    "Counter",
    "EffectiveAnnotations",
    "ErrorCode",
    "ExpansionWarning",
    "GcReport",
    "KnownTool",
    "MigrationReport",
    "Mode",
    "ModelLoad",
    "NotRestored",
    "PresetChange",
    "Provider",
    "ProviderCheck",
    "RegistryChange",
    "RegistryDiff",
    "Renamed",
    "SearchOutcome",
    "SessionRow",
    "ToolChanges",
    "ToolDefinition",
    "ToolInfo",
    "TurnPlanDict",
    "TurnState",
    "UnreadableRow",
    "VersionRow",
    "View",
    "WarningCode",
]

Provider = Literal["anthropic", "openai-chat", "openai-responses", "bedrock-converse", "gemini"]
Mode = Literal["catalog", "native", "native-client"]
"""How deferred tools reach the model (TypeScript's DeferralMode)."""
Counter = Literal["estimate", "o200k", "cl100k"]
View = Literal["frozen", "live"]
ToolChanges = Literal["array", "messages", "messages-by-reference"]

WarningCode = Literal[
    "unknown_tool",
    "unknown_toolset",
    "unknown_intent_key",
    "no_web_search_overlay",
    "ignored_when_disabled",
    "unknown_loaded_tool",
    "quarantined_tool",
    "normalised_schema",
    "denied_by_source",
    "empty_toolset",
    "provider_refused_tool",
    "description_shortened",
    "nothing_deferred",
    "search_abstained",
    "duplicate_tool_name",
    "turn_registry_gone",
    "turn_registry_earlier",
    "builtin_option_dropped",
    "tool_changes_rewrite",
    "tool_definition_kept",
]
"""A warning's stable code (the same list as TypeScript's WarningCode)."""

ErrorCode = Literal[
    "invalid_json",
    "invalid_value",
    "invalid_registry",
    "limit_exceeded",
    "unknown_source",
    "invalid_argument",
    "tool_not_available",
    "tool_removed",
    "provider_executed",
    "database",
    "store_unavailable",
    "unknown_version",
    "corrupt_version",
    "store_schema_newer",
    "internal",
]
"""ToolIntentError.code (the same list as TypeScript's ToolIntentErrorCode)."""


class ExpansionWarning(TypedDict):
    code: WarningCode
    origin: str
    """override, profile, source:<name>, loaded or provider:<name>."""
    message: str


class _KnownTool(TypedDict):
    definition: str
    reference: str


class KnownTool(_KnownTool, total=False):
    """A tool the conversation can name (tool_changes "messages")."""

    entry: int


class _ConversationTools(TypedDict):
    tools: List[str]
    known: Dict[str, KnownTool]
    offered: List[str]
    catalog: List[str]


class ConversationTools(_ConversationTools, total=False):
    """What the conversation was told about its tools (tool_changes "messages"): keep it with
    the state; never edit it."""

    provider: Provider
    """The provider the tools array was declared for (absent in records of earlier releases)."""


class _TurnState(TypedDict):
    loaded: List[str]
    """Tools loaded by tool_search, in load order."""
    frozen: List[str]
    """The loaded set frozen at the last turn boundary (what the array shows this turn)."""
    turn: int
    """Turn boundaries passed."""


class TurnState(_TurnState, total=False):
    """A session's deferral state: persist it with the session and pass it back in."""

    registry: str
    """The fingerprint of the registry version the turn began on (begin_turn)."""
    conversation: ConversationTools


class Renamed(TypedDict):
    """An MCP tool whose wire name differs from the server's own name."""

    wire: str
    source: str
    server: str


class _TurnPlanDict(TypedDict):
    array: List[str]
    catalog: List[str]
    promoted: List[str]
    renamed: List[Renamed]
    warnings: List[ExpansionWarning]
    provider: Provider
    mode: Mode
    fingerprint: str
    payload: str
    catalog_text: str
    request_fields: str
    changes: str


class TurnPlanDict(_TurnPlanDict, total=False):
    """TurnPlan.to_dict(): every field of the plan."""

    betas: List[str]
    state: TurnState


class _SearchOutcome(TypedDict):
    hits: List[str]
    not_found: List[str]
    text: str
    """The tool-result text handed back to the model."""
    state: TurnState
    """The turn state with the hits recorded as loaded."""


class SearchOutcome(_SearchOutcome, total=False):
    """Turn.search(...)."""

    warnings: List[ExpansionWarning]
    """Why nothing was found when it is not a plain miss (nothing_deferred, search_abstained)."""
    provider_output: Any
    """native-client mode: the provider-shaped result to send instead of `text`."""


class CheckFinding(TypedDict):
    tool: str
    """The tool ("" for a finding about the whole request)."""
    rule: str
    refused: bool
    """True: the provider would refuse it; False: the library changes it."""
    message: str


class ProviderCheck(TypedDict):
    """Registry.check(provider): no findings means the registry is clean for that provider."""

    provider: Provider
    findings: List[CheckFinding]


class CacheTurn(TypedDict):
    turn: int
    fingerprint: str
    array_tools: int
    request_bytes: int
    request_tokens: int
    first_difference: Optional[int]
    """First byte that differs from the previous request; None when only appended to."""
    section: Literal["tools", "system", "messages", "first"]
    rewritten_tokens: int
    events: List[str]


class _CacheReport(TypedDict):
    provider: Provider
    mode: Mode
    counter: str
    turns: List[CacheTurn]
    rewrites: int
    rewritten_tokens: int


class CacheReport(_CacheReport, total=False):
    """Registry.cache_report(...)."""

    tool_changes: ToolChanges
    """Present ("messages") when the session sent its tool changes as messages."""


class BudgetRow(TypedDict):
    name: str
    placement: Literal["resident", "promoted", "deferred"]
    tokens: int
    resident_tokens: int


class _Budget(TypedDict):
    counter: Literal["estimate", "o200k_base", "cl100k_base"]
    provider: Provider
    rows: List[BudgetRow]
    resident_tokens: int
    catalog_tokens: int
    all_resident_tokens: int
    saving_tokens: int


class Budget(_Budget, total=False):
    """Turn.budget(...)."""

    declared_tokens: int
    """tool_changes "messages": the tools array the conversation declared."""
    changes_tokens: int
    """tool_changes "messages": this turn's change message (0 when nothing changed)."""


class EffectiveAnnotations(TypedDict):
    """A tool's MCP annotations as believed: its own when trusted, otherwise MCP's defaults."""

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool
    trusted: bool


class _ToolInfo(TypedDict):
    name: str
    description: str
    default: bool
    deferrable: bool
    overlay: bool
    effective_annotations: EffectiveAnnotations
    builtin_providers: List[Provider]


class ToolInfo(_ToolInfo, total=False):
    """One tool as a UI lists it (Registry.tool_infos())."""

    title: str
    source_name: str
    """The MCP server's own name when the wire name differs."""


ToolDefinition = Dict[str, Any]
"""A tool's definition as the registry holds it (name, description, parameters, annotations,
...): its fields are the registry document's, so it stays an open dict."""


class PresetChange(TypedDict):
    preset: str
    entered: List[str]
    left: List[str]


class RegistryDiff(TypedDict):
    """What a change to a registry's MCP servers did, by wire name."""

    added: List[str]
    removed: List[str]
    changed: List[str]
    presets: List[PresetChange]


class RegistryChange(TypedDict):
    """Registry.set_mcp_server(...) and its siblings: the new registry and what changed."""

    registry: "Registry"
    diff: RegistryDiff


class SessionRow(TypedDict):
    """A session row's tool columns (SessionRunConfig.to_row(), normalize_tools_value)."""

    tools_enabled: Optional[bool]
    tools_override: Any
    """The override as Python data: None, a list of names, or an intent dict."""
    toolset: Optional[str]
    web_search: Optional[bool]


class VersionRow(TypedDict):
    """One registry version in a store (SharedRegistry.publish, follow, versions)."""

    sequence: int
    fingerprint: str
    published_ms: int
    tools: int
    removed: bool
    used_ms: Optional[int]


class GcReport(TypedDict):
    removed: List[str]
    kept: int
    tools_removed: int


class ModelLoad(TypedDict):
    """SharedRegistry.with_model: embeddings read from the store, and those refused."""

    loaded: int
    refused: int


class NotRestored(TypedDict):
    rowid: int
    reason: Literal["changed", "deleted"]
    columns: List[str]


class UnreadableRow(TypedDict):
    rowid: int
    reason: str


class MigrationReport(TypedDict):
    """migrate(...) and undo(...)."""

    table: str
    dry_run: bool
    undo: bool
    rows_read: int
    null_rows: int
    intents_kept: int
    hand_picks_kept: int
    snapshots_rewritten: Dict[str, int]
    """Rows rewritten, by the snapshot they matched."""
    unreadable_rows: List[UnreadableRow]
    columns_added: List[str]
    backup_table: str
    rows_restored: int
    rows_not_restored: List[NotRestored]
    rows_changed_concurrently: List[int]
    batches: int


class AuditRow(TypedDict):
    """A row that still holds a legacy snapshot (audit(...))."""

    rowid: int
    matched: str
    intent: str
