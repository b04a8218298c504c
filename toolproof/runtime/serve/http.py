"""The HTTP façade: a small hand-written ASGI app over the runtime.

``POST /tools/{name}`` takes the arguments as a JSON body and answers 200 with
the tool's output, or the catalogued error as ``{code, message, hint}`` (and
``output``, the object the contract's ``render.error_output`` builds) under
the status its contract gives it (400 when the body is not a JSON object, 422
when it breaks the input schema). The body is read as every transport reads
arguments (``json_value``: integers of up to 4300 digits exact, no NaN or infinity, a
byte order mark ignored as on ``/mcp``), and what is wrong with it is worded
by the runtime, as for the CLI and MCP. ``GET /openapi.json`` serves the document ``make gen``
wrote, with the input schemas this runtime serves (dynamic enums included). The
``X-Toolproof-Session`` header names the caller's session.

What a caller can make the app hold is bounded (``HttpLimits``): a body whose
``Content-Length`` passes the argument cap gets 413 at once, one that passes it
as it comes (chunked) 413 then, and both close the connection; a body that
does not arrive within ``body_timeout`` gets 408 and the connection closes; at
most ``max_calls`` tool calls run at once, each in a thread of the app's own
(``Calls``), never on the event loop; a response is never built whole when
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
from collections.abc import Awaitable, Callable, Container, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import INVALID_ARGUMENTS, RESPONSE_TOO_LARGE, STANDARD_ERRORS, RegistryError
from toolproof.runtime.json_reader import json_value
from toolproof.runtime.json_writer import json_bytes, json_size
from toolproof.runtime.nulls import accepting_dropped_nulls
from toolproof.runtime.serve.calls import Budget, Calls
from toolproof.runtime.serve.limits import HttpLimits
from toolproof.runtime.spec import BUILTIN_PACKAGE, generated_json, generated_problem

__all__ = [
    "SESSION_HEADER",
    "SMALL_RESPONSE",
    "Budget",
    "CallGate",
    "Calls",
    "HttpApp",
    "HttpLimits",
    "Refusal",
    "body_share",
    "declared_length",
    "header",
    "headers",
    "json_headers",
    "read_body",
    "refuse",
    "repeated_headers",
    "send_pieces",
    "send_raw",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
Refusal = tuple[int, dict[str, Any], list[tuple[bytes, bytes]]]
"""An HTTP refusal: the status, the JSON body, extra headers."""
CallGate = Callable[[str, Scope], "Refusal | None"]
"""Judges a call of the named tool in a request before it runs: None when it may, else the answer to give."""

SESSION_HEADER: Final = "x-toolproof-session"
_PREFIX: Final = "/tools/"
SMALL_BODY: Final = 64 * 1024
"""Bytes up to which a declared request body takes no share of the bodies' budget (``body_share``)."""
SMALL_RESPONSE: Final = 64 * 1024
"""Bytes under which a response is written whole and takes no share of ``max_in_flight_bytes``."""
_SLICE: Final = 8 * 1024
"""Characters of a long string encoded at a time: at most 48 KiB of JSON (``\\u0001`` is six bytes)."""
_HEADERS: Final = "toolproof.headers"
"""The scope key under which ``headers`` keeps a request's headers once read."""


_OPENAPI: Final = "openapi.json"


def _document(runtime: Runtime, package: str) -> bytes:
    """The OpenAPI document gen wrote, cut to the tools served, with their input schemas as served.

    Raises:
        RegistryError: the document cannot be read, is not the one gen writes, or has no route
            for a tool served (gen has not run since the contracts or the project's ``include`` changed).
    """
    document = generated_json(package, _OPENAPI)
    served = {spec.name: spec for spec in runtime.specs if spec.kind == "tool"}  # resources, prompts: MCP only
    try:
        schemas, paths = document["components"]["schemas"], document["paths"]
        for route in list(paths):
            name = route.removeprefix(_PREFIX)
            if name not in served:
                del paths[route]
                continue
            ref = paths[route]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
            if served[name].dynamic_enums:
                schemas[ref.rsplit("/", 1)[1]] = accepting_dropped_nulls(served[name].input_schema)
        text = json_bytes(document)
    except (KeyError, TypeError, AttributeError, IndexError, ValueError):
        raise RegistryError(
            [generated_problem(package, _OPENAPI, "cannot be loaded (not the OpenAPI document gen writes)")]
        ) from None
    missing = ", ".join(f"'{name}'" for name in sorted(served) if _PREFIX + name not in paths)
    if missing:  # gen has not run since the contracts or `include` changed
        raise RegistryError(
            [generated_problem(package, _OPENAPI, f"has no route for {missing}, which this host serves")]
        )
    return text


@dataclass(frozen=True, slots=True)
class _Answer:
    status: int
    payload: Any
    size: int
    """Bytes of ``payload`` as JSON."""
    body: bytes | None
    """``payload`` as JSON when it is small (``SMALL_RESPONSE``); None for a large one, written in pieces."""


class HttpApp:
    """An ASGI 3 application serving ``runtime``'s tools within ``limits``.

    Raises:
        RegistryError: the package's ``openapi.json`` cannot be read or has no route for a tool served.
    """

    def __init__(
        self,
        runtime: Runtime,
        *,
        package: str = BUILTIN_PACKAGE,
        limits: HttpLimits | None = None,
        gate: CallGate | None = None,
    ) -> None:
        self.runtime = runtime
        self.gate = gate
        """Judges each call before its body is read (``gate.ScopeGate``); None: every call may run."""
        self.limits = limits if limits is not None else HttpLimits()
        self.max_body = runtime.max_argument_bytes
        self.max_response = min(runtime.max_result_bytes, self.limits.max_in_flight_bytes)
        """The largest answer written: the runtime's cap, or less when no more may be in flight."""
        self._document = _document(runtime, package)
        self._status = {
            spec.name: {code: entry.status for code, entry in spec.errors.items()}
            for spec in runtime.specs
            if spec.kind == "tool"
        }
        self.calls = Calls(self.limits.max_calls)
        """Slots for tool calls running at once, and their threads; the MCP endpoint of the same app shares them."""
        self.responses = Budget(self.limits.max_in_flight_bytes)
        """Bytes of large responses being written at once; the MCP endpoint of the same app shares them."""
        self.bodies = Budget(max(self.limits.max_in_flight_bytes, self.max_body))
        """Bytes of request bodies being read or used that are not small (``body_share``); shared with ``/mcp``."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path, method = scope["path"], scope["method"]
        if path.startswith(_PREFIX) and path[len(_PREFIX) :] in self._status:
            if method != "POST":
                await _json(send, 405, {"code": "method_not_allowed", "message": "use POST"}, allow="POST")
                return
            name = path[len(_PREFIX) :]
            refusal = self.gate(name, scope) if self.gate is not None else None
            if refusal is not None:
                await refuse(send, refusal)
                return
            await self._call(scope, receive, send, name)
            return
        if path == "/openapi.json":
            if method != "GET":
                await _json(send, 405, {"code": "method_not_allowed", "message": "use GET"}, allow="GET")
                return
            await send_raw(send, 200, self._document)
            return
        if path.startswith(_PREFIX):  # a tool not served: the catalogued unknown_tool, as MCP and the CLI say
            unknown = self.runtime.call(path[len(_PREFIX) :], None).error
            assert unknown is not None
            await _json(send, 404, unknown.to_dict())
            return
        await _json(send, 404, {"code": "not_found", "message": f"no route {path}"})

    async def _call(self, scope: Scope, receive: Receive, send: Send, name: str) -> None:
        declared = declared_length(scope)
        if declared is not None and declared > self.max_body:  # refused before a byte of it is awaited
            await _body_too_large(send, self.max_body)
            return
        held = body_share(declared, self.max_body)
        if held and not await self.bodies.acquire(held, self.limits.queue_timeout):
            await _busy(send, "request bodies")
            return
        try:
            answered = await self._answered(scope, receive, send, name)
        finally:
            if held:
                self.bodies.release(held)
        if answered is None:
            return
        answer, share = answered
        try:
            await _send_json(send, answer)
        finally:
            if share:
                self.responses.release(share)

    async def _answered(self, scope: Scope, receive: Receive, send: Send, name: str) -> tuple[_Answer, int] | None:
        """The call's answer and its share of the response bytes, taken; None when answered already, or not due.

        The call's slot is held until that share is taken: answers waiting for
        the bytes in flight are at most the calls that may run, not one a
        connection.
        """
        try:
            async with asyncio.timeout(self.limits.body_timeout):
                body = await read_body(receive, self.max_body)
        except TimeoutError:
            message = f"the request body did not arrive within {self.limits.body_timeout:g} seconds"
            await _json(send, 408, {"code": "request_timeout", "message": message}, close=True)
            return None
        if body is None:  # and the rest of it is not wanted: the connection closes
            await _body_too_large(send, self.max_body)
            return None
        session = header(scope, SESSION_HEADER)
        granted = await self.calls.acquire_for(1, self.limits.queue_timeout, receive)
        if granted is None:  # the client has gone: run nothing for no one
            return None
        if not granted:
            await _busy(send, "tool calls")
            return None
        try:
            answer = await self.calls.run(self._answer, name, body, session, kind=name)
            del body
            share = 0 if answer.body is not None else answer.size  # small ones never wait behind large ones
            if share:
                granted = await self.responses.acquire_for(share, self.limits.queue_timeout, receive)
                if granted is None:  # the client has gone: no one to write to
                    return None
                if not granted:
                    await _busy(send, "responses")
                    return None
            return answer, share
        finally:
            self.calls.release(1)

    def _answer(self, name: str, body: bytes, session: str | None) -> _Answer:
        """Read the body, run the call, size its answer, and write it when small.

        In a thread: reading a large body and sizing a large answer take a while.
        A body that is not a JSON object goes to the runtime as it came, which
        says what is wrong with it in the words it uses for every transport.
        """
        try:
            arguments = json_value(body)
        except (ValueError, RecursionError):
            arguments = None
        is_object = isinstance(arguments, dict)
        result = self.runtime.call(name, arguments if is_object else body, session=session)
        del arguments
        if result.error is None:
            status, payload = 200, result.output
        else:
            status = self._status[name].get(result.error.code, 422) if is_object else 400
            payload = result.error.to_dict()
        size = json_size(payload, self.max_response)
        if size is None:  # a value json_size cannot count (an integer beyond 64 bits, say): piece by piece
            size = _encoded_size(payload, self.max_response)
        if size <= self.max_response:
            return _Answer(status, payload, size, json_bytes(payload) if size <= SMALL_RESPONSE else None)
        entry = STANDARD_ERRORS[RESPONSE_TOO_LARGE]
        message = entry.render({"size": size, "limit": self.max_response})
        payload = {"code": RESPONSE_TOO_LARGE, "message": message, "hint": entry.hint}
        status = self._status[name].get(RESPONSE_TOO_LARGE, entry.status)
        body = json_bytes(payload)
        return _Answer(status, payload, len(body), body)

    @staticmethod
    async def _lifespan(receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return


def headers(scope: Scope) -> dict[str, bytes]:
    """The request's headers by lowercased name (the first of a repeated one), read once and kept in ``scope``."""
    found: dict[str, bytes] | None = scope.get(_HEADERS)
    if found is None:
        found = {}
        for key, value in scope.get("headers", ()):
            found.setdefault(bytes(key).decode("latin-1").lower(), value)
        scope[_HEADERS] = found
    return found


def header(scope: Scope, name: str) -> str | None:
    """The value of the request header ``name`` (matched case-insensitively; the first when repeated), or None."""
    value = headers(scope).get(name.lower())
    return None if value is None else bytes(value).decode("latin-1")


def repeated_headers(scope: Scope, names: Container[str]) -> dict[str, list[str]]:
    """The values of each of ``names`` (lowercased) that the request carries more than once (usually none).

    By name, in the order their second copies come; each value trimmed of spaces and tabs.
    """
    raw = scope.get("headers") or ()
    if len(headers(scope)) == len(raw):  # no name at all comes twice: the common case, one comparison
        return {}
    seen: dict[str, list[str]] = {}
    repeated: dict[str, list[str]] = {}
    for key, value in raw:
        name = bytes(key).decode("latin-1").lower()
        if name in names:
            found = seen.setdefault(name, [])
            found.append(bytes(value).decode("latin-1").strip(" \t"))
            if len(found) == 2:
                repeated[name] = found
    return repeated


def body_share(declared: int | None, limit: int) -> int:
    """Bytes a request body takes from an app's budget of bodies while it is read and used.

    Its declared length; ``limit`` when it declares none (chunked: it may grow
    that far); nothing when it is declared small (``SMALL_BODY``: those are
    bounded by the connections). So half-sent bodies cannot make a host hold
    more than ``max_in_flight_bytes`` of them: the next waits, then gets 503.
    """
    if declared is None:
        return limit
    return declared if declared > SMALL_BODY else 0


def declared_length(scope: Scope) -> int | None:
    """The body length the request's ``Content-Length`` declares; None when it declares none (chunked, say).

    Read before the body, so that a body too large is refused at once, not
    after it has come (or failed to come) whole. The server's parser has
    refused a malformed header already; any it let through counts as none.
    """
    value = headers(scope).get("content-length")
    if value is None:
        return None
    value = bytes(value).strip()
    return int(value) if value.isdigit() and len(value) <= 20 else None


async def read_body(receive: Receive, limit: int) -> bytes | None:
    """The request body; None when it passes ``limit`` bytes, b"" when the client left."""
    message = await receive()
    if message["type"] == "http.request" and not message.get("more_body", False):  # it came whole: most do
        body: bytes = message.get("body", b"")
        return body if len(body) <= limit else None
    chunks: list[bytes] = []
    size = 0
    while True:
        if message["type"] == "http.disconnect":
            return b""
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)
        message = await receive()


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
    if answer.body is not None:
        await send_raw(send, answer.status, answer.body)
        return
    await send({"type": "http.response.start", "status": answer.status, "headers": json_headers(answer.size)})
    buffer = bytearray()
    for piece in _json_pieces(answer.payload):
        buffer += piece
        if len(buffer) >= SMALL_RESPONSE:
            await send({"type": "http.response.body", "body": bytes(buffer), "more_body": True})
            buffer.clear()
    await send({"type": "http.response.body", "body": bytes(buffer)})


_CONTENT_TYPE_JSON: Final = (b"content-type", b"application/json")
_CLOSE: Final = (b"connection", b"close")
_RETRY_AFTER: Final = (b"retry-after", b"1")


def json_headers(length: int, *extra: tuple[bytes, bytes]) -> list[tuple[bytes, bytes]]:
    """The headers of a JSON response of ``length`` bytes, then ``extra``."""
    return [_CONTENT_TYPE_JSON, (b"content-length", b"%d" % length), *extra]


async def _body_too_large(send: Send, limit: int) -> None:
    message = f"Invalid arguments: $: the body is larger than {limit} bytes"
    await _json(send, 413, {"code": INVALID_ARGUMENTS, "message": message}, close=True)


async def _busy(send: Send, what: str) -> None:
    payload = {"code": "server_busy", "message": f"the server is busy with other {what}; retry shortly"}
    body = orjson.dumps(payload)
    await send({"type": "http.response.start", "status": 503, "headers": json_headers(len(body), _RETRY_AFTER)})
    await send({"type": "http.response.body", "body": body})


async def refuse(send: Send, refusal: Refusal) -> None:
    """Answer with a gate's refusal: its status, its body as JSON, its extra headers."""
    status, payload, extra = refusal
    await send_raw(send, status, orjson.dumps(payload), *extra)


async def send_raw(send: Send, status: int, body: bytes, *extra: tuple[bytes, bytes]) -> None:
    """Write ``body`` (JSON) as the whole response, with the headers ``json_headers`` gives and ``extra``.

    A body over ``SMALL_RESPONSE`` goes in pieces, each once the client has taken the one before (``send_pieces``).
    """
    await send({"type": "http.response.start", "status": status, "headers": json_headers(len(body), *extra)})
    await send_pieces(send, body, more=False)


async def send_pieces(send: Send, body: bytes, *, more: bool) -> None:
    """Send ``body`` in pieces of ``SMALL_RESPONSE``, each once the client has taken the one before.

    Handed over whole, a large answer would go to the transport's buffer at
    once, and its share of the response budget come back while a client that
    never reads still holds it all in memory.
    """
    if len(body) <= SMALL_RESPONSE:
        await send({"type": "http.response.body", "body": body, "more_body": more})
        return
    view = memoryview(body)
    for start in range(0, len(view), SMALL_RESPONSE):
        last = start + SMALL_RESPONSE >= len(view)
        await send(
            {
                "type": "http.response.body",
                "body": bytes(view[start : start + SMALL_RESPONSE]),
                "more_body": more or not last,
            }
        )


async def _json(send: Send, status: int, payload: Any, allow: str | None = None, close: bool = False) -> None:
    extra = ((b"allow", allow.encode()),) if allow is not None else ()
    await send_raw(send, status, orjson.dumps(payload), *extra, *((_CLOSE,) if close else ()))
