"""Skill-folder lookup shared by the skill tools: one resolver, one naming rule."""

from __future__ import annotations

from typing import Final

from toolproof.runtime.context import ToolContext
from toolproof.runtime.files.access import Directory, FileAccessError
from toolproof.runtime.files.workspace import symlink_policy
from toolproof.runtime.skills.resources import Skills

__all__ = ["is_plain_skill_name", "open_skill"]

_FORBIDDEN: Final = ("/", "\\", "..", "\x00")


def is_plain_skill_name(name: str) -> bool:
    """A name that can only mean one folder directly inside a skills folder.

    Beyond the seeds' rule (no ``/``, ``\\`` or ``..``), ``.`` and NUL are refused:
    ``.`` would name the skills folder itself.
    """
    return name not in ("", ".") and not any(bad in name for bad in _FORBIDDEN)


def open_skill(ctx: ToolContext, name: str) -> Directory | None:
    """The folder of skill ``name`` in the first skills folder that has it, or None.

    Raises:
        FileAccessError: ``outside_root`` when the skill folder links out of its skills folder.
    """
    for folder in ctx.need(Skills).folders:
        try:
            with Directory.open(folder) as skills:
                return skills.open_dir(name, symlinks=symlink_policy(ctx))
        except FileAccessError as exc:
            if exc.reason == "outside_root":
                raise
    return None
