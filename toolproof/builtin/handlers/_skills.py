"""Skill-folder lookup shared by the skill tools: one resolver, one naming rule."""

from __future__ import annotations

import os
import unicodedata
from typing import Final

from toolproof.builtin.files.access import Directory, FileAccessError
from toolproof.builtin.files.workspace import symlink_policy
from toolproof.builtin.skills.names import look_alike_winner, skill_name_problem
from toolproof.builtin.skills.resources import Skills
from toolproof.runtime import ToolContext

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
    if skill_name_problem(name) is not None:  # a name the catalog skips is no skill here either
        return None
    plain = name.isascii() or unicodedata.is_normalized("NFC", name)
    for folder in ctx.need(Skills).folders:
        try:
            skills = Directory.open(folder)
        except FileAccessError:
            continue
        with skills:
            if not plain and _look_alike(skills, name) not in (None, name):
                return None  # another spelling of the same name stands for it, as in the catalog
            try:
                return skills.open_dir(name, symlinks=symlink_policy(ctx))
            except FileAccessError as exc:
                if exc.reason in _REFUSED:
                    raise
            if not name.isascii() and _look_alike(skills, name) is not None:
                return None  # this folder has the name in another spelling: it shadows later folders
    return None


def _look_alike(skills: Directory, name: str) -> str | None:
    """The entry of ``skills`` that stands for the names that look like ``name`` (``look_alike_winner``), or None.

    Asked only for a name outside ASCII, the one kind that has look-alikes a folder lists apart.
    """
    try:
        entries = os.listdir(skills.fd)
    except OSError:
        return None
    return look_alike_winner(name, entries)
