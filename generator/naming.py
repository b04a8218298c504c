"""Names cleaned once, when the model is built: modules, classes, identifiers."""

from __future__ import annotations

import keyword
import re

__all__ = ["class_name", "is_identifier", "module_name"]

_NON_WORD = re.compile(r"[^0-9A-Za-z_]+")


def module_name(tool_name: str) -> str:
    """The Python module for a tool: ``file-read`` → ``file_read``."""
    name = _NON_WORD.sub("_", tool_name).lower()
    if name[:1].isdigit():
        name = "_" + name
    return name + "_" if keyword.iskeyword(name) else name


def class_name(*words: str) -> str:
    """PascalCase from words: ``class_name("read_file_in_skill", "input")`` → ``ReadFileInSkillInput``."""
    parts = [p for word in words for p in _NON_WORD.sub("_", word).split("_") if p]
    name = "".join(p[:1].upper() + p[1:] for p in parts)
    return "_" + name if name[:1].isdigit() else name


def is_identifier(name: str) -> bool:
    """A name usable as a Python attribute or keyword argument."""
    return name.isidentifier() and not keyword.iskeyword(name)
