"""YAML deep enough to crash libyaml is refused before parsing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolproof.runtime.skills.catalog import SkillCatalog
from toolproof.runtime.skills.frontmatter import parse_skill
from toolproof.runtime.skills.yamlguard import too_deep

DEEP_FLOW = "a: " + "[" * 50_000 + "]" * 50_000 + "\n"
DEEP_BLOCK = "a:\n" + "".join(" " * i + "-\n" for i in range(0, 3000, 2))


@pytest.mark.parametrize(
    ("text", "deep"),
    [
        (DEEP_FLOW, True),
        (DEEP_BLOCK, True),
        ("- " * 5000 + "x\n", True),
        ("a: [1, [2, {b: [3]}]]\nc:\n  - d\n  - e: f\n", False),
        ("description: 'brackets [in] quotes {are} fine'\n", False),
    ],
)
def test_nesting_depth_is_bounded(text: str, deep: bool) -> None:
    assert too_deep(text) is deep


def test_a_hostile_skill_md_is_reported_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "bomb").mkdir()
    (tmp_path / "bomb" / "SKILL.md").write_text(
        "---\nname: bomb\ndescription: " + DEEP_FLOW[3:] + "---\nx\n", encoding="utf-8"
    )
    script = (
        "import sys; from toolproof.runtime.skills.catalog import SkillCatalog; "
        f"c = SkillCatalog.discover([{str(tmp_path)!r}]); print(c.problems())"
    )

    # In a child process: before the guard, libyaml segfaulted and took the interpreter with it.
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == 0, done.stderr
    assert "the frontmatter nests too deeply to be read" in done.stdout
    assert SkillCatalog.discover([tmp_path]).names() == ["bomb"]


def test_a_deep_frontmatter_keeps_its_body() -> None:
    doc = parse_skill("---\nname: x\ndescription: " + DEEP_FLOW[3:] + "---\nBody\n", "x")

    assert doc.body == "Body\n"
    assert doc.problems[0] == "the frontmatter nests too deeply to be read"
