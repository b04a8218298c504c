"""The MCP protocol core (``serve/mcp.py``): log levels, capabilities, envelopes, message shapes, cursors, big JSON."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

import orjson
import pytest

from tests.builtin.trees import lay_hostile as _lay_out
from toolproof.runtime.context import ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.serve.mcp import (
    ERROR_META_KEY,
    HANDSHAKE_VERSIONS,
    STATELESS_LOG_LEVEL,
    McpServer,
    serve_stdio,
)
from toolproof.runtime.spec import load_specs
from toolproof.runtime.toolbox import builtin_runtime

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


# --- logging/setLevel on the stateless (HTTP) core --------------------------------------------------------------


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


# --- capabilities ----------------------------------------------------------------------------------------------


def test_discover_and_initialize_both_declare_the_logging_capability() -> None:
    server = McpServer(builtin_runtime(gate_secret=b"review"))

    discovered = server.answer(_request(1, "server/discover", {"_meta": ENVELOPE}))
    initialized = server.answer(_request(2, "initialize", HANDSHAKE))

    assert discovered is not None and initialized is not None
    # and the skill resource and prompt: resources, prompts and their completions
    expected: dict[str, dict[str, Any]] = {
        "tools": {},
        "logging": {},
        "resources": {},
        "prompts": {},
        "completions": {},
    }
    assert discovered["result"]["capabilities"] == expected
    assert initialized["result"]["capabilities"]["logging"] == {}


# --- a request whose envelope says 2026-07-28 is one, over stdio too ---------------------------------------------


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


# --- the shape of messages ------------------------------------------------------------------------------------


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


# --- cursors -------------------------------------------------------------------------------------------------


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


# --- an envelope naming a legacy revision ---------------------------------------------------------------------


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


# --- valid JSON beyond the reader's bounds, answered by its id --------------------------------------------------

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


# --- before the handshake: only what needs none is served ---------------------------------------------------------


SECRET: Final = "hostile-calls-secret-of-32-bytes"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile").resolve()
    _lay_out(folder)
    return folder


_CALL: Final = {"name": "file-read", "arguments": {"path": "notes.txt"}}


_ENVELOPE: Final = {
    "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
}


@pytest.mark.parametrize(
    ("method", "params", "error"),
    [
        ("tools/call", _CALL, -32600),
        ("tools/list", {}, -32600),
        ("tools/call", {**_CALL, "_meta": {"progressToken": 1}}, -32600),  # a bare _meta is no envelope
        ("tools/call", {**_CALL, "_meta": "2026-07-28"}, -32600),
        ("tools/call", {**_CALL, **_ENVELOPE}, None),
        ("tools/list", _ENVELOPE, None),
        ("ping", {}, None),
        ("server/discover", {}, None),
    ],
    ids=[
        "tools_call_before_initialize",
        "tools_list_before_initialize",
        "tools_call_with_a_bare_meta_before_initialize",
        "tools_call_with_a_meta_that_is_not_an_object",
        "stateless_2026_tools_call_with_its_envelope",
        "stateless_2026_tools_list_with_its_envelope",
        "ping_before_initialize",
        "server_discover_before_initialize",
    ],
)
def test_before_the_handshake_only_what_needs_none_is_served(
    method: str, params: dict[str, Any], error: int | None, base: Path
) -> None:
    server = McpServer(builtin_runtime(workspace=[base / "ws"], gate_secret=SECRET.encode()))
    out = io.BytesIO()
    line = orjson.dumps({"jsonrpc": "2.0", "id": "a", "method": method, "params": params})

    serve_stdio(server, io.BytesIO(line + b"\n"), out)

    answer = json.loads(out.getvalue())
    assert answer["id"] == "a"
    if error is None:
        assert "result" in answer and answer["result"].get("isError") is not True
    else:
        assert answer["error"]["code"] == error
