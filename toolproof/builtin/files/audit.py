"""Audit records: one per file access, written before any of its content is returned.

The default sink writes one ``key=value`` line per record. Every text field
(the path above all, which a caller chooses) goes through ``printable_field``,
so no path can end the line early and forge a record, nor add a field.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from toolproof.runtime.context import ToolContext
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


AuditSink = Callable[[AuditRecord], None]


def log_audit(record: AuditRecord) -> None:
    """The default sink: one INFO line on the ``toolproof.audit`` logger, every text field escaped."""
    _log.info(
        "tool=%s session=%s path=%s outcome=%s bytes=%d duration_ms=%.3f",
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
    """The sink of the host serving ``ctx``: its ``Audit`` resource, else the logger."""
    audit = ctx.get(Audit)
    return audit.sink if audit is not None else log_audit
