"""Audit records: one per file access, written before any of its content is returned.

The default sink writes one ``key=value`` line per record. Every text field
(the path above all, which a caller chooses) goes through ``printable_field``,
so no path can end the line early and forge a record, nor add a field.

When the host authenticates callers with OAuth, each record names who called (``caller``: the token's subject,
client and scopes), and the line ends with ``subject=... client=... scopes=...``; without OAuth it is None and the
line is as before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import ClassVar

from toolproof.runtime.context import Caller, ToolContext
from toolproof.runtime.logs import caller_fields
from toolproof.runtime.printable import printable_field

__all__ = ["Audit", "AuditRecord", "AuditSink", "audit_sink", "log_audit"]

_log = logging.getLogger("toolproof.audit")


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One file access, recorded before any of its content is returned."""

    tool: str
    session: str | None
    path: str
    outcome: str
    bytes: int
    duration_ms: float
    caller: Caller | None = None
    """Who made the call, when the host authenticates callers with OAuth (``ToolContext.caller``)."""


AuditSink = Callable[[AuditRecord], None]


def log_audit(record: AuditRecord) -> None:
    """The default sink: one INFO line on the ``toolproof.audit`` logger, every text field escaped."""
    who = "" if record.caller is None else " " + caller_fields(record.caller).replace("%", "%%")
    _log.info(
        "tool=%s session=%s path=%s outcome=%s bytes=%d duration_ms=%.3f" + who,
        printable_field(record.tool),
        None if record.session is None else printable_field(record.session),
        printable_field(record.path),
        printable_field(record.outcome),
        record.bytes,
        record.duration_ms,
    )


@dataclass(frozen=True, slots=True)
class Audit:
    """Resource ``audit``: where a host's file-access records go."""

    resource: ClassVar[str] = "audit"
    sink: AuditSink


def audit_sink(ctx: ToolContext) -> AuditSink:
    """The sink of the host serving ``ctx``: its ``Audit`` resource, else the logger; records name ``ctx.caller``."""
    audit = ctx.get(Audit)
    sink = audit.sink if audit is not None else log_audit
    caller = ctx.caller
    if caller is None:
        return sink
    return lambda record: sink(replace(record, caller=caller) if record.caller is None else record)
