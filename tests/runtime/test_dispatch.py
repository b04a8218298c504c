"""Dispatch: every call ends in a result, never in an exception, and errors are catalogued."""

from __future__ import annotations

import json
import logging
from dataclasses import FrozenInstanceError, replace
from typing import Any

import orjson
import pytest

from toolproof.runtime.context import ToolContext
from toolproof.runtime.dispatch import MAX_RESULT_BYTES, Runtime
from toolproof.runtime.errors import INTERNAL_ERROR, RESPONSE_TOO_LARGE, STANDARD_ERRORS, ToolError
from toolproof.runtime.json_writer import json_bytes
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.result import ToolResult
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
    if who == "disk-surrogate":  # a name read from disk that is not UTF-8
        return {"greeting": "Hello, t\udcff.txt!"}
    if who == "disk-surrogate-error":
        raise ToolError("unknown_person", "Nobody called 't\udcff.txt'", {"who": "t\udcff.txt"})
    if who == "unwritable-param":
        raise ToolError("unknown_person", "Nobody called 'x'", {"who": {1, 2}})
    if who.startswith("big:"):
        return {"greeting": "x" * int(who[4:])}
    if who == "set":
        return {"greeting": {1, 2}}
    if who == "huge-int":
        return {"greeting": 2**70}
    return {"greeting": f"Hello, {who}!"}


def _writable(result: ToolResult) -> None:
    """Every transport can write the result: the CLI's JSON, orjson, and UTF-8 text."""
    orjson.dumps(result.to_dict())
    orjson.dumps(result.to_mcp())
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")
    result.text.encode("utf-8")


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


def test_the_handler_gets_the_context_of_its_tool_with_or_without_a_session() -> None:
    seen: list[ToolContext] = []

    def handler(args: Any, ctx: ToolContext) -> Any:
        seen.append(ctx)
        return {"greeting": "hi"}

    spec = _spec()
    runtime = Runtime(tools=[BoundTool.build(spec, handler)])

    runtime.call("greet", {"who": "Ada"})
    runtime.call("greet", '{"who": "Ada"}')
    runtime.call("greet", {"who": "Ada"}, session="s-1")

    assert seen[0] == seen[1] == runtime.context("greet") == ToolContext("greet", None, spec, runtime.resources)
    assert seen[2] == ToolContext("greet", "s-1", spec, runtime.resources)


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
        ("[" * 10_000 + "]" * 10_000, "$[0]: nested more than 512 levels deep"),  # valid JSON: where it is too deep
        ("[" * 100_000 + "]" * 100_000, "$: nested too deeply to read (1000 levels or so) in a text over 65536 bytes"),
    ],
)
def test_bad_arguments_become_invalid_arguments_naming_the_field(arguments: str, detail: str) -> None:
    result = _runtime().call("greet", arguments)

    assert result.error is not None
    assert result.error.code == "invalid_arguments"
    assert result.error.message == f"Invalid arguments: {detail}"


def _echo_runtime() -> Runtime:
    """A tool whose output is its arguments, rendered as JSON."""
    spec = _spec(
        name="echo",
        input={"type": "object"},
        output={"type": "object"},
        render={"result": "{$}", "error": "ERROR: {message}"},
    )
    return Runtime(tools=[BoundTool.build(spec, lambda args, ctx: args)])


@pytest.mark.parametrize(
    "text",
    [
        '{"n": 123456789012345678901234567890}',
        '{"n": 18446744073709551615, "m": 18446744073709551616, "k": -9223372036854775809}',
        '{"n": 1234567890123456789}',
        '{"x": 123456789012345678901234.0}',  # orjson would round this one differently
        '{"x": 0.1234567890123456789}',
        '{"a": [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0], "b": 12.5}',  # 20 digits, none in a row
        '{"s": "1234567890123456789012", "n": 1}',
        '{"s": "\u0663\u0663\u0663\u0663\u0663\u0663\u0663\u0663\u0663\u0663\u0663\u0663\u0663\u0663'
        '\u0663\u0663\u0663\u0663\u0663", "n": 123456789012345678901234567890}',  # Arabic-Indic digits
        '{"\u00e9": 123456789012345678901234567890}',
    ],
)
@pytest.mark.parametrize("as_bytes", [False, True])
def test_numbers_in_json_text_are_read_as_the_standard_library_reads_them(text: str, as_bytes: bool) -> None:
    result = _echo_runtime().call("echo", text.encode("utf-8") if as_bytes else text)

    assert result.ok, result.error
    assert repr(result.output) == repr(json.loads(text))


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
    assert bad.to_dict()["error"] == {  # the hint too: a caller that reads structure gets it (contracts/README)
        "code": "unknown_person",
        "message": "Nobody called 'ghost'",
        "hint": "Ask for their name.",
    }
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


@pytest.mark.parametrize(
    ("arguments", "detail"),
    [
        ({"who": "a\udcff"}, "$.who: holds a lone surrogate (\\udcff at character 1), which is not text"),
        ('{"who": "\\udcff"}', "$.who: holds a lone surrogate (\\udcff at character 0), which is not text"),
        ('{"who": "\udcff"}', "$.who: holds a lone surrogate (\\udcff at character 0), which is not text"),
        (b'{"who": "\\ud800x"}', "$.who: holds a lone surrogate (\\ud800 at character 0), which is not text"),
        ('{"who": "\\uD800"}', "$.who: holds a lone surrogate (\\ud800 at character 0), which is not text"),
        (b'{"who": "ok\\uDfFf"}', "$.who: holds a lone surrogate (\\udfff at character 2), which is not text"),
        ('{"who": "\\ude80\\ud83d"}', "$.who: holds a lone surrogate (\\ude80 at character 0), which is not text"),
        ('{"who": "ab\\ud83dcd"}', "$.who: holds a lone surrogate (\\ud83d at character 2), which is not text"),
        ('{"who": "\\\\\\ud800"}', "$.who: holds a lone surrogate (\\ud800 at character 1), which is not text"),
        ('{"w\\udcffo": 1}', "$['w\\udcffo']: the property name holds a lone surrogate, which is not text"),
        (
            {"who": "Ada", "w\udcffo": 1},
            "$['w\\udcffo']: the property name holds a lone surrogate, which is not text",
        ),
        ({"who": ["ok", "\udfff"]}, "$.who[1]: holds a lone surrogate (\\udfff at character 0), which is not text"),
        (
            {"who": {"a b": "\ud83d"}},
            "$.who['a b']: holds a lone surrogate (\\ud83d at character 0), which is not text",
        ),
    ],
)
def test_a_lone_surrogate_in_the_arguments_is_invalid_arguments_naming_where(arguments: Any, detail: str) -> None:
    result = _runtime().call("greet", arguments)

    assert result.error is not None
    assert result.error.code == "invalid_arguments"
    assert result.error.message == f"Invalid arguments: {detail}; send valid Unicode text"
    _writable(result)


def test_a_surrogate_pair_is_text_not_a_lone_surrogate() -> None:
    assert _runtime().call("greet", '{"who": "\\ud83d\\ude80"}').text == "Hello, \U0001f680!"


@pytest.mark.parametrize(
    ("arguments", "who"),
    [
        ('{"who": "\\\\ud800"}', "\\ud800"),  # an escaped backslash, then the letters "ud800"
        ('{"who": "\\\\uD800\\\\"}', "\\uD800\\"),
        (b'{"who": "\\\\udfff"}', "\\udfff"),
        ('{"who": "\\u00e9\\ud7ff\\ue000"}', "\u00e9\ud7ff\ue000"),  # just outside the surrogates
        ('{"who": "\\uD83D\\uDE80"}', "\U0001f680"),
    ],
)
def test_text_that_only_looks_like_a_surrogate_escape_is_text(arguments: str | bytes, who: str) -> None:
    result = _runtime().call("greet", arguments)

    assert result.ok, result.error
    assert result.text == f"Hello, {who}!"


def test_a_number_beyond_the_range_of_floats_is_invalid_arguments_naming_where_not_infinity() -> None:
    result = _runtime().call("greet", '{"who": 1e400}')

    assert result.error is not None
    assert result.error.message == "Invalid arguments: $.who: a number beyond the range of a float (about 1.8e308)"


def test_a_lone_surrogate_a_handler_puts_in_its_output_becomes_a_replacement_character() -> None:
    result = _runtime().call("greet", {"who": "disk-surrogate"})

    assert result.ok
    assert result.output == {"greeting": "Hello, t\ufffd.txt!"}
    assert result.text == "Hello, t\ufffd.txt!"
    _writable(result)


def test_a_lone_surrogate_in_an_error_message_becomes_a_replacement_character() -> None:
    result = _runtime().call("greet", {"who": "disk-surrogate-error"})

    assert result.error is not None
    assert result.error.message == "Nobody called 't\ufffd.txt'"
    assert result.text == "ERROR: Nobody called 't\ufffd.txt'"
    _writable(result)


def test_an_unknown_tool_named_with_a_lone_surrogate_is_answered_in_writable_text() -> None:
    result = _runtime().call("gr\udcffeet", {})

    assert result.error is not None and result.error.code == "unknown_tool"
    assert result.error.message == "Unknown tool 'gr\ufffdeet'. Available tools: greet."
    _writable(result)


def test_an_error_parameter_json_cannot_write_falls_back_to_the_default_render() -> None:
    runtime = _runtime(render={"result": "{greeting}", "error": "E {who}: {message}"})

    result = runtime.call("greet", {"who": "unwritable-param"})

    assert result.error is not None and result.error.code == "unknown_person"
    assert result.text == "ERROR: Nobody called 'x'"


def test_output_that_cannot_be_json_is_internal_error_even_without_output_validation(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR):
        result = _runtime(validate_output=False).call("greet", {"who": "set"})

    assert result.error is not None and result.error.code == "internal_error"
    assert "cannot be written as JSON (a dict)" in caplog.text


def test_integers_beyond_64_bits_in_an_output_stay_exact() -> None:
    result = _runtime(validate_output=False, render={"result": "{$}", "error": "E"}).call("greet", {"who": "huge-int"})

    assert result.ok
    assert json_bytes(result.output) == b'{"greeting":1180591620717411303424}'
    assert result.text == '{"greeting": 1180591620717411303424}'


def test_a_result_over_the_cap_is_response_too_large_with_a_hint_to_ask_for_less() -> None:
    runtime = Runtime(tools=[BoundTool.build(_spec(), _greet)], max_result_bytes=1000)

    under = runtime.call("greet", {"who": "big:400"})  # 400 in the text + 415 in the output
    over = runtime.call("greet", {"who": "big:600"})

    assert under.ok
    assert over.error is not None
    assert over.error.code == RESPONSE_TOO_LARGE
    assert over.error.message == "The result is too large to return: about 1215 bytes; the limit is 1000."
    assert over.error.hint == "Ask for less: a smaller range or limit, or a narrower request."
    assert over.text == "ERROR: The result is too large to return: about 1215 bytes; the limit is 1000."


def test_an_output_over_the_cap_is_refused_before_it_is_rendered() -> None:
    runtime = Runtime(tools=[BoundTool.build(_spec(), _greet)], max_result_bytes=1000)

    result = runtime.call("greet", {"who": "big:2000"})

    assert result.error is not None
    assert result.error.message == "The result is too large to return: about 2015 bytes; the limit is 1000."


def test_a_result_is_capped_in_utf8_bytes_not_characters() -> None:
    runtime = Runtime(tools=[BoundTool.build(_spec(), _greet)], max_result_bytes=1000)

    result = runtime.call("greet", {"who": "\u00e9" * 300})  # 631 characters, 1231 bytes

    assert result.error is not None
    assert result.error.message == "The result is too large to return: about 1231 bytes; the limit is 1000."


def test_a_tool_result_is_a_frozen_dataclass_built_by_position_or_by_name() -> None:
    result = ToolResult("greet", {"greeting": "hi"}, None, "hi")

    assert result == ToolResult(tool="greet", output={"greeting": "hi"}, error=None, text="hi")
    assert repr(result) == "ToolResult(tool='greet', output={'greeting': 'hi'}, error=None, text='hi', attached=())"
    assert replace(result, text="ho") == ToolResult("greet", {"greeting": "hi"}, None, "ho")
    with pytest.raises(FrozenInstanceError):
        result.text = "ho"  # type: ignore[misc]


def test_the_result_cap_defaults_to_80_mib() -> None:
    assert _runtime().max_result_bytes == MAX_RESULT_BYTES == 80 * 1024 * 1024
    assert STANDARD_ERRORS[RESPONSE_TOO_LARGE].status == 413
