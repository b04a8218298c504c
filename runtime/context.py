"""What a handler knows about the call it serves: session, allowed roots, audit sink."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from runtime.files import SymlinkPolicy
    from runtime.skills import SkillCatalog

__all__ = ["AuditRecord", "AuditSink", "ToolContext", "log_audit"]

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
class ToolContext:
    """Per-call facts a handler may use; it never opens a user path itself."""

    tool: str
    session: str | None = None
    workspace: tuple[Path, ...] = ()
    skills: tuple[Path, ...] = ()
    audit: AuditSink = field(default=log_audit)
    catalog: SkillCatalog | None = None
    """The skills discovered at start-up, for tools that offer them by name."""
    document: str | None = None
    """For a gated tool: the text of its SKILL.md when this call reads it."""
    symlinks: SymlinkPolicy = "within_root"
    """The contract's policy for symbolic links that stay inside an allowed folder."""
