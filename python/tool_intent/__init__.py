"""tool-intent for Python: the same Rust core as the server, the web UI and the terminal
client (see the repository's README and docs/contract.md)."""

from ._tool_intent import (
    Registry,
    SessionRunConfig,
    ToolIntentError,
    TurnPlan,
    audit,
    migrate,
    undo,
    begin_turn,
    build_intent,
    canonical_intent,
    fingerprint,
    normalize_tools_value,
    record_loaded,
    session_row,
    tools_override_from_config,
)

__all__ = [
    "Registry",
    "SessionRunConfig",
    "ToolIntentError",
    "TurnPlan",
    "audit",
    "migrate",
    "undo",
    "begin_turn",
    "build_intent",
    "canonical_intent",
    "fingerprint",
    "normalize_tools_value",
    "record_loaded",
    "session_row",
    "tools_override_from_config",
]
