"""The HTTP host under abuse: half-sent requests, too many connections, slow readers, large responses.

Live tests start ``toolproof serve http`` as a subprocess on a free port of
127.0.0.1, with timeouts of about a second so they end quickly; every socket has
a timeout, so a hang fails the test instead of stopping it. Time bounds here
only tell a hang from an answer; nothing is timed for speed.
"""

from __future__ import annotations

import asyncio
import contextvars
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.ports import free_port
from toolproof.runtime.serve import http as http_module
from toolproof.runtime.serve import http_server
from toolproof.runtime.serve.http import Budget, Calls, HttpApp, HttpLimits, _json_pieces
from toolproof.runtime.serve.http_server import BACKLOG, MAX_HEAD_BYTES, affordable_connections
from toolproof.runtime.toolbox import builtin_runtime

HANG: float = 20.0
"""Seconds after which anything still waiting is a hang."""


# --- a live server ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def skills(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A skills folder with a small file and large ones."""
    base = tmp_path_factory.mktemp("http-limits")
    skill = base / "skills" / "big"
    skill.mkdir(parents=True)
    (skill / "SKILL.MD").write_text("---\nname: big\ndescription: Large files.\n---\n# Big\n", encoding="utf-8")
    (skill / "small.txt").write_text("hello\n", encoding="utf-8")
    (skill / "six.txt").write_bytes(b"abcdefg\n" * (6 * 1024 * 1024 // 8))
    (skill / "seven.txt").write_bytes(b"abcdefg\n" * (7 * 1024 * 1024 // 8))
    return base / "skills"


@contextmanager
def _server(skills: Path, tmp_path: Path, *options: str) -> Iterator[int]:
    """``toolproof serve http`` on a free loopback port, stopped afterwards; yields the port."""
    command = [sys.executable, "-m", "toolproof", "serve", "http", "--skills", str(skills)]
    with _serving([*command, "--allow-host", "test", *options], tmp_path) as port:  # raw requests say "Host: test"
        yield port


@contextmanager
def _slow_server(skills: Path, tmp_path: Path, delay: float) -> Iterator[int]:
    """``slow_http_server.py``: read_file_in_skill alone, each call taking ``delay`` seconds more; yields the port."""
    script = Path(__file__).with_name("slow_http_server.py")
    with _serving([sys.executable, str(script), "--skills", str(skills), "--delay", str(delay)], tmp_path) as port:
        yield port


@contextmanager
def _serving(command: list[str], tmp_path: Path) -> Iterator[int]:
    """``command`` with ``--port`` and a free loopback port, until it serves; stopped afterwards; yields the port."""
    port = free_port()
    log = (tmp_path / f"server-{port}.log").open("wb")
    proc = subprocess.Popen([*command, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=log, cwd=tmp_path)
    try:
        deadline = time.monotonic() + HANG
        while True:
            assert proc.poll() is None, (tmp_path / f"server-{port}.log").read_text(encoding="utf-8")
            try:
                status, _ = _request(port, "GET", "/openapi.json", b"", timeout=1)
                if status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()


def _head(method: str, path: str, length: int | None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: test", "Connection: close"]
    if length is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {length}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _read_all(sock: socket.socket) -> bytes:
    data = b""
    while True:
        try:
            chunk = sock.recv(1 << 16)
        except ConnectionResetError:
            return data
        if not chunk:
            return data
        data += chunk


def _request(port: int, method: str, path: str, body: bytes, *, timeout: float = HANG) -> tuple[int, bytes]:
    """(status, raw response) of one request on a fresh connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(_head(method, path, len(body) if method == "POST" else None) + body)
        data = _read_all(sock)
    return (int(data.split(b" ", 2)[1]) if data else 0), data


def _call(port: int, file_path: str) -> tuple[int, bytes]:
    body = json.dumps({"skill_name": "big", "file_path": file_path}).encode("utf-8")
    return _request(port, "POST", "/tools/read_file_in_skill", body)


def _body_of(response: bytes) -> Any:
    return orjson.loads(response.split(b"\r\n\r\n", 1)[1])


def _half_sent(port: int, kind: str) -> socket.socket:
    """A connection that sends part of a request and then nothing: the head (``head``) or the body (``body``)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=HANG)
    if kind == "head":
        sock.sendall(b"POST /tools/read_file_in_skill HTTP/1.1\r\nHost: test\r\nContent-Len")
    else:
        sock.sendall(_head("POST", "/tools/read_file_in_skill", 100) + b'{"skill_name": "bi')
    return sock


def test_slowloris_half_sent_heads_and_bodies_neither_starve_others_nor_stay_open(skills: Path, tmp_path: Path) -> None:
    with _server(skills, tmp_path, "--head-timeout", "1.5", "--body-timeout", "1.5") as port:
        attackers = [_half_sent(port, "head" if i % 2 else "body") for i in range(300)]
        try:
            for _ in range(5):  # a client sending whole requests is served meanwhile
                status, response = _call(port, "small.txt")
                assert status == 200
                assert _body_of(response)["content"] == "hello\n"
            answers = [_read_all(sock) for sock in attackers]  # each ends: the server closes it
        finally:
            for sock in attackers:
                sock.close()

    assert all(answer.startswith(b"HTTP/1.1 408 ") for answer in answers)
    heads, bodies = answers[1::2], answers[0::2]
    assert b"the request head did not arrive within 1.5 seconds" in heads[0]
    assert b"the request body did not arrive within 1.5 seconds" in bodies[0]


def test_connections_over_the_limit_replace_the_longest_waiting_half_sent_ones(skills: Path, tmp_path: Path) -> None:
    with _server(skills, tmp_path, "--max-connections", "20", "--head-timeout", "60") as port:
        attackers = []
        try:
            for _ in range(40):
                attackers.append(_half_sent(port, "head"))
            status, _ = _call(port, "small.txt")
            first = [_read_all(sock) for sock in attackers[:20]]
        finally:
            for sock in attackers:
                sock.close()

    # Each was closed (reading ended); those that had sent part of a head first were told why.
    assert status == 200
    assert all(answer == b"" or answer.startswith(b"HTTP/1.1 503 ") for answer in first)
    assert all(b"retry-after: 1" in answer for answer in first if answer)


def test_a_server_whose_connections_all_have_requests_in_hand_answers_503(skills: Path, tmp_path: Path) -> None:
    with _server(skills, tmp_path, "--max-connections", "4", "--send-timeout", "60") as port:
        readers = [_slow_reader(port, "six.txt") for _ in range(4)]  # each is being answered, slowly
        try:
            time.sleep(1)  # for the server to read their requests: one still waiting for its own would give way
            status, response = _call(port, "small.txt")
        finally:
            for sock in readers:
                sock.close()

    assert status == 503
    assert b"retry-after: 1" in response
    assert _body_of(response)["code"] == "server_busy"


def test_half_sent_bodies_give_way_to_a_whole_request_too(skills: Path, tmp_path: Path) -> None:
    with _server(skills, tmp_path, "--max-connections", "10", "--body-timeout", "60") as port:
        attackers = [_half_sent(port, "body") for _ in range(10)]
        try:
            time.sleep(1)  # for the server to read their heads and start waiting for their bodies
            status, _ = _call(port, "small.txt")
            first = _read_all(attackers[0])
        finally:
            for sock in attackers:
                sock.close()

    assert status == 200
    assert first.startswith(b"HTTP/1.1 503 ")


def test_a_request_head_over_16_kib_is_refused_with_400(skills: Path, tmp_path: Path) -> None:
    with _server(skills, tmp_path) as port, socket.create_connection(("127.0.0.1", port), timeout=HANG) as sock:
        sock.sendall(b"POST /tools/read_file_in_skill HTTP/1.1\r\nHost: test\r\nX-Padding: " + b"p" * MAX_HEAD_BYTES)
        answer = _read_all(sock)

    assert answer.startswith(b"HTTP/1.1 400 ")


def _padded_head(padding: int) -> bytes:
    """A whole POST head of read_file_in_skill, padded with ``padding`` bytes of headers of 100 bytes or so."""
    lines = ["POST /tools/read_file_in_skill HTTP/1.1", "Host: test", "Connection: close", "Content-Length: 2"]
    lines += [f"X-Pad-{i}: " + "p" * 90 for i in range(padding // 100)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def test_a_whole_head_over_16_kib_arriving_at_once_is_refused_with_400(skills: Path, tmp_path: Path) -> None:
    with _server(skills, tmp_path) as port, socket.create_connection(("127.0.0.1", port), timeout=HANG) as sock:
        sock.sendall(_padded_head(MAX_HEAD_BYTES + 200) + b"{}")
        answer = _read_all(sock)

    assert answer.startswith(b"HTTP/1.1 400 ")
    assert _body_of(answer)["code"] == "head_too_large"


def test_a_head_just_under_16_kib_is_served(skills: Path, tmp_path: Path) -> None:
    body = json.dumps({"skill_name": "big", "file_path": "small.txt"}).encode("utf-8")
    head = _padded_head(MAX_HEAD_BYTES - 600).replace(b"Content-Length: 2", f"Content-Length: {len(body)}".encode())
    assert MAX_HEAD_BYTES - 1000 < len(head) <= MAX_HEAD_BYTES
    with _server(skills, tmp_path) as port, socket.create_connection(("127.0.0.1", port), timeout=HANG) as sock:
        sock.sendall(head + body)
        answer = _read_all(sock)

    assert answer.startswith(b"HTTP/1.1 200 ")
    assert _body_of(answer)["content"] == "hello\n"


@pytest.mark.parametrize(
    ("path", "length", "expected"),
    [
        (
            "/tools/read_file_in_skill",
            99999999999999,
            {"code": "invalid_arguments", "message": "Invalid arguments: $: the body is larger than 1048576 bytes"},
        ),
        (
            "/mcp",
            5 * 1024 * 1024,
            {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "message larger than 4194304 bytes"}},
        ),
    ],
)
def test_a_body_too_large_by_its_content_length_gets_413_at_once(
    skills: Path, tmp_path: Path, path: str, length: int, expected: dict[str, Any]
) -> None:
    """Refused from the head: not after the body timeout, which a client that sends nothing would wait out."""
    with _server(skills, tmp_path, "--body-timeout", str(HANG)) as port:
        start = time.monotonic()
        with socket.create_connection(("127.0.0.1", port), timeout=HANG) as sock:
            sock.sendall(_head("POST", path, length).replace(b"Connection: close", b"Connection: keep-alive"))
            answer = _read_all(sock)  # the server closes the connection: the rest of the body is not wanted
        took = time.monotonic() - start

    assert answer.startswith(b"HTTP/1.1 413 ")
    assert b"connection: close" in answer.split(b"\r\n\r\n", 1)[0]
    assert _body_of(answer) == expected
    assert took < HANG / 2


@pytest.mark.parametrize("path", ["/tools/read_file_in_skill", "/mcp"])
def test_a_refused_large_body_ends_in_a_413_the_client_reads_not_a_reset(
    skills: Path, tmp_path: Path, path: str
) -> None:
    """A client that writes its whole 16 MB body before it reads (http.client) used to get a broken pipe."""
    body = json.dumps({"skill_name": "big", "file_path": "t" * 16_000_000}).encode("utf-8")
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    with _server(skills, tmp_path) as port:
        statuses = []
        for _ in range(3):
            client = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG)
            try:
                client.request("POST", path, body, headers)
                response = client.getresponse()
                statuses.append((response.status, response.getheader("connection"), len(response.read())))
            finally:
                client.close()
        after = _call(port, "small.txt")  # and the server serves on

    assert [(status, connection) for status, connection, _ in statuses] == [(413, "close")] * 3
    assert all(size > 0 for _, _, size in statuses)
    assert after[0] == 200


def test_a_client_sending_forever_after_a_413_is_cut_off_after_the_drain_bytes(skills: Path, tmp_path: Path) -> None:
    """The rest of a refused body is read and dropped up to a bound of bytes, then the connection closes."""
    piece = b" " * (1 << 20)
    sent = 0
    with _server(skills, tmp_path) as port, socket.create_connection(("127.0.0.1", port), timeout=HANG) as sock:
        sock.sendall(_head("POST", "/tools/read_file_in_skill", 1 << 40) + b"{")
        try:
            while sent < 4 * http_server._DRAIN_BYTES:
                sock.sendall(piece)
                sent += len(piece)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = _read_all(sock)

    assert http_server._DRAIN_BYTES <= sent < 2 * http_server._DRAIN_BYTES  # the kernel's buffers hold the rest
    assert answer.startswith(b"HTTP/1.1 413 ") or answer == b""  # read, unless the reset came first


def test_a_client_trickling_forever_after_a_413_is_cut_off_after_the_drain_time_and_holds_no_one_up(
    skills: Path, tmp_path: Path
) -> None:
    """The rest of a refused body is dropped for at most a bounded time; other requests are served meanwhile."""
    with _server(skills, tmp_path) as port, socket.create_connection(("127.0.0.1", port), timeout=HANG) as sock:
        sock.sendall(_head("POST", "/tools/read_file_in_skill", 1 << 40) + b"{")
        start = time.monotonic()
        ended = None
        served = None
        try:
            while time.monotonic() - start < HANG:
                sock.sendall(b" " * 1024)
                time.sleep(0.05)
                if served is None:
                    served = _call(port, "small.txt")[0]
        except (BrokenPipeError, ConnectionResetError):
            ended = time.monotonic() - start
        answer = _read_all(sock)

    assert served == 200
    assert ended is not None and http_server._DRAIN_SECONDS - 0.5 < ended < http_server._DRAIN_SECONDS + 3
    assert answer.startswith(b"HTTP/1.1 413 ") or answer == b""


def test_pipelined_requests_are_answered_in_order_on_one_connection(skills: Path, tmp_path: Path) -> None:
    body = json.dumps({"skill_name": "big", "file_path": "small.txt"}).encode("utf-8")
    keep = _head("POST", "/tools/read_file_in_skill", len(body)).replace(
        b"Connection: close", b"Connection: keep-alive"
    )
    last = _head("POST", "/tools/nothing", 2)
    with _server(skills, tmp_path) as port, socket.create_connection(("127.0.0.1", port), timeout=HANG) as sock:
        sock.sendall(keep + body + keep + body + last + b"{}")
        answer = _read_all(sock)

    assert re.findall(rb"HTTP/1\.1 (\d{3}) ", answer) == [b"200", b"200", b"404"]


SLOW_CALL: float = 1.0
"""Seconds each call of ``_slow_server`` takes at the least: far longer than the client takes to pass 16 KiB."""


def _kept_alive(body: bytes) -> bytes:
    """A call of read_file_in_skill that keeps the connection open, with ``body``."""
    head = _head("POST", "/tools/read_file_in_skill", len(body))
    return head.replace(b"Connection: close", b"Connection: keep-alive") + body


def _statuses(answer: bytes) -> list[bytes]:
    return re.findall(rb"HTTP/1\.1 (\d{3}) ", answer)


def test_a_header_line_that_never_ends_is_cut_off_even_behind_a_pipelined_request(skills: Path, tmp_path: Path) -> None:
    """httptools holds a header line whole until it ends: the server must stop reading it soon after 16 KiB.

    The call in hand is answered whole first, then the bad head is refused: the
    call takes a second, so the head passes 16 KiB long before its answer is due.
    """
    first = _kept_alive(json.dumps({"skill_name": "big", "file_path": "small.txt"}).encode("utf-8"))
    sent = 0
    with _slow_server(skills, tmp_path, SLOW_CALL) as port, socket.socket() as sock:
        # What the kernels hold when the server reads nothing more: its receive buffer and this send buffer,
        # which, left to grow, holds megabytes on loopback.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
        sock.settimeout(HANG)
        sock.connect(("127.0.0.1", port))
        start = time.monotonic()
        sock.sendall(first + b"POST /tools/read_file_in_skill HTTP/1.1\r\nHost: test\r\nX-Long: ")
        try:
            while sent < 4 * 1024 * 1024:
                sock.sendall(b"p" * 4096)
                sent += 4096
                time.sleep(0.001)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = _read_all(sock)
        took = time.monotonic() - start

    assert sent < 1024 * 1024
    assert _statuses(answer) == [b"200", b"400"]
    first_answer, refusal = answer.split(b"HTTP/1.1 400 ")
    assert _body_of(first_answer)["content"] == "hello\n"
    assert orjson.loads(refusal.split(b"\r\n\r\n", 1)[1]) == {
        "code": "head_too_large",
        "message": f"the request head is longer than {MAX_HEAD_BYTES} bytes",
    }
    assert b"connection: close" in refusal
    assert SLOW_CALL <= took < HANG


def test_requests_in_hand_are_answered_before_a_pipelined_request_that_is_not_http(
    skills: Path, tmp_path: Path
) -> None:
    call = _kept_alive(json.dumps({"skill_name": "big", "file_path": "small.txt"}).encode("utf-8"))
    with _slow_server(skills, tmp_path, SLOW_CALL) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=HANG) as sock:
            sock.sendall(call + call + b"\x00\x01 not HTTP\r\n\r\n")
            answer = _read_all(sock)

    assert _statuses(answer) == [b"200", b"200", b"400"]
    assert answer.count(b'"content":"hello\\n"') == 2
    assert answer.endswith(b"Invalid HTTP request received.")


def test_a_body_still_trickling_after_an_early_answer_cannot_hold_the_connection(skills: Path, tmp_path: Path) -> None:
    """The app answers 404 without reading the body; the rest of it, sent slowly, does not keep the connection."""
    with _server(skills, tmp_path, "--head-timeout", "1.5") as port:
        with socket.create_connection(("127.0.0.1", port), timeout=HANG) as sock:
            head = _head("POST", "/tools/nothing", 10_000).replace(b"Connection: close", b"Connection: keep-alive")
            sock.sendall(head + b"{")
            start = time.monotonic()
            received = b""
            try:
                while time.monotonic() - start < HANG:
                    sock.sendall(b" ")
                    time.sleep(0.2)
                    sock.settimeout(0.01)
                    try:
                        chunk = sock.recv(1 << 16)
                    except TimeoutError:
                        continue
                    if not chunk:
                        break
                    received += chunk
            except (BrokenPipeError, ConnectionResetError):
                pass
            held = time.monotonic() - start

    assert received.startswith(b"HTTP/1.1 404 ")
    assert held < 6


def _slow_reader(port: int, file_path: str) -> socket.socket:
    """A client that asks for a file and reads nothing (its receive window is tiny)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(HANG)
    sock.connect(("127.0.0.1", port))
    body = json.dumps({"skill_name": "big", "file_path": file_path}).encode("utf-8")
    sock.sendall(_head("POST", "/tools/read_file_in_skill", len(body)) + body)
    return sock


def test_a_slow_reader_is_dropped_after_the_send_timeout(skills: Path, tmp_path: Path) -> None:
    with _server(skills, tmp_path, "--send-timeout", "1") as port:
        reader = _slow_reader(port, "seven.txt")
        try:
            time.sleep(3)  # reads nothing for longer than the send timeout
            received = _read_all(reader)
        finally:
            reader.close()
        status, _ = _call(port, "small.txt")

    head, _, body = received.partition(b"\r\n\r\n")
    length = int(next(line for line in head.split(b"\r\n") if line.startswith(b"content-length:")).split(b":")[1])
    assert head.startswith(b"HTTP/1.1 200 ")
    assert 0 < len(body) < length
    assert status == 200


@contextmanager
def _twelve_mib_in_flight(port: int) -> Iterator[socket.socket]:
    """Two slow readers of six.txt, both being written (12 MiB of REST answers in flight); yields the first."""
    first = _slow_reader(port, "six.txt")
    second = _slow_reader(port, "six.txt")
    try:
        time.sleep(0.5)
        yield first
    finally:
        first.close()
        second.close()


def test_large_responses_wait_for_their_share_of_bytes_in_flight_and_small_ones_do_not(
    skills: Path, tmp_path: Path
) -> None:
    options = ("--max-in-flight-bytes", "16777216", "--queue-timeout", "1", "--send-timeout", "60")
    with _server(skills, tmp_path, *options) as port:
        with _twelve_mib_in_flight(port) as first:
            third_status, third = _call(port, "six.txt")  # no room for 6 more
            small_status, _ = _call(port, "small.txt")
            whole = _read_all(first)
        again_status, _ = _call(port, "six.txt")

    assert third_status == 503
    assert b"retry-after: 1" in third
    assert _body_of(third)["code"] == "server_busy"
    assert small_status == 200
    assert _body_of(whole)["content"] == "abcdefg\n" * (6 * 1024 * 1024 // 8)
    assert again_status == 200


def _mcp_call(port: int, file_path: str) -> tuple[int, bytes]:
    """A 2025-11-25 ``tools/call`` of read_file_in_skill on ``/mcp`` (no session: the server keeps none)."""
    arguments = {"skill_name": "big", "file_path": file_path}
    message = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "read_file_in_skill", "arguments": arguments},
    }
    return _request(port, "POST", "/mcp", json.dumps(message).encode("utf-8"))


def test_mcp_calls_and_answers_share_the_rest_routes_budgets(skills: Path, tmp_path: Path) -> None:
    """One app, one budget: REST readers holding the bytes in flight hold back a large MCP answer, not a small one."""
    options = ("--max-in-flight-bytes", "16777216", "--queue-timeout", "1", "--send-timeout", "60")
    with _server(skills, tmp_path, *options) as port:
        with _twelve_mib_in_flight(port) as first:
            large_status, large = _mcp_call(port, "six.txt")
            small_status, small = _mcp_call(port, "small.txt")
            _read_all(first)
        again_status, again = _mcp_call(port, "six.txt")

    assert large_status == 503
    assert b"retry-after: 1" in large
    assert "busy with other responses" in _body_of(large)["error"]["message"]
    assert _body_of(large)["id"] == 7
    assert small_status == 200 and _body_of(small)["result"]["isError"] is False
    assert again_status == 200
    assert _body_of(again)["result"]["structuredContent"]["content"] == "abcdefg\n" * (6 * 1024 * 1024 // 8)


# --- the app in-process ----------------------------------------------------------------------------------------


def _app(tmp_path: Path, **limits: Any) -> HttpApp:
    skill = tmp_path / "skills" / "big"
    skill.mkdir(parents=True)
    (skill / "SKILL.MD").write_text("---\nname: big\ndescription: Large files.\n---\n# Big\n", encoding="utf-8")
    (skill / "ones.txt").write_bytes(b"\x01" * (300 * 1024))
    return HttpApp(builtin_runtime(skills=[tmp_path / "skills"]), limits=HttpLimits(**limits))


def _run(app: HttpApp, body: list[bytes], *, hang: bool = False) -> list[dict[str, Any]]:
    """The messages ``app`` sends for one POST to read_file_in_skill whose body comes in ``body``."""
    sent: list[dict[str, Any]] = []
    pieces = list(body)

    async def receive() -> dict[str, Any]:
        if pieces:
            piece = pieces.pop(0)
            return {"type": "http.request", "body": piece, "more_body": bool(pieces) or hang}
        await asyncio.sleep(HANG)
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(dict(message))

    scope = {"type": "http", "path": "/tools/read_file_in_skill", "method": "POST", "headers": []}
    asyncio.run(asyncio.wait_for(app(scope, receive, send), HANG))
    return sent


def test_a_body_that_does_not_arrive_in_time_gets_408_and_closes_the_connection(tmp_path: Path) -> None:
    sent = _run(_app(tmp_path, body_timeout=0.2), [b'{"skill_name": '], hang=True)

    assert sent[0]["status"] == 408
    assert (b"connection", b"close") in sent[0]["headers"]
    assert orjson.loads(sent[1]["body"]) == {
        "code": "request_timeout",
        "message": "the request body did not arrive within 0.2 seconds",
    }


def test_a_large_response_is_written_in_pieces_never_whole(tmp_path: Path) -> None:
    arguments = json.dumps({"skill_name": "big", "file_path": "ones.txt"}).encode("utf-8")

    sent = _run(_app(tmp_path), [arguments])

    bodies = [message["body"] for message in sent[1:]]
    declared = int(dict(sent[0]["headers"])[b"content-length"])
    assert sent[0]["status"] == 200
    assert declared == sum(map(len, bodies)) > 6 * 300 * 1024  # each \x01 is written \u0001
    assert len(bodies) >= 20
    assert max(map(len, bodies)) < 2 * 64 * 1024
    assert orjson.loads(b"".join(bodies))["content"] == "\x01" * (300 * 1024)


def test_a_response_over_the_cap_is_response_too_large_and_never_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = _app(tmp_path)
    app.max_response = 100_000
    built: list[int] = []
    from toolproof.runtime.json_writer import json_bytes as real_json_bytes

    def json_bytes(value: Any) -> bytes:
        out = real_json_bytes(value)
        built.append(len(out))
        return out

    monkeypatch.setattr(http_module, "json_bytes", json_bytes)
    arguments = json.dumps({"skill_name": "big", "file_path": "ones.txt"}).encode("utf-8")

    sent = _run(app, [arguments])

    payload = orjson.loads(sent[1]["body"])
    assert sent[0]["status"] == 413
    assert payload["code"] == "response_too_large"
    assert max(built) < 1000  # the error, never the 1.8 MB output


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(value=JSON)
def test_json_pieces_join_to_the_json_of_the_whole(value: Any) -> None:
    from toolproof.runtime.json_writer import json_bytes

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(http_module, "_SLICE", 3)  # slice every string, between any two characters
        assert b"".join(_json_pieces(value)) == json_bytes(value)


def test_the_budget_grants_in_order_and_gives_up_after_the_timeout() -> None:
    async def scenario() -> list[object]:
        budget = Budget(10)
        assert await budget.acquire(8, 1)
        big = asyncio.ensure_future(budget.acquire(5, 5))
        small = asyncio.ensure_future(budget.acquire(1, 0.05))  # first come, first served: behind the big one
        await asyncio.sleep(0.2)
        timed_out = small.done() and small.result() is False
        budget.release(8)
        granted = await big
        return [timed_out, granted, budget.free, await budget.acquire(5, 0), budget.free]

    assert asyncio.run(asyncio.wait_for(scenario(), HANG)) == [True, True, 5, True, 0]


def _thread_name() -> str:
    return threading.current_thread().name


def test_calls_run_on_one_thread_while_it_keeps_up() -> None:
    async def scenario() -> set[str]:
        calls = Calls(8, patience=HANG)  # nothing waits that long: no second thread is woken
        names = await asyncio.gather(*(calls.run(_thread_name) for _ in range(50)))
        names += [await calls.run(_thread_name) for _ in range(5)]
        return set(names)

    names = asyncio.run(asyncio.wait_for(scenario(), HANG))

    assert len(names) == 1
    assert names.pop().startswith("toolproof-call-")


def test_a_blocked_call_holds_the_next_back_no_longer_than_the_patience() -> None:
    release = threading.Event()

    async def scenario() -> tuple[str, bool, str]:
        calls = Calls(2, patience=0.05)
        blocked = calls.run(release.wait, HANG)
        waited = await asyncio.wait_for(calls.run(_thread_name), HANG)
        still_blocked = not blocked.done()
        release.set()
        await blocked
        return waited, still_blocked, await calls.run(_thread_name)

    try:
        waited, still_blocked, later = asyncio.run(asyncio.wait_for(scenario(), HANG))
    finally:
        release.set()

    assert still_blocked
    assert waited.startswith("toolproof-call-") and later.startswith("toolproof-call-")


def test_calls_never_run_on_more_threads_than_slots() -> None:
    release = threading.Event()

    async def scenario() -> tuple[bool, bool]:
        calls = Calls(2, patience=0.01)
        blocked = [calls.run(release.wait, HANG) for _ in range(2)]
        third = calls.run(_thread_name)
        await asyncio.sleep(0.3)  # many patience periods: a third thread would have taken it
        waiting = not third.done()
        release.set()
        await asyncio.gather(*blocked, third)
        return waiting, third.done()

    try:
        outcome = asyncio.run(asyncio.wait_for(scenario(), HANG))
    finally:
        release.set()

    assert outcome == (True, True)  # it waited for a slot's thread, then ran


def test_a_call_runs_in_a_copy_of_the_callers_context_and_its_exception_reaches_the_caller() -> None:
    seen: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="unset")

    def fail() -> None:
        raise ValueError(seen.get())

    async def scenario() -> tuple[str, str]:
        calls = Calls(1)
        seen.set("the caller's")
        with pytest.raises(ValueError) as raised:
            await calls.run(fail)
        return await calls.run(seen.get), str(raised.value)

    assert asyncio.run(asyncio.wait_for(scenario(), HANG)) == ("the caller's", "the caller's")


# --- the server's settings -------------------------------------------------------------------------------------


def test_the_command_line_defaults_are_the_limits_defaults() -> None:
    from toolproof.runtime.serve.commands import serve_http

    defaults = {param.name: param.default for param in serve_http.params}
    limits = HttpLimits()

    for name in ("head_timeout", "body_timeout", "send_timeout", "max_connections", "max_calls", "queue_timeout"):
        assert defaults[name] == getattr(limits, name), name
    assert defaults["max_in_flight_bytes"] == limits.max_in_flight_bytes


def test_connections_are_lowered_to_what_descriptors_allow() -> None:
    limits = HttpLimits(max_connections=1000, max_calls=4)

    assert affordable_connections(limits, 1 << 20) == 1000
    assert affordable_connections(limits, 1024) == 1024 - 64 - 2 * BACKLOG - 64 - 4 * 19


def test_the_server_raises_its_soft_descriptor_limit_to_the_hard_one() -> None:
    script = (
        "import resource\n"
        "from toolproof.runtime.serve.http_server import raise_descriptor_limit\n"
        "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))\n"
        "print(raise_descriptor_limit() == resource.getrlimit(resource.RLIMIT_NOFILE)[0] == hard)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, encoding="utf-8", timeout=HANG, check=True
    )

    assert done.stdout.strip() == "True"


def test_no_descriptor_is_left_open_by_the_app(tmp_path: Path) -> None:
    app = _app(tmp_path)
    arguments = json.dumps({"skill_name": "big", "file_path": "ones.txt"}).encode("utf-8")
    _run(app, [arguments])
    before = len(os.listdir("/proc/self/fd"))

    for _ in range(5):
        _run(app, [arguments])

    assert len(os.listdir("/proc/self/fd")) == before


def _body_started(port: int, path: str, length: int) -> socket.socket:
    """A connection whose request declares ``length`` bytes of body and sends one, then waits."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=HANG)
    lines = [f"POST {path} HTTP/1.1", "Host: test", "Content-Type: application/json", "Accept: application/json"]
    lines += [f"Content-Length: {length}"]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n{").encode("latin-1"))
    return sock


def test_half_sent_large_bodies_hold_no_more_than_the_bytes_in_flight_and_small_requests_still_pass(
    skills: Path, tmp_path: Path
) -> None:
    mib = 1 << 20
    options = ("--max-in-flight-bytes", str(2 * mib), "--queue-timeout", "1", "--body-timeout", "30")
    with _server(skills, tmp_path, *options) as port:
        held = [_body_started(port, "/tools/read_file_in_skill", mib) for _ in range(2)]  # the whole budget
        try:
            time.sleep(0.3)  # both are being read
            started = time.monotonic()
            rest = _body_started(port, "/tools/read_file_in_skill", mib)
            mcp = _body_started(port, "/mcp", mib)
            with rest, mcp:
                rest_answer, mcp_answer = _read_all(rest), _read_all(mcp)
            waited = time.monotonic() - started
            small = _call(port, "small.txt")
        finally:
            for sock in held:
                sock.close()

    assert rest_answer.startswith(b"HTTP/1.1 503 ") and b"retry-after: 1" in rest_answer.lower()
    assert _body_of(rest_answer)["message"] == "the server is busy with other request bodies; retry shortly"
    assert mcp_answer.startswith(b"HTTP/1.1 503 ")
    assert waited < HANG
    assert small[0] == 200, small  # a small body is read at once, whatever the large ones hold


def test_one_worker_says_where_it_serves_on_stderr_as_many_do(skills: Path, tmp_path: Path) -> None:
    with _server(skills, tmp_path, "--workspace", str(tmp_path)) as port:  # every tool served: no line before it
        log = tmp_path / f"server-{port}.log"
        deadline = time.monotonic() + HANG
        while b"serving" not in log.read_bytes() and time.monotonic() < deadline:
            time.sleep(0.05)

        assert log.read_text(encoding="utf-8").splitlines()[0] == f"toolproof: serving http://127.0.0.1:{port}"


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sigterm_stops_serve_http_gracefully_with_status_0_with_one_worker_as_with_two(
    skills: Path, tmp_path: Path, workers: str
) -> None:
    """One worker exited 143 (uvicorn raised the SIGTERM again once stopped) where two exited 0."""
    port = free_port()
    command = [sys.executable, "-m", "toolproof", "serve", "http", "--skills", str(skills), "--allow-host", "test"]
    command += ["--workers", workers]
    proc = subprocess.Popen([*command, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + HANG
        while True:
            assert proc.poll() is None, proc.communicate()[1].decode()
            try:
                if _request(port, "GET", "/openapi.json", b"", timeout=1)[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=HANG)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)

    assert proc.returncode == 0, stderr.decode()
    assert b"Traceback" not in stderr
