"""Each adapter round-trips a recorded provider response through the runtime.

The recorded bodies are validated against the providers' own SDK models first,
so they have the shape the APIs really return; the messages the adapters build
are validated against the SDK models for what goes back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import AdapterInputError
from toolproof.runtime.serve.adapters import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    anthropic_tool_results,
    gemini_function_responses,
    mcp_tools_call,
    openai_chat_tool_messages,
    openai_responses_outputs,
)
from toolproof.runtime.toolbox import builtin_runtime

RECORDED = Path(__file__).parent / "recorded"


def _recorded(name: str) -> Any:
    return json.loads((RECORDED / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    base = tmp_path_factory.mktemp("adapters")
    skill = base / "skills" / "calculator"
    (skill / "examples").mkdir(parents=True)
    (skill / "examples" / "basic.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    (skill / "SKILL.MD").write_text("# Calculator\n", encoding="utf-8")
    (base / "ws").mkdir()
    (base / "ws" / "notes.txt").write_text("one\ntwo\n", encoding="utf-8")
    yield builtin_runtime(workspace=[base / "ws"], skills=[base / "skills"], gate_secret=b"adapters")


def test_openai_chat_tool_calls_become_tool_messages(runtime: Runtime) -> None:
    from openai.types.chat import ChatCompletion, ChatCompletionToolMessageParam

    response = _recorded("openai_chat_completion.json")
    ChatCompletion.model_validate(response)

    messages = openai_chat_tool_messages(runtime, response)

    assert messages == [
        {"role": "tool", "tool_call_id": "call_abc123", "content": "def add(a, b):\n    return a + b\n"},
        {
            "role": "tool",
            "tool_call_id": "call_def456",
            "content": "ERROR: Path traversal detected: cannot access files outside skill folder",
        },
    ]
    for message in messages:
        TypeAdapter(ChatCompletionToolMessageParam).validate_python(message)


def test_openai_chat_adapter_takes_sdk_models_too(runtime: Runtime) -> None:
    from openai.types.chat import ChatCompletion

    model = ChatCompletion.model_validate(_recorded("openai_chat_completion.json"))

    assert openai_chat_tool_messages(runtime, model) == openai_chat_tool_messages(
        runtime, _recorded("openai_chat_completion.json")
    )


def test_openai_responses_function_calls_become_outputs_with_nulls_read_as_absent(runtime: Runtime) -> None:
    from openai.types.responses import Response
    from openai.types.responses.response_input_item_param import FunctionCallOutput

    response = _recorded("openai_response.json")
    Response.model_validate(response)

    outputs = openai_responses_outputs(runtime, response)

    assert outputs == [
        {
            "type": "function_call_output",
            "call_id": "call_Xy7PqR2sT9uV",
            "output": "Read 2 lines from notes.txt\n\n1 | one\n2 | two",
        }
    ]
    TypeAdapter(FunctionCallOutput).validate_python(outputs[0])


def test_anthropic_tool_use_becomes_tool_results_with_is_error(runtime: Runtime) -> None:
    from anthropic.types import Message, MessageParam

    message = _recorded("anthropic_message.json")
    Message.model_validate(message)

    reply = anthropic_tool_results(runtime, message)

    assert reply == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
                "content": '{"skill_name": "calculator", "documentation": "# Calculator\\n"}',
            },
            {
                "type": "tool_result",
                "tool_use_id": "toolu_01B19q90qw90lq917835lq8",
                "content": json.dumps(
                    {"error": "Invalid skill name: '../../etc'. Skill names must not contain '/', '\\', or '..'"}
                ),
                "is_error": True,
            },
        ],
    }
    TypeAdapter(MessageParam).validate_python(reply)


def test_gemini_function_calls_become_function_responses(runtime: Runtime) -> None:
    from google.genai import types

    response = _recorded("gemini_response.json")
    types.GenerateContentResponse.model_validate(response)

    content = gemini_function_responses(runtime, response)

    first, second = content["parts"]
    assert first["functionResponse"]["name"] == "read_skill"
    assert first["functionResponse"]["id"] == "call-7c1e"
    assert first["functionResponse"]["response"]["output"].startswith("# Data analysis")
    assert second["functionResponse"]["response"]["error"]["code"] == "invalid_arguments"
    types.Content.model_validate(content)


def test_mcp_tools_call_answers_with_a_call_tool_result(runtime: Runtime) -> None:
    from mcp import types

    request = _recorded("mcp_tools_call.json")
    types.CallToolRequest.model_validate(request)

    response = mcp_tools_call(runtime, request, session="mcp")

    assert response["jsonrpc"] == "2.0" and response["id"] == 7
    result = types.CallToolResult.model_validate(response["result"])
    assert result.is_error is False
    assert result.structured_content is not None
    assert result.structured_content["path"] == "builtin://read_file/SKILL.md"
    assert "skillToken" in result.structured_content


def test_mcp_tool_errors_are_results_and_unknown_tools_are_rpc_errors(runtime: Runtime) -> None:
    from mcp import types

    refused = mcp_tools_call(
        runtime,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "read_file", "arguments": {"path": "x"}},
        },
    )
    unknown = mcp_tools_call(runtime, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "nope"}})
    malformed = mcp_tools_call(runtime, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": []})
    bad_args = mcp_tools_call(
        runtime, {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "read_file", "arguments": [1]}}
    )

    assert types.CallToolResult.model_validate(refused["result"]).is_error is True
    assert unknown["error"] == {"code": INVALID_PARAMS, "message": "Unknown tool: nope"}
    assert malformed["error"]["code"] == INVALID_REQUEST
    assert bad_args["error"]["code"] == INVALID_PARAMS


@pytest.mark.parametrize(
    "request_id", [None, 1.5, True, [1], {"a": 1}], ids=["null", "float", "bool", "list", "object"]
)
def test_an_mcp_request_id_that_is_not_a_string_or_integer_is_not_echoed(runtime: Runtime, request_id: Any) -> None:
    request = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "read_file"}}

    response = mcp_tools_call(runtime, request)

    assert response == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": INVALID_REQUEST, "message": "the request id must be a string or an integer"},
    }


@pytest.mark.parametrize("request_id", ["abc", 0, -1, 2**70], ids=["string", "zero", "negative", "beyond-64-bits"])
def test_an_mcp_request_id_that_is_a_string_or_integer_is_echoed_as_it_is(runtime: Runtime, request_id: Any) -> None:
    request = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "nope"}}

    assert mcp_tools_call(runtime, request)["id"] == request_id


def test_every_adapter_answers_a_lone_surrogate_in_the_arguments_with_writable_text(runtime: Runtime) -> None:
    arguments = {"skill_name": "calculator", "file_path": "x\udcff"}
    chat = openai_chat_tool_messages(
        runtime,
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c1", "function": {"name": "read_file_in_skill", "arguments": json.dumps(arguments)}}
            ],
        },
    )
    anthropic = anthropic_tool_results(
        runtime, {"content": [{"type": "tool_use", "id": "t1", "name": "read_file_in_skill", "input": arguments}]}
    )

    for text in (chat[0]["content"], anthropic["content"][0]["content"]):
        text.encode("utf-8")
        assert "$.file_path: holds a lone surrogate" in text


_CHAT = "openai_chat_tool_messages: expected a Chat Completion (with `choices`) or an assistant message; given "
_RESPONSES = "openai_responses_outputs: expected a Responses API response (with `output`); given "
_ANTHROPIC = "anthropic_tool_results: expected a Messages API response (a message whose `content` is a list); given "
_GEMINI = "gemini_function_responses: expected a generateContent response (with `candidates`); given "


@pytest.mark.parametrize(
    ("adapter", "given", "message"),
    [
        (
            anthropic_tool_results,
            lambda: _recorded("anthropic_message.json")["content"],
            _ANTHROPIC + "a list of 3 item(s), the first a dict with keys text, type",
        ),
        (anthropic_tool_results, lambda: {"role": "assistant", "content": "hi"}, _ANTHROPIC + "`content` as a str"),
        (anthropic_tool_results, lambda: "hi", _ANTHROPIC + "a str"),
        (
            openai_chat_tool_messages,
            lambda: _recorded("openai_chat_completion.json")["choices"][0]["message"]["tool_calls"],
            _CHAT + "a list of 2 item(s), the first a dict with keys function, id, type",
        ),
        (openai_chat_tool_messages, lambda: None, _CHAT + "None"),
        (
            openai_responses_outputs,
            lambda: _recorded("openai_response.json")["output"],
            _RESPONSES + "a list of 1 item(s), the first a dict with keys arguments, call_id, id, name, status, type",
        ),
        (
            openai_responses_outputs,
            lambda: {"role": "assistant", "tool_calls": []},
            _RESPONSES + "a dict with keys role, tool_calls",
        ),
        (
            gemini_function_responses,
            lambda: _recorded("gemini_response.json")["candidates"][0]["content"],
            _GEMINI + "a dict with keys parts, role",
        ),
        (
            gemini_function_responses,
            lambda: {"candidates": {"content": {}}},
            _GEMINI + "`candidates` as a dict with keys content",
        ),
    ],
    ids=[
        "anthropic: the content list",
        "anthropic: string content",
        "anthropic: a string",
        "openai chat: the tool_calls list",
        "openai chat: None",
        "openai responses: the output list",
        "openai responses: a chat message",
        "gemini: one candidate's content",
        "gemini: candidates not a list",
    ],
)
def test_an_adapter_handed_another_shape_refuses_it_naming_what_it_expected_instead_of_answering_nothing(
    runtime: Runtime, adapter: Callable[[Runtime, Any], Any], given: Callable[[], Any], message: str
) -> None:
    with pytest.raises(AdapterInputError) as refused:
        adapter(runtime, given())

    assert str(refused.value) == message
    assert refused.value.code == "wrong_shape"
    assert isinstance(refused.value, TypeError)


def test_a_response_that_asks_for_no_tool_is_still_answered_with_no_result(runtime: Runtime) -> None:
    """Only the shape is refused: a message of text alone, or a prompt Gemini blocked, holds no call."""
    text_only = {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}

    assert anthropic_tool_results(runtime, text_only) == {"role": "user", "content": []}
    assert openai_chat_tool_messages(runtime, {"role": "assistant", "content": "Done."}) == []
    assert openai_responses_outputs(runtime, {"output": []}) == []
    assert gemini_function_responses(runtime, {"promptFeedback": {"blockReason": "SAFETY"}}) == {
        "role": "user",
        "parts": [],
    }


def test_every_adapter_takes_the_providers_sdk_model_as_it_takes_the_json(runtime: Runtime) -> None:
    from anthropic.types import Message
    from google.genai import types
    from openai.types.responses import Response

    anthropic = _recorded("anthropic_message.json")
    gemini = _recorded("gemini_response.json")
    responses = _recorded("openai_response.json")

    assert anthropic_tool_results(runtime, Message.model_validate(anthropic)) == anthropic_tool_results(
        runtime, anthropic
    )
    assert gemini_function_responses(
        runtime, types.GenerateContentResponse.model_validate(gemini)
    ) == gemini_function_responses(runtime, gemini)
    assert openai_responses_outputs(runtime, Response.model_validate(responses)) == openai_responses_outputs(
        runtime, responses
    )
