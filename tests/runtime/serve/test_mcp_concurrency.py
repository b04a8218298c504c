"""Concurrency and cancellation of the stdio MCP loop: calls run on worker threads, cancelled answers vanish."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolproof.runtime.serve.mcp import McpServer, serve_stdio
from toolproof.runtime.toolbox import builtin_runtime

HANG = 10.0
"""Seconds after which a wait counts as a hang (a bound, not a speed target)."""


def _line(request_id: int | None, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params or {}}
    if request_id is not None:
        message["id"] = request_id
    return json.dumps(message).encode("utf-8") + b"\n"


class _Blocking(McpServer):
    """Holds every tools/call until ``release`` is set; records what it saw."""

    def __init__(self) -> None:
        super().__init__(builtin_runtime(gate_secret=b"concurrency"), handshake=False)
        self.release = threading.Event()
        self.started = threading.Event()

    def handle(self, message: Any) -> dict[str, Any] | None:
        if isinstance(message, dict) and message.get("method") == "tools/call":
            self.started.set()
            released = self.release.wait(HANG)
            return {"jsonrpc": "2.0", "id": message["id"], "result": {"released": released}}
        return super().handle(message)


@pytest.fixture
def loop() -> Iterator[tuple[_Blocking, Any, io.BytesIO, threading.Thread]]:
    """``serve_stdio`` in a thread, reading a pipe the test writes; yields the server, the pipe, the output."""
    read, write = os.pipe()
    server = _Blocking()
    out = io.BytesIO()
    with os.fdopen(read, "rb") as reader, os.fdopen(write, "wb", buffering=0) as writer:
        thread = threading.Thread(target=serve_stdio, args=(server, reader, out), daemon=True)
        thread.start()
        yield server, writer, out, thread
        server.release.set()


def _answers(out: io.BytesIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def _wait_for(out: io.BytesIO, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + HANG
    while len(answers := _answers(out)) < count:
        assert time.monotonic() < deadline, answers
        time.sleep(0.01)
    return answers


def test_a_ping_is_answered_while_a_call_is_still_running(
    loop: tuple[_Blocking, Any, io.BytesIO, threading.Thread],
) -> None:
    server, writer, out, thread = loop
    writer.write(_line(1, "tools/call", {"name": "file-read", "arguments": {}}))
    assert server.started.wait(HANG)
    writer.write(_line(2, "ping"))

    first = _wait_for(out, 1)
    server.release.set()
    writer.close()
    thread.join(HANG)

    assert first == [{"jsonrpc": "2.0", "id": 2, "result": {}}]
    assert _answers(out)[1] == {"jsonrpc": "2.0", "id": 1, "result": {"released": True}}
    assert not thread.is_alive()


def test_a_cancelled_call_is_never_answered_and_the_loop_serves_on(
    loop: tuple[_Blocking, Any, io.BytesIO, threading.Thread],
) -> None:
    server, writer, out, thread = loop
    writer.write(_line(1, "tools/call", {"name": "file-read", "arguments": {}}))
    assert server.started.wait(HANG)
    writer.write(_line(None, "notifications/cancelled", {"requestId": 1, "reason": "user"}))
    writer.write(_line(2, "ping"))
    _wait_for(out, 1)  # the ping's answer: the cancellation, read before it, is recorded
    server.release.set()
    writer.write(_line(3, "tools/call", {"name": "file-read", "arguments": {}}))
    writer.close()
    thread.join(HANG)

    assert [answer["id"] for answer in _answers(out)] == [2, 3]
    assert not thread.is_alive()


def test_a_ping_during_a_10_mb_read_over_real_stdio_comes_back_without_waiting_for_it(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_bytes(b"0123456789abcde\n" * (10 * 1024 * 1024 // 16))
    process = subprocess.Popen(
        [sys.executable, "-m", "toolproof", "serve", "mcp", "--workspace", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "TOOLPROOF_GATE_SECRET": "concurrency-test-secret-32-bytes"},
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        handshake = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        process.stdin.write(_line(0, "initialize", handshake))
        process.stdin.flush()
        assert json.loads(process.stdout.readline())["id"] == 0
        call = {"name": "file-read", "arguments": {"path": "big.txt", "max_lines": 1_000_000}}
        process.stdin.write(_line(1, "tools/call", call) + _line(2, "ping"))
        process.stdin.flush()
        sent = time.monotonic()
        ids: list[int] = []
        ping_latency = None
        while len(ids) < 2:
            answer = json.loads(process.stdout.readline())
            ids.append(answer["id"])
            if answer["id"] == 2:
                ping_latency = time.monotonic() - sent
        assert sorted(ids) == [1, 2]
        assert ping_latency is not None and ping_latency < 2.0  # a hang bound; typically a few ms
    finally:
        process.stdin.close()
        process.wait(HANG)
        process.stdout.close()
