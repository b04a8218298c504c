"""MCP over Streamable HTTP, against a live ``toolproof serve mcp --transport http`` on loopback.

Driven by the official MCP SDK client in both protocol eras, and by raw HTTP for
the status codes, headers and refusals the specification prescribes.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.ports import free_port
from tests.runtime.serve.offered import check_offers
from toolproof.runtime.serve.http import HttpLimits
from toolproof.runtime.serve.mcp import HANDSHAKE_VERSIONS, MAX_MESSAGE_BYTES, SUPPORTED_VERSIONS, McpServer
from toolproof.runtime.serve.streamable import StreamableMcp
from toolproof.runtime.toolbox import builtin_runtime

SECRET = "streamable-test-secret-32-bytes!"
TOKEN = "a-token-of-more-than-16-characters"
MODERN = "2026-07-28"
APP_ORIGIN = "https://app.example"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
}


@dataclass(frozen=True, slots=True)
class Server:
    port: int
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


def _start(roots: tuple[Path, Path], env: dict[str, str], *options: str) -> Iterator[Server]:
    ws, skills = roots
    port = free_port()
    command = [sys.executable, "-m", "toolproof", "serve", "mcp", "--transport", "http", "--port", str(port)]
    command += ["--workspace", str(ws), "--skills", str(skills), *options]
    process = subprocess.Popen(
        command, env={**os.environ, "TOOLPROOF_GATE_SECRET": SECRET, **env}, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 20
    while True:
        try:
            status, _, _ = _request(port, "GET", "/healthz")
            if status == 200:
                break
        except OSError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            raise RuntimeError(f"the server did not start: {process.communicate(timeout=5)[1]!r}")
        time.sleep(0.05)
    yield Server(port, process)
    process.terminate()
    try:
        process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate(timeout=5)


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("streamable")
    ws, skills = base / "ws", base / "skills"
    ws.mkdir()
    (ws / "notes.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    (skills / "calculator" / "examples").mkdir(parents=True)
    (skills / "calculator" / "SKILL.MD").write_text("# Calculator\n", encoding="utf-8")
    (skills / "calculator" / "examples" / "basic.py").write_text("x = 1\n", encoding="utf-8")
    return ws, skills


@pytest.fixture(scope="module")
def server(roots: tuple[Path, Path]) -> Iterator[Server]:
    yield from _start(roots, {"TOOLPROOF_AUTH_TOKENS": ""})


@pytest.fixture(scope="module")
def guarded(roots: tuple[Path, Path]) -> Iterator[Server]:
    yield from _start(roots, {"TOOLPROOF_AUTH_TOKENS": f"{TOKEN},another-token-0123456789"})


@pytest.fixture(scope="module")
def browsed(roots: tuple[Path, Path]) -> Iterator[Server]:
    """A server that needs a token and lets pages on ``APP_ORIGIN`` call it."""
    yield from _start(roots, {"TOOLPROOF_AUTH_TOKENS": TOKEN}, "--allow-origin", APP_ORIGIN)


def _request(
    port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One raw HTTP request to the server; the status, the headers (lowercased names) and the body."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        sent = dict(headers or {})
        skip_host = "Host" in sent
        connection.putrequest(method, path, skip_host=skip_host, skip_accept_encoding=True)
        data = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode("utf-8"))
        if body is not None:
            sent.setdefault("Content-Type", "application/json")
            sent["Content-Length"] = str(len(data))
        for name, value in sent.items():
            connection.putheader(name, value)
        connection.endheaders(data or None)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def _modern(
    port: int, method: str, params: dict[str, Any] | None = None, extra: dict[str, str] | None = None, id_: int = 1
) -> tuple[int, dict[str, str], bytes]:
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
        **(extra or {}),
    }
    message: dict[str, Any] = {
        "jsonrpc": "2.0",
        "method": method,
        "params": {"_meta": ENVELOPE} if params is None else params,
    }
    if id_ >= 0:
        message["id"] = id_
    return _request(port, "POST", "/mcp", message, headers)


@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_the_sdk_client_lists_tools_and_reads_a_file_in_a_skill_in_both_eras(server: Server, mode: str) -> None:
    async def session() -> None:
        with anyio.fail_after(30):
            async with Client(server.url, mode=mode) as client:
                assert client.protocol_version == ("2025-11-25" if mode == "legacy" else MODERN)
                listed = await client.list_tools()
                names = [tool.name for tool in listed.tools]
                assert names == sorted(names) and "read_file_in_skill" in names
                args = {"skill_name": "calculator", "file_path": "examples/basic.py"}
                result = await client.call_tool("read_file_in_skill", args)
                assert result.is_error is False
                assert result.content[0].text.startswith("x = 1\n")  # type: ignore[union-attr]

    anyio.run(session)


@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_the_sdk_client_lists_reads_gets_and_completes_the_skill_resource_and_prompt_in_both_eras(
    server: Server, mode: str
) -> None:
    async def session() -> None:
        with anyio.fail_after(30):
            async with Client(server.url, mode=mode) as client:
                await check_offers(client)

    anyio.run(session)


def test_notifications_are_accepted_with_202_and_no_body_in_both_eras(server: Server) -> None:
    legacy = _request(
        server.port,
        "POST",
        "/mcp",
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"},
    )
    modern = _modern(server.port, "notifications/cancelled", {"requestId": 7}, id_=-1)

    assert (legacy[0], legacy[2]) == (202, b"")
    assert (modern[0], modern[2]) == (202, b"")


def test_get_and_delete_on_the_endpoint_get_405_allowing_post(server: Server) -> None:
    for method in ("GET", "DELETE"):
        status, headers, _ = _request(server.port, method, "/mcp", headers={"Accept": "text/event-stream"})
        assert (status, headers["allow"]) == (405, "POST")


@pytest.mark.parametrize(
    "meta",
    [
        {},
        {"io.modelcontextprotocol/clientCapabilities": {}},
        {"io.modelcontextprotocol/protocolVersion": MODERN},
    ],
)
def test_a_2026_request_without_its_whole_envelope_gets_400_and_invalid_params(
    server: Server, meta: dict[str, Any]
) -> None:
    status, _, body = _modern(server.port, "server/discover", {"_meta": meta} if meta else {}, id_=101)

    answer = json.loads(body)
    assert status == 400 and answer["id"] == 101 and answer["error"]["code"] == -32602


def test_an_unsupported_version_gets_400_with_the_versions_we_speak(server: Server) -> None:
    meta = {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "v999.0.0"}
    status, _, body = _modern(server.port, "server/discover", {"_meta": meta}, {"MCP-Protocol-Version": "v999.0.0"})
    _, _, discovered = _modern(server.port, "server/discover")

    error = json.loads(body)["error"]
    assert status == 400 and error["code"] == -32022
    assert error["data"]["requested"] == "v999.0.0"
    supported = json.loads(discovered)["result"]["supportedVersions"]
    assert MODERN in error["data"]["supported"] and set(error["data"]["supported"]) <= set(supported)


@pytest.mark.parametrize("version", ["2024-01-01", "garbage", "2027-01-01", "2026-07-28x", ""])
@pytest.mark.parametrize(
    ("message", "answer_id"),
    [
        ({"jsonrpc": "2.0", "id": 5, "method": "ping"}, 5),
        ({"jsonrpc": "2.0", "id": "five", "method": "tools/list", "params": {"_meta": ENVELOPE}}, "five"),
        ({"jsonrpc": "2.0", "id": 6, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}, 6),
        ({"jsonrpc": "2.0", "method": "notifications/initialized"}, None),
        ({"jsonrpc": "2.0", "id": 7, "result": {}}, None),
    ],
)
def test_a_version_header_we_do_not_speak_gets_400_and_the_versions_we_do_whatever_the_body(
    server: Server, version: str, message: dict[str, Any], answer_id: Any
) -> None:
    """Not read as 2026-07-28 (nor as 2025) by its shape: the version is named, or the request refused."""
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": version}

    status, _, body = _request(server.port, "POST", "/mcp", message, headers)

    assert status == 400
    assert json.loads(body) == {
        "jsonrpc": "2.0",
        "id": answer_id,
        "error": {
            "code": -32022,
            "message": f"Unsupported protocol version: {version}",
            "data": {"supported": list(SUPPORTED_VERSIONS), "requested": version},
        },
    }


@pytest.mark.parametrize("version", [*HANDSHAKE_VERSIONS, "2025-11-25 \t"])
def test_a_2025_version_header_serves_a_request_without_its_envelope(server: Server, version: str) -> None:
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": version}

    status, _, body = _request(server.port, "POST", "/mcp", {"jsonrpc": "2.0", "id": 5, "method": "ping"}, headers)

    assert (status, json.loads(body)) == (200, {"jsonrpc": "2.0", "id": 5, "result": {}})


def test_a_message_too_large_by_its_content_length_gets_413_before_a_byte_is_awaited() -> None:
    app = StreamableMcp(McpServer(builtin_runtime(gate_secret=b"413"), handshake=False), HttpLimits())
    length = str(MAX_MESSAGE_BYTES + 1).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", length)]
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}
    awaited: list[None] = []
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        awaited.append(None)
        await anyio.sleep(60)
        return {"type": "http.disconnect"}

    async def send(message: Any) -> None:
        sent.append(message)

    async def run() -> None:
        with anyio.fail_after(5):
            await app(scope, receive, send)

    anyio.run(run)

    assert not awaited
    assert sent[0]["status"] == 413 and (b"connection", b"close") in sent[0]["headers"]
    assert json.loads(sent[1]["body"]) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": f"message larger than {MAX_MESSAGE_BYTES} bytes"},
    }


def test_a_header_that_disagrees_with_the_body_gets_400_header_mismatch(server: Server) -> None:
    status, _, body = _modern(server.port, "tools/list", extra={"Mcp-Method": "tools/call"})
    named = _modern(
        server.port,
        "tools/call",
        {"name": "file-read", "arguments": {"path": "notes.txt"}, "_meta": ENVELOPE},
        {"Mcp-Name": "read_file"},
    )

    assert status == 400 and json.loads(body)["error"]["code"] == -32020
    assert named[0] == 400 and json.loads(named[2])["error"]["code"] == -32020


def test_methods_2026_removed_get_404_method_not_found(server: Server) -> None:
    for method in ("initialize", "ping", "logging/setLevel", "unknown/method"):
        status, _, body = _modern(server.port, method)
        assert status == 404 and json.loads(body)["error"]["code"] == -32601, method


def test_2026_results_carry_result_type_and_cacheable_ones_their_caching_hints(server: Server) -> None:
    _, _, listed = _modern(server.port, "tools/list")
    call = {"name": "file-read", "arguments": {"path": "notes.txt"}, "_meta": ENVELOPE}
    _, _, called = _modern(server.port, "tools/call", call, {"Mcp-Name": "=?base64?ZmlsZS1yZWFk?="})

    result = json.loads(listed)["result"]
    assert result["resultType"] == "complete" and result["ttlMs"] >= 0 and result["cacheScope"] in ("public", "private")
    assert json.loads(called)["result"]["resultType"] == "complete"
    assert b"\n" not in listed.rstrip(b"\n")  # one line: some harnesses read bodies line by line


def test_a_client_that_accepts_only_event_streams_gets_one_event_then_the_end(server: Server) -> None:
    status, headers, body = _modern(server.port, "tools/list", extra={"Accept": "text/event-stream"})

    assert status == 200 and headers["content-type"] == "text/event-stream"
    assert body.startswith(b"event: message\r\ndata: {") and body.endswith(b"\r\n\r\n")
    assert json.loads(body.split(b"data: ", 1)[1])["result"]["tools"]


def test_requests_without_a_token_or_with_a_wrong_one_get_401_and_the_right_one_passes(guarded: Server) -> None:
    missing = _modern(guarded.port, "tools/list")
    wrong = _modern(guarded.port, "tools/list", extra={"Authorization": "Bearer not-the-token-at-all-no"})
    right = _modern(guarded.port, "tools/list", extra={"Authorization": f"Bearer {TOKEN}"})
    health = _request(guarded.port, "GET", "/healthz")
    rest = _request(guarded.port, "GET", "/openapi.json")

    assert missing[0] == 401 and missing[1]["www-authenticate"].startswith("Bearer")
    assert wrong[0] == 401 and 'error="invalid_token"' in wrong[1]["www-authenticate"]
    assert right[0] == 200 and json.loads(right[2])["result"]["tools"]
    assert health[0] == 200 and rest[0] == 401
    guarded.process.terminate()
    stderr = guarded.process.communicate(timeout=10)[1].decode("utf-8", "replace")
    assert "not-the-token-at-all-no" not in stderr and TOKEN not in stderr
    assert "refused a request with a wrong bearer token" in stderr
    assert "refused a request with no bearer token" in stderr


def test_a_foreign_origin_gets_403_and_a_foreign_host_421_but_loopback_passes(server: Server) -> None:
    origin = _modern(server.port, "server/discover", extra={"Origin": "http://evil.example.com"})
    host = _modern(server.port, "server/discover", extra={"Host": "evil.example.com"})
    local = _modern(
        server.port,
        "server/discover",
        extra={"Host": f"127.0.0.1:{server.port}", "Origin": f"http://127.0.0.1:{server.port}"},
    )
    rest = _request(server.port, "GET", "/openapi.json", headers={"Host": "evil.example.com"})

    assert origin[0] == 403 and host[0] == 421 and rest[0] == 421
    assert local[0] == 200 and json.loads(local[2])["result"]["resultType"] == "complete"


def _raw_status(port: int, head_lines: list[str], target: str = "/openapi.json", version: str = "HTTP/1.1") -> int:
    """The status of one request for ``target`` sent as these raw head lines (each as written, repeats included)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(("\r\n".join([f"GET {target} {version}", *head_lines, "Connection: close"]) + "\r\n\r\n").encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return int(answer.split(b" ", 2)[1])


@pytest.mark.parametrize(
    "head",
    [
        ["Host: 127.0.0.1", "Host: evil.example.com"],
        ["Host: evil.example.com", "Host: 127.0.0.1"],
        ["Host: 127.0.0.1", "Origin: http://127.0.0.1", "Origin: http://evil.example.com"],
        ["Host: 127.0.0.1", "Authorization: Bearer a", "authorization: Bearer b"],
    ],
)
def test_a_gated_header_sent_twice_is_refused_with_400(server: Server, head: list[str]) -> None:
    assert _raw_status(server.port, head) == 400


@pytest.mark.parametrize(
    "head",
    [
        ["Host: 127.0.0.1:evil"],
        ["Host: [::1]evil"],
        ["Host: 127.0.0.1", "Origin: http://127.0.0.1:evil"],
        ["Host: 127.0.0.1", "Origin: http://evil@127.0.0.1"],
        ["Host: 127.0.0.1", "Origin: http://127.0.0.1/path"],
    ],
)
def test_a_malformed_host_or_origin_is_not_read_as_loopback(server: Server, head: list[str]) -> None:
    assert _raw_status(server.port, head) in (403, 421)


@pytest.mark.parametrize(
    ("target", "head", "status"),
    [
        ("http://evil.example/openapi.json", ["Host: 127.0.0.1"], 421),
        ("http://evil.example:80/openapi.json", ["Host: localhost"], 421),
        ("https://evil.example/openapi.json", ["Host: 127.0.0.1", "Host: 127.0.0.1"], 421),
        ("http://127.0.0.1@evil.example/openapi.json", ["Host: 127.0.0.1"], 421),
        ("http://127.0.0.1/openapi.json", ["Host: evil.example"], 200),
        ("http://localhost:1/openapi.json", [], 200),
    ],
)
def test_an_absolute_form_target_naming_another_host_is_refused_though_the_host_header_is_loopback(
    server: Server, target: str, head: list[str], status: int
) -> None:
    """RFC 9112 §3.2.2: the target's authority, not the Host header, names the host asked for."""
    assert _raw_status(server.port, head, target) == status


@pytest.mark.parametrize(
    ("target", "head", "version"),
    [
        ("/healthz", ["Host: evil.example"], "HTTP/1.1"),
        ("/healthz", [], "HTTP/1.0"),
        ("http://evil.example/healthz", ["Host: 127.0.0.1"], "HTTP/1.1"),
    ],
)
def test_healthz_answers_whatever_host_a_load_balancer_probes_with_and_says_nothing_more(
    server: Server, target: str, head: list[str], version: str
) -> None:
    """Deliberate (see app.py): HAProxy probes with no Host, Kubernetes with the pod's address."""
    assert _raw_status(server.port, head, target, version) == 200


def test_loopback_hosts_with_and_without_a_port_pass_the_gates(server: Server) -> None:
    port = server.port
    assert _raw_status(port, ["Host: 127.0.0.1"]) == 200
    assert _raw_status(port, [f"Host: localhost:{port}", f"Origin: http://localhost:{port}"]) == 200
    assert _raw_status(port, [f"Host: [::1]:{port}", "Origin: http://[::1]"]) == 200


def test_the_rest_routes_are_served_by_the_same_app(server: Server) -> None:
    status, _, body = _request(server.port, "POST", "/tools/file-read", {"path": "notes.txt"})

    assert status == 200 and json.loads(body)["content"] == "1 | one\n2 | two\n3 | three"


class _Reporting(McpServer):
    """Reports progress twice through ``notify`` on tools/call (``pause`` seconds apart), then answers."""

    pause = 0.0

    def answer(self, message: Any, **options: Any) -> dict[str, Any] | None:
        notify = options.get("notify")
        if isinstance(message, dict) and message.get("method") == "tools/call" and notify is not None:
            for step in (50, 100):
                params = {"progressToken": "p", "progress": step, "total": 100}
                notify({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
                time.sleep(self.pause)
            return {"jsonrpc": "2.0", "id": message["id"], "result": {"content": [], "resultType": "complete"}}
        return super().answer(message, **options)


class _Slow(_Reporting):
    pause = 0.35


def _sse_call(server: McpServer, limits: HttpLimits) -> list[dict[str, Any]]:
    """What the app sends for one 2026 tools/call that accepts JSON and SSE."""
    app = StreamableMcp(server, limits)
    body = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "file-read", "_meta": ENVELOPE}}
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call",
        "mcp-name": "file-read",
    }
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": json.dumps(body).encode(), "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    anyio.run(app, scope, receive, send)
    return sent


def test_progress_a_call_reports_turns_its_answer_into_an_sse_stream_ending_with_the_response() -> None:
    sent = _sse_call(_Reporting(builtin_runtime(gate_secret=b"sse"), handshake=False), HttpLimits())

    assert sent[0]["status"] == 200 and (b"content-type", b"text/event-stream") in sent[0]["headers"]
    stream = b"".join(message.get("body", b"") for message in sent[1:])
    assert b": keep-alive" not in stream
    events = [json.loads(part.split(b"data: ", 1)[1]) for part in stream.split(b"\r\n\r\n") if part]
    assert [event.get("params", {}).get("progress") for event in events[:2]] == [50, 100]
    assert events[2]["id"] == 9 and "result" in events[2] and len(events) == 3
    assert sent[-1] == {"type": "http.response.body", "body": b""}


def test_a_silent_sse_answer_gets_keep_alive_comments_until_the_response() -> None:
    """A proxy closes a stream that says nothing for a minute; a long call must not look dead."""
    sent = _sse_call(_Slow(builtin_runtime(gate_secret=b"sse"), handshake=False), HttpLimits(sse_keepalive=0.1))

    stream = b"".join(message.get("body", b"") for message in sent[1:])
    parts = [part for part in stream.split(b"\r\n\r\n") if part]
    comments = [part for part in parts if part.startswith(b":")]
    events = [json.loads(part.split(b"data: ", 1)[1]) for part in parts if not part.startswith(b":")]
    assert len(comments) >= 2 and set(comments) == {b": keep-alive"}
    assert [event.get("params", {}).get("progress") for event in events[:2]] == [50, 100]
    assert events[2]["id"] == 9 and len(events) == 3
    assert parts[-1].startswith(b"event: message") and sent[-1] == {"type": "http.response.body", "body": b""}


LEGACY_HEADERS = [None, *HANDSHAKE_VERSIONS]
"""The ``MCP-Protocol-Version`` headers of 2025-era requests (None: no header, which is 2025-03-26)."""


def _legacy_headers(version: str | None, accept: str = "application/json, text/event-stream") -> dict[str, str]:
    return {"Accept": accept} if version is None else {"Accept": accept, "MCP-Protocol-Version": version}


@pytest.mark.parametrize("version", LEGACY_HEADERS)
@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"jsonrpc": "2.0", "id": 3, "method": "sampling/createMessage"}, -32601),
        ({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "no-such-tool"}}, -32602),
        ({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": ["file-read"]}, -32602),
        ({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel", "params": {"level": "loud"}}, -32602),
    ],
)
def test_a_2025_request_gets_its_json_rpc_error_with_200_as_its_clients_expect(
    server: Server, version: str | None, message: dict[str, Any], code: int
) -> None:
    """2025 clients (the TypeScript SDKs) take a 4xx for a failed transport, not for the error in its body."""
    status, headers, body = _request(server.port, "POST", "/mcp", message, _legacy_headers(version))

    assert (status, headers["content-type"]) == (200, "application/json")
    answer = json.loads(body)
    assert answer["id"] == 3 and answer["error"]["code"] == code


def test_a_2025_error_to_a_client_that_accepts_only_event_streams_is_one_event() -> None:
    app = StreamableMcp(McpServer(builtin_runtime(gate_secret=b"sse"), handshake=False), HttpLimits())
    message = {"jsonrpc": "2.0", "id": 4, "method": "sampling/createMessage"}
    sent = _app_post(app, message, {"accept": "text/event-stream", "mcp-protocol-version": "2025-11-25"})

    assert sent[0]["status"] == 200 and (b"content-type", b"text/event-stream") in sent[0]["headers"]
    stream = b"".join(piece.get("body", b"") for piece in sent[1:])
    assert json.loads(stream.split(b"data: ", 1)[1])["error"]["code"] == -32601


def test_a_2026_request_still_gets_the_status_its_error_maps_to(server: Server) -> None:
    call = {"name": "no-such-tool", "arguments": {}, "_meta": ENVELOPE}
    status, _, body = _modern(server.port, "tools/call", call, {"Mcp-Name": "no-such-tool"})

    assert status == 400 and json.loads(body)["error"]["code"] == -32602


def _app_post(app: StreamableMcp, message: Any, headers: dict[str, str]) -> list[dict[str, Any]]:
    """What ``app`` sends for one POST of ``message`` with ``headers`` (and a JSON content type)."""
    raw = [(b"content-type", b"application/json"), *((k.encode(), v.encode()) for k, v in headers.items())]
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": raw}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": json.dumps(message).encode(), "more_body": False}

    async def send(piece: Any) -> None:
        sent.append(piece)

    anyio.run(app, scope, receive, send)
    return sent


def _post_lines(port: int, lines: list[tuple[str, str]], message: Any) -> tuple[int, Any]:
    """POST ``message`` to /mcp with these header lines, repeats included; the status and the decoded answer."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        data = json.dumps(message).encode("utf-8")
        connection.putrequest("POST", "/mcp", skip_accept_encoding=True)
        for name, value in [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(data))),
            ("Accept", "application/json, text/event-stream"),
            *lines,
        ]:
            connection.putheader(name, value)
        connection.endheaders(data)
        response = connection.getresponse()
        body = response.read()
        return response.status, json.loads(body) if body else None
    finally:
        connection.close()


READ_CALL = {
    "jsonrpc": "2.0",
    "id": 8,
    "method": "tools/call",
    "params": {"name": "file-read", "arguments": {"path": "notes.txt"}, "_meta": ENVELOPE},
}


@pytest.mark.parametrize(
    "routing",
    [
        [("Mcp-Method", "tools/call"), ("Mcp-Name", "file-read"), ("Mcp-Name", "read_file")],
        [("Mcp-Method", "tools/call"), ("Mcp-Name", "read_file"), ("Mcp-Name", "file-read")],
        [("Mcp-Method", "tools/call"), ("Mcp-Name", "file-read"), ("mcp-name", "file-read")],
        [("Mcp-Method", "tools/call"), ("Mcp-Method", "tools/list"), ("Mcp-Name", "file-read")],
        [("Mcp-Method", "tools/list"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "file-read")],
    ],
)
def test_a_routing_header_sent_twice_is_a_header_mismatch(server: Server, routing: list[tuple[str, str]]) -> None:
    """A balancer reading one copy and the server the other would route one call and run another."""
    status, answer = _post_lines(server.port, [("MCP-Protocol-Version", MODERN), *routing], READ_CALL)

    assert status == 400 and answer["id"] == 8 and answer["error"]["code"] == -32020
    assert "more than once" in answer["error"]["message"]


@pytest.mark.parametrize(
    ("versions", "message"),
    [
        ([MODERN, MODERN], READ_CALL),
        ([MODERN, "2025-11-25"], READ_CALL),
        (["2025-11-25", MODERN], {"jsonrpc": "2.0", "id": 8, "method": "ping"}),
    ],
)
def test_a_version_header_sent_twice_names_no_version_we_speak(
    server: Server, versions: list[str], message: dict[str, Any]
) -> None:
    routing = [("Mcp-Method", message["method"]), ("Mcp-Name", "file-read")]
    lines = [*(("MCP-Protocol-Version", version) for version in versions), *routing]

    status, answer = _post_lines(server.port, lines, message)

    assert status == 400 and answer["id"] == 8 and answer["error"]["code"] == -32022
    assert answer["error"]["data"] == {"supported": list(SUPPORTED_VERSIONS), "requested": ", ".join(versions)}


@pytest.mark.parametrize(
    ("method", "params", "extra"),
    [
        ("tools/call", {"name": "file-read", "arguments": {"path": "notes.txt"}}, {"Mcp-Name": "other_tool"}),
        ("tools/call", {"name": "file-read", "arguments": {"path": "notes.txt"}}, {"Mcp-Name": "file-read"}),
        ("ping", {}, {}),
        ("tools/list", {}, {}),
    ],
)
def test_a_request_in_the_2026_envelope_without_the_version_header_gets_400_header_mismatch(
    server: Server, method: str, params: dict[str, Any], extra: dict[str, str]
) -> None:
    """2026-07-28 requires the header; leaving it out must not skip that revision's checks."""
    message = {"jsonrpc": "2.0", "id": 12, "method": method, "params": {**params, "_meta": ENVELOPE}}
    headers = {"Accept": "application/json, text/event-stream", "Mcp-Method": method, **extra}

    status, _, body = _request(server.port, "POST", "/mcp", message, headers)

    error = json.loads(body)["error"]
    assert status == 400 and error["code"] == -32020 and "MCP-Protocol-Version header is missing" in error["message"]


def test_a_request_without_the_version_header_or_the_envelope_is_served_as_2025(server: Server) -> None:
    message = {"jsonrpc": "2.0", "id": 13, "method": "ping"}

    status, _, body = _request(server.port, "POST", "/mcp", message, _legacy_headers(None))

    assert (status, json.loads(body)) == (200, {"jsonrpc": "2.0", "id": 13, "result": {}})


@pytest.mark.parametrize("version", [*LEGACY_HEADERS, MODERN])
@pytest.mark.parametrize(
    "message",
    [
        {"foo": 1},
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "1.0", "method": "notifications/initialized"},
        {"method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": 7},
        {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "both"}},
        {"jsonrpc": "1.0", "id": 1, "result": {}},
    ],
)
def test_an_object_that_is_no_json_rpc_message_gets_400_invalid_request(
    server: Server, version: str | None, message: dict[str, Any]
) -> None:
    status, _, body = _request(server.port, "POST", "/mcp", message, _legacy_headers(version))

    answer = json.loads(body)
    assert status == 400 and answer["id"] is None and answer["error"]["code"] == -32600


def test_a_2025_response_from_the_client_is_still_accepted_with_202(server: Server) -> None:
    response = {"jsonrpc": "2.0", "id": 7, "result": {}}

    status, _, body = _request(server.port, "POST", "/mcp", response, _legacy_headers("2025-11-25"))

    assert (status, body) == (202, b"")


PREFLIGHT = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,mcp-method"}


@pytest.mark.parametrize("origin", [APP_ORIGIN, "http://localhost:5173"])
def test_a_preflight_from_an_allowed_origin_gets_204_and_what_a_page_may_send_without_a_token(
    browsed: Server, origin: str
) -> None:
    """Browsers send no credentials on a preflight: it must pass without the token the request will carry."""
    mcp = _request(browsed.port, "OPTIONS", "/mcp", headers={"Origin": origin, **PREFLIGHT})
    rest = _request(browsed.port, "OPTIONS", "/tools/file-read", headers={"Origin": origin, **PREFLIGHT})

    status, headers, body = mcp
    assert (status, body) == (204, b"") and "content-length" not in headers
    assert headers["access-control-allow-origin"] == origin and headers["vary"] == "Origin"
    assert headers["access-control-allow-methods"] == "POST"
    allowed = {name.strip().lower() for name in headers["access-control-allow-headers"].split(",")}
    assert allowed >= {"content-type", "accept", "authorization", "mcp-protocol-version", "mcp-method", "mcp-name"}
    assert int(headers["access-control-max-age"]) > 0
    assert rest[0] == 204 and set(rest[1]["access-control-allow-methods"].split(", ")) == {"GET", "POST"}


def test_responses_to_an_allowed_origin_carry_cors_headers_and_others_none(browsed: Server) -> None:
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    served = _modern(browsed.port, "tools/list", extra={"Origin": APP_ORIGIN, **bearer})
    refused = _modern(browsed.port, "tools/list", extra={"Origin": APP_ORIGIN})
    rest = _request(browsed.port, "GET", "/openapi.json", headers={"Origin": APP_ORIGIN, **bearer})
    plain = _modern(browsed.port, "tools/list", extra=bearer)
    foreign = _request(browsed.port, "OPTIONS", "/mcp", headers={"Origin": "https://evil.example", **PREFLIGHT})

    for status, headers, _ in (served, refused, rest):
        assert headers["access-control-allow-origin"] == APP_ORIGIN and headers["vary"] == "Origin", status
    assert served[0] == 200 and refused[0] == 401 and rest[0] == 200
    exposed = {name.strip().lower() for name in refused[1]["access-control-expose-headers"].split(",")}
    assert {"www-authenticate", "mcp-session-id", "mcp-protocol-version"} <= exposed
    assert plain[0] == 200 and not [name for name in plain[1] if name.startswith("access-control-")]
    assert foreign[0] == 403 and "access-control-allow-origin" not in foreign[1]


@pytest.mark.parametrize("number", ["1e400", "9" * 4400])
def test_valid_json_beyond_the_readers_bounds_is_answered_by_its_own_id(server: Server, number: str) -> None:
    """Not "the body is not JSON" with no id: the call's arguments are refused by name, as every transport does."""
    body = '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "file-read", '
    body += '"arguments": {"path": "a.txt", "start_line": ' + number + "}}}"
    batch = f"[{body}, " + '{"jsonrpc": "2.0", "id": 8, "method": "ping"}]'

    status, _, answer = _request(server.port, "POST", "/mcp", body.encode(), _legacy_headers("2025-11-25"))
    batch_status, _, batch_answer = _request(server.port, "POST", "/mcp", batch.encode(), _legacy_headers(None))

    assert status == 200, answer
    result = json.loads(answer)
    assert result["id"] == 7 and result["result"]["isError"] is True
    assert "$.start_line: a number" in result["result"]["content"][0]["text"]
    assert batch_status == 200, batch_answer
    assert [item["id"] for item in json.loads(batch_answer)] == [7, 8]


def test_a_long_body_beyond_the_readers_bounds_is_refused_saying_what_it_holds(server: Server) -> None:
    crowd = "[" * 900 + "[]," * 300_000 + "[]" + "]" * 900
    body = '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"a": [' + crowd + ", 1e400]}}"

    status, _, answer = _request(server.port, "POST", "/mcp", body.encode(), _legacy_headers("2025-11-25"))

    assert status == 400, answer
    error = json.loads(answer)["error"]
    assert error["code"] == -32600 and "a number beyond the range of a float" in error["message"], error
