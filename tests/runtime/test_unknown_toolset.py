"""A tool set nothing is in is an error that names the sets there are, wherever it is asked for."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from toolproof.cli import cli
from toolproof.runtime.errors import RegistryError
from toolproof.runtime.host import HostOptions
from toolproof.runtime.project import builtin_project
from toolproof.runtime.toolbox import open_runtime

KNOWN = "its tool sets are aintern, gateway, queryclaw, skill-docs, skills-runner"


def test_open_runtime_refuses_a_tool_set_no_contract_is_in_and_names_the_ones_there_are() -> None:
    with pytest.raises(RegistryError) as refused:
        open_runtime(builtin_project(), HostOptions.of(), toolset="nosuch")

    assert str(refused.value).endswith(f"no tool is in tool set 'nosuch'; {KNOWN}")


def test_a_known_tool_set_still_serves_its_tools() -> None:
    runtime = open_runtime(builtin_project(), HostOptions.of(workspace=["."], gate_secret=b"x" * 16), toolset="gateway")

    assert [spec.name for spec in runtime.specs] == ["read_file"]


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["call", "read_file", "--toolset", "nosuch", "--workspace", "."], 2),  # a usage error on every command
        (["serve", "mcp", "--toolset", "nosuch", "--workspace", "."], 2),
        (["serve", "http", "--toolset", "nosuch", "--workspace", "."], 2),
    ],
    ids=["call", "serve mcp", "serve http"],
)
def test_each_command_says_the_tool_set_is_unknown_and_names_the_known_ones(
    argv: list[str], code: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # outside any project: the built-in tools
    result = CliRunner().invoke(cli, argv)

    assert result.exit_code == code, result.output
    assert f"no tool is in tool set 'nosuch'; {KNOWN}" in result.stderr
    assert "Traceback" not in result.output + result.stderr


def test_export_says_the_tool_set_is_unknown_and_names_the_known_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["export", "--format", "openai", "--toolset", "nosuch"])

    assert result.exit_code == 2
    assert f"no tool is in tool set 'nosuch'; {KNOWN}" in result.stderr
