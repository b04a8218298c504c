"""Pipelining clients against the HTTP host: what one connection may make the server hold.

A client may send requests without waiting for answers, and need not read them.
The live tests start ``toolproof serve http`` as a subprocess on a free port of
127.0.0.1, watch its resident memory in ``/proc/<pid>/status`` and read its log
afterwards; one drives the protocol in process, to count what it queues. Time
bounds only tell a hang or a stall from an answer; every socket has a timeout,
so a hang fails the test instead of stopping it.
"""

from __future__ import annotations

import asyncio
import json
import re
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState

from tests.ports import free_port
from toolproof.runtime.serve.http import HttpLimits, Receive, Scope, Send
from toolproof.runtime.serve.http_server import _Guarded

HANG: float = 20.0
"""Seconds after which anything still waiting is a hang."""
PIPELINED: int = 50_000
"""Requests the pipelining client sends on its one connection."""
MAX_GROWTH_KIB: int = 16 * 1024
"""What the server's resident memory may grow by while one client pipelines and reads nothing (a few MiB needed)."""


@dataclass(frozen=True, slots=True)
class _Server:
    port: int
    pid: int
    log: Path


@pytest.fixture(scope="module")
def skills(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A skills folder with a small file and a larger one."""
    base = tmp_path_factory.mktemp("http-pipelining")
    skill = base / "skills" / "small"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: small\ndescription: A file.\n---\n# Small\n", encoding="utf-8")
    (skill / "small.txt").write_text("hello\n", encoding="utf-8")
    (skill / "large.txt").write_text("abcdefg\n" * 4096, encoding="utf-8")
    return base / "skills"


@contextmanager
def _serving(skills: Path, tmp_path: Path, *options: str) -> Iterator[_Server]:
    """``toolproof serve http`` on a free loopback port until it answers; stopped afterwards."""
    port = free_port()
    log = tmp_path / f"server-{port}.log"
    command = [sys.executable, "-m", "toolproof", "serve", "http", "--skills", str(skills), "--port", str(port)]
    with log.open("wb") as stderr:
        proc = subprocess.Popen([*command, *options], stdout=subprocess.DEVNULL, stderr=stderr, cwd=tmp_path)
        try:
            deadline = time.monotonic() + HANG
            while _health_status(port) != 200:
                assert proc.poll() is None, log.read_text(encoding="utf-8")
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
            yield _Server(port, proc.pid, log)
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def _health_status(port: int) -> int:
    """The status of ``GET /healthz`` on a fresh connection; 0 when nothing answers."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=HANG) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            answer = sock.recv(64)
    except OSError:
        return 0
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


def _kib(pid: int, field: str) -> int:
    """A memory figure of the process, in KiB (``VmRSS``, resident now; ``VmHWM``, the most it has been)."""
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    found = re.search(rf"^{field}:\s+(\d+) kB$", status, re.MULTILINE)
    assert found is not None, status
    return int(found.group(1))


def _statuses(answer: bytes) -> list[bytes]:
    return re.findall(rb"HTTP/1\.1 (\d{3}) ", answer)


def _pipelined(count: int) -> tuple[bytes, list[bytes]]:
    """``count`` requests (health checks, every seventh a missing route), the last closing; and their statuses."""
    requests: list[bytes] = []
    statuses: list[bytes] = []
    for i in range(count):
        path, status = ("/missing", b"404") if i % 7 == 3 else ("/healthz", b"200")
        close = "Connection: close\r\n" if i == count - 1 else ""
        requests.append(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{close}\r\n".encode("ascii"))
        statuses.append(status)
    return b"".join(requests), statuses


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the server's memory in /proc")
def test_a_client_pipelining_without_reading_holds_little_memory_and_others_are_answered_promptly(
    skills: Path, tmp_path: Path
) -> None:
    data, expected = _pipelined(PIPELINED)
    probes: list[float] = []
    with _serving(skills, tmp_path) as server, socket.create_connection(("127.0.0.1", server.port)) as sock:
        before = _kib(server.pid, "VmRSS")
        sock.setblocking(False)
        sent = 0
        start = last_probe = time.monotonic()
        while time.monotonic() - start < 2:  # sends what the server takes, reads nothing
            try:
                if sent < len(data):
                    sent += sock.send(data[sent : sent + 65536])
            except BlockingIOError:
                pass
            time.sleep(0.002)
            if time.monotonic() - last_probe > 0.2:  # another client, meanwhile
                begun = time.monotonic()
                assert _health_status(server.port) == 200
                probes.append(time.monotonic() - begun)
                last_probe = time.monotonic()
        growth = _kib(server.pid, "VmHWM") - before

        answer = bytearray()  # now the client reads, and sends the rest as the server takes it
        deadline = time.monotonic() + HANG
        while time.monotonic() < deadline:
            readable, writable, _ = select.select([sock], [sock] if sent < len(data) else [], [], 1)
            if writable:
                try:
                    sent += sock.send(data[sent : sent + 65536])
                except BlockingIOError:
                    pass
            if readable:
                chunk = sock.recv(1 << 20)
                if not chunk:
                    break
                answer += chunk

    assert growth < MAX_GROWTH_KIB, f"the server grew by {growth} KiB"
    assert probes and max(probes) < 0.5, probes
    assert sent == len(data)
    assert _statuses(bytes(answer)) == expected  # every request answered, in order


def _call(tool: str, body: bytes, *, chunked: bool = False, close: bool = False) -> bytes:
    """A POST of ``body`` to ``/tools/{tool}``, its length declared or sent in chunks of 700 bytes."""
    lines = [f"POST /tools/{tool} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json"]
    lines += ["Transfer-Encoding: chunked"] if chunked else [f"Content-Length: {len(body)}"]
    lines += ["Connection: close"] if close else []
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")
    if not chunked:
        return head + body
    chunks = [body[i : i + 700] for i in range(0, len(body), 700)]
    return head + b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in chunks) + b"0\r\n\r\n"


def test_pipelined_calls_with_bodies_longer_than_a_parse_slice_are_answered_in_order(
    skills: Path, tmp_path: Path
) -> None:
    padding = b" " * 3000  # each body spans slices of what the server parses at once
    body = b'{"skill_name": "small", "file_path": "small.txt"' + padding + b"}"
    requests, expected = [], []
    for i in range(90):
        tool, status = ("nothing", b"404") if i % 5 == 2 else ("read_file_in_skill", b"200")
        requests.append(_call(tool, body, chunked=i % 3 == 1, close=i == 89))
        expected.append(status)
    with _serving(skills, tmp_path) as server, socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.settimeout(HANG)
        sock.sendall(b"".join(requests))
        answer = b""
        while chunk := sock.recv(1 << 16):
            answer += chunk

    assert _statuses(answer) == expected
    assert answer.count(b'"content":"hello\\n"') == expected.count(b"200")


def test_a_pipelining_client_dropped_for_not_reading_leaves_no_traceback_in_the_log(
    skills: Path, tmp_path: Path
) -> None:
    body = json.dumps({"skill_name": "small", "file_path": "large.txt"}).encode("utf-8")  # answers fill buffers
    head = (
        "POST /tools/read_file_in_skill HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode("ascii")
    # A workspace too: a host given every resource writes one line, where it serves, and no tool left out.
    with _serving(skills, tmp_path, "--send-timeout", "0.5", "--workspace", str(tmp_path)) as server:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # reads nothing, and takes little
        sock.settimeout(HANG)
        sock.connect(("127.0.0.1", server.port))
        with sock:
            sock.setblocking(False)
            data, sent = (head + body) * 3000, 0
            start = time.monotonic()
            while sent < len(data) and time.monotonic() - start < 2:
                try:
                    sent += sock.send(data[sent:])
                except BlockingIOError:
                    time.sleep(0.01)
                except (BrokenPipeError, ConnectionResetError):
                    break
            time.sleep(1.5)  # longer than the send timeout: the server drops the connection
            sock.setblocking(True)
            dropped = False
            try:
                while sock.recv(1 << 16):
                    pass
                dropped = True
            except ConnectionResetError:
                dropped = True
        assert _health_status(server.port) == 200
    log = server.log.read_text(encoding="utf-8")

    assert dropped
    assert "Traceback" not in log, log
    assert "Exception in ASGI application" not in log, log
    assert len(log.splitlines()) <= 1, log


class _Transport(asyncio.Transport):
    """What the protocol writes to, kept; and whether it reads."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.reading = True
        self.closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


def test_one_read_of_thousands_of_pipelined_requests_queues_a_few_and_the_rest_waits_unparsed() -> None:
    requests = b"GET / HTTP/1.1\r\n\r\n" * 6000  # the shortest there are, 16 of them a read of 256 KiB
    queued: list[int] = []

    async def run() -> tuple[int, bool, _Transport]:
        gate = asyncio.Event()

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            await gate.wait()
            queued.append(len(protocol.pipeline))
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})

        config = Config(app, log_level="warning")
        config.load()
        kind = type("Guarded", (_Guarded,), {"limits": HttpLimits(), "waiting": {}, "refusing": set()})
        protocol = kind(config, ServerState(), {})
        transport = _Transport()
        protocol.connection_made(transport)
        protocol.data_received(requests)
        held = len(protocol.pipeline), transport.reading
        gate.set()
        for _ in range(100_000):
            if transport.written.count(b"HTTP/1.1 200 ") == 6000:
                break
            await asyncio.sleep(0)
        protocol.connection_lost(None)
        return *held, transport

    waiting, reading, transport = asyncio.run(run())

    assert waiting <= 64  # behind the one being answered
    assert not reading
    assert transport.written.count(b"HTTP/1.1 200 ") == 6000
    assert max(queued) <= 64
