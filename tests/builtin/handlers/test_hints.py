"""Hints written for the model reach it where a contract's error rendering asks for them, and say something true."""

from __future__ import annotations

from pathlib import Path

from toolproof.runtime.spec import load_specs
from toolproof.runtime.toolbox import builtin_runtime


def test_every_error_of_a_contract_that_renders_hints_has_one_so_no_text_ends_in_a_bare_space() -> None:
    rendering = [spec for spec in load_specs() if "hint" in spec.render_error.fields]

    assert {spec.name for spec in rendering} == {"file-read", "read_file"}
    for spec in rendering:
        assert [code for code, entry in spec.errors.items() if not entry.hint] == [], spec.name


def test_the_file_too_large_hint_promises_no_line_range_because_a_range_is_refused_too(tmp_path: Path) -> None:
    with (tmp_path / "big.log").open("wb") as out:
        out.truncate(10 * 1024 * 1024 + 1)
    runtime = builtin_runtime(workspace=[tmp_path])

    whole = runtime.call("file-read", {"path": "big.log"})
    ranged = runtime.call("file-read", {"path": "big.log", "start_line": 1, "end_line": 1})

    assert whole.error is not None and ranged.error is not None
    assert whole.error.code == ranged.error.code == "file_too_large"
    assert "start_line" not in whole.text and "not even a line range" in whole.text
    assert whole.text == (
        "Error: File too large (10.0 MB). Maximum size: 10.0 MB. "
        "Files over 10 MB cannot be read, not even a line range; do not retry this file."
    )
