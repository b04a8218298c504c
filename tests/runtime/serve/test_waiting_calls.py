"""A call waiting for a slot holds only its bytes, and is dropped when its client leaves.

An outside review drove a host to gigabytes within every limit: bodies were
parsed before their call waited for a slot (a body of ``{},{},...`` takes
~25 times its size as Python objects), and requests whose clients had gone
stayed queued, then ran for no one. Each scenario here holds the only call
slot with a call that blocks, then sends what waits behind it.
"""

from __future__ import annotations

import asyncio
import io
import json
import threading
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from toolproof.runtime.serve.http import SMALL_RESPONSE, HttpApp, HttpLimits
from toolproof.runtime.serve.mcp import McpServer, serve_stdio
from toolproof.runtime.serve.streamable import StreamableMcp
from toolproof.runtime.toolbox import builtin_runtime

Receive = Callable[[], Awaitable[dict[str, Any]]]
DENSE = b"[" + b"{}," * 170_000 + b"{}]"
"""~510 KB of JSON that parses into 170,001 dicts: ~12 MB."""


class _Blocking(McpServer):
    """tools/call of ``block`` waits for ``release``; every tools/call answered is noted in ``ran``."""

    def __init__(self, release: threading.Event) -> None:
        super().__init__(builtin_runtime(gate_secret=b"waiting-calls"), handshake=False)
        self.release = release
        self.ran: list[Any] = []

    def answer(self, message: Any, **options: Any) -> dict[str, Any] | None:
        if isinstance(message, dict) and message.get("method") == "tools/call":
            if message["params"]["name"] == "block":
                self.release.wait(10)
            self.ran.append(message["id"])
            return {"jsonrpc": "2.0", "id": message["id"], "result": {"content": []}}
        return super().answer(message, **options)


def _call(request_id: int, name: str, pad: bytes = b"[]") -> bytes:
    head = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call"}
    return (
        json.dumps(head)[:-1].encode()
        + b', "params": {"name": "'
        + name.encode()
        + b'", "arguments": {"pad": '
        + pad
        + b"}}}"
    )


def _scope(path: str, body: bytes) -> dict[str, Any]:
    headers = {
        "content-type": "application/json",
        "accept": "application/json",
        "content-length": str(len(body)),
    }
    return {
        "type": "http",
        "method": "POST",
        "path": path,
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
    }


def _client(body: bytes, leaves: asyncio.Event | None = None) -> Receive:
    """Sends ``body``, then disconnects once ``leaves`` is set (never, without it)."""
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await (leaves.wait() if leaves is not None else asyncio.Event().wait())
        return {"type": "http.disconnect"}

    return receive


async def _ignore(message: Any) -> None:
    pass


def test_an_mcp_call_whose_client_leaves_while_it_waits_for_a_slot_is_never_run() -> None:
    release = threading.Event()
    server = _Blocking(release)
    app = StreamableMcp(server, HttpLimits(max_calls=1, queue_timeout=10))

    async def scenario() -> None:
        blocker = asyncio.ensure_future(app(_scope("/mcp", _call(1, "block")), _client(_call(1, "block")), _ignore))
        await asyncio.sleep(0.2)  # it holds the only slot
        leaves = asyncio.Event()
        body = _call(2, "count")
        waiting = asyncio.ensure_future(app(_scope("/mcp", body), _client(body, leaves), _ignore))
        await asyncio.sleep(0.2)  # it waits for the slot
        leaves.set()
        await asyncio.sleep(0.1)
        release.set()
        await asyncio.wait_for(asyncio.gather(blocker, waiting), 10)

    asyncio.run(scenario())

    assert server.ran == [1]


def test_a_rest_call_whose_client_leaves_while_it_waits_for_a_slot_is_never_run(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    app = HttpApp(builtin_runtime(workspace=[tmp_path]), limits=HttpLimits(max_calls=1, queue_timeout=10))
    release = threading.Event()
    ran: list[bytes] = []
    answer = app._answer

    def blocking(name: str, body: bytes, session: str | None) -> Any:
        if not ran:
            release.wait(10)
        ran.append(body)
        return answer(name, body, session)

    app._answer = blocking  # type: ignore[method-assign]
    first, second = b'{"path": "a.txt"}', b'{"path": "a.txt", "max_lines": 1}'

    async def scenario() -> None:
        path = "/tools/file-read"
        blocker = asyncio.ensure_future(app(_scope(path, first), _client(first), _ignore))
        await asyncio.sleep(0.2)
        leaves = asyncio.Event()
        waiting = asyncio.ensure_future(app(_scope(path, second), _client(second, leaves), _ignore))
        await asyncio.sleep(0.2)
        leaves.set()
        await asyncio.sleep(0.1)
        release.set()
        await asyncio.wait_for(asyncio.gather(blocker, waiting), 10)

    asyncio.run(scenario())

    assert ran == [first]


def test_mcp_calls_waiting_for_a_slot_hold_their_bodies_not_their_parsed_json() -> None:
    release = threading.Event()
    server = _Blocking(release)
    app = StreamableMcp(server, HttpLimits(max_calls=1, queue_timeout=10))
    bodies = [_call(i, "count", DENSE) for i in range(2, 8)]
    grown: list[int] = []

    async def scenario() -> None:
        blocker = asyncio.ensure_future(app(_scope("/mcp", _call(1, "block")), _client(_call(1, "block")), _ignore))
        await asyncio.sleep(0.2)
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            waiting = [asyncio.ensure_future(app(_scope("/mcp", body), _client(body), _ignore)) for body in bodies]
            samples = []
            for _ in range(20):  # the least held over a second: large bodies are parsed in a thread, one at a time
                await asyncio.sleep(0.05)
                samples.append(tracemalloc.get_traced_memory()[0] - before)
            grown.append(min(samples))
        finally:
            tracemalloc.stop()
        release.set()
        await asyncio.wait_for(asyncio.gather(blocker, *waiting), 30)

    asyncio.run(scenario())

    assert server.ran == [1, *range(2, 8)]  # every call ran, in turn
    assert grown[0] < 4 << 20, f"{grown[0]} bytes held by six waiting calls of ~0.5 MB each"


def test_stdio_calls_waiting_for_a_thread_hold_their_lines_not_their_parsed_json() -> None:
    release = threading.Event()
    server = _Blocking(release)
    lines = [_call(1, "block")] + [_call(i, "count", DENSE) for i in range(2, 7)]
    stdin = io.BytesIO(b"\n".join(lines) + b"\n")
    stdout = io.BytesIO()
    fifth_read = sum(len(line) + 1 for line in lines[:5])
    grown: list[int] = []

    def measure_then_release(before: int) -> None:
        """Once the reader has read the fifth line (one call running, three waiting for the thread, the reader
        waiting with the fifth): the least held over a second, past the parsing of what was read."""
        deadline = time.monotonic() + 20
        while stdin.tell() < fifth_read and time.monotonic() < deadline:
            time.sleep(0.01)
        samples = []
        for _ in range(20):
            time.sleep(0.05)
            samples.append(tracemalloc.get_traced_memory()[0] - before)
        grown.append(min(samples))
        release.set()

    tracemalloc.start()
    try:
        watcher = threading.Thread(target=measure_then_release, args=(tracemalloc.get_traced_memory()[0],))
        watcher.start()
        serve_stdio(server, stdin, stdout, workers=1)
        watcher.join()
    finally:
        tracemalloc.stop()

    answered = [json.loads(line)["id"] for line in stdout.getvalue().splitlines()]
    assert sorted(answered) == [1, 2, 3, 4, 5, 6]
    assert grown[0] < 6 << 20, f"{grown[0]} bytes held by calls of ~0.5 MB each waiting for a thread"


class _Large(McpServer):
    """tools/call answers with 1 MB of text."""

    def __init__(self) -> None:
        super().__init__(builtin_runtime(gate_secret=b"waiting-calls"), handshake=False)

    def answer(self, message: Any, **options: Any) -> dict[str, Any] | None:
        if isinstance(message, dict) and message.get("method") == "tools/call":
            content = [{"type": "text", "text": "x" * 1_000_000}]
            return {"jsonrpc": "2.0", "id": message["id"], "result": {"content": content}}
        return super().answer(message, **options)


def test_a_large_mcp_answer_is_written_in_pieces_the_client_takes_one_by_one() -> None:
    """Handed to the server whole, it would sit in the transport's buffer, its share of the budget given back."""
    app = StreamableMcp(_Large(), HttpLimits())
    body = _call(1, "big")
    sent: list[dict[str, Any]] = []

    async def keep(message: Any) -> None:
        sent.append(message)

    asyncio.run(app(_scope("/mcp", body), _client(body), keep))

    pieces = [m["body"] for m in sent if m["type"] == "http.response.body"]
    assert len(pieces) > 10 and max(map(len, pieces)) <= SMALL_RESPONSE
    assert json.loads(b"".join(pieces))["result"]["content"][0]["text"] == "x" * 1_000_000


def test_a_rest_answer_waiting_for_the_bytes_in_flight_keeps_its_call_slot(tmp_path: Path) -> None:
    """So answers waiting to be written are at most the calls that may run, not one a connection."""
    (tmp_path / "big.txt").write_text("abcdefg\n" * 20_000, encoding="utf-8")  # a 160 KB file: a large answer
    limits = HttpLimits(max_calls=1, queue_timeout=1, max_in_flight_bytes=1 << 20)
    app = HttpApp(builtin_runtime(workspace=[tmp_path]), limits=limits)
    assert app.responses.try_acquire(app.responses.total)  # slow readers hold every byte in flight
    free_while_waiting: list[int] = []
    sent: list[dict[str, Any]] = []

    async def keep(message: Any) -> None:
        sent.append(message)

    async def scenario() -> None:
        large = b'{"path": "big.txt", "max_lines": 20000}'
        waiting = asyncio.ensure_future(app(_scope("/tools/file-read", large), _client(large), keep))
        await asyncio.sleep(0.5)  # its answer made, it waits for bytes in flight
        free_while_waiting.append(app.calls.free)
        await asyncio.wait_for(waiting, 10)

    asyncio.run(scenario())

    assert free_while_waiting == [0]  # it kept the only slot
    assert next(m["status"] for m in sent if m["type"] == "http.response.start") == 503
    assert app.calls.free == 1  # and gave it back
