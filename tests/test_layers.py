"""The package by audience: the host's core knows nothing of files or skills, nor of test tooling.

``toolproof/runtime/*.py`` (the dispatch core) may name the built-in set's generated package (its contracts are
data), but imports none of the file layer, the skills, their handlers, ``toolproof.testing`` or the generator.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Final

import pytest

PACKAGE: Final = Path(__file__).resolve().parents[1] / "toolproof"
FORBIDDEN: Final = {
    "runtime": (
        "toolproof.builtin.files",
        "toolproof.builtin.skills",
        "toolproof.builtin.handlers",
        "toolproof.testing",
        "toolproof.generator",
    ),
    "runtime/serve": ("toolproof.testing", "toolproof.generator", "toolproof.builtin.handlers"),
    "builtin": ("toolproof.testing", "toolproof.generator"),
}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.update(f"{node.module}.{alias.name}" for alias in node.names)  # `from toolproof.builtin import files`
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_a_layer_imports_nothing_of_the_layers_it_must_not_know(folder: str) -> None:
    files = sorted((PACKAGE / folder).glob("*.py" if folder == "runtime" else "**/*.py"))
    files = [f for f in files if "generated/tests" not in f.as_posix()]
    assert files

    reaching = [
        f"{path.relative_to(PACKAGE.parent)} imports {name}"
        for path in files
        for name in sorted(_imports(path))
        if name.startswith(FORBIDDEN[folder])
    ]

    assert reaching == []
