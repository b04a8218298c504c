"""Every file and skill tool echoes an argument in its error clipped when huge, whole when short."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pytest

from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import MAX_SHOWN_CHARS
from toolproof.runtime.result import ToolResult
from toolproof.runtime.toolbox import builtin_runtime

SECRET: Final = b"review-test-secret-0123456789"
HUGE: Final = "b" * 100_000


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


# --- Arguments are echoed clipped, in the message, the text and the error's output. --------------------------


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("get_skill", {"skill_name": HUGE}),
        ("read_file_in_skill", {"skill_name": "calc", "file_path": HUGE}),
        ("read_file_in_skill", {"skill_name": HUGE, "file_path": HUGE}),
        ("read_file_in_skill", {"skill_name": "calc", "file_path": "../" + HUGE}),
        ("read_file", {"path": HUGE}),
        ("read_file", {"path": "missing/" + "c" * 4000}),
        ("read_file", {"path": "x", "cwd": HUGE}),
        ("read_file", {"path": "x", "cwd": "/elsewhere/" + "c" * 4000}),
        ("read_file", {"path": "x", "cwd": "missing/" + "c" * 4000}),
        ("file-read", {"path": HUGE}),
        ("file-read", {"path": "missing/" + "c" * 4000}),
    ],
    ids=lambda value: value if isinstance(value, str) else "-".join(f"{k}:{len(v)}" for k, v in value.items()),
)
def test_an_error_echoes_a_huge_argument_clipped(tree: Path, tool: str, args: dict[str, str]) -> None:
    result = _call(_runtime(tree), tool, **args)

    assert result.error is not None
    assert len(result.error.message) < 2 * MAX_SHOWN_CHARS + 200
    assert len(result.text) < 2 * MAX_SHOWN_CHARS + 400
    assert len(json.dumps(result.error.to_dict())) < 6 * MAX_SHOWN_CHARS + 800  # message, output.error, the echoes


def test_a_short_argument_is_still_echoed_whole(tree: Path) -> None:
    result = _call(_runtime(tree), "read_file_in_skill", skill_name="calc", file_path="missing.txt")

    assert _error(result) == ("file_not_found", "File 'missing.txt' not found in skill 'calc'")
    assert result.error is not None and result.error.output is not None
    assert result.error.output["file_path"] == "missing.txt"
