"""`make bench` is not run by `make test` (its figures need a quiet machine), so its scripts are checked here.

Each script imports (the names it takes from toolproof still exist), and gen's
slow-path baseline, which patches the generator's internals by name, enters:
when lint's example checks moved to the runtime's validator, the bench died
with AttributeError and nothing else noticed.
"""

from __future__ import annotations

import importlib.util
import json
import os
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


def test_every_section_lands_in_one_results_file_and_one_chart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import xml.etree.ElementTree as ET

    _results = _load(BENCHMARKS / "_results.py")
    monkeypatch.setattr(_results, "RESULTS", tmp_path / "results.json")
    monkeypatch.setattr(_results, "CHART", tmp_path / "results.svg")
    (tmp_path / "results.json").write_text('{"quick": true, "rows": []}', encoding="utf-8")  # the old, one-script form

    _results.record("http", "HTTP", [("64 connections", "us/req", {"toolproof": 300.0, "floor": 100.0})],
                    {"toolproof": "REST", "floor": "bare"}, quick=False)  # fmt: skip
    _results.record("peers", "Peers", [("start-up", "ms", {"toolproof": 80.0, "reference": 400.0})],
                    {"toolproof": "serve mcp", "reference": "node"}, quick=True)  # fmt: skip
    _results.record("http", "HTTP", [("64 connections", "us/req", {"toolproof": 200.0, "floor": 100.0})],
                    {"toolproof": "REST", "floor": "bare"}, quick=False)  # fmt: skip

    document = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert list(document["sections"]) == ["http", "peers"]
    (row,) = document["sections"]["http"]["rows"]
    assert row["values"] == {"toolproof": 200.0, "floor": 100.0}  # the second run replaced the first
    assert row["ratio_to_fastest"] == {"toolproof": 2.0, "floor": 1.0}
    machine = document["sections"]["http"]["machine"]  # the load the figures were measured under
    assert machine["cpus"] == os.cpu_count()
    assert len(machine["load_at_start"]) == len(machine["load_at_end"]) == 3
    assert all(isinstance(load, float) and load >= 0 for load in machine["load_at_start"] + machine["load_at_end"])
    chart = ET.fromstring((tmp_path / "results.svg").read_text(encoding="utf-8"))
    texts = [element.text or "" for element in chart.iter("{http://www.w3.org/2000/svg}text")]
    assert texts.index(next(t for t in texts if t.startswith("Peers (quick)"))) < texts.index(
        next(t for t in texts if t.startswith("HTTP,"))
    )  # peers first, whatever order the scripts ran in
    rects = chart.iter("{http://www.w3.org/2000/svg}rect")
    bars = [rect.findtext("{http://www.w3.org/2000/svg}title") for rect in rects]
    assert sorted(bar for bar in bars if bar is not None) == [
        "floor: 100 us/req", "reference: 400 ms", "toolproof: 200 us/req", "toolproof: 80 ms",
    ]  # fmt: skip
    assert "2.00x" in texts and "5.00x" in texts


def test_the_gen_benchmarks_projects_pass_gen(tmp_path: Path) -> None:
    """The bench builds its projects with `toolproof init` and gen: a new lint rule once stopped it there."""
    folder = _load(BENCHMARKS / "gen.py")._project(tmp_path / "p2", 2)

    contracts = sorted(path.name for path in (folder / "contracts").iterdir())
    assert contracts == ["file_read_000.yaml", "file_read_001.yaml"]
