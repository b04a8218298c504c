"""file-read (AIntern ReadFileTool): read a workspace file, whole or a line range, with numbered lines."""

from __future__ import annotations

import datetime
import posixpath
from collections.abc import Callable, Mapping
from typing import Final

from toolproof.generated import file_read as contract
from toolproof.runtime.context import ToolContext
from toolproof.runtime.errors import ToolError
from toolproof.runtime.files.access import Directory, FileAccessError, NotRegularKind, Reason
from toolproof.runtime.files.decoding import DecodeError
from toolproof.runtime.files.reading import LineWindow, read_lines
from toolproof.runtime.files.workspace import Workspace

__all__ = ["format_file_size", "handle"]

DEFAULT_MAX_LINES: Final = 1000
MAX_FILE_SIZE_BYTES: Final = 10 * 1024 * 1024
_SUSPICIOUS: Final = ("..", "~", "\x00", "|", ">", "<", "$(")


def format_file_size(size: int) -> str:
    """Human-readable size, as the design's ``ToolPathHelper.FormatFileSize``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    if size < 1024 * 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MB"
    return f"{size / (1024 * 1024 * 1024):.2f} GB"


def _validate(args: contract.FileReadInput) -> None:
    if not args["path"].strip():
        raise contract.required(parameter="path")
    problems = []
    start, end, most = args.get("start_line"), args.get("end_line"), args.get("max_lines")
    if start is not None and start < 1:
        problems.append("Start line must be at least 1")
    if end is not None:
        if end < 1:
            problems.append("End line must be at least 1")
        if start is not None and end < start:
            problems.append("End line must be >= start line")
    if most is not None and most < 1:
        problems.append("Max lines must be at least 1")
    if problems:
        raise contract.invalid_range(reason="; ".join(problems))


def _relative(path: str, workspace: str) -> tuple[str, bool]:
    """(path to open, whether it is absolute): the design makes foreign absolute paths relative."""
    normal = path.replace("\\", "/")
    if normal.startswith("/"):
        if normal == workspace or normal.startswith(workspace.rstrip("/") + "/"):
            return normal, True
        normal = normal.lstrip("/")
    lexical = posixpath.normpath(normal)
    if lexical == ".." or lexical.startswith("../"):
        raise contract.outside_workspace()
    if any(pattern in lexical for pattern in _SUSPICIOUS):
        raise contract.invalid_path()
    return normal, False


def _summary(args: contract.FileReadInput) -> str:
    path = args["path"]
    short = "..." + path[-37:] if len(path) > 40 else path
    start, end = args.get("start_line"), args.get("end_line")
    if start is not None:
        return f"Read '{short}' lines {start}-{end}" if end is not None else f"Read '{short}' from line {start}"
    return f"Read file '{short}'"


_KINDS: Final[Mapping[NotRegularKind, str]] = {
    "directory": "a directory",
    "fifo": "a FIFO",
    "socket": "a socket",
    "device": "a device",
    "symlink": "a symbolic link",
    "other": "a special file",
}
"""The ``{kind}`` of ``not_a_file``, for each kind of path that is not a regular file."""


def _too_large(exc: FileAccessError, path: str) -> ToolError:
    size = exc.size if exc.size is not None else MAX_FILE_SIZE_BYTES + 1
    return contract.file_too_large(size=format_file_size(size), max_size=format_file_size(MAX_FILE_SIZE_BYTES))


_REFUSALS: Final[Mapping[Reason, Callable[[FileAccessError, str], ToolError]]] = {
    "not_found": lambda exc, path: contract.file_not_found(path=path),
    "outside_root": lambda exc, path: contract.outside_workspace(),
    "symlink": lambda exc, path: contract.outside_workspace(),
    "invalid_path": lambda exc, path: contract.invalid_path(),
    "permission_denied": lambda exc, path: contract.access_denied(path=path),
    "hardlink": lambda exc, path: contract.access_denied(path=path),
    "too_large": _too_large,
    "not_regular": lambda exc, path: contract.not_a_file(path=path, kind=_KINDS[exc.kind or "other"]),
}
"""The error for each reason the file layer gives; any other is ``read_failed`` with its detail."""


def _read(ctx: ToolContext, args: contract.FileReadInput, start: int, limit: int) -> LineWindow:
    path = args["path"]
    if "\x00" in path:
        raise contract.invalid_path()
    allowed = ctx.need(Workspace)  # the contract needs one: without it the tool is not offered
    if not allowed.roots:
        raise contract.outside_workspace()
    try:
        with Directory.open(allowed.roots[0]) as workspace:
            target, absolute = _relative(path, workspace.real)
            return read_lines(
                ctx,
                workspace,
                target,
                start=start,
                limit=limit,
                max_bytes=MAX_FILE_SIZE_BYTES,
                absolute=absolute,
                progress=ctx.progress,
            )
    except FileAccessError as exc:
        refusal = _REFUSALS.get(exc.reason)
        raise (refusal(exc, path) if refusal is not None else contract.read_failed(reason=exc.detail)) from None
    except DecodeError as exc:
        raise contract.read_failed(reason=exc.detail) from None


def handle(args: contract.FileReadInput, ctx: ToolContext) -> contract.FileReadOutput:
    """Read ``path`` from the workspace, filtered to a line range and capped at ``max_lines``."""
    _validate(args)
    start = args.get("start_line", 1)
    end_line = args.get("end_line")
    max_lines = args.get("max_lines", DEFAULT_MAX_LINES)
    wanted = max_lines if end_line is None else min(end_line - start + 1, max_lines)
    window = _read(ctx, args, start, wanted)
    total = window.total
    end = min(total, end_line if end_line is not None else total)
    count = window.count
    truncated = end - start + 1 > max_lines
    if truncated:
        end = start + max_lines - 1
    if not count:
        end = start
    if args.get("include_line_numbers", True):
        content = window.numbered(" | ", align=True)  # f"{number:>{width}} | {line}", in one pass
    else:
        content = window.text
    path = args["path"]
    message = (
        f"Read lines {start}-{end} of {total} (truncated to {max_lines} lines)"
        if truncated
        else f"Read {count} lines from {path}"
    )
    modified = datetime.datetime.fromtimestamp(window.mtime, tz=datetime.UTC)
    return {
        "path": path,
        "content": content,
        "message": message,
        "summary": _summary(args),
        "total_lines": total,
        "start_line": start,
        "end_line": end,
        "lines_returned": count,
        "was_truncated": truncated,
        "remaining_lines": max(total - end, 0),
        "percentage_read": round(count / total * 100, 2) if total > 0 else 100,
        "encoding": window.encoding,
        "file_size": window.size,
        "last_modified": modified.isoformat(timespec="seconds").replace("+00:00", "Z"),
    }
