"""`toolproof gen --check` and `toolproof lint` at 5, 50 and 200 contracts: milliseconds per contract.

Run with ``make bench`` (``--quick`` for fewer rounds). Each project is made by
``toolproof init`` with its contract replaced by N copies of the built-in
file_read.yaml under different names, then generated once. Timed in process
through the generator API (load_project, then drift() for gen --check; with the
losses shown for lint), rounds interleaved across N, medians; at N=50 also the
slow path (python-jsonschema and json everywhere, exports computed twice, the
garbage collector running throughout); plus one subprocess run of each command
(with interpreter start-up), next to ``python -c pass`` in the same run. The
target is at most 8 ms per contract, linear.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from pathlib import Path
from typing import Any
from unittest.mock import patch

from _results import Row, record

from toolproof.generator import checks, jsontext, render, schemalint
from toolproof.generator.project import Project, config_for, load_project
from toolproof.runtime.validation import SchemaValidator

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ROOT / "toolproof" / "builtin" / "contracts" / "file_read.yaml"
TOOLPROOF = [sys.executable, "-m", "toolproof"]
COUNTS = (5, 50, 200)


def _project(folder: Path, n: int) -> Path:
    subprocess.run([*TOOLPROOF, "init", str(folder)], check=True, capture_output=True)
    for old in (folder / "contracts").glob("*.yaml"):
        old.unlink()
        (folder / "handlers" / f"{old.stem}.py").unlink()  # else an orphan handler (TP408): gen refuses the project
    text = CONTRACT.read_text(encoding="utf-8")
    for i in range(n):
        name = f"file_read_{i:03d}"
        (folder / "contracts" / f"{name}.yaml").write_text(
            # the built-in handler serves every copy: a contract without one is an error (TP409)
            text.replace("name: file-read", f"name: {name}\nhandler: toolproof.builtin.handlers.file_read:handle"),
            encoding="utf-8",
        )
    subprocess.run([*TOOLPROOF, "gen", "--project", str(folder)], check=True, capture_output=True, cwd=folder)
    return folder


def _gen_check(folder: Path) -> Callable[[], None]:
    def run() -> None:
        project = load_project(config_for(folder))
        assert project.ok, [str(p) for p in project.problems]
        project.drift()  # fresh unless the generator changed since _project (timed the same either way)

    return run


def _lint(folder: Path) -> Callable[[], None]:
    def run() -> None:
        assert load_project(config_for(folder), show_losses=True).ok

    return run


class _PythonJsonschema(SchemaValidator):
    """The runtime's validator judging examples with python-jsonschema alone (no compiled jsonschema-rs check)."""

    def __init__(self, schema: Any) -> None:
        super().__init__(schema)
        self.is_valid = lambda instance: not self.errors(instance)


@contextmanager
def _slow_path() -> Iterator[None]:
    """The generator without its shortcuts: python-jsonschema, json, exports twice, the collector on."""
    with ExitStack() as stack:
        stack.enter_context(patch.object(checks, "_meta_fast", lambda: None))
        stack.enter_context(patch.object(checks, "SchemaValidator", _PythonJsonschema))
        stack.enter_context(patch.object(schemalint, "_meta_valid_fast", lambda schema: False))
        stack.enter_context(patch.object(render, "dump_json", jsontext.dump_json_stdlib))
        uncached = lambda self: render.export_all(self.served, self.enum_sources())  # noqa: E731
        stack.enter_context(patch.object(Project, "exports", uncached))
        stack.enter_context(patch("toolproof.generator.project._collector_paused", nullcontext))
        yield


def _slow(fn: Callable[[], None]) -> Callable[[], None]:
    def run() -> None:
        with _slow_path():
            fn()

    return run


def _once(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=False, capture_output=True, cwd=cwd)  # exit 1 on drift is timed alike
    return time.perf_counter() - start


def main() -> None:
    """Build the projects, time each case, print ms per contract and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    quick = parser.parse_args().quick
    rounds = 3 if quick else 5
    with tempfile.TemporaryDirectory() as tmp:
        folders = {n: _project(Path(tmp) / f"p{n}", n) for n in COUNTS}
        cases = {f"{kind} N={n}": make(folders[n]) for n in COUNTS for kind, make in
                 (("gen --check", _gen_check), ("lint", _lint))}  # fmt: skip
        cases["gen --check N=50 slow path"] = _slow(_gen_check(folders[50]))
        cases["lint N=50 slow path"] = _slow(_lint(folders[50]))
        for fn in cases.values():
            fn()  # warm: imports, the compiled templates and validators
        samples: dict[str, list[float]] = {name: [] for name in cases}
        names = list(cases)
        for r in range(rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                start = time.perf_counter()
                cases[name]()
                samples[name].append(time.perf_counter() - start)
        spawned = {
            "python -c pass": _once([sys.executable, "-c", "pass"], folders[50]),
            "toolproof gen --check (N=50, subprocess)": _once([*TOOLPROOF, "gen", "--check"], folders[50]),
            "toolproof lint (N=50, subprocess)": _once([*TOOLPROOF, "lint"], folders[50]),
        }
    print("\ngen --check and lint in process (median of rounds); target <= 8 ms per contract")
    base = {kind: statistics.median(samples[f"{kind} N=5"]) / 5 for kind in ("gen --check", "lint")}
    for name, values in samples.items():
        n = int(name.rsplit("=", 1)[1].split()[0])
        per = statistics.median(values) / n
        kind = name.split(" N=")[0]
        if name.endswith("slow path"):
            fast = statistics.median(samples[name.removesuffix(" slow path")])
            print(f"  {name:<28} {statistics.median(values) * 1e3:9.1f} ms  {per * 1e3:6.2f} ms/contract"
                  f"  {statistics.median(values) / fast:5.2f}x the fast path")  # fmt: skip
            continue
        print(f"  {name:<28} {statistics.median(values) * 1e3:9.1f} ms  {per * 1e3:6.2f} ms/contract"
              f"  {per / base[kind]:5.2f}x per-contract at N=5")  # fmt: skip
    print("\none subprocess run each (with interpreter start-up)")
    for name, value in spawned.items():
        print(f"  {name:<42} {value * 1e3:8.1f} ms  {value / spawned['python -c pass']:6.1f}x python -c pass")
    rows: list[Row] = []
    for name, values in samples.items():
        if name.endswith("slow path"):
            continue
        command, count = name.split(" N=")
        figures = {"toolproof": statistics.median(values) / int(count) * 1e3}
        slow = samples.get(f"{name} slow path")
        if slow is not None:
            figures["python-jsonschema (the slow path)"] = statistics.median(slow) / int(count) * 1e3
        rows.append((f"{command}, {count} contracts, in process", "ms/contract", figures))
    slow_path = "python-jsonschema (the slow path)"
    systems = {"toolproof": "toolproof.generator in process", slow_path: _slow_path.__doc__ or ""}
    record("gen", "gen --check and lint (target <= 8 ms a contract at 200)", rows, systems, quick=quick)


if __name__ == "__main__":
    main()
