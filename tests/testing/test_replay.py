"""What a generated conformance test says when its example cannot run as written."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from toolproof.runtime.context import ToolContext
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.spec import load_specs
from toolproof.testing.replay import ExampleFailure, replay


def _handler(args: Any, ctx: ToolContext) -> Any:
    raise AssertionError("a tool the host does not serve is never called")


def test_a_tool_whose_resource_the_host_lacks_is_named_as_not_served_not_as_unknown(tmp_path: Path) -> None:
    spec = next(spec for spec in load_specs() if spec.name == "get_skill")
    tool = BoundTool.build(replace(spec, needs=("notes_db",)), _handler)
    example = {"name": "lists", "input": {"skill_name": "calculator"}, "expect": {"output_has": ["content"]}}

    with pytest.raises(ExampleFailure) as failure:
        replay(tool, example, tmp_path)

    message = str(failure.value)
    assert "tool 'get_skill' is not served: it needs notes_db, which this host was not given" in message
    assert "unknown" not in message.lower()
