"""`toolproof conform --mcp`: a command that cannot start a server is a usage error before any server starts."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from toolproof.cli import cli


@pytest.mark.parametrize("command", ["", "   "])
def test_an_empty_mcp_command_is_a_usage_error_not_an_internal_error(runner: CliRunner, command: str) -> None:
    result = runner.invoke(cli, ["conform", "--mcp", command])

    assert result.exit_code == 2, result.output
    assert "Error: Invalid value for '--mcp': the command is empty: give the command that starts the server\n" in (
        result.output
    )
    assert "internal error" not in result.output


def test_an_unclosed_quotation_in_the_mcp_command_is_a_usage_error_not_a_failure_of_every_tool(
    runner: CliRunner,
) -> None:
    result = runner.invoke(cli, ["conform", "--mcp", 'x "y'])

    assert result.exit_code == 2, result.output
    assert "Error: Invalid value for '--mcp': no closing quotation in 'x \"y'\n" in result.output
    assert "FAIL" not in result.output


def test_an_unknown_placeholder_in_the_mcp_command_is_refused_naming_the_known_ones(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["conform", "--mcp", "srv --root {workspace} --x {nope}"])

    assert result.exit_code == 2, result.output
    assert (
        "Error: Invalid value for '--mcp': unknown placeholder {nope} "
        "(known: {workspace}, {skills}, {folder}, {dir}, {project})\n"
    ) in result.output


def test_a_shell_variable_in_braces_is_not_taken_for_a_placeholder() -> None:
    from toolproof.testing.mcp import command_words

    assert command_words("sh -c 'srv --home ${HOME} {workspace}'") == ["sh", "-c", "srv --home ${HOME} {workspace}"]
