"""The ``[serve]`` settings: middleware named there runs around the project's calls; a mistake stops at its line."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolproof.cli import cli
from toolproof.runtime.project import ProjectError, load_config
from toolproof.runtime.serve.policy import RateLimit, middleware_settings, rate_limits

POLICIES = """\
import sys


def audit(call, proceed):
    print(f"before {call.tool} {dict(call.arguments)}", file=sys.stderr)
    result = proceed()
    print(f"after {result.error.code if result.error else 'ok'}", file=sys.stderr)
    return result
"""


@pytest.fixture(scope="module")
def initialized(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("policy")
    assert CliRunner().invoke(cli, ["init", str(root)]).exit_code == 0
    return root


@pytest.fixture
def project(initialized: Path) -> Iterator[Path]:
    """The ``init`` project; what an in-process command imported of it (handlers, generated) is forgotten after."""
    path, modules = sys.path[:], set(sys.modules)
    yield initialized
    sys.path[:] = path
    for name in set(sys.modules) - modules:
        if str(getattr(sys.modules[name], "__file__", None) or "").startswith(str(initialized)):
            del sys.modules[name]


def _with(root: Path, serve: str) -> Path:
    settings = root / "pyproject.toml"
    kept = settings.read_text(encoding="utf-8").split("\n# serve\n")[0]
    settings.write_text(f"{kept}\n# serve\n{serve}", encoding="utf-8")
    return root


def test_middleware_the_settings_name_runs_around_a_call_of_the_project(project: Path) -> None:
    (project / "policies.py").write_text(POLICIES, encoding="utf-8")
    _with(project, '[[tool.toolproof.serve.middleware]]\nfunction = "policies:audit"\n')

    result = CliRunner().invoke(cli, ["call", "word_count", "--args", '{"text": "a b"}', "--project", str(project)])

    assert result.exit_code == 0, result.output
    assert result.stderr == "before word_count {'text': 'a b'}\nafter ok\n"


def test_a_middleware_that_is_not_there_stops_the_command_naming_it(project: Path) -> None:
    (project / "policies.py").write_text(POLICIES, encoding="utf-8")
    _with(project, '[[tool.toolproof.serve.middleware]]\nfunction = "policies:nothing"\n')

    result = CliRunner().invoke(cli, ["call", "word_count", "--args", '{"text": "a"}', "--project", str(project)])

    assert result.exit_code == 2  # call: the call cannot be made (serve exits 1)
    assert f"{project}: middleware policies:nothing: policies has no callable 'nothing'" in result.stderr


@pytest.mark.parametrize(
    ("serve", "line", "message"),
    [
        ("[[tool.toolproof.serve.middleware]]\nfunction = 'audit'\n", 3, "function must name module:function"),
        ("[[tool.toolproof.serve.middleware]]\nfunction = 'a:b'\ntoolsets = []\n", 3, "toolsets must be a non-empty"),
        ("[[tool.toolproof.serve.rate-limits]]\ncalls = 1.5\n", 3, "calls must be a whole number of calls"),
        ("[[tool.toolproof.serve.rate-limits]]\ncalls = 1\nseconds = 0\n", 3, "seconds must be a number"),
        ("[[tool.toolproof.serve.rate-limits]]\ncalls = 1\nper = 'ip'\n", 3, "per must be one of subject, client"),
        ("[[tool.toolproof.serve.rate-limits]]\ncalls = 1\nburst = 2\n", 3, "unknown key(s) burst; known: calls"),
    ],
)
def test_a_malformed_serve_entry_is_a_project_error_at_its_line(
    tmp_path: Path, serve: str, line: int, message: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.toolproof]\n\n{serve}", encoding="utf-8")
    config = load_config(tmp_path / "pyproject.toml")

    with pytest.raises(ProjectError) as caught:
        middleware_settings(config)
        rate_limits(config)

    assert caught.value.where == f"{tmp_path / 'pyproject.toml'}:{line}"
    assert message in caught.value.message


def test_an_unknown_serve_setting_is_refused_naming_the_known_ones(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.toolproof.serve]\nlimits = 1\n", encoding="utf-8")

    with pytest.raises(
        ProjectError, match=r"unknown serve setting\(s\) limits; known: middleware, rate-limits, scopes"
    ):
        load_config(tmp_path / "pyproject.toml")


def test_a_rate_limit_defaults_to_per_second_per_subject_over_every_tool(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.toolproof]\n\n[[tool.toolproof.serve.rate-limits]]\ncalls = 5\n", encoding="utf-8"
    )

    assert rate_limits(load_config(tmp_path / "pyproject.toml")) == [RateLimit(5, 1.0, "subject", None)]


def test_a_stdio_server_says_the_rate_limits_do_not_apply_to_it(project: Path) -> None:
    _with(project, "[[tool.toolproof.serve.rate-limits]]\ncalls = 1\n")

    command = [sys.executable, "-m", "toolproof", "serve", "mcp", "--project", str(project)]
    done = subprocess.run(command, input=b"", capture_output=True, timeout=60)  # stdin closed: it stops at once

    assert done.returncode == 0, done.stderr
    assert b"warning: the project's rate limits apply over HTTP only; this stdio server has none" in done.stderr
