"""JSON-RPC batches, which protocol 2025-03-26 says a server MUST receive (2025-06-18 removed them).

Over stdio they are received when the connection negotiated 2025-03-26; over
HTTP when the request says 2025-03-26 or no version at all (which the
specification says to read as 2025-03-26). Under any other revision a batch
is one Invalid Request.
"""

from __future__ import annotations

import asyncio
import io
import json
import time
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import pytest

from toolproof.runtime.serve.http import HttpLimits
from toolproof.runtime.serve.mcp import MAX_BATCH, McpServer, serve_stdio
from toolproof.runtime.serve.streamable import StreamableMcp
from toolproof.runtime.toolbox import builtin_runtime


def _request(request_id: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}


READ = _request(3, "tools/call", {"name": "file-read", "arguments": {"path": "a.txt"}})
NOTE = {"jsonrpc": "2.0", "method": "notifications/initialized"}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("one\ntwo\n", encoding="utf-8")
    return tmp_path


def _stdio(workspace: Path, version: str, *lines: Any) -> list[Any]:
    """What a stdio server answers, after initializing at ``version``, to ``lines`` (JSON values or raw bytes)."""
    hello = _request(0, "initialize", {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t"}})
    sent = [hello, NOTE, *lines]
    stdin = io.BytesIO(b"".join((m if isinstance(m, bytes) else json.dumps(m).encode()) + b"\n" for m in sent))
    stdout = io.BytesIO()
    serve_stdio(McpServer(builtin_runtime(workspace=[workspace])), stdin, stdout)
    return [json.loads(line) for line in stdout.getvalue().splitlines()][1:]  # after initialize's answer


def test_a_2025_03_26_stdio_batch_is_answered_by_an_array_in_order_without_its_notifications(workspace: Path) -> None:
    (answers,) = _stdio(workspace, "2025-03-26", [_request(1, "ping"), NOTE, _request(2, "tools/list"), READ])

    assert [answer["id"] for answer in answers] == [1, 2, 3]
    assert answers[0]["result"] == {}
    assert "file-read" in {tool["name"] for tool in answers[1]["result"]["tools"]}
    assert answers[2]["result"]["structuredContent"]["content"] == "1 | one\n2 | two"


def test_a_batch_under_a_later_revision_is_one_invalid_request(workspace: Path) -> None:
    (answer,) = _stdio(workspace, "2025-06-18", [_request(1, "ping")])

    assert answer["id"] is None and answer["error"]["code"] == -32600
    assert "2025-03-26" in answer["error"]["message"]


@pytest.mark.parametrize("batch", [[], [_request(i, "ping") for i in range(MAX_BATCH + 1)]], ids=["empty", "too long"])
def test_an_empty_or_too_long_batch_is_one_invalid_request(workspace: Path, batch: list[Any]) -> None:
    (answer,) = _stdio(workspace, "2025-03-26", batch)

    assert answer["id"] is None and answer["error"]["code"] == -32600


def test_initialize_in_a_batch_is_refused_and_the_rest_answered(workspace: Path) -> None:
    hello = _request(1, "initialize", {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {}})

    (answers,) = _stdio(workspace, "2025-03-26", [hello, _request(2, "ping"), 7])

    assert [(a["id"], a.get("error", {}).get("code")) for a in answers] == [(1, -32600), (2, None), (None, -32600)]


def test_a_batch_of_notifications_only_gets_no_answer(workspace: Path) -> None:
    answers = _stdio(workspace, "2025-03-26", [NOTE, NOTE], _request(9, "ping"))

    assert answers == [{"jsonrpc": "2.0", "id": 9, "result": {}}]


def _post(workspace: Path, body: Any, version: str | None) -> tuple[int, Any]:
    app = StreamableMcp(McpServer(builtin_runtime(workspace=[workspace]), handshake=False), HttpLimits())
    data = json.dumps(body).encode()
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if version is not None:
        headers["mcp-protocol-version"] = version
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
    }
    sent: list[dict[str, Any]] = []

    given = False

    async def receive() -> dict[str, Any]:  # as a server does: the body, then nothing until the client leaves
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": data, "more_body": False}
        await asyncio.Event().wait()
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(dict(message))

    asyncio.run(app(scope, receive, send))
    status = sent[0]["status"]
    body_out = b"".join(m.get("body", b"") for m in sent[1:])
    return status, json.loads(body_out) if body_out else None


@pytest.mark.parametrize("version", ["2025-03-26", None])
def test_an_http_batch_under_2025_03_26_or_no_version_is_answered_by_an_array(
    workspace: Path, version: str | None
) -> None:
    status, answers = _post(workspace, [_request(1, "ping"), NOTE, READ], version)

    assert status == 200
    assert [answer["id"] for answer in answers] == [1, 3]
    assert answers[1]["result"]["structuredContent"]["content"] == "1 | one\n2 | two"


def test_an_http_batch_of_notifications_only_gets_202(workspace: Path) -> None:
    assert _post(workspace, [NOTE, NOTE], "2025-03-26") == (202, None)


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25", "2026-07-28"])
def test_an_http_batch_under_a_later_revision_gets_400_invalid_request(workspace: Path, version: str) -> None:
    status, answer = _post(workspace, [_request(1, "ping")], version)

    assert status == 400 and answer["error"]["code"] == -32600


def test_a_batch_under_a_version_we_do_not_speak_gets_the_versions_we_do(workspace: Path) -> None:
    status, answer = _post(workspace, [_request(1, "ping")], "2099-01-01")

    assert status == 400 and answer["error"]["code"] == -32022
    assert "2025-03-26" in answer["error"]["data"]["supported"]


def test_a_batch_within_a_batch_is_refused_as_such(workspace: Path) -> None:
    status, answers = _post(workspace, [[_request(1, "ping")], _request(2, "ping")], "2025-03-26")

    assert status == 200
    assert answers[0]["error"]["message"] == "Invalid Request: a batch holds messages, not batches"
    assert answers[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}


class _Slow(McpServer):
    """tools/call sleeps 0.3 s and notes its id in ``ran``."""

    def __init__(self, workspace: Path) -> None:
        super().__init__(builtin_runtime(workspace=[workspace]), handshake=False)
        self.ran: list[Any] = []

    def answer(self, message: Any, **options: Any) -> dict[str, Any] | None:
        if isinstance(message, dict) and message.get("method") == "tools/call":
            time.sleep(0.3)
            self.ran.append(message["id"])
            return {"jsonrpc": "2.0", "id": message["id"], "result": {"content": []}}
        return super().answer(message, **options)


def test_a_batch_whose_client_leaves_stops_running_its_calls(workspace: Path) -> None:
    server = _Slow(workspace)
    app = StreamableMcp(server, HttpLimits())
    data = json.dumps([_request(i, "tools/call", {"name": "x"}) for i in range(1, 9)]).encode()
    headers = [(b"content-type", b"application/json"), (b"accept", b"application/json")]
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}
    sent: list[MutableMapping[str, Any]] = []

    async def scenario() -> None:
        left = asyncio.Event()
        given = False

        async def receive() -> dict[str, Any]:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": data, "more_body": False}
            await left.wait()
            return {"type": "http.disconnect"}

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message)

        task = asyncio.ensure_future(app(scope, receive, send))
        await asyncio.sleep(0.45)  # one call ended, the second under way
        left.set()
        await asyncio.wait_for(task, 10)

    asyncio.run(scenario())

    assert len(server.ran) <= 3  # not the 8 it asked for
    assert sent == []  # no one to answer
