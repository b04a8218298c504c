"""Every file tool refuses a file with more than one name (hard links) and says so."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from tests.builtin.trees import call as _call
from tests.builtin.trees import error as _error
from tests.builtin.trees import runtime_over as _runtime

HARD_LINK: Final = "the file has 2 names (hard links), and files with more than one are not read here"


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
