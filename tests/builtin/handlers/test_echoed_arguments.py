"""Every file and skill tool echoes an argument in its error clipped when huge, whole when short."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

import pytest

from tests.builtin.trees import call as _call
from tests.builtin.trees import error as _error
from tests.builtin.trees import runtime_over as _runtime
from toolproof.runtime.errors import MAX_SHOWN_CHARS

HUGE: Final = "b" * 100_000


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
