"""get_skill: return a skill's SKILL.MD whole, from the skills folders and nowhere else."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from toolproof.generated import get_skill as contract
from toolproof.handlers._skills import is_plain_skill_name, open_skill
from toolproof.runtime.context import ToolContext
from toolproof.runtime.errors import ToolError
from toolproof.runtime.files.access import Directory, FileAccessError, Reason
from toolproof.runtime.files.decoding import DecodeError
from toolproof.runtime.files.reading import TextFile, read_text
from toolproof.runtime.skills.catalog import SKILL_FILES

__all__ = ["handle"]

MAX_BYTES: Final = 1024 * 1024
"""1 MB, read as 1 MiB: a SKILL.MD of exactly 1,048,576 bytes is read."""


_REFUSALS: Final[Mapping[Reason, Callable[..., ToolError]]] = {
    "permission_denied": contract.permission_denied,
    "hardlink": contract.permission_denied,
    "too_large": contract.too_large,
    "outside_root": contract.outside_skills_folder,
    "symlink": contract.outside_skills_folder,
}
"""The error for each reason the file layer gives (called with ``skill_name=``); any other is ``not_a_file``."""


def _open_skill(ctx: ToolContext, name: str) -> Directory:
    try:
        skill = open_skill(ctx, name)
    except FileAccessError:
        raise contract.outside_skills_folder(skill_name=name) from None
    if skill is None:
        raise contract.skill_not_found(skill_name=name)
    return skill


def _read(ctx: ToolContext, skill: Directory, name: str) -> TextFile:
    for file_name in SKILL_FILES[::-1]:  # SKILL.MD as the seed names it, then SKILL.md
        try:
            return read_text(ctx, skill, file_name, max_bytes=MAX_BYTES, utf8_only=True)
        except FileAccessError as exc:
            if exc.reason == "not_found":
                continue
            raise _REFUSALS.get(exc.reason, contract.not_a_file)(skill_name=name) from None
        except DecodeError:
            raise contract.invalid_utf8(skill_name=name) from None
    raise contract.skill_md_not_found(skill_name=name)


def handle(args: contract.GetSkillInput, ctx: ToolContext) -> contract.GetSkillOutput:
    """Read ``{skills_folder}/{skill_name}/SKILL.MD`` as UTF-8 text."""
    name = args["skill_name"]
    if not is_plain_skill_name(name):
        raise contract.invalid_skill_name(skill_name=name)
    with _open_skill(ctx, name) as skill:
        text = _read(ctx, skill, name)
    return {"skill_name": name, "documentation": text.decoded.text}
