"""Fixtures shared by the built-in tools' tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builtin.trees import lay_tree


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """ws/ten.txt, sk/calc/SKILL.md, and outside.txt beside them."""
    return lay_tree(tmp_path)
