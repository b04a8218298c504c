"""The public surface holds: generated code and the docs import only public names, and each public module's
``__all__`` is what ``docs/api.md`` lists (the pattern of httpx's ``test_exported_members``).
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

REPO: Final = Path(__file__).resolve().parents[1]
PUBLIC: Final = ("toolproof", "toolproof.runtime", "toolproof.testing", "toolproof.generator")
BUILTIN_TOOL_MODULE: Final = re.compile(r"toolproof\.builtin\.(generated|handlers)\.[a-z_][a-z0-9_]*")
"""A built-in tool's generated module or handler: public through its own ``__all__`` (docs/api.md, Built-in tools)."""


def _listed() -> dict[str, list[str]]:
    """``docs/api.md``'s names, by module heading."""
    listed: dict[str, list[str]] = {}
    module = None
    for line in (REPO / "docs" / "api.md").read_text(encoding="utf-8").splitlines():
        if heading := re.fullmatch(r"## `([\w.]+)`", line):
            module = heading.group(1)
            listed[module] = []
        elif module and (item := re.match(r"- `(\w+)`:", line)):
            listed[module].append(item.group(1))
    return listed


@pytest.mark.parametrize("name", PUBLIC)
def test_each_public_modules_all_is_what_the_api_page_lists(name: str) -> None:
    module = importlib.import_module(name)

    assert sorted(_listed()[name]) == sorted(module.__all__)
    for member in module.__all__:
        assert getattr(module, member) is not None


def test_the_api_page_lists_no_module_but_the_public_ones() -> None:
    assert sorted(_listed()) == sorted(PUBLIC)


def _imports(source: str) -> Iterator[tuple[str, str | None]]:
    """(module, name) of every import of toolproof in ``source``; name None for ``import module``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "toolproof":
            for alias in node.names:
                yield node.module, alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "toolproof":
                    yield alias.name, None


def _private(module: str, name: str | None) -> str | None:
    """Why ``from module import name`` (or ``import module``) reaches past the public surface, else None."""
    if BUILTIN_TOOL_MODULE.fullmatch(module):
        exported = importlib.import_module(module).__all__
        return None if name is None or name in exported else f"{module}.{name} is not in its __all__"
    if module not in PUBLIC:
        return f"{module} is not a public module"
    if name is not None and name not in importlib.import_module(module).__all__:
        return f"{module}.{name} is not in {module}.__all__"
    return None


def _generated_files(init_project: Path) -> list[Path]:
    roots = [
        REPO / "toolproof" / "builtin" / "generated",
        REPO / "tests" / "conformance_project" / "generated",
        *sorted((REPO / "tests" / "generator" / "cases").glob("*/generated")),
    ]
    files = [p for root in roots for p in sorted(root.rglob("*.py"))]
    files += sorted(p for p in init_project.rglob("*.py") if ".venv" not in p.parts)
    return files


@pytest.fixture(scope="module")
def init_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project as ``toolproof init`` and ``toolproof new`` leave it, generated, with the built-in gateway set."""
    root = tmp_path_factory.mktemp("init")
    toolproof = [sys.executable, "-m", "toolproof"]
    subprocess.run([*toolproof, "init"], cwd=root, check=True, capture_output=True)
    subprocess.run([*toolproof, "new", "greet"], cwd=root, check=True, capture_output=True)
    settings = root / "pyproject.toml"
    settings.write_text(
        settings.read_text(encoding="utf-8").replace('# include = ["gateway"]', 'include = ["gateway"]'),
        encoding="utf-8",
    )
    subprocess.run([*toolproof, "gen"], cwd=root, check=True, capture_output=True)
    return root


def test_generated_files_import_only_public_names(init_project: Path) -> None:
    files = _generated_files(init_project)
    assert any("toolproof.builtin.generated" in p.read_text(encoding="utf-8") for p in files)  # the gateway's tests

    found = [
        f"{path}: {reason}"
        for path in files
        for module, name in _imports(path.read_text(encoding="utf-8"))
        if (reason := _private(module, name))
    ]

    assert len(files) > 50
    assert found == []


def _code_blocks() -> Iterator[tuple[str, str]]:
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for number, block in enumerate(re.findall(r"```python\n(.*?)```", text, re.DOTALL)):
            yield f"{page.relative_to(REPO)}#{number}", block


def test_every_python_block_of_the_docs_imports_only_public_names() -> None:
    blocks = list(_code_blocks())
    assert blocks  # the README's tour has Python in it

    found = [
        f"{where}: {reason}"
        for where, block in blocks
        for module, name in _imports(block)
        if (reason := _private(module, name))
    ]

    assert found == []
