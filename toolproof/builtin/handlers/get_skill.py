"""get_skill: return a skill's SKILL.MD whole, from the skills folders and nowhere else."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Final

from toolproof.builtin.files.access import Directory, FileAccessError, Reason
from toolproof.builtin.files.decoding import DecodeError
from toolproof.builtin.files.workspace import symlink_policy
from toolproof.builtin.generated import get_skill as contract
from toolproof.builtin.handlers._skills import is_plain_skill_name, open_skill
from toolproof.builtin.skills.catalog import SKILL_FILES
from toolproof.builtin.skills.resources import Skills
from toolproof.runtime import ToolContext, ToolError
from toolproof.runtime.errors import shown

if TYPE_CHECKING:
    from toolproof.builtin.files.reading import TextFile

__all__ = ["handle"]

MAX_BYTES: Final = 1024 * 1024
"""1 MB, read as 1 MiB: a SKILL.MD of exactly 1,048,576 bytes is read."""


_REFUSALS: Final[Mapping[Reason, Callable[[str, FileAccessError], ToolError]]] = {
    "permission_denied": lambda name, exc: contract.permission_denied(skill_name=name),
    "too_large": lambda name, exc: contract.too_large(skill_name=name),
    "outside_root": lambda name, exc: contract.outside_skills_folder(skill_name=name),
    "symlink": lambda name, exc: contract.outside_skills_folder(skill_name=name),
    "not_regular": lambda name, exc: contract.not_a_file(skill_name=name),
}
"""The error for each reason the file layer gives (skill name, error); any other is ``unreadable`` with its detail.

A hard link is one of those others: the host refuses it by policy, which is no permission problem.
"""


def _open_skill(ctx: ToolContext, name: str) -> Directory:
    try:
        skill = open_skill(ctx, name)
    except FileAccessError as exc:
        if exc.reason == "permission_denied":
            raise contract.permission_denied(skill_name=shown(name)) from None
        raise contract.outside_skills_folder(skill_name=shown(name)) from None
    if skill is None:
        raise contract.skill_not_found(skill_name=shown(name))
    return skill


def _read_from_skills_folder(ctx: ToolContext, name: str, file_name: str) -> TextFile:
    """``<name>/<file_name>`` read from the skills folder that holds the skill, so a link may go anywhere inside it.

    Raises:
        FileAccessError: as ``read_text``; ``outside_root`` when the link leaves the skills folder.
    """
    from toolproof.builtin.files import reading  # loaded by the first read, not at binding

    for folder in ctx.need(Skills).folders:
        try:
            with Directory.open(folder) as root:
                root.open_dir(name, symlinks=symlink_policy(ctx)).close()
                return reading.read_text(ctx, root, f"{name}/{file_name}", max_bytes=MAX_BYTES, utf8_only=True)
        except FileAccessError as exc:
            if exc.reason not in ("not_found", "not_directory"):
                raise
    raise FileAccessError("not_found", file_name, "the skill is in no skills folder")


def _read(ctx: ToolContext, skill: Directory, name: str) -> TextFile:
    from toolproof.builtin.files import reading  # loaded by the first read, not at binding

    for file_name in SKILL_FILES[::-1]:  # SKILL.MD as the seed names it, then SKILL.md
        try:
            try:
                return reading.read_text(ctx, skill, file_name, max_bytes=MAX_BYTES, utf8_only=True)
            except FileAccessError as exc:
                if exc.reason not in ("outside_root", "symlink"):
                    raise
                # It links out of the skill's folder: the seed reads anything inside the skills folder.
                return _read_from_skills_folder(ctx, name, file_name)
        except FileAccessError as exc:
            if exc.reason == "not_found":
                continue
            refusal = _REFUSALS.get(exc.reason)
            if refusal is None:
                raise contract.unreadable(skill_name=shown(name), reason=exc.detail) from None
            raise refusal(shown(name), exc) from None
        except DecodeError:
            raise contract.invalid_utf8(skill_name=shown(name)) from None
    raise contract.skill_md_not_found(skill_name=shown(name))


def _broken_rule(name: str) -> str:
    """The rule an impossible skill name breaks, true of that name (the document's rule when it applies)."""
    if any(bad in name for bad in ("/", "\\", "..")):
        return "Skill names must not contain '/', '\\', or '..'"
    if not name:
        return "Skill names must not be empty"
    if name == ".":
        return "'.' names the skills folder itself, not a skill in it"
    return "Skill names must not contain NUL"


def handle(args: contract.GetSkillInput, ctx: ToolContext) -> contract.GetSkillOutput:
    """Read ``{skills_folder}/{skill_name}/SKILL.MD`` as UTF-8 text."""
    name = args["skill_name"]
    if not is_plain_skill_name(name):
        raise contract.invalid_skill_name(skill_name=shown(name), rule=_broken_rule(name))
    with _open_skill(ctx, name) as skill:
        text = _read(ctx, skill, name)
    return {"skill_name": name, "documentation": text.decoded.text}
