"""`serve` on a generated folder that is stale, torn or not files exits 1 naming the file and gen, at once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolproof.cli import cli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    assert CliRunner().invoke(cli, ["init", str(folder)]).exit_code == 0
    return folder


def _serve(project: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolproof", "serve", *command, "--workspace", str(project), "--project", str(project)],
        input="{}\n",
        capture_output=True,
        text=True,
        timeout=60,  # a host that starts serves until stopped; one that blocks on a FIFO, for ever
        check=False,
    )


def test_serve_after_include_changed_without_gen_exits_1_naming_the_export_and_gen(project: Path) -> None:
    settings = project / "pyproject.toml"
    text = settings.read_text(encoding="utf-8")
    settings.write_text(text.replace('# include = ["gateway"]', 'include = ["aintern"]  #', 1), encoding="utf-8")

    mcp = _serve(project, "mcp")
    http = _serve(project, "http", "--port", "0")

    assert (mcp.returncode, mcp.stderr) == (
        1,
        "generated: exports/mcp/all.json does not list 'file-read', which this host serves; run `toolproof gen`\n",
    )
    assert (http.returncode, http.stderr) == (
        1,
        "generated: openapi.json has no route for 'file-read', which this host serves; run `toolproof gen`\n",
    )


@pytest.mark.parametrize(
    ("how", "reason"),
    [("empty", "empty"), ("missing", "No such file or directory"), ("fifo", "a FIFO, not a regular file")],
)
@pytest.mark.parametrize(("command", "relative"), [("mcp", "exports/mcp/all.json"), ("http", "openapi.json")])
def test_serve_with_a_torn_or_missing_export_exits_1_at_once_naming_it_and_gen(
    project: Path, command: str, relative: str, how: str, reason: str
) -> None:
    path = project / "generated" / relative
    path.unlink()
    if how == "empty":
        path.write_bytes(b"")
    elif how == "fifo":
        os.mkfifo(path)

    served = _serve(project, command, *(("--port", "0") if command == "http" else ()))

    assert served.returncode == 1
    assert served.stderr == f"generated: {relative} cannot be loaded ({reason}); run `toolproof gen`\n"
