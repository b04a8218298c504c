"""Golden cases: the generator's output for small contracts matches the committed files.

Each folder under ``cases/`` is a project; its ``generated/`` is the expected
output. After a deliberate generator change run ``make golden`` and read the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.generator import load_project

CASES = sorted(p for p in (Path(__file__).parent / "cases").iterdir() if p.is_dir())


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_generator_output_matches_the_golden_files(case: Path) -> None:
    project = load_project(case)
    assert project.ok, [str(p) for p in project.problems]

    drift = project.drift()

    assert not drift, "golden files differ (run `make golden` if the change is deliberate):\n" + "\n".join(
        drift.lines()
    )


def test_rendering_twice_gives_identical_bytes() -> None:
    project = load_project(CASES[0])

    assert project.render() == load_project(CASES[0]).render()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_generated_python_compiles(case: Path) -> None:
    for path in sorted((case / "generated").rglob("*.py")):
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
