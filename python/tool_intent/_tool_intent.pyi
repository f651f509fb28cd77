"""Type stubs of the compiled module (python/src/lib.rs). JSON-shaped values are plain dicts,
lists and strings, and each result's keys are declared in tool_intent.shapes; where an argument
takes JSON, a `str` of JSON text works too."""

from os import PathLike
from typing import Any, Callable, Dict, List, Literal, Optional, Tuple, Union, final, overload

from .shapes import (
    AuditRow,
    Budget,
    CacheReport,
    Counter,
    ErrorCode,
    ExpansionWarning,
    GcReport,
    MigrationReport,
    Mode,
    ModelLoad,
    Provider,
    ProviderCheck,
    RegistryChange,
    Renamed,
    SearchOutcome,
    SessionRow,
    ToolChanges,
    ToolDefinition,
    ToolInfo,
    TurnPlanDict,
    TurnState,
    VersionRow,
    View,
)

__all__ = [
    "Registry",
    "SessionRunConfig",
    "TurnPlan",
    "Turn",
    "SharedRegistry",
    "migrate",
    "undo",
    "audit",
    "fingerprint",
    "canonical_intent",
    "record_loaded",
    "build_intent",
    "normalize_tools_value",
    "count_tokens",
    "ToolIntentError",
]

Json = Any
"""A JSON value as Python data (dict / list / str / int / float / bool / None)."""
JsonIn = Union[str, bytes, bytearray, Dict[str, Any], List[Any], TurnState, SessionRow, None]
"""A JSON argument: Python data (a state or a row the module returned, too), or JSON text (a
str, or UTF-8 bytes as json.loads takes them)."""
ProfileOption = Union[Dict[str, Any], List[str], None]
"""The `profile` option: an override as Python data (an option is a value, never JSON text)."""
StateOption = Union[TurnState, Dict[str, Any], None]
"""The `state` option: a turn state as Python data (an option is a value, never JSON text)."""
StrPath = Union[str, "PathLike[str]"]

class ToolIntentError(ValueError):
    """A library error: `.code` (stable), `.argument` (a named argument, if any), `.path`
    (the JSON path of the bad input, if any)."""

    code: ErrorCode
    argument: Optional[str]
    path: Optional[str]


@final
class TurnPlan:
    """The per-turn call's result, from one planning: the strings are ready; the name lists are
    read from the plan's JSON on first access. `plan["payload"]` works as for a dict;
    `to_dict()` gives every field."""

    fingerprint: str
    payload: str
    """The exact JSON bytes of the provider tools array. "[]" when the turn has no tools: send
    no tools field then (OpenAI Chat and Bedrock Converse refuse an empty one)."""
    catalog_text: str
    request_fields: str
    changes: str
    """With tool_changes="messages": the items to append after the turn's newest user
    message, as JSON array text ("" when nothing changed)."""
    @property
    def state(self) -> Optional[TurnState]:
        """With tool_changes="messages": the turn state to keep; None otherwise."""
    @property
    def betas(self) -> List[str]: ...
    @property
    def array(self) -> List[str]: ...
    @property
    def catalog(self) -> List[str]: ...
    @property
    def promoted(self) -> List[str]: ...
    @property
    def renamed(self) -> List[Renamed]: ...
    @property
    def warnings(self) -> List[ExpansionWarning]: ...
    @overload
    def __getitem__(
        self,
        key: Literal["fingerprint", "payload", "catalog_text", "request_fields", "changes", "provider", "mode"],
    ) -> str: ...
    @overload
    def __getitem__(self, key: Literal["array", "catalog", "promoted", "betas"]) -> List[str]: ...
    @overload
    def __getitem__(self, key: Literal["renamed"]) -> List[Renamed]: ...
    @overload
    def __getitem__(self, key: Literal["warnings"]) -> List[ExpansionWarning]: ...
    @overload
    def __getitem__(self, key: Literal["state"]) -> TurnState: ...
    @overload
    def __getitem__(self, key: str) -> Any: ...
    def to_dict(self) -> TurnPlanDict: ...

@final
class Registry:
    """A registry parsed once. Every dict a method returns has snake_case keys."""

    @staticmethod
    def embedded() -> "Registry": ...
    @staticmethod
    def from_json(document: JsonIn) -> "Registry": ...
    def with_model(self, model: bytes) -> "Registry":
        """This registry with all-MiniLM-L6-v2's weights (its model.safetensors bytes) for
        search(..., ranker="model"); in tool-intent[hybrid] only."""
    def set_mcp_server(self, server: str, tools_list: JsonIn) -> RegistryChange:
        """Adds or replaces one MCP server's tools: {"registry": Registry, "diff": {added, removed, changed}}."""
    def set_mcp_servers(self, servers: List[Dict[str, Any]]) -> RegistryChange:
        """Sets many servers ([{"name", "tools"}]) in one build: {"registry", "diff"}."""
    def remove_mcp_server(self, server: str) -> RegistryChange: ...
    def fingerprint(self) -> str:
        """sha256:<hex> of the registry's content: what begin_turn stamps a turn with."""
    def begin_turn(self, state: JsonIn = None) -> TurnState:
        """A turn boundary: loads join the array; the turn runs on this registry version."""
    def __len__(self) -> int: ...
    def warnings(self) -> List[ExpansionWarning]:
        """What loading left out or changed: [{code, origin, message}] (a method, as in Rust and JS)."""
    def tool_infos(self) -> List[ToolInfo]: ...
    def tool_definition(self, name: str) -> ToolDefinition: ...
    def toolset_names(self) -> List[str]: ...
    def source_names(self) -> List[str]: ...
    def to_json(self) -> str: ...
    def __reduce__(self) -> Tuple[Callable[[str], "Registry"], Tuple[str]]:
        """Pickles as its document (to_json), read back by from_json; a registry with the
        model's weights raises ToolIntentError instead (call with_model where it is read)."""
    def __copy__(self) -> "Registry": ...
    def __deepcopy__(self, _memo: Any) -> "Registry":
        """A registry is a value no call changes: its copies are itself."""
    def check(self, provider: Provider) -> ProviderCheck: ...
    def turn(
        self,
        tools_override: JsonIn = None,
        *,
        source: Optional[str] = None,
        profile: ProfileOption = None,
        state: StateOption = None,
        provider: Optional[Provider] = None,
        mode: Optional[Mode] = None,
        tool_changes: Optional[ToolChanges] = None,
        cache_control: Optional[bool] = None,
        view: Optional[View] = None,
    ) -> "Turn":
        """Starts a turn (expands once); None options take the defaults (anthropic, catalog, frozen)."""
    def plan_turn(
        self,
        tools_override: JsonIn = None,
        *,
        source: Optional[str] = None,
        profile: ProfileOption = None,
        state: StateOption = None,
        provider: Optional[Provider] = None,
        mode: Optional[Mode] = None,
        tool_changes: Optional[ToolChanges] = None,
        cache_control: Optional[bool] = None,
        view: Optional[View] = None,
    ) -> TurnPlan:
        """registry.turn(tools_override, **options).plan() in one call."""
    def cache_report(
        self,
        script: JsonIn,
        tools_override: JsonIn = None,
        *,
        source: Optional[str] = None,
        profile: ProfileOption = None,
        state: StateOption = None,
        provider: Optional[Provider] = None,
        mode: Optional[Mode] = None,
        tool_changes: Optional[ToolChanges] = None,
        counter: Optional[Counter] = None,
    ) -> CacheReport: ...

@final
class Turn:
    """One turn: the registry version, the expansion and the state, made once by
    Registry.turn; search records its loads in `state`. Threads may share it (a response's
    parallel tool calls run at once): its calls take turns."""

    def plan(self) -> TurnPlan: ...
    def search(
        self,
        query: str,
        *,
        limit: Optional[int] = None,
        ranker: Optional[Literal["keyword", "hybrid", "model"]] = None,
        abstain: Optional[bool] = None,
    ) -> SearchOutcome: ...
    def resolve(self, name: str) -> ToolDefinition: ...
    def budget(self, *, counter: Optional[Counter] = None) -> Budget: ...
    @property
    def state(self) -> TurnState: ...
    def warnings(self) -> List[ExpansionWarning]: ...

@final
class SharedRegistry:
    """A server process's registry following a registry version store (a SQLite file, or a
    postgres:// URL) that the fleet's processes share: every request of a turn plans on the
    version the turn began on, whichever process serves it; a session's version only moves
    forward. A SQLite store is a file of its own: this module's SQLite is another copy than
    the sqlite3 module's, and the two do not see each other's locks in one process. See
    docs/fleet.md."""

    def __new__(cls, store: StrPath, initial: Registry) -> "SharedRegistry": ...
    @property
    def current(self) -> Registry: ...
    @property
    def sequence(self) -> int: ...
    def with_model(self, model: bytes) -> ModelLoad:
        """Every version this process plans on gets all-MiniLM-L6-v2's weights for
        search(..., ranker="model"), with the embeddings other processes shared through the
        store: {"loaded": n, "refused": n}; in tool-intent[hybrid] only."""
    def begin_turn(self, state: JsonIn = None) -> TurnState: ...
    def turn(
        self,
        tools_override: JsonIn = None,
        *,
        source: Optional[str] = None,
        profile: ProfileOption = None,
        state: StateOption = None,
        provider: Optional[Provider] = None,
        mode: Optional[Mode] = None,
        tool_changes: Optional[ToolChanges] = None,
        cache_control: Optional[bool] = None,
        view: Optional[View] = None,
    ) -> Turn: ...
    def publish(self, registry: Registry) -> VersionRow: ...
    def change(self, change: Callable[[Registry], Registry]) -> VersionRow:
        """Makes `change(newest)` and publishes it, made again on the newest version when
        another process published first. `change` must not call this SharedRegistry (it runs
        under its lock): that raises ToolIntentError naming `change`."""
    def follow(self) -> Optional[VersionRow]: ...
    def versions(self) -> List[VersionRow]: ...
    def gc(self, *, keep_newest: Optional[int] = None, keep_hours: Optional[float] = None) -> GcReport: ...

@final
class SessionRunConfig:
    @staticmethod
    def from_override(tools_override: JsonIn = None) -> "SessionRunConfig": ...
    @staticmethod
    def from_row(row: JsonIn) -> "SessionRunConfig": ...
    def to_row(self) -> SessionRow: ...
    def to_override(self) -> Json: ...
    @property
    def tools_enabled(self) -> Optional[bool]: ...
    @property
    def web_search(self) -> Optional[bool]: ...
    @property
    def toolset(self) -> Optional[str]: ...
    @property
    def tools_override(self) -> Json: ...
    def __reduce__(self) -> Tuple[Callable[[str], "SessionRunConfig"], Tuple[str]]:
        """Pickles as its row's JSON text, read back by from_row."""

def record_loaded(state: JsonIn, names: List[str]) -> TurnState: ...
def build_intent(**toggles: Any) -> Json: ...
def normalize_tools_value(value: JsonIn) -> SessionRow: ...
def fingerprint(text: str) -> str: ...
def count_tokens(text: str, counter: Optional[Counter] = None) -> int: ...
def canonical_intent(tools_override: JsonIn) -> str: ...
def migrate(
    db: StrPath,
    registry: Optional[Registry] = None,
    *,
    table: str = "sessions",
    dry_run: bool = False,
    batch_size: Optional[int] = None,
    progress: Optional[Callable[[int, int], object]] = None,
) -> MigrationReport:
    """db: a SQLite file or a postgresql:// URL; a SQLite file with no sqlite3 connection to it
    open in this process (this module's SQLite is another copy, whose locks that one does not
    see: docs/migration.md). batch_size: rows per transaction (default:
    one transaction on SQLite, 1000 on PostgreSQL). progress(done, total): called every 1% of
    the rows; an exception it raises, or Ctrl-C, stops the run (the transaction under way
    rolls back) and is raised."""
def undo(
    db: StrPath,
    *,
    table: str = "sessions",
    dry_run: bool = False,
    batch_size: Optional[int] = None,
    progress: Optional[Callable[[int, int], object]] = None,
) -> MigrationReport:
    """progress(done, total) counts the backed-up rows, and stops the undo, as migrate's does
    the run."""
def audit(db: StrPath, registry: Optional[Registry] = None, *, table: str = "sessions") -> List[AuditRow]: ...
