"""The MCP core and its stdio loop against an outside review: levels, cancellation, envelopes, shapes, big JSON."""

from __future__ import annotations

import io
import json
import os
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from toolproof.runtime.context import ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.json_reader import (
    MAX_INT_DIGITS,
    MAX_JSON_DEPTH,
    JsonBeyondLimits,
    Unreadable,
    _read_bounded,
    json_value,
)
from toolproof.runtime.json_writer import json_bytes
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.serve.mcp import (
    ERROR_META_KEY,
    HANDSHAKE_VERSIONS,
    STATELESS_LOG_LEVEL,
    McpServer,
    decode_message,
    serve_stdio,
)
from toolproof.runtime.spec import load_specs
from toolproof.runtime.toolbox import builtin_runtime

HANG = 10.0
"""Seconds after which a wait counts as a hang (a bound, not a speed target)."""
HANDSHAKE = {"protocolVersion": HANDSHAKE_VERSIONS[-1], "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
V = "io.modelcontextprotocol/protocolVersion"
CAPS = "io.modelcontextprotocol/clientCapabilities"
LEVEL = "io.modelcontextprotocol/logLevel"
ENVELOPE = {V: "2026-07-28", CAPS: {}}


def _request(request_id: Any, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def _line(message: Mapping[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _server(handler: Any, *, handshake: bool = True) -> McpServer:
    """An MCP core serving one tool, ``file-read``'s contract bound to ``handler`` (no resources needed)."""
    spec = next(s for s in load_specs() if s.name == "file-read")
    tool = BoundTool.build(replace(spec, needs=()), handler)
    return McpServer(Runtime(tools=[tool], validate_output=False), handshake=handshake)


OUTPUT = {"message": "done", "content": ""}
"""What the test handlers return: enough for file-read's rendering (its output is not validated here)."""


def _logs(args: Any, ctx: ToolContext) -> dict[str, Any]:
    ctx.log("info", "working")
    return OUTPUT


def _serve(lines: list[bytes], server: McpServer | None = None) -> list[Any]:
    """Feed ``lines`` to ``serve_stdio`` in this process; what it wrote, decoded."""
    if server is None:
        server = McpServer(builtin_runtime(gate_secret=b"review"))
    out = io.BytesIO()
    serve_stdio(server, io.BytesIO(b"".join(line if line.endswith(b"\n") else line + b"\n" for line in lines)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


# --- 1. logging/setLevel on the stateless (HTTP) core --------------------------------------------------------------


def test_set_level_on_the_stateless_core_is_answered_but_changes_what_no_client_receives() -> None:
    server = _server(_logs, handshake=False)
    call = {"name": "file-read", "arguments": {"path": "x"}}
    received: list[list[Any]] = []

    for request_id, level in enumerate(("emergency", "debug", "error")):  # clients A, B, C, one after another
        notes: list[Mapping[str, Any]] = []
        answer = server.answer(_request(request_id, "logging/setLevel", {"level": level}), modern=False)
        server.answer(_request(f"call-{level}", "tools/call", call), modern=False, notify=notes.append)
        assert answer == {"jsonrpc": "2.0", "id": request_id, "result": {}}
        received.append([n["params"]["data"] for n in notes])
    modern: list[Mapping[str, Any]] = []
    server.answer(_request("m", "tools/call", {**call, "_meta": {**ENVELOPE, LEVEL: "error"}}), notify=modern.append)

    assert server.log_level == STATELESS_LOG_LEVEL
    assert received == [["working"]] * 3  # each at the stateless level: no client's setLevel reached another
    assert modern == []  # the per-request 2026-07-28 level is the request's own


def test_set_level_on_a_stdio_connection_keeps_its_level() -> None:
    server = _server(_logs)
    notes: list[Mapping[str, Any]] = []
    server.answer(_request(0, "initialize", HANDSHAKE))

    server.answer(_request(1, "logging/setLevel", {"level": "info"}))
    server.answer(_request(2, "tools/call", {"name": "file-read", "arguments": {"path": "x"}}), notify=notes.append)

    assert server.log_level == "info"
    assert [n["params"]["data"] for n in notes] == ["working"]


# --- 2. nothing more for a cancelled request -----------------------------------------------------------------------


class _Stepper:
    """A handler that reports, waits to be released, and reports again."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.done = threading.Event()

    def __call__(self, args: Any, ctx: ToolContext) -> dict[str, Any]:
        ctx.progress(1, total=2)
        ctx.log("info", "before")
        self.started.set()
        self.release.wait(HANG)
        ctx.progress(2, total=2)
        ctx.log("info", "after")
        self.done.set()
        return OUTPUT


@pytest.fixture
def stepping() -> Iterator[tuple[_Stepper, Any, io.BytesIO, threading.Thread]]:
    """``serve_stdio`` in a thread over a pipe, serving ``_Stepper``; yields it, the pipe, the output, the thread."""
    handler = _Stepper()
    server = _server(handler)
    read, write = os.pipe()
    out = io.BytesIO()
    with os.fdopen(read, "rb") as reader, os.fdopen(write, "wb", buffering=0) as writer:
        thread = threading.Thread(target=serve_stdio, args=(server, reader, out), daemon=True)
        thread.start()
        yield handler, writer, out, thread
        handler.release.set()


def _written(out: io.BytesIO, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + HANG
    while len(lines := [json.loads(line) for line in out.getvalue().splitlines()]) < count:
        assert time.monotonic() < deadline, lines
        time.sleep(0.01)
    return lines


def test_a_cancelled_call_sends_no_more_progress_or_log_messages(
    stepping: tuple[_Stepper, Any, io.BytesIO, threading.Thread],
) -> None:
    handler, writer, out, thread = stepping
    writer.write(_line(_request(0, "initialize", HANDSHAKE)))
    writer.write(_line(_request(1, "logging/setLevel", {"level": "debug"})))
    call = {"name": "file-read", "arguments": {"path": "x"}, "_meta": {"progressToken": "t"}}
    writer.write(_line(_request(2, "tools/call", call)))
    assert handler.started.wait(HANG)
    writer.write(_line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}))
    writer.write(_line(_request(3, "ping")))
    _written(out, 5)  # initialize, setLevel, progress 1, "before", ping: the cancellation was read before the ping
    handler.release.set()
    assert handler.done.wait(HANG)
    writer.write(_line(_request(4, "ping")))
    writer.close()
    thread.join(HANG)

    written = _written(out, 6)
    notes = [m for m in written if "id" not in m]
    assert [n["params"].get("progress", n["params"].get("data")) for n in notes] == [1, "before"]
    assert [m["id"] for m in written if "id" in m] == [0, 1, 3, 4]  # and no answer for 2
    assert not thread.is_alive()


def test_a_call_that_is_not_cancelled_sends_every_progress_and_log_message(
    stepping: tuple[_Stepper, Any, io.BytesIO, threading.Thread],
) -> None:
    handler, writer, out, thread = stepping
    writer.write(_line(_request(0, "initialize", HANDSHAKE)))
    writer.write(_line(_request(1, "logging/setLevel", {"level": "debug"})))
    call = {"name": "file-read", "arguments": {"path": "x"}, "_meta": {"progressToken": "t"}}
    writer.write(_line(_request(2, "tools/call", call)))
    assert handler.started.wait(HANG)
    handler.release.set()
    writer.close()
    thread.join(HANG)

    written = _written(out, 7)
    notes = [m for m in written if "id" not in m]
    assert [n["params"].get("progress", n["params"].get("data")) for n in notes] == [1, "before", 2, "after"]
    assert written[-1]["id"] == 2


# --- 3. capabilities ----------------------------------------------------------------------------------------------


def test_discover_and_initialize_both_declare_the_logging_capability() -> None:
    server = McpServer(builtin_runtime(gate_secret=b"review"))

    discovered = server.answer(_request(1, "server/discover", {"_meta": ENVELOPE}))
    initialized = server.answer(_request(2, "initialize", HANDSHAKE))

    assert discovered is not None and initialized is not None
    assert discovered["result"]["capabilities"] == {"tools": {}, "logging": {}}
    assert initialized["result"]["capabilities"]["logging"] == {}


# --- 4. a request whose envelope says 2026-07-28 is one, over stdio too ---------------------------------------------


@pytest.mark.parametrize(
    ("method", "params", "code"),
    [
        ("tools/list", {"_meta": {V: "2026-07-28"}}, -32602),  # no clientCapabilities
        ("tools/list", {"_meta": {V: "2026-07-28", CAPS: "all"}}, -32602),
        ("tools/list", {"_meta": {V: 20260728, CAPS: {}}}, -32602),  # a version that is not a string
        ("tools/list", {"_meta": {**ENVELOPE, LEVEL: "loud"}}, -32602),  # an unknown log level
        ("ping", {"_meta": ENVELOPE}, -32601),
        ("logging/setLevel", {"level": "debug", "_meta": ENVELOPE}, -32601),
        ("tools/list", {"_meta": {V: "2099-01-01"}}, -32022),  # a version we do not speak, before its fields
    ],
    ids=["no_capabilities", "capabilities_not_an_object", "version_not_a_string", "unknown_log_level", "ping",
         "set_level", "unknown_version"],
)  # fmt: skip
def test_a_request_whose_envelope_says_2026_gets_that_revisions_checks_over_stdio(
    method: str, params: dict[str, Any], code: int
) -> None:
    server = McpServer(builtin_runtime(gate_secret=b"review"))

    for initialized in (False, True):
        if initialized:
            server.answer(_request(0, "initialize", HANDSHAKE))
        answer = server.answer(_request("r", method, params))
        assert answer is not None and answer["id"] == "r" and answer["error"]["code"] == code, answer
    assert server.log_level is None


def test_a_whole_2026_envelope_is_served_without_initialize_and_with_its_result_fields() -> None:
    server = McpServer(builtin_runtime(gate_secret=b"review"))

    answer = server.answer(_request(1, "tools/list", {"_meta": ENVELOPE}))

    assert answer is not None and answer["result"]["resultType"] == "complete" and answer["result"]["ttlMs"] > 0


# --- 5. the shape of messages ------------------------------------------------------------------------------------


@pytest.mark.parametrize("params", ["null", "false", "0", '""', "[]", "[1]", '"x"'])
@pytest.mark.parametrize("method", ["ping", "tools/list"])
def test_params_that_are_not_an_object_are_invalid_params(method: str, params: str) -> None:
    initialize = json.dumps(_request(0, "initialize", HANDSHAKE)).encode()
    line = f'{{"jsonrpc": "2.0", "id": 7, "method": "{method}", "params": {params}}}'.encode()

    answers = _serve([initialize, line])

    assert answers[1] == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32602, "message": "Invalid params: params must be an object"},
    }


@pytest.mark.parametrize(
    "params",
    [
        None,
        {},
        {"protocolVersion": "2025-11-25"},
        {"protocolVersion": 2025, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        {"protocolVersion": "2025-11-25", "capabilities": [], "clientInfo": {"name": "t", "version": "1"}},
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": "t"},
    ],
    ids=["no_params", "empty", "version_only", "version_not_a_string", "capabilities_not_an_object", "info_a_string"],
)
def test_initialize_needs_its_version_capabilities_and_client_info(params: Any) -> None:
    server = McpServer(builtin_runtime(gate_secret=b"review"))

    answer = server.answer(_request(1, "initialize", params))
    listed = server.answer(_request(2, "tools/list"))

    assert answer is not None and answer["error"]["code"] == -32602
    assert answer["error"]["message"].startswith("Invalid params: initialize needs ")
    assert listed is not None and listed["error"]["code"] == -32600  # still not initialized


@pytest.mark.parametrize(
    ("line", "answer_id"),
    [
        (b'{"jsonrpc": "2.0", "id": 3}', 3),
        (b'{"jsonrpc": "2.0", "id": "s", "foo": 1}', "s"),
        (b'{"jsonrpc": "2.0", "id": 4, "result": {}, "error": {"code": 1, "message": "x"}}', 4),
        (b'{"jsonrpc": "2.0", "result": {}}', None),  # a response without an id
        (b'{"jsonrpc": "1.0", "id": 5, "result": {}}', 5),
        (b'{"foo": 1}', None),
        (b"{}", None),
    ],
    ids=["id_only", "unknown_member", "result_and_error", "response_without_id", "jsonrpc_1", "foo", "empty"],
)
def test_an_object_that_is_no_request_notification_or_response_is_an_invalid_request(
    line: bytes, answer_id: Any
) -> None:
    answers = _serve([line])

    assert len(answers) == 1 and answers[0]["error"]["code"] == -32600 and answers[0]["id"] == answer_id


def test_a_response_to_a_request_never_sent_gets_no_answer() -> None:
    lines = [b'{"jsonrpc": "2.0", "id": 5, "result": {}}', b'{"jsonrpc": "2.0", "id": 6, "error": {"code": 1}}']

    assert _serve([*lines, json.dumps(_request(7, "ping")).encode()]) == [{"jsonrpc": "2.0", "id": 7, "result": {}}]


# --- 6. cursors -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cursor", ["garbage", 5, "", {"page": 2}])
def test_any_cursor_is_invalid_params_as_the_server_issues_none(cursor: Any) -> None:
    server = McpServer(builtin_runtime(gate_secret=b"review"))
    server.answer(_request(0, "initialize", HANDSHAKE))

    legacy = server.answer(_request(1, "tools/list", {"cursor": cursor}))
    modern = server.answer(_request(2, "tools/list", {"cursor": cursor, "_meta": ENVELOPE}))

    for answer in (legacy, modern):
        assert answer is not None and answer["error"]["code"] == -32602
        assert "cursor" in answer["error"]["message"] and "garbage" not in answer["error"]["message"]


def test_a_null_cursor_reads_as_none() -> None:
    server = McpServer(builtin_runtime(gate_secret=b"review"))
    server.answer(_request(0, "initialize", HANDSHAKE))

    answer = server.answer(_request(1, "tools/list", {"cursor": None}))

    assert answer is not None and "tools" in answer["result"]


# --- 7. an envelope naming a legacy revision ---------------------------------------------------------------------


@pytest.mark.parametrize("version", ["2025-11-25", "2024-11-05"])
@pytest.mark.parametrize("stateless", [False, True], ids=["stdio", "http_without_header"])
def test_an_envelope_naming_a_legacy_revision_is_refused_with_what_the_envelope_carries(
    version: str, stateless: bool
) -> None:
    server = McpServer(builtin_runtime(gate_secret=b"review"), handshake=not stateless)
    server.answer(_request(0, "initialize", HANDSHAKE))

    answer = server.answer(_request(2, "tools/list", {"_meta": {V: version}}))

    assert answer is not None and answer["error"]["code"] == -32022
    assert answer["error"]["data"] == {"supported": ["2026-07-28"], "requested": version}
    assert "negotiated by initialize" in answer["error"]["message"]


# --- 8. valid JSON beyond the reader's bounds, answered by its id --------------------------------------------------

NINES = "9" * 4400


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "ten.txt").write_text("".join(f"{i}\n" for i in range(1, 11)), encoding="utf-8")
    return tmp_path


def _call_line(request_id: str, arguments: str) -> bytes:
    return (
        f'{{"jsonrpc": "2.0", "id": "{request_id}", "method": "tools/call", '
        f'"params": {{"name": "file-read", "arguments": {arguments}}}}}'
    ).encode()


def test_numbers_and_nesting_beyond_the_readers_bounds_are_answered_by_the_requests_own_id(workspace: Path) -> None:
    server = McpServer(builtin_runtime(workspace=[workspace], gate_secret=b"review"))
    hello = {**HANDSHAKE, "protocolVersion": "2025-06-18"}
    lines = [
        json.dumps(_request("i", "initialize", hello)).encode(),
        _call_line("b1", f'{{"path": "ten.txt", "start_line": {NINES}}}'),
        _call_line("b2", f'{{"path": "ten.txt", "start_line": -{NINES}}}'),
        _call_line("b3", '{"path": "ten.txt", "start_line": 1e400}'),
        _call_line("b4", '{"path": "ten.txt", "start_line": ' + "[" * 2000 + "]" * 2000 + "}"),
        _call_line("ok", '{"path": "ten.txt", "start_line": 2, "end_line": 2}'),
    ]

    answers = {answer["id"]: answer for answer in _serve(lines, server)}

    expected = {
        "b1": "$.start_line: a number with more than 4300 digits",
        "b2": "$.start_line: a number with more than 4300 digits",
        "b3": "$.start_line: a number beyond the range of a float (about 1.8e308)",
        "b4": "$.start_line: nested more than 512 levels deep",  # MAX_ARGUMENT_DEPTH: as `toolproof call` says
    }
    for request_id, detail in expected.items():
        result = answers[request_id]["result"]
        assert result["isError"] is True
        assert result["_meta"][ERROR_META_KEY] == {
            "code": "invalid_arguments",
            "message": f"Invalid arguments: {detail}",
            "hint": "Correct the argument named in the message and call the tool again.",
        }
    assert answers["ok"]["result"]["isError"] is False


def test_a_request_id_beyond_the_readers_bounds_is_an_invalid_request_saying_so() -> None:
    answers = _serve([f'{{"jsonrpc": "2.0", "id": {NINES}, "method": "ping"}}'.encode()])

    assert answers == [
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32600,
                "message": "Invalid Request: the request id is a number with more than 4300 digits",
            },
        }
    ]


def test_text_that_is_not_json_is_still_a_parse_error_and_the_loop_serves_on() -> None:
    lines = [f'{{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": {NINES}'.encode(), b"[1, 2", b'{"a": NaN}']

    answers = _serve([*lines, json.dumps(_request(2, "ping")).encode()])

    assert [answer["error"]["code"] for answer in answers[:3]] == [-32700, -32700, -32700]
    assert answers[3] == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_decode_message_marks_what_it_cannot_hold_and_reads_the_rest() -> None:
    message = decode_message(f'{{"id": 1, "a": [{NINES}, 1e999, 2], "b": "x"}}'.encode())

    assert message["id"] == 1 and message["b"] == "x" and message["a"][2] == 2
    assert [type(item) for item in message["a"][:2]] == [Unreadable, Unreadable]


# --- 9. the runtime names where, in its own words ------------------------------------------------------------------


def test_a_json_string_argument_beyond_the_readers_bounds_is_invalid_arguments_naming_where(workspace: Path) -> None:
    runtime = builtin_runtime(workspace=[workspace], gate_secret=b"review")

    result = runtime.call("file-read", f'{{"path": "ten.txt", "start_line": {"9" * 5000}}}')

    assert result.error is not None and result.error.code == "invalid_arguments"
    assert result.error.message == "Invalid arguments: $.start_line: a number with more than 4300 digits"
    assert "sys." not in result.text and "set_int_max_str_digits" not in result.text


@pytest.mark.parametrize("depth", [600, 1024, 2000])
def test_arguments_nested_too_deep_are_named_alike_as_text_and_as_a_transports_value(
    depth: int, workspace: Path
) -> None:
    runtime = builtin_runtime(workspace=[workspace], gate_secret=b"review")
    text = '{"path": "ten.txt", "start_line": ' + "[" * depth + "]" * depth + "}"

    as_text = runtime.call("file-read", text)
    as_value = runtime.call("file-read", decode_message(text))

    for result in (as_text, as_value):
        assert result.error is not None
        assert result.error.message == "Invalid arguments: $.start_line: nested more than 512 levels deep"


# --- json_value's bounds -------------------------------------------------------------------------------------------


def test_integers_of_up_to_4300_digits_stay_exact_both_ways_and_longer_ones_are_named() -> None:
    longest = int("7" * MAX_INT_DIGITS)

    assert json_value(json_bytes({"n": longest})) == {"n": longest}
    assert json_value(json_bytes([-longest])) == [-longest]
    with pytest.raises(JsonBeyondLimits, match=r"^\$\.n: a number with more than 4300 digits$"):
        json_value('{"n": ' + "7" * (MAX_INT_DIGITS + 1) + "}")


@pytest.fixture
def default_recursion_limit() -> Iterator[None]:
    """Python's default recursion limit, which the standard library's reader meets (Hypothesis raises it)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.usefixtures("default_recursion_limit")
def test_nesting_up_to_the_bound_is_read_and_deeper_is_named_where_it_starts() -> None:
    deepest = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    deeper = '{"ok": 1, "deep": [' + "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH + "]}"
    with_long_digits = "[" * 1000 + "1" * 30 + "]" * 1000  # read by the bounded reader: too deep for json

    assert isinstance(json_value(deepest), list)
    assert isinstance(json_value(with_long_digits), list)
    with pytest.raises(JsonBeyondLimits, match=r"^\$\.deep: nested more than 1024 levels deep$") as info:
        json_value(deeper)
    assert info.value.value["ok"] == 1


@pytest.mark.parametrize(
    "text",
    ["[1, 2", "[" * 3000 + "1, ]" + "]" * 2999, f"[{NINES}, tru]", f"[{NINES}] x", "[1e400, NaN]", "{1: 2}"],
)
def test_text_that_is_not_json_is_a_value_error_not_beyond_limits(text: str) -> None:
    with pytest.raises(ValueError) as info:
        json_value(text)

    assert not isinstance(info.value, JsonBeyondLimits)


def test_the_bounded_reader_reads_what_the_standard_library_reads() -> None:
    documents: list[Any] = [
        {"a": [1, -0.5, 1e10, 'q"\\\n\u00e9\U0001f600', True, False, None, {}, [], 12345678901234567890123]},
        [[[]], {"k": {"l": []}}, "", 0, -0, 1.5e-300],
        "just a string",
        {"\ud800x": "lone \udc00 surrogates"},
    ]
    for document in documents:
        for text in (json.dumps(document), json.dumps(document, indent=2, ensure_ascii=False)):
            assert _read_bounded(text) == (json.loads(text), None)
            if "\ud800" not in text:
                assert _read_bounded(text.encode()) == (json.loads(text), None)


def test_a_long_text_nested_too_deep_is_refused_whole_without_the_slow_read() -> None:
    half = 2 * 1024 * 1024

    with pytest.raises(JsonBeyondLimits, match=r"^\$: nested too deeply to read .* over 65536 bytes$") as info:
        json_value(b"[" * half + b"]" * half)

    assert isinstance(info.value.value, Unreadable)  # a peer cannot buy seconds of CPU with 4 MiB of brackets


def test_the_bounded_reader_takes_linear_time_on_a_deep_text() -> None:
    half = 256 * 1024
    start = time.monotonic()

    value, problem = _read_bounded(b"[" * half + b"]" * half)

    assert problem == "$[0]: nested more than 1024 levels deep" and isinstance(value, list)
    assert time.monotonic() - start < 60  # a hang bound (~0.5 s): quadratic would be minutes, recursion a crash


def test_a_long_text_with_a_number_beyond_the_bounds_is_named_and_read_no_further() -> None:
    """The hooked re-read and the walk for where are for short texts: a 4 MiB one took 14 s and 4 GB."""
    crowd = "[" * 900 + "[]," * 300_000 + "[]" + "]" * 900
    for tail, what in (("1e400", "a number beyond the range of a float"), ("9" * 5000, "a number with more than 4300")):
        text = '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"a": [' + crowd + ", " + tail + "]}}"

        with pytest.raises(
            JsonBeyondLimits, match=rf"^\$: {what} .*in a text over 65536 bytes, read no further\)$"
        ) as info:
            json_value(text)

        assert isinstance(info.value.value, Unreadable)  # the message is not read: no id to answer by
        answer = McpServer(Runtime([]), handshake=False).answer(decode_message(text))
        assert answer is not None and answer["id"] is None and answer["error"]["code"] == -32600
        assert what in answer["error"]["message"]
