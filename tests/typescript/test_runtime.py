"""toolproof/generator/typescript_runtime: the runtime a TypeScript tool project runs its contracts with."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.typescript.conftest import run
from toolproof.generator.typescript import RUNTIME_SOURCES, runtime_sources

REPO = Path(__file__).parents[2]


@pytest.mark.slow
def test_the_runtime_passes_its_own_node_tests_under_strict(runtime_build: Path) -> None:
    done = run(["node", "--test", "build/test/"], runtime_build)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "# fail 0" in done.stdout


def test_the_runtime_sources_are_the_files_of_the_package_folder() -> None:
    names = [source.name for source in runtime_sources()]

    assert names == sorted(path.name for path in (REPO / RUNTIME_SOURCES).glob("*.ts"))
    assert {"index.ts", "tool.ts", "validation.ts", "vectors.ts"} <= set(names)
