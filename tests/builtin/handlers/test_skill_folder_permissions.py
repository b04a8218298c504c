"""Issue 13: a skill folder that exists but cannot be opened is a permission error, never a missing skill."""

from __future__ import annotations

from pathlib import Path

from toolproof.runtime.result import ToolResult
from toolproof.runtime.toolbox import builtin_runtime
from toolproof.testing.replay import as_unprivileged


def _locked_skill(base: Path) -> Path:
    folder = base / "skills"
    (folder / "calculator").mkdir(parents=True)
    (folder / "calculator" / "SKILL.MD").write_text("# Calculator Skill\n", encoding="utf-8")
    (folder / "calculator").chmod(0)
    return folder


def _call(skills: list[Path], tool: str, arguments: dict[str, str]) -> ToolResult:
    runtime = builtin_runtime(skills=skills)
    return as_unprivileged(lambda: runtime.call(tool, arguments))


def test_an_unopenable_skill_folder_is_not_reported_as_skill_not_found_by_get_skill(tmp_path: Path) -> None:
    skills = _locked_skill(tmp_path)
    try:
        result = _call([skills], "get_skill", {"skill_name": "calculator"})
    finally:
        (skills / "calculator").chmod(0o755)

    assert result.error is not None
    assert result.error.code == "permission_denied"
    assert result.error.message == "Permission denied reading SKILL.MD for skill 'calculator'"


def test_an_unopenable_skill_folder_is_not_reported_as_skill_not_found_by_read_file_in_skill(tmp_path: Path) -> None:
    skills = _locked_skill(tmp_path)
    try:
        result = _call([skills], "read_file_in_skill", {"skill_name": "calculator", "file_path": "SKILL.MD"})
    finally:
        (skills / "calculator").chmod(0o755)

    assert result.error is not None
    assert result.error.code == "cannot_read"
    assert result.error.message == "Cannot read file 'SKILL.MD': permission denied on the skill's folder"


def test_an_unopenable_skill_folder_is_not_shadowed_by_a_later_skills_folder(tmp_path: Path) -> None:
    locked = _locked_skill(tmp_path / "first")
    later = tmp_path / "second" / "skills"
    (later / "calculator").mkdir(parents=True)
    (later / "calculator" / "SKILL.MD").write_text("# Impostor\n", encoding="utf-8")
    try:
        result = _call([locked, later], "get_skill", {"skill_name": "calculator"})
    finally:
        (locked / "calculator").chmod(0o755)

    assert result.error is not None
    assert result.error.code == "permission_denied"


def test_an_unopenable_skills_folder_holds_no_skill_and_the_next_one_is_searched(tmp_path: Path) -> None:
    first = tmp_path / "first"
    first.mkdir()
    later = tmp_path / "second"
    (later / "calculator").mkdir(parents=True)
    (later / "calculator" / "SKILL.MD").write_text("# Calculator Skill\n", encoding="utf-8")
    runtime = builtin_runtime(skills=[first, later])
    first.chmod(0)
    try:
        result = as_unprivileged(lambda: runtime.call("get_skill", {"skill_name": "calculator"}))
    finally:
        first.chmod(0o755)

    assert result.error is None
    assert result.output["documentation"] == "# Calculator Skill\n"
