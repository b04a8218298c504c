"""The MCP revision a server negotiated, and what each revision asks of its tool results.

``toolproof conform`` asks for the newest revision in ``initialize``; a server
may answer with an older one it speaks, and is then held to that revision:

- ``outputSchema`` and ``structuredContent`` came in 2025-06-18 ("Structured
  Content", "Output Schema"); before it a tool lists no output schema and a
  result carries only its content, so only the text and ``isError`` are checked.
- Up to 2025-06-18 "Error Handling" lists invalid arguments among the protocol
  errors (JSON-RPC errors, ``-32602``); 2025-11-25 moves input validation
  errors to tool execution errors (``isError``), which clients SHOULD give the
  model so it can correct its call. A contract promises the model its rendered
  ``invalid_arguments`` error, so from 2025-11-25 a ``-32602`` fails.

Revisions are dates, ``YYYY-MM-DD``, so they compare as strings.
"""

from __future__ import annotations

from typing import Any, Final

from toolproof.runtime.serve.mcp import HANDSHAKE_VERSIONS

__all__ = ["LATEST", "arguments_are_protocol_errors", "negotiated", "structured"]

LATEST: Final = HANDSHAKE_VERSIONS[-1]
"""The revision conform asks for, and holds a server to unless it negotiates an older one."""
_STRUCTURED_SINCE: Final = "2025-06-18"
_TOOL_ERROR_ARGUMENTS_SINCE: Final = "2025-11-25"


def structured(revision: str) -> bool:
    """Whether ``revision`` has ``outputSchema`` and ``structuredContent``."""
    return revision >= _STRUCTURED_SINCE


def arguments_are_protocol_errors(revision: str) -> bool:
    """Whether ``revision`` lists invalid arguments among the protocol errors (a JSON-RPC ``-32602``)."""
    return revision < _TOOL_ERROR_ARGUMENTS_SINCE


def negotiated(result: Any) -> str:
    """The revision an ``initialize`` result names.

    Raises:
        ValueError: it names none, or one conform did not offer and does not speak (MCP "Lifecycle":
            the client SHOULD then disconnect).
    """
    version = result.get("protocolVersion") if isinstance(result, dict) else None
    if version not in HANDSHAKE_VERSIONS:
        raise ValueError(
            f"initialize answered protocolVersion {version!r}; the client asked for {LATEST!r}"
            f" and speaks {', '.join(HANDSHAKE_VERSIONS)}"
        )
    return str(version)
