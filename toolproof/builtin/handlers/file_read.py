"""file-read (AIntern ReadFileTool): read a workspace file, whole or a line range, with numbered lines."""

from __future__ import annotations

import datetime
import posixpath
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Final

from toolproof.builtin.files.access import (
    MAX_PATH_CHARS,
    Directory,
    FileAccessError,
    NotRegularKind,
    Reason,
    names_folder,
)
from toolproof.builtin.files.decoding import DecodeError
from toolproof.builtin.files.workspace import Workspace
from toolproof.builtin.generated import file_read as contract
from toolproof.runtime import ToolContext, ToolError
from toolproof.runtime.dispatch import MAX_RESULT_BYTES
from toolproof.runtime.errors import RESPONSE_TOO_LARGE, STANDARD_ERRORS, shown

if TYPE_CHECKING:
    from toolproof.builtin.files.reading import LineWindow

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


def _relative(path: str, allowed: Workspace) -> tuple[str, list[str] | None]:
    """(path to open, relative; or the components below the workspace of an absolute path inside it).

    An absolute path inside the workspace, in its configured or its real
    spelling, keeps its place; any other is made relative, as the design does.
    The design's checks (no climbing out, no suspicious patterns) apply to what
    the caller chose: the part below the workspace, never the host's own
    workspace path, which may hold a ``~`` or a ``$(`` of its own.
    """
    if len(path) > MAX_PATH_CHARS:  # refused before any open, as the design's validation refuses, with its reason
        raise contract.read_failed(reason=f"the path is longer than {MAX_PATH_CHARS} characters")
    normal = path.replace("\\", "/")
    below: list[str] | None = None
    if normal.startswith("/"):
        found = allowed.locate([part for part in normal.split("/") if part and part != "."], first=1)
        if found is not None:
            below = found[1]
            normal = "/".join(below)
        else:
            normal = normal.lstrip("/")
    lexical = posixpath.normpath(normal) if normal else "."
    if lexical == ".." or lexical.startswith("../"):
        raise contract.outside_workspace()
    if any(pattern in lexical for pattern in _SUSPICIOUS):
        raise contract.invalid_path()
    return normal or ".", below


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
    "not_found": lambda exc, path: contract.file_not_found(path=shown(path)),
    "outside_root": lambda exc, path: contract.outside_workspace(),
    "symlink": lambda exc, path: contract.outside_workspace(),
    "invalid_path": lambda exc, path: contract.read_failed(reason=exc.detail),  # a name too long for the disk
    "permission_denied": lambda exc, path: contract.access_denied(path=shown(path)),
    "hardlink": lambda exc, path: contract.read_failed(reason=exc.detail),  # policy, not permission: say which
    "too_large": _too_large,
    "not_regular": lambda exc, path: contract.not_a_file(path=shown(path), kind=_KINDS[exc.kind or "other"]),
}
"""The error for each reason the file layer gives; any other is ``read_failed`` with its detail."""


def _read(ctx: ToolContext, args: contract.FileReadInput, start: int, limit: int) -> LineWindow:
    from toolproof.builtin.files import reading  # loaded by the first read, not at binding

    path = args["path"]
    if "\x00" in path:
        raise contract.invalid_path()
    allowed = ctx.need(Workspace)  # the contract needs one: without it the tool is not offered
    if not allowed.roots:
        raise contract.outside_workspace()
    target, below = _relative(path, allowed)
    try:
        with Directory.open(allowed.roots[0]) as workspace:
            if below is not None:  # spelled from the real path, so the walk checks again that it is beneath
                target = "/".join([workspace.real.rstrip("/"), *below, *([""] if names_folder(path) else [])]) or "/"
            return reading.read_lines(
                ctx,
                workspace,
                target,
                start=start,
                limit=limit,
                max_bytes=MAX_FILE_SIZE_BYTES,
                absolute=below is not None,
                progress=ctx.progress,
            )
    except FileAccessError as exc:
        refusal = _REFUSALS.get(exc.reason)
        raise (refusal(exc, path) if refusal is not None else contract.read_failed(reason=exc.detail)) from None
    except DecodeError as exc:
        raise contract.read_failed(reason=exc.detail) from None


def _numbered(window: LineWindow) -> str:
    """The window's lines as ``N | text``, refused before they are built when they could not be returned.

    Millions of lines of a 10 MiB file are within ``max_lines``, and numbered
    they may come to over a hundred MB; the runtime would refuse such a result
    only after it was built, at several times its size. Its text and its output
    each hold the content (the output's JSON with every line end escaped), so
    twice the content's exact size, plus a byte a line, is less than what the
    runtime counts: a content refused here could never be returned. A handler
    cannot see the cap of the runtime serving it (its context does not carry
    it), so this is the default cap, ``MAX_RESULT_BYTES``; under a lower cap
    the runtime still refuses, after numbering at most this much.

    Raises:
        ToolError: ``response_too_large``, with how many lines would fit.
    """
    separator = " | "
    size = window.numbered_size(separator, align=True)
    least = 2 * size + max(window.count - 1, 0)
    if least > MAX_RESULT_BYTES:
        fit = max(1, window.count * MAX_RESULT_BYTES // least * 9 // 10)  # lines vary: leave a tenth to spare
        params = {"size": least, "limit": MAX_RESULT_BYTES}
        message = STANDARD_ERRORS[RESPONSE_TOO_LARGE].message.format(**params)
        hint = (
            f"Ask for fewer lines: about {fit} of the {window.count} lines asked for fit in one call. "
            f"Set max_lines (or end_line) to at most that, then read on with start_line."
        )
        raise ToolError(RESPONSE_TOO_LARGE, message, params, hint)
    return window.numbered(separator, align=True)  # f"{number:>{width}} | {line}", in one pass


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
        content = _numbered(window)
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
