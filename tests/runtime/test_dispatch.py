"""Dispatch: every call ends in a result, never in an exception, and errors are catalogued."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from toolproof.runtime.context import ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import INTERNAL_ERROR, STANDARD_ERRORS, ToolError
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.spec import ToolSpec

INTERNAL_SENTENCE = STANDARD_ERRORS[INTERNAL_ERROR].message


def _spec(**overrides: Any) -> ToolSpec:
    data: dict[str, Any] = {
        "name": "greet",
        "module": "greet",
        "version": "1.0.0",
        "title": "Greet",
        "description": "Greet someone.",
        "handler": "tests:greet",
        "annotations": {"read_only": True, "destructive": False, "idempotent": True, "open_world": False},
        "input": {
            "type": "object",
            "properties": {"who": {"type": "string", "minLength": 1}},
            "required": ["who"],
            "additionalProperties": False,
        },
        "output": {"type": "object", "properties": {"greeting": {"type": "string"}}, "required": ["greeting"]},
        "errors": {"unknown_person": {"message": "Nobody called '{who}'", "hint": "Ask for their name."}},
        "render": {"result": "{greeting}", "error": "ERROR: {message}"},
        "examples": [],
        "source": "contracts/greet.yaml",
        "sha256": "0" * 64,
    }
    data.update(overrides)
    return ToolSpec.from_data(data)


def _greet(args: Any, ctx: ToolContext) -> Any:
    who = args["who"]
    if who == "ghost":
        raise ToolError("unknown_person", f"Nobody called '{who}'", {"who": who})
    if who == "boom":
        raise RuntimeError("disk on fire at /srv/secret/path")
    if who == "foreign":
        raise ToolError("not_ours", "a code from another catalogue")
    if who == "liar":
        return {"greeting": 42}
    if who == "session":
        return {"greeting": f"session {ctx.session}"}
    return {"greeting": f"Hello, {who}!"}


def _runtime(validate_output: bool = True, **spec: Any) -> Runtime:
    s = _spec(**spec)
    tool = BoundTool.build(s, _greet)
    return Runtime(tools=[tool], validate_output=validate_output)


def test_a_json_string_call_returns_output_and_rendered_text() -> None:
    result = _runtime().call("greet", '{"who": "Ada"}')

    assert result.ok
    assert result.output == {"greeting": "Hello, Ada!"}
    assert result.text == "Hello, Ada!"


def test_a_dict_call_works_the_same() -> None:
    assert _runtime().call("greet", {"who": "Ada"}).text == "Hello, Ada!"


def test_bytes_arguments_are_accepted() -> None:
    assert _runtime().call("greet", b'{"who": "Ada"}').ok


def test_the_session_reaches_the_handler() -> None:
    assert _runtime().call("greet", {"who": "session"}, session="s-1").text == "session s-1"


def test_a_catalogued_error_is_data_with_its_hint() -> None:
    result = _runtime().call("greet", {"who": "ghost"})

    assert not result.ok
    assert result.error is not None
    assert (result.error.code, result.error.message, result.error.hint) == (
        "unknown_person",
        "Nobody called 'ghost'",
        "Ask for their name.",
    )
    assert result.text == "ERROR: Nobody called 'ghost'"


def test_an_unknown_tool_is_named_with_the_available_ones() -> None:
    result = _runtime().call("gret", {})

    assert result.error is not None
    assert result.error.code == "unknown_tool"
    assert result.error.message == "Unknown tool 'gret'. Available tools: greet."


@pytest.mark.parametrize(
    ("arguments", "detail"),
    [
        ('{"who": ', "$: arguments are not valid JSON (Expecting value: line 1 column 9 (char 8))"),
        ("[1, 2]", "$: expected object, got array"),
        ('{"who": NaN}', "$: arguments are not valid JSON (NaN is not valid JSON)"),
        ('{"who": ""}', "$.who: must be at least 1 character(s) long (got '')"),
        ('{"who": "x", "age": 3}', "$.age: unexpected property (allowed: who)"),
        ("{}", "$.who: required property is missing"),
        ("[" * 100_000 + "]" * 100_000, "$: arguments are nested too deeply"),
    ],
)
def test_bad_arguments_become_invalid_arguments_naming_the_field(arguments: str, detail: str) -> None:
    result = _runtime().call("greet", arguments)

    assert result.error is not None
    assert result.error.code == "invalid_arguments"
    assert result.error.message == f"Invalid arguments: {detail}"


def test_big_integers_beyond_64_bits_are_parsed_not_crashed() -> None:
    result = _runtime().call("greet", '{"who": 123456789012345678901234567890}')

    assert result.error is not None
    assert result.error.message == "Invalid arguments: $.who: expected string, got integer"


def test_oversized_arguments_are_refused_before_parsing() -> None:
    s = _spec()
    tool = BoundTool.build(s, _greet)
    runtime = Runtime(tools=[tool], max_argument_bytes=10)

    result = runtime.call("greet", '{"who": "a long name"}')

    assert result.error is not None
    assert result.error.message == "Invalid arguments: $: arguments are 22 bytes long; the limit is 10"


def test_an_unexpected_exception_is_internal_error_without_traceback_or_path(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR):
        result = _runtime().call("greet", {"who": "boom"})

    assert result.error is not None
    assert result.error.code == "internal_error"
    assert result.error.message == INTERNAL_SENTENCE
    assert "/srv" not in result.text and "Traceback" not in result.text
    assert "disk on fire" in caplog.text, "the full failure is logged"


def test_a_code_outside_the_catalogue_is_internal_error() -> None:
    result = _runtime().call("greet", {"who": "foreign"})

    assert result.error is not None
    assert result.error.code == "internal_error"


def test_output_that_breaks_the_contract_is_internal_error() -> None:
    result = _runtime().call("greet", {"who": "liar"})

    assert result.error is not None
    assert result.error.code == "internal_error"


def test_output_validation_can_be_switched_off() -> None:
    result = _runtime(validate_output=False, render={"result": "{$}", "error": "E {code}"}).call(
        "greet", {"who": "liar"}
    )

    assert result.ok
    assert result.text == '{"greeting": 42}'


def test_error_render_can_use_code_and_hint() -> None:
    runtime = _runtime(render={"result": "{greeting}", "error": "[{code}] {message} ({hint})"})

    assert (
        runtime.call("greet", {"who": "ghost"}).text == "[unknown_person] Nobody called 'ghost' (Ask for their name.)"
    )


def test_result_shapes_for_cli_openai_and_mcp() -> None:
    runtime = _runtime()
    ok, bad = runtime.call("greet", {"who": "Ada"}), runtime.call("greet", {"who": "ghost"})

    assert ok.to_dict() == {"ok": True, "output": {"greeting": "Hello, Ada!"}, "error": None, "text": "Hello, Ada!"}
    assert bad.to_dict()["error"] == {"code": "unknown_person", "message": "Nobody called 'ghost'"}
    assert ok.to_openai_message("call_1") == {"role": "tool", "tool_call_id": "call_1", "content": "Hello, Ada!"}
    assert ok.to_mcp() == {
        "content": [{"type": "text", "text": "Hello, Ada!"}],
        "isError": False,
        "structuredContent": {"greeting": "Hello, Ada!"},
    }
    assert bad.to_mcp() == {"content": [{"type": "text", "text": "ERROR: Nobody called 'ghost'"}], "isError": True}


def test_a_toolset_filter_serves_only_its_members() -> None:
    s = _spec(toolsets=["people"])
    tool = BoundTool.build(s, _greet)

    assert [spec.name for spec in Runtime(tools=[tool], toolset="people").specs] == ["greet"]
    assert Runtime(tools=[tool], toolset="other").specs == []
