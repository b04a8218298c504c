"""Loading and rendering a project pause the cyclic garbage collector, and leave it as they found it."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from toolproof.generator import load_project

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
