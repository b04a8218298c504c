"""Pinned tool digests: one canonical hash of each tool definition as a model sees it.

A tool's **definition** is its MCP ``tools/list`` entry cut to what a model (and the
person who approves a tool) reads: ``name``, ``title``, ``description``,
``inputSchema``, ``outputSchema`` and ``annotations`` (each one present; ``_meta``
and any other key are not part of it). The values of a *host-filled* enum (a
property whose ``enum`` each host fills at start-up, such as ``read_skill``'s
``skill_name``) are left out, since every host fills its own; the rest of that
property, its description included, is pinned.

The digest is ``sha256:`` and the lower-case hex SHA-256 of the definition's
RFC 8785 (JSON Canonicalization Scheme) serialisation, made by the ``rfc8785``
library. An integer outside JSON's safe range (beyond 2^53 - 1 either way) is canonicalised as
the IEEE 754 double a JSON parser reads it as, as RFC 8785 §3.2.2.3 reads every
number.

``toolproof gen`` writes every tool's digest to ``<generated>/tools.lock.json``
(``LOCK_FILE``) and into its MCP export's ``_meta`` under ``DIGEST_META_KEY``,
which ``tools/list`` serves; ``conform`` and ``toolproof verify`` compute the
digest of what a server lists and compare it with the pin.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

__all__ = [
    "COVERED",
    "DIGEST_META_KEY",
    "LOCK_FILE",
    "LOCK_FORMAT",
    "LockError",
    "Pin",
    "definition",
    "digest",
    "digest_differences",
    "lock_document",
    "read_lock",
]

DIGEST_META_KEY: Final = "dev.toolproof/digest"
"""Where a ``tools/list`` entry's ``_meta`` carries the tool's pinned digest."""
LOCK_FILE: Final = "tools.lock.json"
"""The lock file's name, in the generated folder."""
LOCK_FORMAT: Final = "toolproof-digests/1"
COVERED: Final = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
"""The keys of a ``tools/list`` entry the digest covers, when present."""
_SAFE: Final = 2**53 - 1


class LockError(Exception):
    """A lock file cannot be read or is not one ``toolproof gen`` writes; the message names the file."""


@dataclass(frozen=True, slots=True)
class Pin:
    """One tool's pinned digest, and the properties whose enum a host fills (left out of it)."""

    digest: str
    host_filled: tuple[str, ...] = ()


def _ijson(value: Any) -> Any:
    """``value`` with each integer beyond the safe range as the double a JSON parser reads it as."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and abs(value) > _SAFE:
        return float(value)
    if isinstance(value, Mapping):
        return {key: _ijson(sub) for key, sub in value.items()}
    if isinstance(value, list | tuple):
        return [_ijson(sub) for sub in value]
    return value


def definition(tool: Mapping[str, Any], host_filled: Iterable[str] = ()) -> dict[str, Any]:
    """What the digest covers of the ``tools/list`` entry ``tool``: ``COVERED``, host-filled enum values left out."""
    view = {key: tool[key] for key in COVERED if key in tool}
    filled = set(host_filled)
    schema = view.get("inputSchema")
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if filled and isinstance(schema, Mapping) and isinstance(props, Mapping):
        masked = {
            name: {k: v for k, v in sub.items() if k != "enum"} if name in filled and isinstance(sub, Mapping) else sub
            for name, sub in props.items()
        }
        view["inputSchema"] = {**schema, "properties": masked}
    return view


def digest(tool: Mapping[str, Any], host_filled: Iterable[str] = ()) -> str:
    """``sha256:<hex>`` of the RFC 8785 form of ``definition(tool, host_filled)``."""
    import rfc8785  # here: only gen, conform and verify digest; a host serves the digest gen wrote

    canonical = rfc8785.dumps(_ijson(definition(tool, host_filled)))
    return f"sha256:{hashlib.sha256(canonical).hexdigest()}"


def lock_document(pins: Mapping[str, Pin]) -> dict[str, Any]:
    """The lock file's content for ``pins`` (by tool name)."""
    return {
        "format": LOCK_FORMAT,
        "canonicalization": "RFC 8785 (JCS), SHA-256",
        "covers": list(COVERED),
        "docs": "https://toolproof.dev/publishing/",
        "tools": {
            name: {"digest": pin.digest, **({"host_filled": list(pin.host_filled)} if pin.host_filled else {})}
            for name, pin in sorted(pins.items())
        },
    }


def read_lock(path: Path) -> dict[str, Pin]:
    """The pins of the lock file at ``path``, by tool name.

    Raises:
        LockError: it cannot be read, is not JSON, or is not a lock file of ``LOCK_FORMAT``.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LockError(f"{path}: cannot be read ({exc.strerror or exc}); name the {LOCK_FILE} gen wrote") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise LockError(f"{path}: is not JSON ({exc}); name the {LOCK_FILE} gen wrote") from None
    tools = data.get("tools") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("format") != LOCK_FORMAT or not isinstance(tools, dict):
        raise LockError(f"{path}: is not a lock file of format {LOCK_FORMAT!r}; name the {LOCK_FILE} gen wrote")
    pins: dict[str, Pin] = {}
    for name, entry in tools.items():
        found = entry.get("digest") if isinstance(entry, dict) else None
        filled = entry.get("host_filled", []) if isinstance(entry, dict) else None
        if not isinstance(found, str) or not isinstance(filled, list) or not all(isinstance(f, str) for f in filled):
            raise LockError(f"{path}: tools.{name} needs a digest string (and host_filled, a list of names)")
        pins[name] = Pin(found, tuple(filled))
    return pins


def digest_differences(pins: Mapping[str, Pin], listed: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """How a server's ``tools/list`` entries ``listed`` differ from ``pins``: one sentence by tool name.

    A pinned tool the server does not list, one whose digest differs, and one the server lists
    unpinned are each named; a tool that matches its pin is not.
    """
    served = {tool["name"]: tool for tool in listed if isinstance(tool, Mapping) and isinstance(tool.get("name"), str)}
    found: dict[str, str] = {}
    for name, pin in sorted(pins.items()):
        tool = served.get(name)
        if tool is None:
            found[name] = f"tool '{name}' is pinned but not served"
            continue
        got = digest(tool, pin.host_filled)
        if got != pin.digest:
            found[name] = f"tool '{name}' changed: it is served with digest {got}, pinned {pin.digest}"
    for name in sorted(served.keys() - pins.keys()):
        found[name] = f"tool '{name}' is served but not pinned"
    return found
