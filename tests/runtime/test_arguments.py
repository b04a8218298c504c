"""Arguments beyond the JSON reader's bounds are invalid arguments naming where, as text and as a value."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.runtime.serve.mcp import (
    decode_message,
)
from toolproof.runtime.toolbox import builtin_runtime


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "ten.txt").write_text("".join(f"{i}\n" for i in range(1, 11)), encoding="utf-8")
    return tmp_path


def test_a_json_string_argument_beyond_the_readers_bounds_is_invalid_arguments_naming_where(workspace: Path) -> None:
    runtime = builtin_runtime(workspace=[workspace], gate_secret=b"review")

    result = runtime.call("file-read", f'{{"path": "ten.txt", "start_line": {"9" * 5000}}}')

    assert result.error is not None and result.error.code == "invalid_arguments"
    assert result.error.message == "Invalid arguments: $.start_line: a number with more than 4300 digits"
    assert "sys." not in result.text and "set_int_max_str_digits" not in result.text


@pytest.mark.parametrize("depth", [600, 1024, 2000])
def test_arguments_nested_too_deep_are_named_alike_as_text_and_as_a_transports_value(
    depth: int, workspace: Path
) -> None:
    runtime = builtin_runtime(workspace=[workspace], gate_secret=b"review")
    text = '{"path": "ten.txt", "start_line": ' + "[" * depth + "]" * depth + "}"

    as_text = runtime.call("file-read", text)
    as_value = runtime.call("file-read", decode_message(text))

    for result in (as_text, as_value):
        assert result.error is not None
        assert result.error.message == "Invalid arguments: $.start_line: nested more than 512 levels deep"


@pytest.mark.parametrize(
    ("arguments", "kind"),
    [
        (12345, "integer"),
        ([{"path": "ten.txt"}], "array"),
        (True, "boolean"),
        (1.5, "number"),
        ({1}, "a Python set"),
        (bytearray(b"{}"), "a Python bytearray"),
    ],
)
def test_arguments_of_the_wrong_python_type_are_invalid_arguments_without_a_logged_traceback(
    arguments: object, kind: str, workspace: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    runtime = builtin_runtime(workspace=[workspace], gate_secret=b"review")

    with caplog.at_level("DEBUG"):
        result = runtime.call("file-read", arguments)  # type: ignore[arg-type]  # what an untyped caller passes

    assert result.error is not None and result.error.code == "invalid_arguments"
    assert result.error.message == f"Invalid arguments: $: expected object, got {kind}"
    assert not [record for record in caplog.records if record.levelname in ("WARNING", "ERROR")]
    assert not [record for record in caplog.records if record.exc_info]
    assert capfd.readouterr().err == ""
