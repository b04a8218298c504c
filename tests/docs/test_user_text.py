"""What users read (README, CHANGELOG, the docs' pages) names no issue and no internal file, and types no figure.

Figures come from ``benchmarks/results.json`` only, through the generated benchmarks page.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import pytest

REPO: Final = Path(__file__).resolve().parents[2]
INTERNAL: Final = ("design-notes.md",)
"""Pages under docs/ that are the team's notes, not part of the site (mkdocs.yml excludes them)."""

ISSUE: Final = re.compile(r"\bissues? #?\d+|\(#\d+\)", re.IGNORECASE)
INTERNAL_FILE: Final = re.compile(r"shared/|DESIGN\.md|contracts/README\.md")
MEASURED: Final = re.compile(r"\b\d+(\.\d+)?\s?(ms|µs|us|req/s)\b|\b\d+\.\d+x\b|\b\d+(\.\d+)?[\u2013-]\d+(\.\d+)?x\b")
"""A time, a rate or a ratio: what a benchmark measures (limits such as 8 MiB or 10 s are behaviour, not figures)."""


def _pages() -> list[Path]:
    docs = sorted(p for p in (REPO / "docs").rglob("*.md") if p.name not in INTERNAL)
    return [REPO / "README.md", REPO / "CHANGELOG.md", *docs]


def _prose(path: Path) -> str:
    """The page without its code blocks (a config may say ``inter 500ms``)."""
    return re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)


@pytest.mark.parametrize("path", _pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_user_text_names_no_issue_and_no_internal_file(path: Path) -> None:
    text = path.read_text(encoding="utf-8")

    assert ISSUE.findall(text) == []
    assert INTERNAL_FILE.findall(text) == []


@pytest.mark.parametrize("path", _pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_user_text_types_no_measured_figure(path: Path) -> None:
    assert [m.group(0) for m in MEASURED.finditer(_prose(path))] == []
