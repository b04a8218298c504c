"""``read_skill``: host paths and operator advice go to the log; the model reads the reason."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import Final

import pytest

from tests.builtin.trees import SECRET
from tests.builtin.trees import call as _call
from tests.builtin.trees import error as _error
from tests.builtin.trees import runtime_over as _runtime
from tests.builtin.trees import skill as _skill
from toolproof.runtime.toolbox import builtin_runtime

HARD_LINK: Final = "the file has 2 names (hard links), and files with more than one are not read here"


def test_read_skill_keeps_host_paths_and_operator_advice_for_the_log(
    tree: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tree / "rs").mkdir()
    real = tree / "rs" / "sk"
    _skill(real, "k")
    _skill(tree / "rs" / "evil", "k")
    link = tree / "rs" / "L"
    link.symlink_to(real)
    runtime = builtin_runtime(skills=[link], gate_secret=SECRET)
    assert _call(runtime, "read_skill", skill_name="k").error is None

    shutil.rmtree(real)
    real.symlink_to(tree / "rs" / "evil")
    with caplog.at_level(logging.WARNING, logger="toolproof.skills"):
        results = [_call(runtime, "read_skill", skill_name="k")]
        results.append(_call(runtime, "get_skill", skill_name="k"))
        results.append(_call(runtime, "read_file_in_skill", skill_name="k", file_path="SKILL.md"))

    codes = [_error(result) for result in results]
    assert codes[0] == ("skill_not_found", "Skill 'k' not found.")
    assert [code for code, _ in codes] == ["skill_not_found"] * 3
    assert not any(str(tree) in result.text or "restart" in result.text for result in results)
    assert any("restart the host" in record.getMessage() for record in caplog.records)


def test_read_skill_still_gives_the_reason_of_a_skill_folder_it_cannot_read(tree: Path) -> None:
    runtime = _runtime(tree)
    assert _call(runtime, "read_skill", skill_name="calc").error is None
    (tree / "sk" / "calc" / "SKILL.md").unlink()
    os.link(tree / "outside.txt", tree / "sk" / "calc" / "SKILL.md")

    assert _error(_call(runtime, "read_skill", skill_name="calc")) == (
        "skill_unreadable",
        f"Skill 'calc' could not be read: {HARD_LINK}",
    )
