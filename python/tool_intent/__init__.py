"""tool-intent for Python: the same Rust core as the server, the web UI and the terminal
client (see the repository's README and docs/contract.md). The handle is `Registry`;
`registry.turn(...)` makes one `Turn` per request, whose methods carry the Rust names
(`plan`, `search`, `resolve`, `budget`), and every returned dict has snake_case keys. Their
shapes are typing.TypedDict classes in `tool_intent.shapes` (`from tool_intent.shapes import
SearchOutcome`), as the TypeScript declarations are for JS."""

from typing import TYPE_CHECKING

__all__ = [
    "Registry",
    "SessionRunConfig",
    "SharedRegistry",
    "ToolIntentError",
    "Turn",
    "TurnPlan",
    "audit",
    "build_intent",
    "canonical_intent",
    "count_tokens",
    "fingerprint",
    "migrate",
    "normalize_tools_value",
    "record_loaded",
    "undo",
]

if TYPE_CHECKING:
    from ._tool_intent import (
        Registry,
        SessionRunConfig,
        SharedRegistry,
        ToolIntentError,
        Turn,
        TurnPlan,
        audit,
        build_intent,
        canonical_intent,
        count_tokens,
        fingerprint,
        migrate,
        normalize_tools_value,
        record_loaded,
        undo,
    )
else:
    # `pip install tool-intent[hybrid]` adds the module built with the hybrid ranker (the
    # same API plus search(..., ranker="hybrid")); it is used when present.
    try:
        from . import _tool_intent_hybrid as _native
    except ImportError:
        from . import _tool_intent as _native
    globals().update({name: getattr(_native, name) for name in __all__})
    del _native
