"""The ``command`` setting goes on the first line of every generated file: settings that would break it are refused."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from toolproof.generator import load_project
from toolproof.generator.render import render_all
from toolproof.runtime.project import ProjectError, load_config

MINIMAL = Path(__file__).parents[1] / "generator" / "cases" / "minimal" / "contracts"


def _settings(tmp_path: Path, command: str) -> Path:
    path = tmp_path / "pyproject.toml"
    path.write_text(f'[project]\nname = "x"\n\n[tool.toolproof]\ncommand = {command}\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ['"make\\ngen"', '"make\\rgen"', '"make\\u0000gen"', '"make\\u2028gen"'])
def test_a_command_with_a_control_character_is_refused_naming_the_setting_and_its_line(
    tmp_path: Path, command: str
) -> None:
    path = _settings(tmp_path, command)

    with pytest.raises(ProjectError) as caught:
        load_config(path)

    assert caught.value.where == f"{path}:5"
    assert caught.value.message.startswith("command ")
    assert "control character" in caught.value.message


@pytest.mark.parametrize("command", ['"coding:utf-7"', '"make gen # -*- coding=latin-1 -*-"'])
def test_a_command_holding_an_encoding_declaration_is_refused_naming_the_setting_and_its_line(
    tmp_path: Path, command: str
) -> None:
    path = _settings(tmp_path, command)

    with pytest.raises(ProjectError) as caught:
        load_config(path)

    assert caught.value.where == f"{path}:5"
    assert "declares its encoding (PEP 263)" in caught.value.message


def test_a_plain_command_with_quotes_and_backslashes_is_kept(tmp_path: Path) -> None:
    assert load_config(_settings(tmp_path, "'make \"gen\" \\\\ now'")).command == 'make "gen" \\\\ now'


def test_no_command_reaches_a_generated_files_first_two_lines_unescaped(tmp_path: Path) -> None:
    """Settings are checked when read; a command that bypasses them (a caller's Layout) is still escaped."""
    project = load_project(MINIMAL.parent)
    hostile = "make gen\n# -*- coding: utf-7 -*-\u2028x = 1 --> */"
    layout = dataclasses.replace(project.layout, command=hostile)

    files = render_all(project.contracts, layout=layout)

    for path, text in files.items():
        head = text.splitlines()[:2]
        assert all(re.search(r"coding[:=]", line) is None for line in head), path
        if path.endswith(".py"):
            assert all(line.startswith("# ") for line in head), path
            compile(text, path, "exec")
        if path.endswith(".md"):
            assert text.index("-->") == text.index("\n-->\n") + 1, path  # the header's comment ends where it should
        if path.endswith(".d.ts"):
            assert all(line.startswith("// ") for line in head), path  # a line comment: only a line end ends it
