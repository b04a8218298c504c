"""Validators are compiled by their first check: a schema that cannot compile fails its tool's calls, not the host."""

from __future__ import annotations

from typing import Any

import pytest

from toolproof.runtime.context import ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import INTERNAL_ERROR, INVALID_ARGUMENTS
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.spec import ToolSpec
from toolproof.runtime.validation import SchemaValidator

BROKEN: dict[str, Any] = {"type": 5}
"""A schema jsonschema-rs refuses to compile (``type`` must be a name or a list of names)."""


def _spec(name: str, *, input_schema: Any = None, output_schema: Any = None) -> ToolSpec:
    return ToolSpec.from_data(
        {
            "name": name,
            "module": name,
            "handler": f"tests:{name}",
            "input": input_schema if input_schema is not None else {"type": "object"},
            "output": output_schema if output_schema is not None else {"type": "object"},
            "errors": {},
            "render": {"result": "{$}", "error": "{message}"},
            "source": f"contracts/{name}.yaml",
        }
    )


def _echo(args: Any, ctx: ToolContext) -> Any:
    return {"echo": args}


def test_a_schema_is_compiled_by_the_first_check_and_a_kept_check_compiles_it_once() -> None:
    validator = SchemaValidator({"type": "integer"})
    check = validator.is_valid  # kept before the first call, as a generator's loop keeps it

    assert [check(1), check("1"), check(2)] == [True, False, True]
    assert validator.is_valid is not check  # the compiled validator's own check, from now on
    assert [validator.is_valid(3), validator.is_valid(None)] == [True, False]


def test_a_schema_that_cannot_compile_is_refused_at_each_check_not_when_bound() -> None:
    validator = SchemaValidator(BROKEN)

    for _ in range(2):
        with pytest.raises(ValueError, match="is not valid under any of the schemas"):
            validator.is_valid({})


def test_a_tool_whose_input_schema_cannot_compile_fails_each_call_with_invalid_arguments(
    caplog: pytest.LogCaptureFixture,
) -> None:
    runtime = Runtime([BoundTool.build(_spec("broken", input_schema=BROKEN), _echo)])

    results = [runtime.call("broken", {}) for _ in range(2)]

    for result in results:
        assert result.error is not None
        assert result.error.code == INVALID_ARGUMENTS
        assert result.error.message == "Invalid arguments: $: arguments cannot be validated"
    assert "validating the arguments of broken failed" in caplog.text


def test_a_tool_whose_output_schema_cannot_compile_fails_each_call_with_internal_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    runtime = Runtime([BoundTool.build(_spec("broken", output_schema=BROKEN), _echo)])

    result = runtime.call("broken", {})

    assert result.error is not None
    assert result.error.code == INTERNAL_ERROR
    assert "validating the output of broken failed" in caplog.text


def test_a_broken_schema_leaves_the_host_serving_its_other_tools() -> None:
    runtime = Runtime(
        [
            BoundTool.build(_spec("broken", input_schema=BROKEN), _echo),
            BoundTool.build(_spec("fine", input_schema={"type": "object", "required": ["x"]}), _echo),
        ]
    )

    assert [spec.name for spec in runtime.specs] == ["broken", "fine"]
    assert runtime.call("fine", {"x": 1}).output == {"echo": {"x": 1}}
    refused = runtime.call("fine", {}).error
    assert refused is not None
    assert refused.code == INVALID_ARGUMENTS
    assert refused.message == "Invalid arguments: $.x: required property is missing"
