"""Read a text file beneath a root, with an audit record written before the content is returned."""

from __future__ import annotations

import time
from dataclasses import dataclass

from runtime.context import AuditRecord, ToolContext
from runtime.decoding import Decoded, DecodeError, decode
from runtime.files import Directory, FileAccessError, SymlinkPolicy

__all__ = ["TextFile", "read_text"]


@dataclass(frozen=True, slots=True)
class TextFile:
    """A text file that was read: where it resolved, its size and mtime, its decoded text."""

    relpath: str
    path: str
    size: int
    mtime: float
    decoded: Decoded


def read_text(
    ctx: ToolContext,
    root: Directory,
    user_path: str,
    *,
    max_bytes: int,
    utf8_only: bool = False,
    symlinks: SymlinkPolicy = "within_root",
    absolute: bool = False,
) -> TextFile:
    """Open, read and decode ``user_path`` beneath ``root``, auditing the outcome.

    Raises:
        FileAccessError: the path is refused or cannot be read.
        DecodeError: the content is not text this caller accepts.
    """
    start = time.perf_counter()
    resolved = f"{root.real}/{user_path}"
    size = 0
    try:
        with root.open_file(user_path, symlinks=symlinks, absolute=absolute) as opened:
            resolved = opened.path
            data = opened.read_all(max_bytes)
            size = len(data)
            decoded = decode(data, utf8_only=utf8_only)
            result = TextFile(opened.relpath, opened.path, size, opened.stat.st_mtime, decoded)
    except (FileAccessError, DecodeError) as exc:
        _audit(ctx, resolved, exc.reason, size, start)
        raise
    _audit(ctx, resolved, "ok", size, start)
    return result


def _audit(ctx: ToolContext, path: str, outcome: str, size: int, start: float) -> None:
    elapsed = (time.perf_counter() - start) * 1000
    ctx.audit(AuditRecord(ctx.tool, ctx.session, path, outcome, size, elapsed))
