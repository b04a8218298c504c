"""Loading and rendering a project pause the cyclic garbage collector, and leave it as they found it."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from toolproof.generator import load_project
from toolproof.generator.project import _line_length

MINIMAL = Path(__file__).parent / "cases" / "minimal"


@pytest.mark.parametrize("enabled", [True, False], ids=["collector on", "collector off"])
def test_loading_and_rendering_leave_the_garbage_collector_as_they_found_it(enabled: bool) -> None:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        project = load_project(MINIMAL)
        assert gc.isenabled() is enabled
        assert project.ok
        assert project.render()
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_generated_python_takes_the_line_length_a_ruff_file_inherits_through_extend(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 120\n", encoding="utf-8")
    inheriting, own, bare = tmp_path / "inheriting", tmp_path / "own", tmp_path / "bare"
    for folder, settings in (
        (inheriting, 'extend = "../pyproject.toml"\n'),
        (own, 'extend = "../pyproject.toml"\nline-length = 100\n'),
        (bare, 'extend = "../missing.toml"\n'),
    ):
        folder.mkdir()
        (folder / "ruff.toml").write_text(settings, encoding="utf-8")

    assert [_line_length(folder) for folder in (inheriting, own, bare)] == [120, 100, 88]
