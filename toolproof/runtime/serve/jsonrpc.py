"""JSON-RPC 2.0 framing for MCP: error codes, request ids, and messages to and from bytes.

Request ids are strings or integers (JSON-RPC, MCP); an answer to a request
with any other id carries id null (``error_response`` cleans it). Integers of up to
4,300 digits (``json_reader.MAX_INT_DIGITS``) stay exact both ways (the standard
library reads and writes those orjson cannot). A text of valid JSON holding
what no reader here holds (a longer integer, ``1e400``, nesting deeper than
1024) is still read, so that it is answered by its own id
(``decode_message``); a long text the reader gave up on whole that is not JSON
at all (truncated, say) is still a parse error. No answer can stop a
transport: one that cannot be encoded is replaced by a JSON-RPC internal error
for its id (``encode_message``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final

from toolproof.runtime.json_reader import JsonBeyondLimits, json_value
from toolproof.runtime.json_writer import json_bytes, json_size
from toolproof.runtime.logs import log_failure
from toolproof.runtime.printable import encodable_json, is_encodable

__all__ = [
    "HEADER_MISMATCH",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "MAX_BATCH",
    "MAX_MESSAGE_BYTES",
    "METHOD_NOT_FOUND",
    "MISSING_CLIENT_CAPABILITY",
    "PARSE_ERROR",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "answer_size",
    "decode_message",
    "encode_batch",
    "encode_message",
    "error_response",
    "is_call",
    "is_request_id",
    "is_response",
    "result_response",
]

_log = logging.getLogger("toolproof.mcp")

MAX_MESSAGE_BYTES: Final = 4 * 1024 * 1024
"""Bytes of the largest message read (a line on stdio, a body over HTTP)."""
MAX_BATCH: Final = 64
"""Messages in one batch, at most; a longer one is refused whole."""

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
INTERNAL_ERROR = -32603
HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION = -32020, -32021, -32022


def is_request_id(value: object) -> bool:
    """Whether ``value`` may be a request id: a string or an integer (JSON-RPC 2.0, MCP; never null).

    A string holding a lone surrogate is not one: it could not be echoed back as it came.
    """
    if isinstance(value, str):
        return is_encodable(value)
    return isinstance(value, int) and not isinstance(value, bool)


def is_call(message: Any) -> bool:
    """Whether a decoded message is a ``tools/call`` request (one that runs a handler)."""
    return isinstance(message, Mapping) and message.get("method") == "tools/call" and "id" in message


def is_response(message: Mapping[str, Any]) -> bool:
    """Whether a message without a method is a JSON-RPC response: an id, and a result or an error."""
    return message.get("jsonrpc") == "2.0" and "id" in message and (("result" in message) != ("error" in message))


def error_response(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    """A JSON-RPC error answer; its id is ``request_id`` when that may be one (``is_request_id``), else null."""
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": request_id if is_request_id(request_id) else None, "error": body}


def result_response(request_id: Any, value: Any) -> dict[str, Any]:
    """A JSON-RPC result answer."""
    return {"jsonrpc": "2.0", "id": request_id, "result": value}


def encode_batch(answers: list[dict[str, Any]]) -> bytes:
    """A batch's responses as one JSON array (no line end), each encoded as ``encode_message`` does."""
    return b"[" + b",".join(encode_message(answer).rstrip(b"\n") for answer in answers) + b"]"


def encode_message(message: Mapping[str, Any]) -> bytes:
    """A JSON-RPC message as one line of UTF-8 JSON; never raises.

    Integers of any size are written exactly; a lone surrogate becomes U+FFFD;
    a message that still cannot be JSON is replaced by an internal error for
    its id (logged), so the connection lives on.
    """
    try:
        return json_bytes(message) + b"\n"
    except ValueError:
        pass
    try:
        return json_bytes(encodable_json(message)) + b"\n"
    except ValueError:
        log_failure(_log, "an MCP answer cannot be encoded as JSON")
    answer = error_response(message.get("id"), INTERNAL_ERROR, "Internal error")
    return json_bytes(encodable_json(answer)) + b"\n"


def answer_size(answer: Mapping[str, Any], limit: int) -> int:
    """Bytes of ``answer`` as one line of JSON, line end aside; past ``limit``, at least ``limit + 1``.

    Counted without writing it (``json_size``), but for a value that cannot be counted so (an integer
    beyond 64 bits, nesting past 200), which is written: the runtime has bounded its result already.
    """
    size = json_size(answer, limit)
    return size if size is not None else len(encode_message(answer)) - 1


def decode_message(data: str | bytes) -> Any:
    """A JSON-RPC message (or batch) as ``json_value`` reads it, but valid JSON beyond its bounds still read.

    An integer of more than ``MAX_INT_DIGITS`` digits, a number beyond a
    float's range or nesting deeper than ``MAX_JSON_DEPTH`` is valid JSON: the
    message is read with an ``Unreadable`` in each such place, so it is
    answered by its own id. In a tool's arguments the runtime refuses it as
    ``invalid_arguments`` naming where; a request id that is one gets Invalid
    Request; elsewhere it is a value of no type any method accepts. The common
    case costs what ``json_value`` costs; the other is slower, and linear in the text.

    A long text the reader gives up on whole (nested too deeply, or a number
    beyond the bounds, in a text over 64 KiB) that is not JSON at all (its
    strings or brackets do not close) is a parse error (-32700), not a message
    holding too much (-32600): ``json_value`` checks that first.

    Raises:
        ValueError: ``data`` is not JSON.
    """
    try:
        return json_value(data)
    except JsonBeyondLimits as exc:
        return exc.value
