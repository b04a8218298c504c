"""Refuse YAML that nests deep enough to crash the parser.

libyaml's C parser overflows its stack on some tens of thousands of nesting
levels (a SKILL.md of 60 KB can hold them) and takes the process down with a
segfault, which no ``except`` catches. Real contracts and frontmatter nest a
handful of levels, so anything past ``MAX_DEPTH`` is refused before parsing.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["MAX_DEPTH", "too_deep"]

MAX_DEPTH: Final = 200
_BRACKETS = re.compile(r"[\[\]{}]")
_LEADING = re.compile(r"^[ \t\-?:]*", re.MULTILINE)


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether ``text`` may nest more than ``limit`` levels, as flow brackets or as block indentation.

    Conservative: brackets inside quoted strings count too, and a line's
    leading run of spaces and indicators (``-``, ``?``, ``:``) counts as its
    block depth bound.
    """
    depth = 0
    for match in _BRACKETS.finditer(text):
        depth += 1 if match.group() in "[{" else -1
        if depth > limit:
            return True
    return any(len(match.group()) > 4 * limit for match in _LEADING.finditer(text))
