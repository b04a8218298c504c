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
