"""Skill-name checks shared by the skill tools."""

from __future__ import annotations

from typing import Final

__all__ = ["is_plain_skill_name"]

_FORBIDDEN: Final = ("/", "\\", "..", "\x00")


def is_plain_skill_name(name: str) -> bool:
    """A name that can only mean one folder directly inside a skills folder.

    Beyond the seeds' rule (no ``/``, ``\\`` or ``..``), ``.`` and NUL are refused:
    ``.`` would name the skills folder itself.
    """
    return name not in ("", ".") and not any(bad in name for bad in _FORBIDDEN)
