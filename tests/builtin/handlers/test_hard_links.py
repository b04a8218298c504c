"""Every file tool refuses a file with more than one name (hard links) and says so."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

import pytest

from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.result import ToolResult
from toolproof.runtime.toolbox import builtin_runtime

SECRET: Final = b"review-test-secret-0123456789"


HARD_LINK: Final = "the file has 2 names (hard links), and files with more than one are not read here"


def _skill(folder: Path, name: str, body: str = "Body.\n") -> Path:
    (folder / name).mkdir(parents=True)
    (folder / name / "SKILL.md").write_text(f"---\nname: x\ndescription: A skill.\n---\n{body}", encoding="utf-8")
    return folder / name


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """ws/ten.txt, sk/calc/SKILL.md, and outside.txt beside them."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "ten.txt").write_text("".join(f"{i}\n" for i in range(1, 11)), encoding="utf-8")
    _skill(tmp_path / "sk", "calc")
    (tmp_path / "outside.txt").write_text("S\n", encoding="utf-8")
    return tmp_path


def _runtime(tree: Path) -> Runtime:
    return builtin_runtime(workspace=[tree / "ws"], skills=[tree / "sk"], gate_secret=SECRET)


def _call(runtime: Runtime, tool: str, **args: Any) -> ToolResult:
    if tool == "read_file":
        gate = runtime.call("read_file", {"path": "builtin://read_file/SKILL.md"})
        assert gate.output is not None
        args = {**args, "skillToken": gate.output["skillToken"]}
    return runtime.call(tool, args)


def _error(result: ToolResult) -> tuple[str, str]:
    assert result.error is not None, result.output
    return result.error.code, result.error.message


def test_every_tool_says_a_hard_link_is_refused_for_being_one(tree: Path) -> None:
    os.link(tree / "outside.txt", tree / "ws" / "hl.txt")
    os.link(tree / "outside.txt", tree / "sk" / "calc" / "hl.txt")
    (tree / "sk" / "hls").mkdir()
    os.link(tree / "outside.txt", tree / "sk" / "hls" / "SKILL.MD")
    runtime = _runtime(tree)
    found = 4  # outside.txt and its three other names
    reason = HARD_LINK.replace("2 names", f"{found} names")

    assert _error(_call(runtime, "read_file", path="hl.txt")) == ("read_failed", f"Cannot read hl.txt: {reason}")
    assert _error(_call(runtime, "file-read", path="hl.txt")) == ("read_failed", f"Failed to read file: {reason}")
    assert _error(_call(runtime, "get_skill", skill_name="hls")) == (
        "unreadable",
        f"SKILL.MD for skill 'hls' cannot be read: {reason}",
    )
    assert _error(_call(runtime, "read_file_in_skill", skill_name="calc", file_path="hl.txt")) == (
        "cannot_read",
        f"Cannot read file 'hl.txt': {reason}",
    )
