"""JSON-RPC framing (``serve/jsonrpc.py``): the one error answer every MCP transport builds.

Its id is the request's when that may be a request id (a string or an
integer), else null: stdio and Streamable HTTP once had a copy each, and only
the HTTP one cleaned the id.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolproof.runtime.json_reader import (
    Unreadable,
)
from toolproof.runtime.serve.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, error_response, result_response
from toolproof.runtime.serve.mcp import (
    McpServer,
    decode_message,
)
from toolproof.runtime.toolbox import builtin_runtime


@pytest.mark.parametrize("request_id", [7, -1, 10**40, "abc", ""], ids=repr)
def test_an_error_answer_echoes_a_string_or_integer_id(request_id: Any) -> None:
    answer = error_response(request_id, INVALID_REQUEST, "Invalid Request")

    assert answer == {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": INVALID_REQUEST, "message": "Invalid Request"},
    }


@pytest.mark.parametrize(
    "request_id",
    [None, True, False, 1.5, [1], {"a": 1}, "\ud800", Unreadable("an integer of more than 4300 digits")],
    ids=["null", "true", "false", "float", "array", "object", "lone surrogate", "unreadable"],
)
def test_an_error_answer_to_an_invalid_request_id_carries_id_null(request_id: Any) -> None:
    answer = error_response(request_id, INTERNAL_ERROR, "Internal error", {"why": 1})

    assert answer == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": INTERNAL_ERROR, "message": "Internal error", "data": {"why": 1}},
    }


def test_a_result_answer_carries_its_id_and_value() -> None:
    assert result_response(3, {}) == {"jsonrpc": "2.0", "id": 3, "result": {}}


@pytest.mark.parametrize("request_id", [True, 2.5, [1]], ids=["true", "float", "array"])
def test_the_protocol_core_answers_a_batched_initialize_of_invalid_id_with_id_null(
    tmp_path: Path, request_id: Any
) -> None:
    server = McpServer(builtin_runtime(workspace=[tmp_path]))
    initialize = {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": {}}

    answers = server.answer_batch([initialize])

    assert isinstance(answers, list)
    assert answers[0]["id"] is None
    assert answers[0]["error"]["code"] == INVALID_REQUEST


NINES = "9" * 4400


def test_decode_message_marks_what_it_cannot_hold_and_reads_the_rest() -> None:
    message = decode_message(f'{{"id": 1, "a": [{NINES}, 1e999, 2], "b": "x"}}'.encode())

    assert message["id"] == 1 and message["b"] == "x" and message["a"][2] == 2
    assert [type(item) for item in message["a"][:2]] == [Unreadable, Unreadable]
