"""Golden cases: the generator's output for small contracts matches the committed files.

Each folder under ``cases/`` is a project; its ``generated/`` is the expected
output. After a deliberate generator change run ``make golden`` and read the diff.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from toolproof.generator import load_project

CASES_DIR = Path(__file__).parent / "cases"
CASES = sorted(p for p in CASES_DIR.iterdir() if p.is_dir())


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


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_generated_stubs_pass_mypy_strict(case: Path, tmp_path: Path) -> None:
    from mypy import api

    stubs = sorted(str(p) for p in (case / "generated").glob("*.py"))

    out, err, status = api.run(["--strict", "--cache-dir", str(tmp_path), "--no-error-summary", *stubs])

    assert status == 0, out + err


def _module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_error_factories_take_escaped_keywords_and_keep_the_placeholder_names() -> None:
    names = _module(CASES_DIR / "names" / "generated" / "names.py", "golden_names")

    error = names.refused(from_="a", params_="b", str_="c", ToolError_="d")
    klass = names.class__(dict_={"q": "x"})

    assert (error.code, error.message) == ("refused", "no a for b: c d")
    assert error.params == {"from": "a", "params": "b", "str": "c", "ToolError": "d"}
    assert (klass.code, klass.message, klass.params) == ("class", 'class {"q": "x"}', {"dict": {"q": "x"}})
    assert names.class_(object_=1).code == "class_"
