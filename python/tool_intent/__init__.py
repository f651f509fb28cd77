"""tool-intent for Python: the same Rust core as the server, the web UI and the terminal
client (see the repository's README and docs/contract.md)."""

from ._tool_intent import Registry, ToolIntentError, canonical_intent, fingerprint

__all__ = ["Registry", "ToolIntentError", "canonical_intent", "fingerprint"]
