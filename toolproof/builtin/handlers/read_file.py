"""read_file (the gateway tool): numbered line windows from the allowed directories, UTF-8 text only.

The skill gate comes first: a call that reads ``builtin://read_file/SKILL.md``
gets its text and the ``skillToken``; every other call must carry the current
token for its session (``toolproof.builtin.skills.gate``). While that SKILL.md
cannot be read, every call is refused with ``skill_document_unreadable``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Final, Protocol

from toolproof.builtin.files.access import (
    Directory,
    FileAccessError,
    NotRegularKind,
    Reason,
    names_folder,
    split_user_path,
)
from toolproof.builtin.files.decoding import DecodeError
from toolproof.builtin.files.workspace import Workspace, symlink_policy
from toolproof.builtin.generated import read_file as contract
from toolproof.builtin.skills.gate import BUILTIN_SCHEME, GateDocumentError
from toolproof.builtin.skills.resources import SkillGates
from toolproof.runtime import ToolContext, ToolError
from toolproof.runtime.errors import shown

if TYPE_CHECKING:
    from toolproof.builtin.files.reading import LineWindow

__all__ = ["handle"]

MAX_FILE_BYTES: Final = 10 * 1024 * 1024
MAX_LINES: Final = 2000
MAX_LINE_CHARS: Final = 2000
CUT_MARK: Final = " [line truncated]"
TOKEN_NOTICE: Final = "\n\nskillToken: {token}\nPass this skillToken in every other read_file call."
"""Appended to the text of a complete SKILL.md read, so a model that reads only text gets the token."""


def _locate(ctx: ToolContext, path: str, cwd: str | None) -> tuple[Path, list[str], list[str]]:
    """(allowed root, components of the path to open beneath it, the components of those that came from cwd).

    An absolute path or cwd may name a root by any of its spellings (as
    configured, or real: ``Workspace.locate``). ``~`` is an ordinary character:
    the tool's document expands no home folder, so ``~x`` is a file in cwd.
    """
    workspace = ctx.get(Workspace)
    if workspace is None or not workspace.roots:
        raise contract.no_allowed_directories()
    roots = workspace.roots
    try:
        is_abs, parts = split_user_path(path, literal_tilde=True)
    except FileAccessError as exc:
        raise _refused(exc, path) from None
    if is_abs:
        found = workspace.locate(parts)
        if found is None:
            raise contract.outside_allowed(path=shown(path))
        return found[0], found[1], []
    if cwd is None:
        if len(roots) > 1:
            raise contract.cwd_required()
        return roots[0], parts, []
    try:
        cwd_abs, cwd_parts = split_user_path(cwd, literal_tilde=True)
    except FileAccessError as exc:
        if exc.reason == "invalid_path":
            raise contract.read_failed(path=shown(path), reason=f"cwd is not a valid path: {exc.detail}") from None
        raise contract.cwd_not_allowed(cwd=shown(cwd)) from None
    if not cwd_abs:
        if len(roots) > 1:
            raise contract.cwd_not_allowed(cwd=shown(cwd))
        return roots[0], [*cwd_parts, *parts], cwd_parts
    found = workspace.locate(cwd_parts)
    if found is None:
        raise contract.cwd_not_allowed(cwd=shown(cwd))
    root, below = found
    return root, [*below, *parts], below


def _beneath(directory: Directory, parts: list[str]) -> str:
    """The absolute path of ``parts`` below ``directory``, spelled from its real path, for the walk to check again."""
    return "/".join([directory.real.rstrip("/"), *parts]) or "/"


def _cwd_fault(ctx: ToolContext, directory: Directory, path: str, cwd: str, cwd_parts: list[str]) -> ToolError | None:
    """The error that blames cwd, when cwd on its own is no folder inside ``directory``; None when it is one.

    Only asked after a refusal, to name its cause: the read itself walked the
    whole path from the root, and nothing is opened here but to look. A cwd
    that leads out is ``cwd_not_allowed``; one that is missing, not a folder,
    or not a valid path is ``read_failed`` saying so of cwd, not of the path.
    """
    if not cwd_parts:
        return None
    try:
        with directory.open_dir(_beneath(directory, cwd_parts), symlinks=symlink_policy(ctx), absolute=True):
            return None
    except FileAccessError as exc:
        if exc.reason in ("outside_root", "symlink"):
            return contract.cwd_not_allowed(cwd=shown(cwd))
        reasons = {
            "not_found": f"cwd '{shown(cwd)}' does not exist",
            "not_directory": f"cwd '{shown(cwd)}' is not a folder",
            "invalid_path": f"cwd is not a valid path: {exc.detail}",
        }
        return contract.read_failed(
            path=shown(path), reason=reasons.get(exc.reason, f"cwd '{shown(cwd)}': {exc.detail}")
        )


class _PathError(Protocol):
    def __call__(self, *, path: str) -> ToolError: ...


_NOT_REGULAR: Final[Mapping[NotRegularKind, _PathError]] = {
    "directory": contract.is_directory,
    "fifo": contract.not_regular,
    "socket": contract.not_regular,
    "device": contract.not_regular,
    "symlink": contract.not_regular,
    "other": contract.not_regular,
}
"""The error for each kind of path that is not a regular file."""

_REFUSALS: Final[Mapping[Reason, Callable[[FileAccessError, str], ToolError]]] = {
    "outside_root": lambda exc, path: contract.outside_allowed(path=shown(path)),
    "symlink": lambda exc, path: contract.outside_allowed(path=shown(path)),
    "invalid_path": lambda exc, path: contract.read_failed(path=shown(path), reason=exc.detail),
    "not_found": lambda exc, path: contract.not_found(path=shown(path)),
    "not_regular": lambda exc, path: _NOT_REGULAR[exc.kind or "other"](path=shown(path)),
    "too_large": lambda exc, path: contract.too_large(path=shown(path)),
    "permission_denied": lambda exc, path: contract.permission_denied(path=shown(path)),
    "hardlink": lambda exc, path: contract.read_failed(path=shown(path), reason=exc.detail),
}
"""The error for each reason the file layer gives; any other is ``read_failed`` with its detail."""


def _refused(exc: FileAccessError, path: str) -> ToolError:
    refusal = _REFUSALS.get(exc.reason)
    return refusal(exc, path) if refusal else contract.read_failed(path=shown(path), reason=exc.detail)


def _read(ctx: ToolContext, path: str, cwd: str | None, offset: int, limit: int) -> LineWindow:
    from toolproof.builtin.files import reading  # loaded by the first read, not at binding

    root, parts, cwd_parts = _locate(ctx, path, cwd)
    try:
        with Directory.open(root) as directory:
            try:
                return reading.read_lines(
                    ctx,
                    directory,
                    _beneath(directory, parts) + ("/" if names_folder(path) else ""),
                    start=offset,
                    limit=limit,
                    max_bytes=MAX_FILE_BYTES,
                    max_line_chars=MAX_LINE_CHARS,
                    utf8_only=True,
                    absolute=True,
                    progress=ctx.progress,
                )
            except FileAccessError:
                fault = _cwd_fault(ctx, directory, path, cwd or "", cwd_parts)
                if fault is not None:
                    raise fault from None
                raise
    except FileAccessError as exc:
        raise _refused(exc, path) from None
    except DecodeError as exc:
        if exc.reason == "binary":
            raise contract.binary(path=shown(path)) from None
        raise contract.not_utf8(path=shown(path)) from None


def _check_offset(offset: int, path: str, total: int) -> None:
    if offset > max(total, 1):
        raise contract.offset_out_of_range(offset=offset, path=shown(path), total_lines=total)


def _numbered(lines: list[str], offset: int) -> str:
    """``N<TAB>line`` for each line, numbered from ``offset``."""
    return "\n".join(map("{}\t{}".format, range(offset, offset + len(lines)), lines))


def handle(args: contract.ReadFileInput, ctx: ToolContext) -> contract.ReadFileOutput:
    """Read ``limit`` lines of ``path`` from ``offset``, as ``N<TAB>line``."""
    from toolproof.builtin.files import reading  # loaded by the first read, not at binding

    path = args["path"]
    offset = args.get("offset", 1)
    limit = args.get("limit", MAX_LINES)
    gate = ctx.need(SkillGates).gate(ctx.spec) if ctx.spec is not None else None
    document = None
    digest = b""
    if gate is not None:
        try:
            if gate.is_document_read(args):
                document, digest = gate.versioned_document()  # the token below is for exactly this text
            else:
                verdict = gate.check(args, ctx.session)
                if verdict == "missing":
                    raise contract.skill_token_required()
                if verdict == "invalid":
                    raise contract.skill_token_invalid()
        except GateDocumentError as exc:  # deleted or damaged under a running host: no read until it is back
            raise contract.skill_document_unreadable(reason=exc.reason) from None
    if path.startswith(BUILTIN_SCHEME):
        if document is None:  # only the gated SKILL.md is served
            raise contract.outside_allowed(path=shown(path))
        lines, total = reading.window_from_text(document, offset, limit)
        _check_offset(offset, path, total)
        resolved, count, cut = path, len(lines), False
        content = _numbered(lines, offset)
    else:
        window = _read(ctx, path, args.get("cwd"), offset, limit)
        _check_offset(offset, path, window.total)
        resolved, count, total, cut = window.path, window.count, window.total, bool(window.cut)
        if cut:
            marked = [line + CUT_MARK if i in window.cut else line for i, line in enumerate(window.lines)]
            content = _numbered(marked, offset)
        else:
            content = window.numbered("\t")  # the same text, built in one pass
    output: contract.ReadFileOutput = {
        "path": resolved,
        "startLine": offset,
        "endLine": offset + count - 1,
        "numLines": count,
        "totalLines": total,
        "truncated": offset + count - 1 < total,
        "lineTruncated": cut,
        "content": content,
        "notice": "",
    }
    if gate is not None and document is not None and offset == 1 and count == total:
        token = gate.token(ctx.session, digest=digest)  # only a complete read hands out the token
        output["skillToken"] = token
        output["notice"] = TOKEN_NOTICE.format(token=token)
    return output
