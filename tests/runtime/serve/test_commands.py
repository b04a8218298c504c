"""`toolproof serve`: a tool set no contract is in is a usage error, as `call` and `export` take it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from toolproof.builtin.skills.gate import KEY_HEX_ENV, SECRET_ENV
from toolproof.cli import cli
from toolproof.runtime.host import HostOptions
from toolproof.runtime.project import activate, load_config
from toolproof.runtime.serve.commands import _state_secret
from toolproof.runtime.toolbox import builtin_runtime, open_runtime


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


def test_serve_http_keys_request_states_with_the_shared_secret_only_when_a_tool_asks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = load_config(Path(__file__).parents[2] / "conformance_project" / "pyproject.toml")
    activate(config)
    asking = open_runtime(config, HostOptions.of())
    monkeypatch.delenv(KEY_HEX_ENV, raising=False)
    monkeypatch.setenv(SECRET_ENV, "a-shared-secret-of-32-bytes-long")

    assert _state_secret(asking) == b"a-shared-secret-of-32-bytes-long"
    assert _state_secret(builtin_runtime(gate_secret=b"x" * 32)) is None  # no tool asks
    monkeypatch.delenv(SECRET_ENV)
    assert _state_secret(asking) is None  # a key of the process's own; no key file made for it
    monkeypatch.setenv(KEY_HEX_ENV, "ab" * 32)  # what a --workers supervisor hands its workers
    assert _state_secret(asking) == bytes.fromhex("ab" * 32)
