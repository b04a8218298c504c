"""``render.error_output``: the structured object an error carries, rendered and sent by every transport."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from tests.asgi import post_json
from toolproof.runtime.context import ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import ToolError
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.serve.adapters import anthropic_tool_results, gemini_function_responses
from toolproof.runtime.serve.http import HttpApp
from toolproof.runtime.serve.mcp import ERROR_META_KEY, McpServer
from toolproof.runtime.spec import ErrorOutput, ToolSpec
from toolproof.runtime.toolbox import builtin_runtime

SHAPE = {"success": False, "who": "{who}", "volume": "{volume}", "error": "{message}", "said": "{who} said {volume}"}


def _spec(shape: dict[str, Any]) -> ToolSpec:
    return ToolSpec.from_data(
        {
            "name": "shout",
            "module": "shout",
            "handler": "tests:shout",
            "input": {
                "type": "object",
                "properties": {"who": {"type": "string", "minLength": 1}},
                "required": ["who"],
                "additionalProperties": False,
            },
            "output": {"type": "object", "properties": {"ok": {"const": True}}, "required": ["ok"]},
            "errors": {"too_loud": {"message": "{who} is too loud ({volume} dB)"}},
            "render": {"result": "{$}", "error": "ERROR: {message}", "error_output": shape},
            "examples": [],
            "source": "contracts/shout.yaml",
        }
    )


def _shout(args: Any, ctx: ToolContext) -> Any:
    who = args["who"]
    if who == "set":
        raise ToolError("too_loud", "set is too loud", {"who": who, "volume": {1, 2}})
    if who == "disk":
        raise ToolError("too_loud", "t\udcff is too loud (3 dB)", {"who": "t\udcff", "volume": 3})
    raise ToolError("too_loud", f"{who} is too loud (120 dB)", {"who": who, "volume": 120})


def _runtime(shape: dict[str, Any] = SHAPE) -> Runtime:
    return Runtime(tools=[BoundTool.build(_spec(shape), _shout)])


def test_a_whole_placeholder_keeps_the_type_and_literals_stay_typed() -> None:
    result = _runtime().call("shout", {"who": "Ada"})

    assert result.error is not None
    assert result.error.output == {
        "success": False,
        "who": "Ada",
        "volume": 120,
        "error": "Ada is too loud (120 dB)",
        "said": "Ada said 120",
    }


def test_a_key_naming_a_value_the_error_lacks_is_left_out() -> None:
    result = _runtime().call("shout", {})

    assert result.error is not None
    assert result.error.code == "invalid_arguments"
    assert result.error.output == {
        "success": False,
        "error": "Invalid arguments: $.who: required property is missing",
    }


def test_a_tool_without_error_output_carries_none() -> None:
    spec = _spec(SHAPE)
    runtime = Runtime(tools=[BoundTool.build(ToolSpec(**{**_fields(spec), "render_error_output": None}), _shout)])

    result = runtime.call("shout", {"who": "Ada"})

    assert result.error is not None
    assert result.error.output is None
    assert "output" not in result.error.to_dict()
    assert "output" not in (result.to_dict()["error"] or {})


def _fields(spec: ToolSpec) -> dict[str, Any]:
    return {name: getattr(spec, name) for name in ToolSpec.__dataclass_fields__}


def test_a_lone_surrogate_a_handler_puts_in_a_param_becomes_a_replacement_character() -> None:
    result = _runtime().call("shout", {"who": "disk"})

    assert result.error is not None
    assert result.error.output is not None
    assert result.error.output["who"] == "t\ufffd"
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")


def test_a_param_json_cannot_write_drops_the_object_and_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR):
        result = _runtime().call("shout", {"who": "set"})

    assert result.error is not None
    assert result.error.code == "too_loud"
    assert result.error.output is None
    assert "the error_output of shout cannot be written as JSON for too_loud" in caplog.text


def test_the_cli_shape_carries_the_object_and_the_provider_adapters_keep_the_text() -> None:
    runtime = _runtime()
    result = runtime.call("shout", {"who": "Ada"})
    anthropic = {"content": [{"type": "tool_use", "id": "t1", "name": "shout", "input": {"who": "Ada"}}]}
    gemini = {"candidates": [{"content": {"parts": [{"functionCall": {"name": "shout", "args": {"who": "Ada"}}}]}}]}

    assert result.to_dict()["error"]["output"]["volume"] == 120
    assert result.to_openai_message("call_1") == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "ERROR: Ada is too loud (120 dB)",
    }
    assert anthropic_tool_results(runtime, anthropic)["content"] == [
        {"type": "tool_result", "tool_use_id": "t1", "content": "ERROR: Ada is too loud (120 dB)", "is_error": True}
    ]
    assert gemini_function_responses(runtime, gemini)["parts"][0]["functionResponse"]["response"] == {
        "error": {"code": "too_loud", "message": "Ada is too loud (120 dB)", "text": "ERROR: Ada is too loud (120 dB)"}
    }


def test_error_output_templates_are_parsed_once_and_keep_literals() -> None:
    shape = ErrorOutput.parse({"a": [1, "{x}"], "b": "{x|json}", "c": None})

    assert shape.render({"x": "q"}) == {"a": [1, "{x}"], "b": '"q"', "c": None}


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    folder = tmp_path / "skills"
    (folder / "calculator").mkdir(parents=True)
    (folder / "calculator" / "SKILL.MD").write_text("# Calculator\n", encoding="utf-8")
    return folder


SEED_ERROR = {
    "success": False,
    "skill_name": "calculator",
    "file_path": "missing.py",
    "error": "File 'missing.py' not found in skill 'calculator'",
}
"""Seed 000's error response for a missing file."""


def test_mcp_sends_the_object_in_meta_beside_is_error_and_not_as_structured_content(skills: Path) -> None:
    server = McpServer(builtin_runtime(skills=[skills]), handshake=False)
    call = {"skill_name": "calculator", "file_path": "missing.py"}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "read_file_in_skill"}}
    message["params"]["arguments"] = call  # type: ignore[index]

    answer = server.answer(message, modern=False)

    assert answer is not None
    result = answer["result"]
    assert result["isError"] is True
    assert "structuredContent" not in result
    assert result["_meta"][ERROR_META_KEY] == {
        "code": "file_not_found",
        "message": "File 'missing.py' not found in skill 'calculator'",
        "hint": "Read SKILL.MD first to see which files the skill has.",
        "output": SEED_ERROR,
    }
    assert result["content"] == [{"type": "text", "text": "ERROR: File 'missing.py' not found in skill 'calculator'"}]


def test_http_sends_the_object_as_output_beside_code_message_and_hint(skills: Path) -> None:
    app = HttpApp(builtin_runtime(skills=[skills]))

    status, body = _post(app, "/tools/read_file_in_skill", {"skill_name": "calculator", "file_path": "missing.py"})

    assert status == 404
    assert body == {
        "code": "file_not_found",
        "message": "File 'missing.py' not found in skill 'calculator'",
        "hint": "Read SKILL.MD first to see which files the skill has.",
        "output": SEED_ERROR,
    }


def _post(app: HttpApp, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    """POST ``body`` to ``app`` in process; the status and the parsed answer."""
    return post_json(app, path, body, None)
