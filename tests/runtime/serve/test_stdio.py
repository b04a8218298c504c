"""The stdio loop (``serve/stdio.py``): a cancelled call sends no more; a line that is not JSON is answered."""

from __future__ import annotations

import io
import json
import os
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

import pytest

from toolproof.runtime.context import ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.serve.mcp import (
    HANDSHAKE_VERSIONS,
    McpServer,
    serve_stdio,
)
from toolproof.runtime.spec import load_specs
from toolproof.runtime.toolbox import builtin_runtime

HANG = 10.0
"""Seconds after which a wait counts as a hang (a bound, not a speed target)."""


HANDSHAKE = {"protocolVersion": HANDSHAKE_VERSIONS[-1], "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


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


def _serve(lines: list[bytes], server: McpServer | None = None) -> list[Any]:
    """Feed ``lines`` to ``serve_stdio`` in this process; what it wrote, decoded."""
    if server is None:
        server = McpServer(builtin_runtime(gate_secret=b"review"))
    out = io.BytesIO()
    serve_stdio(server, io.BytesIO(b"".join(line if line.endswith(b"\n") else line + b"\n" for line in lines)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


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


NINES = "9" * 4400


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


def test_text_that_is_not_json_is_still_a_parse_error_and_the_loop_serves_on() -> None:
    lines = [f'{{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": {NINES}'.encode(), b"[1, 2", b'{"a": NaN}']

    answers = _serve([*lines, json.dumps(_request(2, "ping")).encode()])

    assert [answer["error"]["code"] for answer in answers[:3]] == [-32700, -32700, -32700]
    assert answers[3] == {"jsonrpc": "2.0", "id": 2, "result": {}}
