"""A file within a tool's own size limit is returned whole: the runtime's result cap never undercuts it.

Each reads 10 MiB or so, text and structured output both: the result is
about twice the file, as JSON. These once met a 16 MiB result cap and came
back as ``response_too_large``, whose hint (ask for a smaller range) a single
line, or a tool with no range at all, cannot follow.
"""

from __future__ import annotations

from pathlib import Path

from toolproof.builtin.handlers import file_read, read_file, read_file_in_skill
from toolproof.runtime.toolbox import builtin_runtime

SECRET = b"size-caps-test-secret"


def test_file_read_returns_a_single_line_of_exactly_its_size_limit(tmp_path: Path) -> None:
    line = "x" * (file_read.MAX_FILE_SIZE_BYTES - 1) + "\n"
    (tmp_path / "exact.txt").write_text(line, encoding="utf-8")
    runtime = builtin_runtime(workspace=[tmp_path])

    result = runtime.call("file-read", {"path": "exact.txt", "include_line_numbers": False})

    assert result.error is None, result.error
    assert result.output is not None and result.output["content"] == line[:-1]


def test_read_file_in_skill_returns_a_file_just_under_its_size_limit(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "big"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: big\ndescription: a big one\n---\nBig.\n", encoding="utf-8")
    text = ("abcdefg\n" * (read_file_in_skill.MAX_BYTES // 8))[:-1]
    (skill / "nine.txt").write_text(text, encoding="utf-8")
    runtime = builtin_runtime(skills=[tmp_path / "skills"])

    result = runtime.call("read_file_in_skill", {"skill_name": "big", "file_path": "nine.txt"})

    assert result.error is None, result.error
    assert result.output is not None and result.output["content"] == text


def test_read_file_returns_its_2000_widest_lines_of_three_byte_characters(tmp_path: Path) -> None:
    lines = 1740  # 2000 CJK characters each: just under 10 MiB
    (tmp_path / "wide.txt").write_text(("漢" * 2000 + "\n") * lines, encoding="utf-8")
    assert (tmp_path / "wide.txt").stat().st_size <= read_file.MAX_FILE_BYTES
    runtime = builtin_runtime(workspace=[tmp_path], gate_secret=SECRET)
    document = runtime.call("read_file", {"path": "builtin://read_file/SKILL.md"}, session="s1")
    assert document.output is not None
    token = document.output["skillToken"]

    result = runtime.call("read_file", {"path": "wide.txt", "skillToken": token}, session="s1")

    assert result.error is None, result.error
    assert result.output is not None and result.output["endLine"] == lines


def test_file_read_returns_a_single_line_of_control_characters_of_its_size_limit(tmp_path: Path) -> None:
    """The worst text for JSON: each character escaped as six bytes (~70 MiB of result in all)."""
    line = "\x01" * (file_read.MAX_FILE_SIZE_BYTES - 1) + "\n"
    (tmp_path / "controls.txt").write_text(line, encoding="utf-8")
    runtime = builtin_runtime(workspace=[tmp_path])

    result = runtime.call("file-read", {"path": "controls.txt", "include_line_numbers": False})

    assert result.error is None, result.error
    assert result.output is not None and result.output["content"] == line[:-1]
