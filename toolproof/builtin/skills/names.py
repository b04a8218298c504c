"""Skill names: which folder names are skills, and which of several look-alike names stands for them.

One rule for every skill tool: the catalog (read_skill's enum, the skills
prompt) lists what it allows, and get_skill and read_file_in_skill find
nothing it skips. Kept apart from the catalog so that a skill tool's call
does not import the catalog and the frontmatter parser (~6 ms) to check a name.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Final

from toolproof.runtime.lazy import LazyPattern
from toolproof.runtime.printable import is_printable

__all__ = ["look_alike_key", "look_alike_winner", "look_alike_winners", "skill_name_problem"]

_NOT_UTF8: Final = LazyPattern("[\udc80-\udcff]")
"""What ``os.listdir`` makes of bytes that are not UTF-8 (surrogate escapes)."""


def skill_name_problem(name: str) -> str | None:
    """Why a folder name cannot be a skill's name, or None when it can.

    Every skill tool holds to it: a folder the catalog skips for its name is no
    skill that get_skill or read_file_in_skill find either.
    """
    if not name.isascii() and _NOT_UTF8.search(name):
        return "its name is not valid UTF-8"
    if not is_printable(name):
        return "its name holds line breaks, control or bidi characters, or a backslash"
    return None


def look_alike_key(name: str) -> str:
    """What ``name`` looks like: its Unicode NFC form (``e`` + U+0301 and U+00E9 are both ``é``)."""
    return name if name.isascii() else unicodedata.normalize("NFC", name)


def look_alike_winner(name: str, entries: Iterable[str]) -> str | None:
    """Of the ``entries`` of one skills folder that look like ``name``, the one that stands for them, or None.

    The one spelled in NFC, else the first in sorted order: the others are left
    out by the catalog and not found by the other skill tools.
    """
    key = look_alike_key(name)
    alike = [entry for entry in entries if look_alike_key(entry) == key]
    return _winner(key, alike) if alike else None


def _winner(key: str, alike: list[str]) -> str:
    return key if key in alike else min(alike)


def look_alike_winners(entries: list[str]) -> dict[str, str]:
    """For each look-alike key that two entries or more share, the entry that stands for it (``look_alike_winner``).

    Empty, at the cost of one pass, for a folder of ASCII names with no look-alike in Unicode.
    """
    groups: dict[str, list[str]] = {}
    for entry in entries:
        if not entry.isascii():
            groups.setdefault(look_alike_key(entry), [])
    if not groups:
        return {}
    for entry in entries:
        key = look_alike_key(entry)
        if key in groups:
            groups[key].append(entry)
    return {key: _winner(key, alike) for key, alike in groups.items() if len(alike) > 1}
