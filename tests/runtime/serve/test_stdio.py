"""The stdio loop (``serve/stdio.py``): a cancelled call sends no more; a line that is not JSON is answered."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
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
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.serve.mcp import (
    HANDSHAKE_VERSIONS,
    McpServer,
    serve_stdio,
)
from toolproof.runtime.serve.stdio import _FdReader
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


def test_the_fd_reader_gives_lines_across_reads_bounded_and_the_rest_at_the_end() -> None:
    read, write = os.pipe()
    with os.fdopen(write, "wb", buffering=0) as writer:
        writer.write(b"one\ntw")
        writer.write(b"o\n" + b"x" * 10 + b"\nlast")
    reader = _FdReader(read)
    try:
        assert [reader.readline(64), reader.readline(64)] == [b"one\n", b"two\n"]
        assert [reader.readline(4), reader.readline(64)] == [b"xxxx", b"xxxxxx\n"]  # at most ``size`` bytes
        assert [reader.readline(64), reader.readline(64)] == [b"last", b""]  # no LF at the end of input
    finally:
        os.close(read)


def test_a_call_is_answered_by_the_thread_that_read_it_and_the_next_reads_on_another(
    stepping: tuple[_Stepper, Any, io.BytesIO, threading.Thread],
) -> None:
    handler, writer, out, thread = stepping
    threads: list[str] = []
    original = _Stepper.__call__

    def noting(self: _Stepper, args: Any, ctx: ToolContext) -> dict[str, Any]:
        threads.append(threading.current_thread().name)
        return original(self, args, ctx)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_Stepper, "__call__", noting)
        writer.write(_line(_request(0, "initialize", HANDSHAKE)))
        writer.write(_line(_request(1, "tools/call", {"name": "file-read", "arguments": {"path": "x"}})))
        assert handler.started.wait(HANG)
        writer.write(_line(_request(2, "ping")))  # read by the thread the reading was handed to
        assert _written(out, 2)[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}
        handler.release.set()
        writer.close()
        thread.join(HANG)

    assert [m["id"] for m in _written(out, 3)] == [0, 2, 1]
    assert threads == ["mcp-stdio"] and not thread.is_alive()


def test_a_ctrl_c_over_real_stdio_ends_the_server_without_an_abort(tmp_path: Path) -> None:
    """A reader blocked in ``sys.stdin.buffer`` would hold its lock as the interpreter exits: CPython aborts."""
    process = subprocess.Popen(
        [sys.executable, "-m", "toolproof", "serve", "mcp", "--workspace", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(_line(_request(0, "initialize", HANDSHAKE)))
        process.stdin.flush()
        assert json.loads(process.stdout.readline())["id"] == 0  # serving: the reader waits for the next line
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=HANG)
    finally:
        if process.poll() is None:
            process.kill()

    assert process.returncode == 1, err  # click's "Aborted!", not SIGABRT's 134
    assert b"Fatal Python error" not in err
