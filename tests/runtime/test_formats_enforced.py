"""The runtime enforces ``format`` on arguments and on outputs, as the review's schemathesis run expected.

ST201: ``deliver_on: ""`` for ``format: date`` was accepted; ST108: an output
``"648-08-04T00:00:00Z"`` (a strftime that did not zero-pad the year) was let through.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from toolproof.runtime.context import ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import INTERNAL_ERROR, INVALID_ARGUMENTS
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.spec import ToolSpec


def _deliver(args: Any, ctx: ToolContext) -> Any:
    return {"deliver_at": "648-08-04T00:00:00Z" if args["deliver_on"] == "0648-08-04" else "2024-05-01T00:00:00Z"}


def _runtime() -> Runtime:
    spec = ToolSpec.from_data(
        {
            "name": "deliver",
            "module": "deliver",
            "version": "1.0.0",
            "title": "Deliver",
            "description": "Plan a delivery.",
            "handler": "tests:deliver",
            "annotations": {"read_only": True, "destructive": False, "idempotent": True, "open_world": False},
            "input": {
                "type": "object",
                "properties": {"deliver_on": {"type": "string", "format": "date"}},
                "required": ["deliver_on"],
                "additionalProperties": False,
            },
            "output": {
                "type": "object",
                "properties": {"deliver_at": {"type": "string", "format": "date-time"}},
                "required": ["deliver_at"],
            },
            "errors": {},
            "render": {"result": "{deliver_at}", "error": "ERROR: {message}"},
            "examples": [],
            "source": "contracts/deliver.yaml",
            "sha256": "0" * 64,
        }
    )
    return Runtime([BoundTool.build(spec, _deliver)])


@pytest.mark.parametrize("day", ["", "not-a-date", "2024-02-30", "09:30"])
def test_an_argument_that_breaks_its_format_is_refused_naming_the_format(day: str) -> None:
    result = _runtime().call("deliver", {"deliver_on": day})

    assert result.error is not None
    assert result.error.code == INVALID_ARGUMENTS
    assert f"$.deliver_on: must be a date (YYYY-MM-DD), got '{day}'" in result.error.message


def test_an_argument_in_its_format_reaches_the_handler() -> None:
    result = _runtime().call("deliver", {"deliver_on": "2024-05-01"})

    assert result.error is None
    assert result.output == {"deliver_at": "2024-05-01T00:00:00Z"}


def test_an_output_that_breaks_its_format_is_an_internal_error(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR):
        result = _runtime().call("deliver", {"deliver_on": "0648-08-04"})

    assert result.error is not None
    assert result.error.code == INTERNAL_ERROR
    assert "$.deliver_at: must be a date-time (RFC 3339, such as 2024-05-01T09:30:00Z), got '648-08-04T00:00:00Z'" in (
        caplog.text
    )
