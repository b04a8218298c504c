"""Shared fixtures: a throwaway project with contracts, and a CLI runner."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

MakeProject = Callable[[dict[str, str]], Path]


@pytest.fixture
def make_project(tmp_path: Path) -> MakeProject:
    """Write ``{file name: YAML text}`` into ``<tmp>/proj/contracts/`` and return the project folder."""

    def make(contracts: dict[str, str]) -> Path:
        root = tmp_path / "proj"
        folder = root / "contracts"
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in contracts.items():
            (folder / name).write_text(text, encoding="utf-8")
        return root

    return make


@pytest.fixture
def runner() -> CliRunner:
    """A click runner that keeps stderr apart from stdout."""
    return CliRunner()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep a file's tests on one worker only where they share a fixture wider than a test (a built wheel, a server).

    ``make test`` runs ``--dist loadgroup``: every other test is handed to whichever worker is free, so one file of
    many slow tests (conform's, each starting servers) no longer keeps one core busy while the other idles.
    """
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        definitions = info.name2fixturedefs.values() if info is not None else ()
        if any(d.scope in ("module", "package", "session") for defs in definitions for d in defs):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
    # Files holding slow tests first, each whole and in its order (a module fixture is set up once): workers hand
    # tests out in this order, and a minute of npm set-up collected last (tests/typescript sorts after the rest) kept
    # one core busy alone at the end of the run.
    slow = {item.nodeid.split("::", 1)[0] for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.nodeid.split("::", 1)[0] not in slow)
