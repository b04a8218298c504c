"""A contract's ``attaches``: the content blocks a handler may add, refused when undeclared, carried where a result can.

MCP carries every kind after the rendered text; Anthropic's ``tool_result`` carries text and image
blocks; every other provider carries the text only, and the export lists what it drops
(tests/generator/test_exports.py).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

import pytest

from toolproof.runtime.context import ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import INTERNAL_ERROR, RESPONSE_TOO_LARGE
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.serve.adapters import (
    anthropic_tool_results,
    gemini_function_responses,
    mcp_tools_call,
    openai_chat_tool_messages,
)
from toolproof.runtime.serve.mcp import McpServer
from toolproof.runtime.spec import ToolSpec, load_specs

PNG = "iVBORw0KGgo="
IMAGE = {"type": "image", "data": PNG, "mimeType": "image/png"}
AUDIO = {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}
RESOURCE = {"type": "resource", "resource": {"uri": "test://r", "mimeType": "text/plain", "text": "held"}}


def _spec(attaches: list[str]) -> ToolSpec:
    return ToolSpec.from_data(
        {
            "name": "chart",
            "module": "chart",
            "handler": "tests:chart",
            **({"attaches": attaches} if attaches else {}),
            "input": {
                "type": "object",
                "properties": {"blocks": {"type": "array", "items": {"type": "string"}}},
                "additionalProperties": False,
            },
            "output": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            "errors": {},
            "render": {"result": "{text}", "error": "ERROR: {message}"},
            "examples": [],
            "source": "contracts/chart.yaml",
        }
    )


BLOCKS: dict[str, dict[str, Any]] = {
    "image": IMAGE,
    "audio": AUDIO,
    "resource": RESOURCE,
    "text": {"type": "text", "text": "a note"},
}


def _chart(args: Any, ctx: ToolContext) -> Any:
    for kind in args.get("blocks", []):
        ctx.attach(BLOCKS[kind])
    return {"text": "The chart rises."}


def _runtime(*attaches: str) -> Runtime:
    return Runtime(tools=[BoundTool.build(_spec(list(attaches)), _chart)])


def _mcp(runtime: Runtime, blocks: list[str]) -> dict[str, Any]:
    arguments = {"blocks": blocks}
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "chart", "arguments": arguments}}
    answer: dict[str, Any] = mcp_tools_call(runtime, request)["result"]
    return answer


def test_declared_blocks_follow_the_rendered_text_in_an_mcp_result() -> None:
    result = _mcp(_runtime("image", "resource"), ["image", "resource"])

    assert result["isError"] is False
    assert result["content"] == [{"type": "text", "text": "The chart rises."}, IMAGE, RESOURCE]
    assert result["structuredContent"] == {"text": "The chart rises."}


def test_an_undeclared_kind_is_refused_as_internal_error_and_logged_with_the_contract_to_fix(
    caplog: pytest.LogCaptureFixture,
) -> None:
    runtime = _runtime("image")

    with caplog.at_level(logging.ERROR):
        result = runtime.call("chart", {"blocks": ["image", "audio"]})

    assert result.error is not None and result.error.code == INTERNAL_ERROR
    logged = "\n".join(record.getMessage() + str(record.exc_info) for record in caplog.records)
    assert "'audio'" in logged and "attaches" in logged and "contracts/chart.yaml" in logged


def test_an_undeclared_kind_is_refused_where_no_transport_listens_too() -> None:
    """The CLI and REST drop blocks; refusing there as well keeps a missing declaration from hiding until MCP."""
    result = _runtime().call("chart", {"blocks": ["image"]})

    assert result.error is not None and result.error.code == INTERNAL_ERROR


def test_a_failed_call_carries_no_blocks_over_mcp() -> None:
    result = _mcp(_runtime("image"), ["image", "audio"])

    assert result["isError"] is True
    assert [block["type"] for block in result["content"]] == ["text"]


def test_anthropic_tool_results_carry_text_and_image_blocks_and_drop_the_rest() -> None:
    runtime = _runtime("image", "audio", "resource", "text")
    message = {"content": [{"type": "tool_use", "id": "t1", "name": "chart", "input": {"blocks": list(BLOCKS)}}]}

    (block,) = anthropic_tool_results(runtime, message)["content"]

    assert block["content"] == [
        {"type": "text", "text": "The chart rises."},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "text", "text": "a note"},
    ]
    assert "is_error" not in block


def test_an_anthropic_result_without_blocks_stays_a_string() -> None:
    message = {"content": [{"type": "tool_use", "id": "t1", "name": "chart", "input": {"blocks": ["audio"]}}]}

    (block,) = anthropic_tool_results(_runtime("audio"), message)["content"]

    assert block["content"] == "The chart rises."


def test_text_only_providers_get_the_rendered_text_alone() -> None:
    runtime = _runtime("image")
    openai = {
        "choices": [
            {
                "message": {
                    "tool_calls": [{"id": "c1", "function": {"name": "chart", "arguments": '{"blocks": ["image"]}'}}]
                }
            }
        ]
    }
    gemini = {
        "candidates": [{"content": {"parts": [{"functionCall": {"name": "chart", "args": {"blocks": ["image"]}}}]}}]
    }

    assert openai_chat_tool_messages(runtime, openai)[0]["content"] == "The chart rises."
    response = gemini_function_responses(runtime, gemini)["parts"][0]["functionResponse"]["response"]
    assert response == {"output": "The chart rises."}


def test_the_host_apis_to_mcp_carries_every_attached_block_as_the_mcp_server_sends_it() -> None:
    """README: ``tools.call(...).to_mcp()`` is the CallToolResult; it once dropped every attached block."""
    spec = next(s for s in load_specs() if s.name == "file-read")

    def plots(args: Any, ctx: ToolContext) -> dict[str, Any]:
        ctx.attach(IMAGE)
        ctx.attach(RESOURCE)
        return {"message": "done", "content": ""}

    tool = BoundTool.build(replace(spec, needs=(), attaches=frozenset({"image", "resource"})), plots)
    runtime = Runtime(tools=[tool], validate_output=False)
    arguments = {"path": "notes.txt"}
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "file-read", "arguments": arguments},
    }

    hosted = runtime.call("file-read", {"path": "notes.txt"})
    served = McpServer(runtime, handshake=False).handle(request)

    assert hosted.attached == (IMAGE, RESOURCE)
    assert served is not None
    assert hosted.to_mcp() == served["result"]
    assert hosted.to_mcp()["content"][1:] == [IMAGE, RESOURCE]


def test_to_mcp_hands_out_copies_so_a_caller_editing_them_leaves_the_result_as_it_was() -> None:
    result = _runtime("image").call("chart", {"blocks": ["image"]})

    result.to_mcp()["content"][1]["data"] = "changed"

    assert result.to_mcp()["content"][1] == IMAGE


def test_a_block_that_cannot_be_written_as_json_is_internal_error_not_a_crash_of_the_transport(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def raw(args: Any, ctx: ToolContext) -> Any:
        ctx.attach({"type": "image", "data": b"\x89PNG", "mimeType": "image/png"})
        return {"text": "The chart rises."}

    runtime = Runtime(tools=[BoundTool.build(_spec(["image"]), raw)])

    with caplog.at_level(logging.ERROR):
        result = runtime.call("chart", {})

    assert result.error is not None and result.error.code == INTERNAL_ERROR
    assert result.attached == ()
    assert "chart attached a content block that cannot be written as JSON" in caplog.text


def test_attached_blocks_count_toward_the_result_cap() -> None:
    big = {"type": "image", "data": "A" * 2000, "mimeType": "image/png"}

    def heavy(args: Any, ctx: ToolContext) -> Any:
        ctx.attach(big)
        return {"text": "The chart rises."}

    runtime = Runtime(tools=[BoundTool.build(_spec(["image"]), heavy)], max_result_bytes=1000)

    result = runtime.call("chart", {})

    assert result.error is not None and result.error.code == RESPONSE_TOO_LARGE
    assert result.to_mcp()["content"] == [{"type": "text", "text": result.text}]
