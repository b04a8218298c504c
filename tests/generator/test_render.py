"""Rendering shares what is the same: one export for tool sets with the same members."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.generator import load_project
from toolproof.generator.exports import DEFINITION_FORMATS, export_definitions
from toolproof.generator.render import export_all

TOOLSETS = Path(__file__).parent / "cases" / "toolsets"


@pytest.mark.parametrize("fmt", DEFINITION_FORMATS)
def test_tool_sets_with_the_same_members_share_one_export(fmt: str) -> None:
    project = load_project(TOOLSETS)
    assert project.ok, [str(p) for p in project.problems]
    contracts = sorted(project.contracts, key=lambda c: c.module)

    exports = export_all(project.contracts, {})[fmt]

    assert exports["health"] is exports["all"]  # both tools are in health
    assert exports["net"] is not exports["all"]
    assert exports["all"].data == export_definitions(fmt, contracts, {}).data
    net = [c for c in contracts if "net" in c.toolsets]
    assert exports["net"].data == export_definitions(fmt, net, {}).data
