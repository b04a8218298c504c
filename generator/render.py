"""Render the model into files, write them, and check what is on disk for drift.

Code and prose come from Jinja templates (``StrictUndefined``); JSON is built as
data and dumped deterministically: declared key order, two-space indent, LF,
a trailing newline, no timestamps.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from generator.model import Contract
from generator.providers import mcp_tools, openai_tools

__all__ = ["GENERATED", "Drift", "dump_json", "existing_files", "render_all", "write_all"]

GENERATED = "generated"
_IGNORED_DIRS = frozenset({"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"})


def _version() -> str:
    from generator import __version__

    return __version__


def dump_json(data: Any) -> str:
    """Deterministic JSON text: declared key order, indent 2, UTF-8, trailing newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _pystr(value: str) -> str:
    # JSON string escapes are valid Python escapes, and JSON quotes with ".
    return json.dumps(value, ensure_ascii=False)


def _pytuple(values: Sequence[str]) -> str:
    inner = ", ".join(_pystr(v) for v in values)
    return f"({inner},)" if len(values) == 1 else f"({inner})"


def _docstring(text: str) -> str:
    return " ".join(text.split()).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        auto_reload=False,
    )
    env.filters["pystr"] = _pystr
    env.filters["pytuple"] = _pytuple
    env.filters["docstring"] = _docstring
    env.globals["version"] = _version()
    return env


def _isort_key(name: str) -> tuple[int, str]:
    # ruff's RUF022 order: CONSTANTS, then Classes, then functions.
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


def _stub(c: Contract) -> str:
    imports = {"Final", "Protocol", "TypedDict", "Literal" if c.errors else "Never"}
    if c.uses_any:
        imports.add("Any")
    if c.uses_literal:
        imports.add("Literal")
    if c.uses_not_required:
        imports.add("NotRequired")
    exports = [
        "NAME",
        "VERSION",
        *(td.name for td in c.typed_dicts),
        "ErrorCode",
        *(e.function for e in c.errors),
        "Handler",
    ]
    return (
        _environment()
        .get_template("stub.py.jinja")
        .render(c=c, typing_imports=sorted(imports), exports=sorted(set(exports), key=_isort_key))
    )


def _conformance_test(c: Contract) -> str:
    module, _, attr = c.handler.partition(":")
    return (
        _environment()
        .get_template("conformance_test.py.jinja")
        .render(c=c, handler_module=module, handler_attr=attr or "handle")
    )


def _toolsets(contracts: Sequence[Contract]) -> list[tuple[str, list[str]]]:
    sets: dict[str, list[str]] = {}
    for c in contracts:
        for name in c.toolsets:
            sets.setdefault(name, []).append(c.name)
    return sorted(sets.items())


def render_all(contracts: Sequence[Contract], enums: Mapping[str, list[str]] | None = None) -> dict[str, str]:
    """Every file ``make gen`` owns, by path relative to the project, with its text.

    Args:
        contracts: the checked contracts.
        enums: values of each dynamic-enum source known at generation time
            (the built-in skills), written into the exported definitions.
    """
    enums = enums or {}
    contracts = sorted(contracts, key=lambda c: c.module)
    files: dict[str, str] = {
        f"{GENERATED}/__init__.py": _environment()
        .get_template("__init__.py.jinja")
        .render(contracts=contracts, toolsets=_toolsets(contracts)),
    }
    for c in contracts:
        files[f"{GENERATED}/{c.module}.py"] = _stub(c)
        files[f"{GENERATED}/tests/test_{c.module}.py"] = _conformance_test(c)
        files[f"{GENERATED}/contracts/{c.module}.json"] = dump_json(c.data())
    all_sources = {c.source: c.sha256 for c in contracts}
    json_files: dict[str, tuple[str, Mapping[str, str]]] = {
        f"{GENERATED}/definitions/openai.json": (dump_json(openai_tools(contracts, enums)), all_sources),
        f"{GENERATED}/definitions/mcp.json": (dump_json(mcp_tools(contracts, enums)), all_sources),
    }
    for c in contracts:
        json_files[f"{GENERATED}/contracts/{c.module}.json"] = (
            files[f"{GENERATED}/contracts/{c.module}.json"],
            {c.source: c.sha256},
        )
    manifest: dict[str, Any] = {"generator": f"toolproof {_version()}", "command": "make gen", "files": {}}
    for path in sorted(json_files):
        text, sources = json_files[path]
        files[path] = text
        manifest["files"][path] = {
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "sources": dict(sorted(sources.items())),
        }
    files[f"{GENERATED}/MANIFEST.json"] = dump_json(manifest)
    return dict(sorted(files.items()))


def existing_files(root: Path) -> set[str]:
    """Files now under ``generated/`` (caches excluded), relative to the project."""
    base = root / GENERATED
    found: set[str] = set()
    if not base.is_dir():
        return found
    for folder, dirs, names in os.walk(base):
        dirs[:] = [d for d in dirs if d not in _IGNORED_DIRS]
        for name in names:
            if name.endswith(".pyc"):
                continue
            found.add((Path(folder) / name).relative_to(root).as_posix())
    return found


class Drift:
    """Differences between the rendered files and the tree: stale, missing, orphaned."""

    def __init__(self, root: Path, files: Mapping[str, str]) -> None:
        on_disk = existing_files(root)
        self.missing = sorted(set(files) - on_disk)
        self.orphaned = sorted(on_disk - set(files))
        self.stale = sorted(
            path for path in set(files) & on_disk if (root / path).read_bytes() != files[path].encode("utf-8")
        )

    def __bool__(self) -> bool:
        return bool(self.missing or self.orphaned or self.stale)

    def lines(self) -> list[str]:
        """One line per file that differs."""
        return (
            [f"stale: {p}" for p in self.stale]
            + [f"missing: {p}" for p in self.missing]
            + [f"orphaned: {p}" for p in self.orphaned]
        )


def write_all(root: Path, files: Mapping[str, str]) -> list[str]:
    """Make ``generated/`` exactly ``files``: write what differs, delete orphans.

    Returns:
        One line per file written or removed.
    """
    drift = Drift(root, files)
    for path in (*drift.stale, *drift.missing):
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(files[path].encode("utf-8"))
    for path in drift.orphaned:
        (root / path).unlink()
    _remove_empty_dirs(root / GENERATED, keep={(root / p).parent for p in files})
    return [f"wrote {p}" for p in (*drift.stale, *drift.missing)] + [f"removed {p}" for p in drift.orphaned]


def _remove_empty_dirs(base: Path, keep: Iterable[Path]) -> None:
    kept = set(keep)
    for folder, _, _ in os.walk(base, topdown=False):
        path = Path(folder)
        if path not in kept and path != base and not any(path.iterdir()):
            path.rmdir()
