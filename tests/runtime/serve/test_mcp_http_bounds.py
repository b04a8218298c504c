"""``/mcp`` within the bounds the REST routes keep: call slots, answer sizes, the event loop, parse errors.

An outside review of ``toolproof serve http`` found that a tool call on
``/mcp`` kept its call slot while its answer was written to a client that did
not read (four such clients shut every tool call out), that answers were never
capped (a 9 KB batch of 64 calls answered with a gigabyte), that a 4 MiB body
was parsed on the event loop, and that an unclosed text over 64 KiB was called
"nested too deeply" (-32600) instead of a parse error (-32700). Each scenario
here drives the app in process, as a server would.
"""

from __future__ import annotations

import asyncio
import gc
import io
import json
import re
import threading
import time
import tracemalloc
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import pytest

from toolproof.runtime.serve import streamable
from toolproof.runtime.serve.http import SMALL_RESPONSE, Budget, Calls, HttpLimits
from toolproof.runtime.serve.mcp import McpServer, decode_message, serve_stdio
from toolproof.runtime.serve.streamable import StreamableMcp
from toolproof.runtime.toolbox import builtin_runtime

Receive = Callable[[], Awaitable[dict[str, Any]]]
Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]
MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
WIDE_LINES = 1000
"""Lines of ``wide.txt``, 100 bytes each (all file-read returns at once): an answer of ~220 KB, text and output."""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "wide.txt").write_text(("x" * 99 + "\n") * WIDE_LINES, encoding="utf-8")
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    return tmp_path


def _read(request_id: int, path: str = "wide.txt") -> dict[str, Any]:
    params = {"name": "file-read", "arguments": {"path": path}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _scope(accept: str = "application/json, text/event-stream", version: str | None = "2025-11-25") -> dict[str, Any]:
    headers = {"content-type": "application/json", "accept": accept}
    if version is not None:
        headers["mcp-protocol-version"] = version
    return {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
    }


def _client(body: bytes) -> Receive:
    """Sends ``body``, then stays connected (as a server's ``receive`` does until the client leaves)."""
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()
        return {"type": "http.disconnect"}

    return receive


def _keeper(sent: list[Message]) -> Send:
    async def send(message: Message) -> None:
        sent.append(message)

    return send


def _decoded_body(sent: list[Message]) -> Any:
    """The JSON a response carried: its body, or the data of its one SSE event."""
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    if body.startswith(b"event: message"):
        body = body.split(b"data: ", 1)[1].rsplit(b"\r\n\r\n", 1)[0]
    return json.loads(body)


async def _post(app: StreamableMcp, message: Any, scope: dict[str, Any] | None = None) -> tuple[int, Any]:
    sent: list[Message] = []
    await app(scope or _scope(), _client(json.dumps(message).encode()), _keeper(sent))
    return sent[0]["status"], _decoded_body(sent)


def _app(workspace: Path, limits: HttpLimits, **shared: Any) -> StreamableMcp:
    return StreamableMcp(McpServer(builtin_runtime(workspace=[workspace]), handshake=False), limits, **shared)


@pytest.mark.parametrize("accept", ["application/json", "text/event-stream"], ids=["json", "sse only"])
def test_an_mcp_call_gives_its_slot_back_before_its_answer_is_written_to_a_client_that_does_not_read(
    workspace: Path, accept: str
) -> None:
    """Four such clients once held every slot until the send timeout: other calls got 503 server_busy."""
    calls, responses = Calls(1), Budget(10 << 20)
    app = _app(workspace, HttpLimits(max_calls=1, queue_timeout=1), calls=calls, responses=responses)
    outcome: dict[str, Any] = {}

    async def scenario() -> None:
        writing = asyncio.Event()

        async def never_reads(message: Message) -> None:
            if message["type"] == "http.response.body" and message.get("body"):
                writing.set()
                await asyncio.Event().wait()  # the client takes nothing

        body = json.dumps(_read(1)).encode()
        stuck = asyncio.ensure_future(app(_scope(accept=accept), _client(body), never_reads))
        await asyncio.wait_for(writing.wait(), 10)
        outcome["free slots"] = calls.free
        outcome["bytes held"] = responses.total - responses.free
        outcome["second"] = await asyncio.wait_for(_post(app, _read(2, "a.txt")), 10)
        stuck.cancel()
        await asyncio.gather(stuck, return_exceptions=True)
        outcome["bytes held after"] = responses.total - responses.free

    asyncio.run(scenario())

    assert outcome["free slots"] == 1
    assert outcome["bytes held"] > SMALL_RESPONSE  # the answer holds its share of the bytes in flight instead
    status, answer = outcome["second"]
    assert status == 200 and answer["result"]["structuredContent"]["content"] == "1 | one"
    assert outcome["bytes held after"] == 0


def test_an_mcp_answer_waiting_for_the_bytes_in_flight_keeps_its_call_slot(workspace: Path) -> None:
    """So answers waiting to be written are at most the calls that may run, as on the REST routes."""
    calls, responses = Calls(1), Budget(1 << 20)
    app = _app(workspace, HttpLimits(max_calls=1, queue_timeout=1), calls=calls, responses=responses)
    assert responses.try_acquire(responses.total)  # slow readers hold every byte in flight
    free_while_waiting: list[int] = []

    async def scenario() -> tuple[int, Any]:
        waiting = asyncio.ensure_future(_post(app, _read(1)))
        await asyncio.sleep(0.5)  # its answer made, it waits for bytes in flight
        free_while_waiting.append(calls.free)
        return await asyncio.wait_for(waiting, 10)

    status, answer = asyncio.run(scenario())

    assert free_while_waiting == [0]
    assert status == 503 and answer["error"]["message"] == "the server is busy with other responses; retry shortly"
    assert calls.free == 1


TOO_LARGE = re.compile(r"The result is too large to return: about (\d+) bytes; the limit is 200000\.")


@pytest.mark.parametrize("modern", [False, True], ids=["2025-11-25", MODERN])
def test_a_call_whose_answer_passes_the_bytes_in_flight_is_response_too_large_by_its_id(
    workspace: Path, modern: bool
) -> None:
    """As REST answers 413 response_too_large, not 200 with the whole answer."""
    app = _app(workspace, HttpLimits(max_in_flight_bytes=200_000))
    message = _read(7)
    scope = _scope(version="2025-11-25")
    if modern:
        message["params"]["_meta"] = ENVELOPE
        scope = _scope(version=MODERN)
        scope["headers"] += [(b"mcp-method", b"tools/call"), (b"mcp-name", b"file-read")]

    status, answer = asyncio.run(_post(app, message, scope))

    assert status == 200 and answer["id"] == 7
    result = answer["result"]
    error = result["_meta"]["dev.toolproof/error"]
    assert result["isError"] is True and "structuredContent" not in result
    assert error["code"] == "response_too_large"
    match = TOO_LARGE.fullmatch(error["message"])
    assert match is not None and int(match[1]) > 200_000, error["message"]
    assert error["hint"] == "Ask for less: a smaller range or limit, or a narrower request."
    assert result["content"] == [{"type": "text", "text": f"Error: {error['message']} {error['hint']}"}]
    assert (result.get("resultType") == "complete") is modern


BATCH_TOO_LARGE = re.compile(
    r"The result is too large to return in this batch: it takes more than the \d+ bytes left of the batch's 1000000\."
)


def _check_batch(answers: list[dict[str, Any]], encoded_size: int) -> None:
    """Every request answered by its id, in order; those that fit first, then refusals naming the batch."""
    assert [answer["id"] for answer in answers] == [*range(1, 9), 99]
    assert answers[-1]["result"] == {}  # the ping
    refused = [answer["result"].get("isError") for answer in answers[:8]]
    kept = refused.index(True)
    assert kept >= 1 and refused == [False] * kept + [True] * (8 - kept)
    for answer in answers[kept:8]:
        error = answer["result"]["_meta"]["dev.toolproof/error"]
        assert error["code"] == "response_too_large"
        assert BATCH_TOO_LARGE.fullmatch(error["message"]) is not None, error["message"]
        assert error["hint"].startswith("Send this call alone or in a smaller batch")
    assert encoded_size <= 1_000_000


def test_a_batch_whose_answers_together_pass_the_cap_answers_the_rest_response_too_large(workspace: Path) -> None:
    app = _app(workspace, HttpLimits(max_in_flight_bytes=1_000_000))
    batch = [_read(i) for i in range(1, 9)] + [{"jsonrpc": "2.0", "id": 99, "method": "ping"}]
    sent: list[Message] = []

    asyncio.run(app(_scope(version=None), _client(json.dumps(batch).encode()), _keeper(sent)))

    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    assert sent[0]["status"] == 200
    _check_batch(json.loads(body), len(body))


def test_a_batch_of_64_large_answers_is_never_held_whole(workspace: Path) -> None:
    """64 answers of ~220 KB would be 14 MB as JSON, and about three times that at the peak: the cap is 1 MB."""
    app = _app(workspace, HttpLimits(max_in_flight_bytes=1_000_000))
    body = json.dumps([_read(i) for i in range(1, 65)]).encode()
    sent: list[Message] = []

    tracemalloc.start()
    try:
        asyncio.run(app(_scope(version=None), _client(body), _keeper(sent)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    answers = json.loads(b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"))
    assert len(answers) == 64 and answers[-1]["result"]["isError"] is True
    assert peak < 8 << 20, f"{peak} bytes at the peak"


def test_a_stdio_batch_whose_answers_together_pass_the_result_cap_answers_the_rest_response_too_large(
    workspace: Path,
) -> None:
    runtime = builtin_runtime(workspace=[workspace])
    runtime.max_result_bytes = 1_000_000
    hello = {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t"}}
    batch = [_read(i) for i in range(1, 9)] + [{"jsonrpc": "2.0", "id": 99, "method": "ping"}]
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}, batch]
    stdout = io.BytesIO()

    serve_stdio(McpServer(runtime), io.BytesIO(b"".join(json.dumps(m).encode() + b"\n" for m in lines)), stdout)

    line = stdout.getvalue().splitlines()[1]
    _check_batch(json.loads(line), len(line))


DEEP_PING = b'{"jsonrpc": "2.0", "id": 5, "method": "ping", "params": {"x": ' + b"[" * 30_000 + b"]" * 30_000 + b"}}"
"""60 KB the standard library cannot read (too deep), so it is read by the slow reader: tens of milliseconds."""


def test_a_large_body_is_parsed_in_a_thread_with_the_collector_paused_and_a_small_one_on_the_loop(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    on_loop: list[tuple[int, bool, bool]] = []

    def noting(data: bytes) -> Any:
        on_loop.append((len(data), threading.current_thread() is threading.main_thread(), gc.isenabled()))
        return decode_message(data)

    monkeypatch.setattr(streamable, "decode_message", noting)
    app = _app(workspace, HttpLimits())
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}

    async def scenario() -> None:
        await _post(app, ping)
        sent: list[Message] = []
        await app(_scope(), _client(DEEP_PING), _keeper(sent))
        assert _decoded_body(sent) == {"jsonrpc": "2.0", "id": 5, "result": {}}

    asyncio.run(scenario())

    # In the thread, with the collector paused: a parsed message makes no cycles for it to find.
    assert on_loop == [(len(json.dumps(ping)), True, True), (len(DEEP_PING), False, False)]
    assert gc.isenabled()


def test_the_loop_goes_on_while_long_bodies_are_parsed(workspace: Path) -> None:
    """A 4 MiB body once froze the worker for a second: other clients waited behind every one of them."""
    started = time.perf_counter()
    decode_message(DEEP_PING)
    one = time.perf_counter() - started
    app = _app(workspace, HttpLimits())
    gaps: list[float] = []

    async def scenario() -> None:
        parsing = [asyncio.ensure_future(app(_scope(), _client(DEEP_PING), _keeper([]))) for _ in range(6)]
        done = asyncio.gather(*parsing)
        last = time.perf_counter()
        while not done.done():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now
        await done

    asyncio.run(scenario())

    # On the loop, the six would stall it six times as long as one takes; in a thread, it turns every few ms
    # (but for a pause of the garbage collector, or a reader's call into C, at most about one body's time).
    assert max(gaps) < 2 * one, f"the loop stalled {max(gaps) * 1000:.0f} ms; one body takes {one * 1000:.0f} ms"
    assert sorted(gaps)[len(gaps) // 2] < one / 4


@pytest.mark.parametrize(
    "text",
    [b"[" * 70_000, b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"a": [' + b"1e400, " * 20_000],
    ids=["unclosed brackets", "a number beyond a float, cut short"],
)
def test_a_long_text_that_is_not_json_at_all_is_a_parse_error_not_too_deep(workspace: Path, text: bytes) -> None:
    """JSON-RPC 2.0 section 5.1: -32700 for text that is not JSON, as below 64 KiB."""
    sent: list[Message] = []

    asyncio.run(_app(workspace, HttpLimits())(_scope(), _client(text), _keeper(sent)))

    assert sent[0]["status"] == 400
    assert _decoded_body(sent) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error: the body is not JSON"},
    }


def test_a_long_unclosed_line_over_stdio_is_a_parse_error(workspace: Path) -> None:
    stdout = io.BytesIO()

    serve_stdio(McpServer(builtin_runtime(workspace=[workspace])), io.BytesIO(b"[" * 4_000_000 + b"\n"), stdout)

    answer = json.loads(stdout.getvalue())
    assert answer["error"] == {"code": -32700, "message": "Parse error: the line is not JSON"}


def test_a_long_text_of_valid_json_too_deep_to_read_is_still_refused_as_such(workspace: Path) -> None:
    text = b"[" * 40_000 + b'"]"' + b"]" * 40_000
    sent: list[Message] = []

    asyncio.run(_app(workspace, HttpLimits())(_scope(), _client(text), _keeper(sent)))

    error = _decoded_body(sent)["error"]
    assert error["code"] == -32600 and "nested too deeply to read" in error["message"]
