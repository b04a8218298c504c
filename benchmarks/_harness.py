"""A small interleaved timing harness: medians per call, ratios within one run.

Every case runs once per round in a rotated order, so a noisy neighbour slows
all cases alike; batches are calibrated to last about 20 ms, with gc off.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Case", "Row", "print_table", "run"]


@dataclass(frozen=True, slots=True)
class Case:
    """A named callable to time."""

    name: str
    fn: Callable[[], object]


@dataclass(frozen=True, slots=True)
class Row:
    """Per-call times of one case, in microseconds."""

    name: str
    median_us: float
    min_us: float
    max_us: float


def _calibrate(fn: Callable[[], object], target_s: float) -> int:
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= target_s / 10:
            return max(1, int(n * target_s / elapsed))
        n *= 4


def run(cases: list[Case], *, rounds: int = 15, target_s: float = 0.02) -> list[Row]:
    """Time every case over ``rounds`` interleaved rounds."""
    loops = {case.name: _calibrate(case.fn, target_s) for case in cases}
    samples: dict[str, list[float]] = {case.name: [] for case in cases}
    for r in range(rounds):
        order = cases[r % len(cases) :] + cases[: r % len(cases)]
        for case in order:
            n = loops[case.name]
            fn = case.fn
            gc.disable()
            try:
                start = time.perf_counter_ns()
                for _ in range(n):
                    fn()
                elapsed = time.perf_counter_ns() - start
            finally:
                gc.enable()
            samples[case.name].append(elapsed / n / 1000)
    return [Row(c.name, statistics.median(samples[c.name]), min(samples[c.name]), max(samples[c.name])) for c in cases]


def print_table(title: str, rows: list[Row], baseline: str) -> None:
    """Print medians with each case's ratio to ``baseline``."""
    base = next(r.median_us for r in rows if r.name == baseline)
    width = max(len(r.name) for r in rows)
    print(f"\n{title}")
    print(f"{'case':<{width}}  {'median us':>10}  {'min us':>9}  {'max us':>9}  {'x ' + baseline:>14}")
    for r in rows:
        print(
            f"{r.name:<{width}}  {r.median_us:>10.3f}  {r.min_us:>9.3f}  {r.max_us:>9.3f}  {r.median_us / base:>14.2f}"
        )
