"""`make bench` is not run by `make test` (its figures need a quiet machine), so its scripts are checked here.

Each script imports (the names it takes from toolproof still exist), and gen's
slow-path baseline, which patches the generator's internals by name, enters:
when lint's example checks moved to the runtime's validator, the bench died
with AttributeError and nothing else noticed.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(path for path in BENCHMARKS.glob("*.py") if not path.name.startswith("_"))


def _load(path: Path) -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))  # the scripts import their helpers (_harness, ...) as siblings
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


@pytest.mark.parametrize("path", SCRIPTS, ids=[path.stem for path in SCRIPTS])
def test_each_benchmark_script_imports_and_has_a_main(path: Path) -> None:
    module = _load(path)

    assert callable(getattr(module, "main", None)), path.name


def test_the_gen_benchmarks_slow_path_patches_names_that_exist() -> None:
    with _load(BENCHMARKS / "gen.py")._slow_path():
        pass
