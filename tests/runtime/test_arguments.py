"""Arguments beyond the JSON reader's bounds are invalid arguments naming where, as text and as a value."""

from __future__ import annotations

import datetime
import decimal
import enum
import math
import uuid
from pathlib import Path
from typing import Any

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


class _Colour(enum.Enum):
    RED = "ten.txt"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({1: 2}, "$['1']: the property name is a Python int; JSON property names are strings"),
        ({"path": "ten.txt", "x": {"y": {(1, 2): 3}}}, "$.x.y['(1, 2)']: the property name is a Python tuple; JSON"),
        ({"path": object()}, "$.path: a Python object is not a JSON value; send a string, number, boolean, null,"),
        ({"path": "ten.txt", "start_line": math.nan}, "$.start_line: nan is not a JSON number; send a finite number"),
        ({"path": "ten.txt", "start_line": -math.inf}, "$.start_line: -inf is not a JSON number; send a finite number"),
        ({"path": "ten.txt", "x": [1, {"y": {2, 3}}]}, "$.x[1].y: a Python set is not a JSON value"),
        ({"path": b"ten.txt"}, "$.path: a Python bytes is not a JSON value"),
        ({"path": uuid.UUID(int=1)}, "$.path: a Python UUID is not a JSON value"),
        ({"path": _Colour.RED}, "$.path: a Python _Colour is not a JSON value"),
        ({"path": datetime.date(2020, 1, 1)}, "$.path: a Python date is not a JSON value"),
        ({"path": decimal.Decimal(1)}, "$.path: a Python Decimal is not a JSON value"),
    ],
)
def test_a_mapping_holding_what_json_cannot_is_invalid_arguments_naming_where_with_nothing_logged(
    arguments: dict[Any, Any],
    message: str,
    workspace: Path,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    runtime = builtin_runtime(workspace=[workspace], gate_secret=b"review")

    with caplog.at_level("DEBUG"):
        result = runtime.call("file-read", arguments)

    assert result.error is not None and result.error.code == "invalid_arguments"
    assert result.error.message.startswith(f"Invalid arguments: {message}")
    assert not [record for record in caplog.records if record.levelname in ("WARNING", "ERROR")]
    assert not [record for record in caplog.records if record.exc_info]
    assert capfd.readouterr().err == ""


def test_a_str_enum_value_is_still_read_as_the_string_it_is(workspace: Path) -> None:
    class Name(enum.StrEnum):
        TEN = "ten.txt"

    runtime = builtin_runtime(workspace=[workspace], gate_secret=b"review")

    result = runtime.call("file-read", {"path": Name.TEN, "start_line": 2, "end_line": 3})

    assert result.error is None, result.text
