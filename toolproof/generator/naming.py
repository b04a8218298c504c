"""Names cleaned once, when the model is built: modules, classes, identifiers."""

from __future__ import annotations

import keyword
import re
import unicodedata
from collections.abc import Container

__all__ = ["PACKAGE_ENTRIES", "class_name", "is_identifier", "module_name", "python_name", "tool_files"]

_NON_WORD = re.compile(r"[^0-9A-Za-z_]+")

PACKAGE_ENTRIES = frozenset({"__init__", "__main__", "contracts", "defs", "docs", "exports", "tests"})
"""Names in the generated package that are not tool modules: what gen writes there itself (``__init__.py``,
``defs.py`` with the shared definitions' types, and the ``contracts/``, ``docs/``, ``exports/`` and ``tests/``
folders), and ``__main__``, which Python runs for ``python -m <package>``. A tool module of one of these names
would overwrite or shadow it."""


def tool_files(module: str, *, builtin: bool = False) -> dict[str, str]:
    """Every file gen writes for the tool of ``module``, by what it is, relative to the generated folder.

    ``render_all`` writes these and only these for each tool, and lint refuses two tools that
    share one (module-clash): ``word_count_properties``'s conformance tests would otherwise
    take the place of ``word_count``'s property tests. A built-in tool the project includes
    has its stub and checked contract JSON in ``toolproof.builtin.generated``, not here. The kinds of
    the files under ``exports/`` are the formats they export (``checked`` is the contract the runtime loads,
    ``contract`` the published one).
    """
    files = {} if builtin else {"stub": f"{module}.py", "checked": f"contracts/{module}.json"}
    return files | {
        "tests": f"tests/test_{module}.py",
        "properties": f"tests/test_{module}_properties.py",
        "fuzz": f"tests/test_{module}_fuzz.py",
        "docs": f"docs/{module}.md",
        "typescript": f"exports/typescript/{module}.d.ts",
        "jsonschema": f"exports/jsonschema/{module}.json",
        "vectors": f"exports/vectors/{module}.json",
        "contract": f"exports/contract/{module}.json",
    }


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
    """A name usable, as it is, as a Python attribute, keyword argument or class field.

    Not a keyword (``from``), and already in the normal form Python reads identifiers in
    (NFKC: ``ﬁle`` would become ``file``, another key).
    """
    return name.isidentifier() and not keyword.iskeyword(name) and unicodedata.normalize("NFKC", name) == name


def python_name(name: str, avoid: Container[str] = frozenset()) -> str:
    """``name`` made a Python identifier that is no keyword and not in ``avoid``, by appending ``_``.

    ``from`` → ``from_``; characters an identifier cannot hold become ``_`` (``a-b`` → ``a_b``),
    and a leading digit gets a ``_`` in front. Soft keywords (``match``, ``case``, ``type``, ``_``)
    are identifiers wherever the generator writes names, so they stay as they are.
    """
    if not is_identifier(name):
        name = _NON_WORD.sub("_", unicodedata.normalize("NFKC", name)) or "_"
        if name[:1].isdigit():
            name = "_" + name
    while keyword.iskeyword(name) or name in avoid:
        name += "_"
    return name
