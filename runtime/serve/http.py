"""The HTTP façade: a small hand-written ASGI app over the runtime.

``POST /tools/{name}`` takes the arguments as a JSON body and answers 200 with
the tool's output, or the catalogued error as ``{code, message, hint}`` (and
``output``, the object the contract's ``render.error_output`` builds) under
the status its contract gives it (400 when the body is not JSON, 422 when it
breaks the input schema). ``GET /openapi.json`` serves the document ``make gen``
wrote, with the input schemas this runtime serves (dynamic enums included). The
``X-Toolproof-Session`` header names the caller's session.

What a caller can make the app hold is bounded (``HttpLimits``): a body that
does not arrive within ``body_timeout`` gets 408 and the connection closes; at
most ``max_calls`` tool calls run at once; a response is never built whole when
it is large, but written in pieces as the client reads it, and large responses
in flight share ``max_in_flight_bytes``. A request that waits longer than
``queue_timeout`` for a call slot or for its share gets 503 with
``Retry-After``. A result over the runtime's cap is ``response_too_large``.
The limits of the connection itself (request heads, idle and stalled clients,
the number of connections) are the server's: ``toolproof.runtime.serve.http_server``.

Hand-written: a framework would add a dependency and start-up time, and take
none of the limits above off our hands.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Awaitable, Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import INVALID_ARGUMENTS, RESPONSE_TOO_LARGE, STANDARD_ERRORS
from toolproof.runtime.result import json_bytes
from toolproof.runtime.spec import BUILTIN_PACKAGE, generated_dir
from toolproof.runtime.template import Template

__all__ = ["SESSION_HEADER", "SMALL_RESPONSE", "Budget", "HttpApp", "HttpLimits", "header", "read_body"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

SESSION_HEADER: Final = "x-toolproof-session"
_PREFIX: Final = "/tools/"
SMALL_RESPONSE: Final = 64 * 1024
"""Bytes under which a response is written whole and takes no share of ``max_in_flight_bytes``."""
"""Responses up to this size are built whole and count against no share."""
_SLICE: Final = 8 * 1024
"""Characters of a long string encoded at a time: at most 48 KiB of JSON (``\\u0001`` is six bytes)."""
_TOO_LARGE: Final = Template(STANDARD_ERRORS[RESPONSE_TOO_LARGE].message)


@dataclass(frozen=True, slots=True)
class HttpLimits:
    """What one HTTP host lets its callers hold: time, connections, calls and bytes.

    ``body_timeout``, ``max_calls``, ``max_in_flight_bytes`` and ``queue_timeout``
    are the app's; the others are the server's (``http_server``).
    """

    head_timeout: float = 10.0
    """Seconds a request's head may take to arrive (from the connection, or the previous response)."""
    body_timeout: float = 30.0
    """Seconds a request's body may take to arrive once its head is in; then 408 and the connection closes."""
    send_timeout: float = 30.0
    """Seconds a response may wait on a client that does not read before the connection is dropped."""
    keep_alive_timeout: int = 5
    """Seconds an idle connection stays open between requests."""
    max_connections: int = 1000
    """Connections at once; one more is answered 503 and closed (lowered to what descriptors allow)."""
    max_calls: int = 4
    """Tool calls running at once; more wait for a slot."""
    max_in_flight_bytes: int = 64 << 20
    """Bytes of large responses being written at once (never below the runtime's result cap); more wait."""
    queue_timeout: float = 10.0
    """Seconds a request waits for a call slot or for its share of bytes before 503 with ``Retry-After``."""
    sse_keepalive: float = 15.0
    """Seconds of silence on an open SSE answer after which a comment line is sent, so proxies keep it open."""


class Budget:
    """Units shared by concurrent requests, granted first come, first served."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.free = total
        self._waiters: deque[tuple[int, asyncio.Future[None]]] = deque()

    async def acquire(self, units: int, timeout: float) -> bool:
        """Take ``units`` (at most ``total``), waiting at most ``timeout`` seconds; False when they did not come."""
        if not self._waiters and units <= self.free:
            self.free -= units
            return True
        granted = asyncio.get_running_loop().create_future()
        self._waiters.append((units, granted))
        try:
            await asyncio.wait([granted], timeout=timeout)
        except BaseException:
            self._withdraw(units, granted)
            raise
        if granted.done():
            return True
        self._withdraw(units, granted)
        return False

    def release(self, units: int) -> None:
        """Give ``units`` back, and grant waiters in turn."""
        self.free += units
        self._grant()

    def _withdraw(self, units: int, granted: asyncio.Future[None]) -> None:
        if granted.done() and not granted.cancelled():
            self.release(units)  # granted as the wait ended
        else:
            granted.cancel()
            self._grant()  # a large waiter at the head may have held smaller ones back

    def _grant(self) -> None:
        while self._waiters:
            units, granted = self._waiters[0]
            if granted.done():
                self._waiters.popleft()
            elif units <= self.free:
                self.free -= units
                granted.set_result(None)
                self._waiters.popleft()
            else:
                return


def _document(runtime: Runtime, package: str) -> bytes:
    path = generated_dir(package) / "openapi.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    served = {spec.name: spec for spec in runtime.specs}
    schemas = document["components"]["schemas"]
    for route in list(document["paths"]):
        name = route.removeprefix(_PREFIX)
        if name not in served:
            del document["paths"][route]
            continue
        ref = document["paths"][route]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        if served[name].dynamic_enums:
            schemas[ref.rsplit("/", 1)[1]] = dict(served[name].input_schema)
    return orjson.dumps(document)


@dataclass(frozen=True, slots=True)
class _Answer:
    status: int
    payload: Any
    size: int
    """Bytes of ``payload`` as JSON."""


class HttpApp:
    """An ASGI 3 application serving ``runtime``'s tools within ``limits``."""

    def __init__(self, runtime: Runtime, *, package: str = BUILTIN_PACKAGE, limits: HttpLimits | None = None) -> None:
        self.runtime = runtime
        self.limits = limits if limits is not None else HttpLimits()
        self.max_body = runtime.max_argument_bytes
        self.max_response = runtime.max_result_bytes
        self._document = _document(runtime, package)
        self._status = {
            spec.name: {code: entry.status for code, entry in spec.errors.items()} for spec in runtime.specs
        }
        self.calls = Budget(self.limits.max_calls)
        """Slots for tool calls running at once; the MCP endpoint of the same app shares them."""
        self.responses = Budget(max(self.limits.max_in_flight_bytes, self.max_response))
        """Bytes of large responses being written at once; the MCP endpoint of the same app shares them."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path, method = scope["path"], scope["method"]
        if path == "/openapi.json":
            if method != "GET":
                await _json(send, 405, {"code": "method_not_allowed", "message": "use GET"}, allow="GET")
                return
            await _raw(send, 200, self._document)
            return
        if path.startswith(_PREFIX) and path[len(_PREFIX) :] in self._status:
            if method != "POST":
                await _json(send, 405, {"code": "method_not_allowed", "message": "use POST"}, allow="POST")
                return
            await self._call(scope, receive, send, path[len(_PREFIX) :])
            return
        await _json(send, 404, {"code": "not_found", "message": f"no route {path}"})

    async def _call(self, scope: Scope, receive: Receive, send: Send, name: str) -> None:
        try:
            async with asyncio.timeout(self.limits.body_timeout):
                body = await read_body(receive, self.max_body)
        except TimeoutError:
            message = f"the request body did not arrive within {self.limits.body_timeout:g} seconds"
            await _json(send, 408, {"code": "request_timeout", "message": message}, close=True)
            return
        if body is None:  # and the rest of it is not wanted: the connection closes
            message = f"Invalid arguments: $: the body is larger than {self.max_body} bytes"
            await _json(send, 413, {"code": INVALID_ARGUMENTS, "message": message}, close=True)
            return
        try:
            parsed = orjson.loads(body) if body.strip() else None
        except orjson.JSONDecodeError:
            parsed = None
        if not isinstance(parsed, dict):
            message = "Invalid arguments: $: the body must be a JSON object"
            await _json(send, 400, {"code": INVALID_ARGUMENTS, "message": message})
            return
        del body
        session = header(scope, SESSION_HEADER)
        if not await self.calls.acquire(1, self.limits.queue_timeout):
            await _busy(send, "tool calls")
            return
        try:
            answer = await asyncio.to_thread(self._answer, name, parsed, session)
            del parsed
            share = answer.size if answer.size > SMALL_RESPONSE else 0  # small ones never wait behind large ones
            if share and not await self.responses.acquire(share, self.limits.queue_timeout):
                await _busy(send, "responses")
                return
        finally:
            self.calls.release(1)
        try:
            await _send_json(send, answer)
        finally:
            if share:
                self.responses.release(share)

    def _answer(self, name: str, arguments: dict[str, Any], session: str | None) -> _Answer:
        """Run the call and size its answer (in a worker thread: sizing a large output takes a while)."""
        result = self.runtime.call(name, arguments, session=session)
        if result.error is None:
            status, payload = 200, result.output
        else:
            status, payload = self._status[name].get(result.error.code, 422), result.error.to_dict()
        size = _encoded_size(payload, self.max_response)
        if size <= self.max_response:
            return _Answer(status, payload, size)
        entry = STANDARD_ERRORS[RESPONSE_TOO_LARGE]
        message = _TOO_LARGE.render({"size": size, "limit": self.max_response})
        payload = {"code": RESPONSE_TOO_LARGE, "message": message, "hint": entry.hint}
        status = self._status[name].get(RESPONSE_TOO_LARGE, entry.status)
        return _Answer(status, payload, len(json_bytes(payload)))

    @staticmethod
    async def _lifespan(receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return


def header(scope: Scope, name: str) -> str | None:
    """The value of the request header ``name`` (matched case-insensitively), or None."""
    wanted = name.encode("latin-1")
    for key, value in scope.get("headers", ()):
        if key.lower() == wanted:
            return bytes(value).decode("latin-1")
    return None


async def read_body(receive: Receive, limit: int) -> bytes | None:
    """The request body; None when it passes ``limit`` bytes, b"" when the client left."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b""
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _json_pieces(value: Any) -> Iterator[bytes]:
    """``value`` as compact JSON in pieces, none over 48 KiB however long a string is (keys and numbers aside).

    Joined, the pieces are ``json_bytes(value)``; a long string is encoded a
    slice at a time, so the whole text never exists at once.
    """
    if isinstance(value, str):
        if len(value) <= _SLICE:
            yield orjson.dumps(value)
            return
        yield b'"'
        for start in range(0, len(value), _SLICE):
            yield orjson.dumps(value[start : start + _SLICE])[1:-1]
        yield b'"'
    elif isinstance(value, Mapping):
        yield b"{"
        for i, (key, item) in enumerate(value.items()):
            yield (b',"' if i else b'"') + orjson.dumps(key)[1:-1] + b'":'
            yield from _json_pieces(item)
        yield b"}"
    elif isinstance(value, list | tuple):
        yield b"["
        for i, item in enumerate(value):
            if i:
                yield b","
            yield from _json_pieces(item)
        yield b"]"
    else:
        yield json_bytes(value)


def _encoded_size(value: Any, limit: int) -> int:
    """Bytes of ``value`` as JSON, counted piece by piece; stops soon after passing ``limit``."""
    size = 0
    for piece in _json_pieces(value):
        size += len(piece)
        if size > limit:
            break
    return size


async def _send_json(send: Send, answer: _Answer) -> None:
    """Write ``answer``: whole when small, else in pieces of about 64 KiB as the client takes them."""
    if answer.size <= SMALL_RESPONSE:
        await _raw(send, answer.status, json_bytes(answer.payload))
        return
    await send({"type": "http.response.start", "status": answer.status, "headers": _headers(answer.size)})
    buffer = bytearray()
    for piece in _json_pieces(answer.payload):
        buffer += piece
        if len(buffer) >= SMALL_RESPONSE:
            await send({"type": "http.response.body", "body": bytes(buffer), "more_body": True})
            buffer.clear()
    await send({"type": "http.response.body", "body": bytes(buffer)})


def _headers(length: int, *, allow: str | None = None, close: bool = False) -> list[tuple[bytes, bytes]]:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(length).encode())]
    if allow is not None:
        headers.append((b"allow", allow.encode()))
    if close:
        headers.append((b"connection", b"close"))
    return headers


async def _busy(send: Send, what: str) -> None:
    payload = {"code": "server_busy", "message": f"the server is busy with other {what}; retry shortly"}
    body = orjson.dumps(payload)
    headers = [*_headers(len(body)), (b"retry-after", b"1")]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _raw(send: Send, status: int, body: bytes, allow: str | None = None, close: bool = False) -> None:
    headers = _headers(len(body), allow=allow, close=close)
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _json(send: Send, status: int, payload: Any, allow: str | None = None, close: bool = False) -> None:
    await _raw(send, status, orjson.dumps(payload), allow, close)
