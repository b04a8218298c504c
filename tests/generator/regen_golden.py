"""Rewrite the expected output of every golden case: ``make golden``.

Run it after a deliberate change to the generator, then read the diff.
"""

from __future__ import annotations

import sys
from pathlib import Path

from toolproof.generator import load_project

CASES = Path(__file__).parent / "cases"


def main() -> int:
    """Regenerate each case under ``tests/generator/cases``; 1 if any has contract problems."""
    status = 0
    for case in sorted(p for p in CASES.iterdir() if p.is_dir()):
        project = load_project(case)
        for problem in project.problems:
            print(f"{case.name}: {problem}")
        if not project.ok:
            status = 1
            continue
        for line in project.write():
            print(f"{case.name}: {line}")
    return status


if __name__ == "__main__":
    sys.exit(main())
