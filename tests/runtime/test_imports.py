"""A host that only serves tools never imports the generator's weight (Jinja, python-jsonschema's dumps)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def _imported(argv: list[str], cwd: Path, stdin: str = "") -> set[str]:
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "toolproof", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")}


@pytest.mark.parametrize(
    ("argv", "stdin"),
    [
        (["call", "read_file_in_skill", "--args", '{"skill_name": "x", "file_path": "y"}'], ""),
        (
            ["serve", "mcp"],
            "\n".join(
                json.dumps(m)
                for m in (
                    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}},
                    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                )
            )
            + "\n",
        ),
    ],
    ids=["call", "serve-mcp"],
)
def test_serving_never_imports_jinja_or_the_generator(argv: list[str], stdin: str, tmp_path: Path) -> None:
    modules = _imported(argv, tmp_path, stdin)

    assert "toolproof.runtime.dispatch" in modules  # the measurement saw the run
    assert not {
        m for m in modules if m.startswith(("jinja2", "toolproof.generator.render", "toolproof.generator.model"))
    }


def test_a_call_never_imports_other_commands_or_numpy(tmp_path: Path) -> None:
    modules = _imported(["call", "read_file_in_skill", "--args", '{"skill_name": "x", "file_path": "y"}'], tmp_path)

    assert "toolproof.runtime.dispatch" in modules  # the measurement saw the run
    assert not {
        m
        for m in modules
        if m.startswith(("toolproof.generator.cli", "toolproof.runtime.conformance", "numpy", "uvicorn"))
    }
