"""typescript/runtime: the npm package a TypeScript tool project runs its contracts with."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from tests.typescript.conftest import NPM_PROJECT, run

pytestmark = pytest.mark.slow


def test_the_runtime_passes_its_own_node_tests_under_strict(runtime_build: Path) -> None:
    built = run([str(NPM_PROJECT / ".bin" / "tsc"), "-p", "tsconfig.test.json"], runtime_build)
    assert built.returncode == 0, built.stdout + built.stderr

    done = run(["node", "--test", "build-test/test/"], runtime_build)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "# fail 0" in done.stdout


def test_the_runtime_packs_into_a_tarball_of_its_compiled_modules(runtime_tarball: Path) -> None:
    with tarfile.open(runtime_tarball) as packed:
        names = set(packed.getnames())

    assert {"package/package.json", "package/dist/index.js", "package/dist/index.d.ts"} <= names
    assert not any("/src/" in name or "/test/" in name for name in names)
