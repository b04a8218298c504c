"""The TypeScript runtime built once per session, and the Node tools it and a TypeScript project need."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from toolproof.generator.typescript import runtime_sources

REPO = Path(__file__).parents[2]
NPM_PROJECT = REPO / ".venv" / "npm-project" / "node_modules"
"""What `make` installed for TypeScript projects (typescript, ajv, the MCP SDK, @types/node)."""
NPM_CACHE = REPO / ".venv" / "npm-cache"
"""The npm cache those packages came through: projects are npm-installed from it with --offline."""


def run(args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run a Node tool in ``cwd``; the caller asserts on the result."""
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


def needs_node_tools() -> None:
    """Skip the test when `make` has not installed the Node tools."""
    if not (NPM_PROJECT / ".bin" / "tsc").exists() or shutil.which("npm") is None:
        pytest.skip("npm and the packages of .venv/npm-project are installed by `make` (see the Makefile)")


@pytest.fixture(scope="session")
def runtime_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The runtime's sources beside its Node tests (``runtime/``, ``test/``), built with tsc under strict."""
    needs_node_tools()
    folder = tmp_path_factory.mktemp("runtime")
    (folder / "runtime").mkdir()
    for source in runtime_sources():
        (folder / "runtime" / source.name).write_text(source.text, encoding="utf-8")
    here = Path(__file__).parent / "runtime"
    (folder / "test").mkdir()
    shutil.copy(here / "runtime.test.ts", folder / "test")
    shutil.copy(here / "tsconfig.json", folder)
    (folder / "package.json").write_text('{"type": "module"}\n', encoding="utf-8")
    (folder / "node_modules").symlink_to(NPM_PROJECT)
    done = run([str(NPM_PROJECT / ".bin" / "tsc"), "-p", "tsconfig.json"], folder)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder
