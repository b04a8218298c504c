"""Issue 13: what a handler's exception says cannot forge a log record."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from toolproof.runtime.context import ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.spec import ToolSpec

HOSTILE = "no such file: 'x.txt\nERROR toolproof.dispatch all clear\r\x1b[2K\u202eevil'"


def _spec() -> ToolSpec:
    return ToolSpec.from_data(
        {
            "name": "boom",
            "module": "boom",
            "handler": "tests:boom",
            "input": {"type": "object", "properties": {"path": {"type": "string"}}},
            "output": {"type": "object"},
            "errors": {},
            "render": {"result": "{$}", "error": "ERROR: {message}"},
            "examples": [],
            "source": "contracts/boom.yaml",
        }
    )


def _boom(args: Any, ctx: ToolContext) -> Any:
    raise OSError(HOSTILE)


def test_a_hostile_path_in_an_exception_message_cannot_add_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    runtime = Runtime(tools=[BoundTool.build(_spec(), _boom)])

    with caplog.at_level(logging.ERROR, logger="toolproof.dispatch"):
        result = runtime.call("boom", {"path": "x.txt"})

    assert result.error is not None
    assert result.error.code == "internal_error"
    [record] = caplog.records
    assert record.exc_info is None, "the traceback is in the message, escaped, not formatted raw by the handler"
    text = record.getMessage()
    lines = text.split("\n")
    assert lines[0] == "handler of boom failed:"
    assert all(line.startswith("    ") for line in lines[1:]), "no line of the exception starts at the margin"
    assert "    ERROR toolproof.dispatch all clear\\x0d\\x1b[2K\\u202eevil'" in lines
    assert "\r" not in text and "\x1b" not in text and "\u202e" not in text
    assert any(line.startswith("    Traceback (most recent call last):") for line in lines)
