"""`toolproof serve`: a tool set no contract is in is a usage error, as `call` and `export` take it."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from toolproof.cli import cli


@pytest.mark.parametrize("transport", ["mcp", "http"])
def test_serving_an_unknown_toolset_is_a_usage_error_naming_the_known_sets_not_exit_1(
    runner: CliRunner, transport: str
) -> None:
    result = runner.invoke(cli, ["serve", transport, "--toolset", "nope"])
    call = runner.invoke(cli, ["call", "file-read", "--toolset", "nope"])

    assert result.exit_code == 2 == call.exit_code, result.output
    assert result.stderr.endswith(
        ": no tool is in tool set 'nope'; its tool sets are aintern, gateway, queryclaw, skill-docs, skills-runner\n"
    )
