"""read_file_in_skill: read a file inside one skill's folder, and nowhere else."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from toolproof.builtin.files.access import Directory, FileAccessError, Reason
from toolproof.builtin.files.decoding import DecodeError
from toolproof.builtin.generated import read_file_in_skill as contract
from toolproof.builtin.handlers._skills import is_plain_skill_name, open_skill
from toolproof.runtime import ToolContext, ToolError
from toolproof.runtime.errors import shown

__all__ = ["handle"]

MAX_BYTES: Final = 10 * 1024 * 1024
"""Largest file read (10 MiB); the seed sets none, so a 1 MB+ file reads and a huge one cannot exhaust memory."""


_TOO_LARGE: Final = "the file is larger than 10 MiB"
"""Why a file over ``MAX_BYTES`` is not read."""

_REFUSALS: Final[Mapping[Reason, Callable[[str, str], ToolError]]] = {
    "not_found": lambda skill, path: contract.file_not_found(file_path=shown(path), skill_name=shown(skill)),
    "outside_root": lambda skill, path: contract.path_traversal(),
    "symlink": lambda skill, path: contract.path_traversal(),
    "too_large": lambda skill, path: contract.cannot_read(file_path=shown(path), reason=_TOO_LARGE),
}
"""The error for each reason the file layer gives (skill, path); any other is ``cannot_read`` with its detail."""

_FOLDER_DENIED: Final = "permission denied on the skill's folder"
"""Why a file cannot be read when the skill's folder exists but cannot be opened."""


def _open_skill(ctx: ToolContext, skill_name: str, file_path: str) -> Directory:
    try:
        skill = open_skill(ctx, skill_name)
    except FileAccessError as exc:
        if exc.reason == "permission_denied":
            raise contract.cannot_read(file_path=shown(file_path), reason=_FOLDER_DENIED) from None
        raise contract.path_traversal() from None
    if skill is None:
        raise contract.skill_not_found(skill_name=shown(skill_name))
    return skill


def handle(args: contract.ReadFileInSkillInput, ctx: ToolContext) -> contract.ReadFileInSkillOutput:
    """Read ``file_path`` within the folder of ``skill_name`` (an error echoes both, clipped by the runtime)."""
    from toolproof.builtin.files import reading  # loaded by the first read, not at binding

    skill_name, file_path = args["skill_name"], args["file_path"]
    if not is_plain_skill_name(skill_name):
        raise contract.invalid_skill_name()
    with _open_skill(ctx, skill_name, file_path) as skill:
        try:
            text = reading.read_text(ctx, skill, file_path, max_bytes=MAX_BYTES)
        except FileAccessError as exc:
            refusal = _REFUSALS.get(exc.reason)
            if refusal is None:
                raise contract.cannot_read(file_path=shown(file_path), reason=exc.detail) from None
            raise refusal(skill_name, file_path) from None
        except DecodeError as exc:
            raise contract.cannot_read(file_path=shown(file_path), reason=exc.detail) from None
    return {
        "success": True,
        "skill_name": skill_name,
        "file_path": file_path,
        "content": text.decoded.text,
        "size_bytes": text.size,
        "encoding": text.decoded.encoding,
    }
