"""The MCP server over real stdio, driven by the official MCP SDK client and by raw pipes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError, StdioServerParameters

from tests.runtime.serve.offered import check_offers
from toolproof.runtime.serve.mcp import ERROR_META_KEY, HANDSHAKE_VERSIONS, McpServer, serve_stdio
from toolproof.runtime.toolbox import builtin_runtime

SERVER = [sys.executable, "-m", "toolproof", "serve", "mcp"]
SECRET = "mcp-test-secret-of-32-bytes-long"


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    base = tmp_path_factory.mktemp("mcp")
    ws, skills = base / "ws", base / "skills"
    ws.mkdir()
    (ws / "notes.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    (base / "secret.txt").write_text("SECRET", encoding="utf-8")
    (skills / "calculator" / "examples").mkdir(parents=True)
    (skills / "calculator" / "SKILL.MD").write_text("# Calculator\n", encoding="utf-8")
    (skills / "calculator" / "examples" / "basic.py").write_text("x = 1\n", encoding="utf-8")
    yield ws, skills


def _args(roots: tuple[Path, Path]) -> list[str]:
    ws, skills = roots
    return ["--workspace", str(ws), "--skills", str(skills)]


def _params(roots: tuple[Path, Path]) -> StdioServerParameters:
    command, *args = SERVER
    return StdioServerParameters(
        command=command, args=[*args, *_args(roots)], env={**os.environ, "TOOLPROOF_GATE_SECRET": SECRET}
    )


CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("read_file_in_skill", {"skill_name": "calculator", "file_path": "examples/basic.py"}, "x = 1\n"),
    ("get_skill", {"skill_name": "calculator"}, '{"skill_name": "calculator", "documentation": "# Calculator\\n"}'),
    ("read_skill", {"skill_name": "data_analysis"}, "# Data analysis"),
    ("file-read", {"path": "notes.txt", "max_lines": 2}, "Read lines 1-2 of 3 (truncated to 2 lines)"),
    ("read_file", {"path": "builtin://read_file/SKILL.md", "limit": 2}, "1\t---\n2\tname: read_file"),
]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_sdk_client_lists_reads_gets_and_completes_the_skill_resource_and_prompt(
    roots: tuple[Path, Path], mode: str
) -> None:
    async def session() -> None:
        async with Client(_params(roots), mode=mode) as client:
            await check_offers(client)

    anyio.run(session)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_sdk_client_lists_and_calls_every_tool(roots: tuple[Path, Path], mode: str) -> None:
    async def session() -> None:
        async with Client(_params(roots), mode=mode) as client:
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == sorted(t.name for t in listed.tools)
            assert {t.name for t in listed.tools} == {name for name, _, _ in CALLS}
            for name, args, text in CALLS:
                result = await client.call_tool(name, args)
                assert result.is_error is False, (name, result)
                assert result.content[0].text.startswith(text), (name, result.content[0].text)  # type: ignore[union-attr]
                assert result.structured_content is not None

    anyio.run(session)


def test_tool_errors_are_results_with_their_code_and_unknown_tools_are_protocol_errors(
    roots: tuple[Path, Path],
) -> None:
    async def session() -> None:
        async with Client(_params(roots)) as client:
            refused = await client.call_tool("file-read", {"path": "../secret.txt"})
            assert refused.is_error is True
            assert refused.meta is not None and refused.meta[ERROR_META_KEY]["code"] == "outside_workspace"
            assert "SECRET" not in json.dumps(refused.model_dump())
            invalid = await client.call_tool("file-read", {"path": 3})
            assert invalid.is_error and invalid.meta is not None
            assert invalid.meta[ERROR_META_KEY]["code"] == "invalid_arguments"
            with pytest.raises(MCPError) as info:
                await client.call_tool("no_such_tool", {})
            assert info.value.code == -32602

    anyio.run(session)


def test_a_hundred_concurrent_calls_all_answer_correctly(roots: tuple[Path, Path]) -> None:
    async def session() -> None:
        async with Client(_params(roots)) as client:
            results: dict[int, str] = {}

            async def one(i: int) -> None:
                result = await client.call_tool(
                    "file-read", {"path": "notes.txt", "start_line": i % 3 + 1, "end_line": i % 3 + 1}
                )
                results[i] = result.structured_content["content"] if result.structured_content else "?"

            async with anyio.create_task_group() as group:
                for i in range(100):
                    group.start_soon(one, i)
            assert results == {i: f"{i % 3 + 1} | {['one', 'two', 'three'][i % 3]}" for i in range(100)}

    anyio.run(session)


def test_the_skill_gate_binds_tokens_to_the_connection(roots: tuple[Path, Path]) -> None:
    async def token_from_a_connection() -> str:
        async with Client(_params(roots)) as client:
            doc = await client.call_tool("read_file", {"path": "builtin://read_file/SKILL.md"})
            assert doc.structured_content is not None
            token = str(doc.structured_content["skillToken"])
            again = await client.call_tool("read_file", {"path": "notes.txt", "skillToken": token})
            assert again.is_error is False
            return token

    async def use_elsewhere(token: str) -> None:
        async with Client(_params(roots)) as client:
            result = await client.call_tool("read_file", {"path": "notes.txt", "skillToken": token})
            assert result.is_error is True
            assert result.meta is not None and result.meta[ERROR_META_KEY]["code"] == "skill_token_invalid"

    anyio.run(use_elsewhere, anyio.run(token_from_a_connection))


class _Pipe:
    """A raw newline-JSON-RPC connection to a server process."""

    def __init__(self, roots: tuple[Path, Path], *, initialize: bool = True) -> None:
        self.proc = subprocess.Popen(
            [*SERVER, *_args(roots)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "TOOLPROOF_GATE_SECRET": SECRET},
        )
        if initialize:
            self.send(_request(0, "initialize", HANDSHAKE))
            assert self.receive()["result"]["protocolVersion"] == HANDSHAKE_VERSIONS[-1]
            self.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')

    def send(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw if raw.endswith(b"\n") else raw + b"\n")
        self.proc.stdin.flush()

    def receive(self) -> Any:
        assert self.proc.stdout is not None
        return json.loads(self.proc.stdout.readline())

    def close(self) -> tuple[int, str]:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=20)
        stderr = self.proc.stderr.read().decode("utf-8", "replace")
        self.proc.stderr.close()
        if self.proc.stdout is not None and not self.proc.stdout.closed:
            self.proc.stdout.close()
        return code, stderr


HANDSHAKE = {"protocolVersion": HANDSHAKE_VERSIONS[-1], "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


def _request(i: Any, method: str, params: Any = None) -> bytes:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        body["params"] = params
    return json.dumps(body).encode()


def test_malformed_messages_get_json_rpc_errors_and_the_server_keeps_serving(roots: tuple[Path, Path]) -> None:
    pipe = _Pipe(roots)
    expectations = [
        (b"{not json", -32700),
        (b"[1, 2]", -32600),
        (b'{"jsonrpc": "1.0", "id": 1, "method": "tools/list"}', -32600),
        (b'{"jsonrpc": "2.0", "id": 2}', -32600),
        (_request(3, "sampling/createMessage"), -32601),
        (_request(4, "tools/call", {"name": 7}), -32602),
        (_request(5, "tools/call", {"name": "file-read", "arguments": [1]}), -32602),
        (_request(6, "tools/call", []), -32602),
    ]
    for raw, code in expectations:
        pipe.send(raw)
        assert pipe.receive()["error"]["code"] == code, raw
    pipe.send(_request(9, "tools/list"))
    assert len(pipe.receive()["result"]["tools"]) == 5
    code, stderr = pipe.close()
    assert code == 0 and "Traceback" not in stderr


def test_oversized_messages_are_refused_without_taking_the_server_down(roots: tuple[Path, Path]) -> None:
    pipe = _Pipe(roots)
    big = _request(1, "tools/call", {"name": "file-read", "arguments": {"path": "x" * (5 * 1024 * 1024)}})
    large = _request(2, "tools/call", {"name": "file-read", "arguments": {"path": "y" * (2 * 1024 * 1024)}})

    pipe.send(big)
    first = pipe.receive()
    pipe.send(large)
    second = pipe.receive()
    pipe.send(_request(3, "tools/call", {"name": "file-read", "arguments": {"path": "notes.txt"}}))
    third = pipe.receive()

    assert first["error"]["code"] == -32700
    assert second["result"]["isError"] is True
    assert second["result"]["_meta"][ERROR_META_KEY]["code"] == "read_failed"  # the path is too long: said so
    assert third["result"]["isError"] is False
    assert pipe.close()[0] == 0


@pytest.mark.parametrize(("asked", "answered"), [("2025-03-26", "2025-03-26"), ("1999-01-01", HANDSHAKE_VERSIONS[-1])])
def test_the_handshake_negotiates_the_protocol_version(roots: tuple[Path, Path], asked: str, answered: str) -> None:
    pipe = _Pipe(roots, initialize=False)
    pipe.send(
        _request(
            1, "initialize", {"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        )
    )

    assert pipe.receive()["result"]["protocolVersion"] == answered
    assert pipe.close()[0] == 0


def test_a_client_that_disconnects_mid_call_leaves_no_hang(roots: tuple[Path, Path]) -> None:
    pipe = _Pipe(roots)
    for i in range(20):
        pipe.send(_request(i, "tools/call", {"name": "file-read", "arguments": {"path": "notes.txt"}}))
    assert pipe.proc.stdout is not None
    pipe.proc.stdout.close()  # the client stops reading: the server's writes fail
    start = time.monotonic()

    code, stderr = pipe.close()

    assert time.monotonic() - start < 20
    assert code == 0
    assert "Traceback" not in stderr


MODERN_META = {
    "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
}
"""The whole 2026-07-28 envelope: a request whose version says 2026-07-28 must carry every required field."""


def test_a_tools_call_before_initialize_is_refused_on_the_2025_revisions(roots: tuple[Path, Path]) -> None:
    pipe = _Pipe(roots, initialize=False)
    call = {"name": "file-read", "arguments": {"path": "notes.txt"}}

    pipe.send(_request(1, "tools/call", call))
    refused_call = pipe.receive()
    pipe.send(_request(2, "tools/list"))
    refused_list = pipe.receive()
    pipe.send(_request(3, "ping"))
    ping = pipe.receive()
    pipe.send(_request(4, "initialize", HANDSHAKE))
    pipe.receive()
    pipe.send(_request(5, "tools/call", call))
    served = pipe.receive()

    assert refused_call == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {
            "code": -32600,
            "message": "the server is not initialized: send initialize before tools/call, "
            "or carry _meta['io.modelcontextprotocol/protocolVersion'] (protocol 2026-07-28)",
        },
    }
    assert refused_list["error"]["code"] == -32600
    assert ping == {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert served["result"]["isError"] is False
    assert pipe.close()[0] == 0


def test_a_2026_request_carrying_its_envelope_is_served_without_initialize(roots: tuple[Path, Path]) -> None:
    pipe = _Pipe(roots, initialize=False)

    pipe.send(_request(1, "tools/call", {"name": "file-read", "arguments": {"path": "notes.txt"}, **MODERN_META}))
    called = pipe.receive()
    pipe.send(_request(2, "tools/list", MODERN_META))
    listed = pipe.receive()

    assert called["result"]["isError"] is False and called["result"]["resultType"] == "complete"
    assert listed["result"]["ttlMs"] == 60_000 and len(listed["result"]["tools"]) == 5
    assert pipe.close()[0] == 0


def test_an_envelope_naming_a_revision_we_do_not_speak_is_refused(roots: tuple[Path, Path]) -> None:
    pipe = _Pipe(roots, initialize=False)
    meta = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}}

    pipe.send(_request(1, "tools/call", {"name": "file-read", "arguments": {"path": "notes.txt"}, **meta}))

    assert pipe.receive()["error"]["code"] == -32022
    assert pipe.close()[0] == 0


@pytest.mark.parametrize(
    "raw_id", ["null", "1.5", "true", "[1]", '{"a": 1}', "1e2"], ids=["null", "float", "bool", "array", "object", "exp"]
)
def test_a_request_id_that_is_not_a_string_or_integer_gets_invalid_request_with_id_null(raw_id: str) -> None:
    out = _serve_in_process([f'{{"jsonrpc": "2.0", "id": {raw_id}, "method": "ping"}}'.encode()])

    assert out == [
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32600, "message": "the request id must be a string or an integer"},
        }
    ]


def test_integers_of_64_bits_and_more_come_back_exact(roots: tuple[Path, Path]) -> None:
    pipe = _Pipe(roots)
    big = 2**64

    pipe.send(f'{{"jsonrpc": "2.0", "id": {big}, "method": "ping"}}'.encode())
    assert pipe.proc.stdout is not None
    raw = pipe.proc.stdout.readline()
    pipe.send(
        _request(
            2, "tools/call", {"name": "read_file", "arguments": {"path": "builtin://read_file/SKILL.md", "limit": big}}
        )
    )
    refused = pipe.receive()

    assert raw == b'{"jsonrpc":"2.0","id":18446744073709551616,"result":{}}\n'
    assert "18446744073709551616" in refused["result"]["_meta"][ERROR_META_KEY]["message"]
    assert "e+19" not in refused["result"]["_meta"][ERROR_META_KEY]["message"]
    assert pipe.close()[0] == 0


def _serve_in_process(lines: list[bytes], server: McpServer | None = None) -> list[Any]:
    """Feed ``lines`` to ``serve_stdio`` in this process; the answers, decoded."""
    if server is None:
        server = McpServer(builtin_runtime(gate_secret=b"in-process"))
    out = io.BytesIO()
    serve_stdio(server, io.BytesIO(b"".join(line + b"\n" for line in lines)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


class _Unwritable(McpServer):
    """Answers ping with a value JSON cannot carry, and raises on tools/list: bugs the loop must outlive."""

    def handle(self, message: Any) -> dict[str, Any] | None:
        if isinstance(message, dict) and message.get("method") == "ping":
            return {"jsonrpc": "2.0", "id": message["id"], "result": {"x": {1, 2}}}
        if isinstance(message, dict) and message.get("method") == "tools/list":
            raise RuntimeError("boom")
        return super().handle(message)


def test_the_stdio_loop_outlives_an_answer_it_cannot_encode_and_a_server_that_raises() -> None:
    server = _Unwritable(builtin_runtime(gate_secret=b"in-process"))

    out = _serve_in_process(
        [_request(1, "ping"), _request(2, "tools/list"), _request(3, "initialize", HANDSHAKE)], server
    )

    assert out[0] == {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "Internal error"}}
    assert out[1] == {"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "Internal error"}}
    assert out[2]["result"]["protocolVersion"] == HANDSHAKE_VERSIONS[-1]


def test_a_lone_surrogate_in_a_method_name_is_answered_in_valid_utf8() -> None:
    out = _serve_in_process([b'{"jsonrpc": "2.0", "id": 1, "method": "x\\udcff"}'])

    assert out == [{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found: x\ufffd"}}]


def test_progress_log_messages_and_attached_blocks_of_a_handler_reach_a_stdio_client() -> None:
    project = Path(__file__).resolve().parents[2] / "conformance_project"
    proc = subprocess.Popen(
        [*SERVER, "--project", str(project)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(_request(1, "initialize", HANDSHAKE) + b"\n")
        proc.stdin.write(_request(2, "logging/setLevel", {"level": "info"}) + b"\n")
        progress = {"name": "test_tool_with_progress", "_meta": {"progressToken": "t"}}
        proc.stdin.write(_request(3, "tools/call", progress) + b"\n")
        proc.stdin.write(_request(4, "tools/call", {"name": "test_tool_with_logging"}) + b"\n")
        proc.stdin.write(_request(5, "tools/call", {"name": "test_image_content"}) + b"\n")
        proc.stdin.flush()
        messages: list[dict[str, Any]] = []
        while len([m for m in messages if "id" in m]) < 5:
            messages.append(json.loads(proc.stdout.readline()))
    finally:
        proc.stdin.close()
        proc.wait(20)
        proc.stdout.close()

    notes = [m for m in messages if "id" not in m]
    answers = {m["id"]: m for m in messages if "id" in m}
    assert [n["params"]["progress"] for n in notes if n["method"] == "notifications/progress"] == [0, 50, 100]
    assert {n["params"]["progressToken"] for n in notes if n["method"] == "notifications/progress"} == {"t"}
    logged = [n["params"] for n in notes if n["method"] == "notifications/message"]
    assert [entry["data"] for entry in logged] == [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ]
    assert {entry["level"] for entry in logged} == {"info"}
    image = answers[5]["result"]["content"]
    assert image[0]["type"] == "text" and image[1]["type"] == "image" and image[1]["mimeType"] == "image/png"
