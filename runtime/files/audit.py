"""Audit records: one per file access, written before any of its content is returned."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from toolproof.runtime.context import ToolContext

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
    """The default sink: one INFO line on the ``toolproof.audit`` logger."""
    _log.info(
        "tool=%s session=%s path=%s outcome=%s bytes=%d duration_ms=%.3f",
        record.tool,
        record.session,
        record.path,
        record.outcome,
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
