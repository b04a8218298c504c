"""The npm runtime package, built once per session from typescript/runtime, and the Node tools it needs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
NPM_PROJECT = REPO / ".venv" / "npm-project" / "node_modules"
"""What `make` installed for TypeScript projects (typescript, ajv, the MCP SDK, @types/node)."""
NPM_CACHE = REPO / ".venv" / "npm-cache"
"""The npm cache those packages came through: projects are npm-installed from it with --offline."""


def run(args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run a Node tool in ``cwd``; the caller asserts on the result."""
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


def _needs_node_tools() -> None:
    if not (NPM_PROJECT / ".bin" / "tsc").exists() or shutil.which("npm") is None:
        pytest.skip("npm and the packages of .venv/npm-project are installed by `make` (see the Makefile)")


@pytest.fixture(scope="session")
def runtime_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of typescript/runtime, built with tsc (its node_modules are .venv/npm-project's)."""
    _needs_node_tools()
    folder = tmp_path_factory.mktemp("runtime") / "runtime"
    shutil.copytree(
        REPO / "typescript" / "runtime", folder, ignore=shutil.ignore_patterns("node_modules", "dist", "build-test")
    )
    (folder / "node_modules").symlink_to(NPM_PROJECT)
    done = run([str(NPM_PROJECT / ".bin" / "tsc"), "-p", "tsconfig.json"], folder)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


@pytest.fixture(scope="session")
def runtime_tarball(runtime_build: Path) -> Path:
    """``npm pack`` of the built runtime: what a project installs it from."""
    done = run(
        ["npm", "pack", "--cache", str(NPM_CACHE), "--pack-destination", str(runtime_build.parent)], runtime_build
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return runtime_build.parent / done.stdout.strip().splitlines()[-1]
