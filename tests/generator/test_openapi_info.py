"""The OpenAPI document's ``info`` names the project and its version, as its pyproject.toml declares them."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import MakeProject
from toolproof.generator import __version__, load_project
from toolproof.generator.openapi import ApiInfo, api_info
from toolproof.generator.project import config_for
from toolproof.generator.render import render_all
from toolproof.runtime.project import builtin_project

ECHO = (Path(__file__).parent / "cases" / "minimal" / "contracts" / "echo.yaml").read_text(encoding="utf-8")


def _with_pyproject(make_project: MakeProject, text: str) -> Path:
    root = make_project({"echo.yaml": ECHO})
    (root / "pyproject.toml").write_text(text, encoding="utf-8")
    return root


def test_a_project_is_named_by_its_pyproject_name_and_version(make_project: MakeProject) -> None:
    root = _with_pyproject(make_project, '[project]\nname = "shop"\nversion = "2.3.0"\n\n[tool.toolproof]\n')

    assert api_info(config_for(root)) == ApiInfo("shop", "2.3.0")


@pytest.mark.parametrize(
    "pyproject",
    [
        '[project]\nname = "shop"\ndynamic = ["version"]\n\n[tool.toolproof]\n',
        '[project]\nname = "shop"\nversion = 3\n\n[tool.toolproof]\n',
    ],
    ids=["dynamic", "not a string"],
)
def test_a_version_the_pyproject_does_not_state_is_0_0_0(make_project: MakeProject, pyproject: str) -> None:
    root = _with_pyproject(make_project, pyproject)

    assert api_info(config_for(root)) == ApiInfo("shop", "0.0.0")


def test_a_project_without_a_pyproject_gets_the_generic_title(make_project: MakeProject) -> None:
    root = make_project({"echo.yaml": ECHO})

    assert api_info(config_for(root)) == ApiInfo("toolproof tools", "0.0.0")


def test_a_toolproof_toml_project_is_named_by_the_pyproject_beside_it(make_project: MakeProject) -> None:
    root = _with_pyproject(make_project, '[project]\nname = "shop"\nversion = "1.2.0"\n')
    (root / "toolproof.toml").write_text('contracts = "contracts"\n', encoding="utf-8")

    assert api_info(config_for(root)) == ApiInfo("shop", "1.2.0")


def test_the_builtin_tools_carry_toolproofs_version() -> None:
    assert api_info(builtin_project()) == ApiInfo("toolproof built-in tools", __version__)


def test_the_rendered_document_names_the_project_its_layout_carries(make_project: MakeProject) -> None:
    root = _with_pyproject(make_project, '[project]\nname = "shop"\nversion = "2.3.0"\n\n[tool.toolproof]\n')
    project = load_project(root)
    assert project.ok, [str(p) for p in project.problems]
    layout = replace(project.layout, api=api_info(project.config))

    info = json.loads(render_all(project.contracts, {}, layout)["generated/openapi.json"])["info"]

    assert (info["title"], info["version"]) == ("shop", "2.3.0")


def test_gen_names_the_project_in_its_openapi_document(make_project: MakeProject) -> None:
    root = _with_pyproject(make_project, '[project]\nname = "shop"\nversion = "2.3.0"\n\n[tool.toolproof]\n')

    info = json.loads(load_project(root).render()["generated/openapi.json"])["info"]

    assert (info["title"], info["version"]) == ("shop", "2.3.0")
