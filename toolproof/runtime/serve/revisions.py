"""The MCP revisions served, and the ``_meta`` envelope every 2026-07-28 request carries.

The 2025 revisions (and 2024-11-05) are negotiated once per connection by
``initialize``; 2026-07-28 has no handshake: each request names its version,
and the client's capabilities, in ``params._meta``. An envelope naming another
version gets -32022 whose ``supported`` lists the versions the envelope
carries: a legacy revision named there is refused too, because legacy
revisions are negotiated by ``initialize`` and never named per request (a
client retrying with a version from a list that held them would loop); the
message says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from toolproof.runtime.printable import printable
from toolproof.runtime.serve.jsonrpc import UNSUPPORTED_PROTOCOL_VERSION, error_response

__all__ = [
    "BATCH_VERSIONS",
    "CAPABILITIES_META",
    "HANDSHAKE_VERSIONS",
    "LOG_LEVELS",
    "LOG_LEVEL_META",
    "MODERN_VERSIONS",
    "SERVER_INFO_META",
    "STATELESS_LOG_LEVEL",
    "SUPPORTED_VERSIONS",
    "VERSION_META",
    "envelope_problem",
    "level_problem",
    "meta_of",
    "unsupported_envelope",
]

HANDSHAKE_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS: Final = ("2026-07-28",)
SUPPORTED_VERSIONS: Final = (*MODERN_VERSIONS, *reversed(HANDSHAKE_VERSIONS))
"""Every revision served, newest first (``server/discover``, and -32022's ``supported``)."""
BATCH_VERSIONS: Final = ("2025-03-26",)
"""Revisions under which a client may send a JSON-RPC batch (an array), which the server must then receive:
the one that added batching (2025-06-18 removed it)."""
LOG_LEVELS: Final = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
"""MCP (syslog) log levels, least severe first."""
STATELESS_LOG_LEVEL: Final = LOG_LEVELS[0]
"""The level of a 2025 request's log messages on a stateless core, which cannot keep a client's ``setLevel``:
every message, as the official SDKs send when a session set no level (2025: clients MAY set one)."""

VERSION_META: Final = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_META: Final = "io.modelcontextprotocol/clientCapabilities"
LOG_LEVEL_META: Final = "io.modelcontextprotocol/logLevel"
SERVER_INFO_META: Final = "io.modelcontextprotocol/serverInfo"


def meta_of(params: Mapping[str, Any]) -> Mapping[str, Any]:
    """A request's ``_meta`` (empty when it has none or it is not an object)."""
    found = params.get("_meta")
    return found if isinstance(found, Mapping) else {}


def envelope_problem(params: Mapping[str, Any]) -> str | None:
    """What a 2026-07-28 request's ``_meta`` lacks (None when whole): the version and the client's capabilities."""
    found = params.get("_meta")
    if not isinstance(found, Mapping):
        return "Invalid params: params._meta is required (protocol 2026-07-28)"
    if not isinstance(found.get(VERSION_META), str):
        return f"Invalid params: params._meta[{VERSION_META!r}] is required"
    if not isinstance(found.get(CAPABILITIES_META), Mapping):
        return f"Invalid params: params._meta[{CAPABILITIES_META!r}] is required (an object)"
    return None


def level_problem(envelope: Mapping[str, Any]) -> str | None:
    """What is wrong with a 2026-07-28 request's logLevel (None when it has none, or a known one)."""
    if LOG_LEVEL_META in envelope and envelope[LOG_LEVEL_META] not in LOG_LEVELS:
        return f"Invalid params: params._meta[{LOG_LEVEL_META!r}] must be one of {', '.join(LOG_LEVELS)}"
    return None


def unsupported_envelope(request_id: Any, asked: str) -> dict[str, Any]:
    """-32022 for a ``_meta`` envelope naming a version it cannot carry; ``supported`` lists those it can.

    The envelope exists from 2026-07-28 on: a legacy revision (2025-11-25 and
    before) is negotiated by ``initialize``, never named per request, so it is
    not offered here to retry with (a client would loop), and the message says
    where it belongs.
    """
    data = {"supported": list(MODERN_VERSIONS), "requested": asked}
    message = f"Unsupported protocol version in params._meta: {printable(asked)}"
    if asked in HANDSHAKE_VERSIONS:
        message += f"; the envelope carries {', '.join(MODERN_VERSIONS)}, and {asked} is negotiated by initialize"
    return error_response(request_id, UNSUPPORTED_PROTOCOL_VERSION, message, data)
