"""Skill-folder lookup shared by the skill tools: one resolver, one naming rule."""

from __future__ import annotations

from typing import Final

from toolproof.runtime.context import ToolContext
from toolproof.runtime.files.access import Directory, FileAccessError
from toolproof.runtime.files.workspace import symlink_policy
from toolproof.runtime.skills.resources import Skills

__all__ = ["is_plain_skill_name", "open_skill"]

_FORBIDDEN: Final = ("/", "\\", "..", "\x00")
_REFUSED: Final = ("outside_root", "permission_denied")
"""Reasons a skill folder cannot be opened that are errors, not a skill absent from this skills folder."""


def is_plain_skill_name(name: str) -> bool:
    """A name that can only mean one folder directly inside a skills folder.

    Beyond the seeds' rule (no ``/``, ``\\`` or ``..``), ``.`` and NUL are refused:
    ``.`` would name the skills folder itself.
    """
    return name not in ("", ".") and not any(bad in name for bad in _FORBIDDEN)


def open_skill(ctx: ToolContext, name: str) -> Directory | None:
    """The folder of skill ``name`` in the first skills folder that has it, or None.

    A skills folder the host cannot open holds no skill for this call; a skill
    folder that exists but cannot be opened is an error, not a missing skill
    (it would hide the skill behind a later folder's, or report a folder that is
    there as absent).

    Raises:
        FileAccessError: ``outside_root`` when the skill folder links out of its skills folder;
            ``permission_denied`` when it cannot be opened.
    """
    for folder in ctx.need(Skills).folders:
        try:
            skills = Directory.open(folder)
        except FileAccessError:
            continue
        with skills:
            try:
                return skills.open_dir(name, symlinks=symlink_policy(ctx))
            except FileAccessError as exc:
                if exc.reason in _REFUSED:
                    raise
    return None
