"""MCP over Streamable HTTP: one endpoint, both protocol eras, no sessions.

Each POST carries one JSON-RPC message. Which era it speaks is decided per
request, as the specification and the official SDKs do, from the
``MCP-Protocol-Version`` header: 2026-07-28 is served statelessly (the
request's ``_meta`` envelope must be whole, and the ``Mcp-Method`` and
``Mcp-Name`` routing headers must match the body); a 2025-or-earlier revision,
or no header, is served as 2025-11-25, whose ``initialize`` is answered without
a session id (the specification lets a server keep none), so every later
request stands alone too and any worker behind a balancer can answer it. A
header naming any other revision, or no revision at all, gets 400 and -32022
with the versions we speak, whatever the JSON-RPC message: the specification requires
400 for an invalid or unsupported version, and a later date is not taken for
2026-07-28, nor an earlier one for 2025. A request without the header whose
``_meta`` names a protocol version (the 2026-07-28 envelope) gets 400 and
-32020: that revision requires the header, and its checks are not skipped by
leaving it out. The version header, ``Mcp-Method`` and ``Mcp-Name`` must come
once each (a repeated version header is no version we speak; a repeated
routing header on a 2026-07-28 request is a header mismatch): a balancer
reading the first copy and a server reading the last would route and run
different things.

Answers: a notification (or, before 2026-07-28, a response) gets 202 and no
body; a body that is JSON but no JSON-RPC request, notification or response
gets 400 (-32600, or -32700 when it is not JSON at all). A request gets its
answer as one line of JSON: under 2026-07-28 with the status the error code
maps to (400 for malformed requests and protocol errors, 404 for an unknown
method), under the 2025 revisions always with 200, as those revisions and the
official SDKs' servers answer a JSON-RPC request (their clients take any
other status for a failed transport, not a JSON-RPC error). When the handler
reports progress or log messages, and the client accepts
``text/event-stream``, the answer becomes a per-request SSE stream: the
notifications, then the response, then the end of the stream. A client that
accepts only ``text/event-stream`` always gets one. GET and DELETE get 405
(no standalone stream, no session to end).

Bounded like the REST routes (``HttpLimits``), and within the same budgets when
the app serves both: the body must arrive within ``body_timeout`` and hold at
most ``MAX_MESSAGE_BYTES`` (one whose ``Content-Length`` says more gets 413 at
once, and the connection closes), and one over 2 KiB is parsed in a thread, not
on the event loop; tool calls share the ``max_calls`` slots, and large answers
the ``max_in_flight_bytes``, each waited for at most ``queue_timeout`` before
503. A call gives its slot back once its answer exists and holds that share,
before a byte of it is written: a client that does not read keeps no slot. An
answer (a call's, or a batch's together) is at most ``max_in_flight_bytes``
and the runtime's result cap: a call past it is answered, by its id, with the
tool's ``response_too_large``. An SSE answer silent for ``sse_keepalive``
seconds gets a comment line, so a proxy does not close it while a long call runs.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import functools
import gc
import logging
import threading
from collections import deque
from collections.abc import Awaitable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final, TypeVar

from toolproof.runtime.json_reader import Unreadable
from toolproof.runtime.serve.calls import disconnected
from toolproof.runtime.serve.http import (
    SMALL_RESPONSE,
    Budget,
    CallGate,
    Calls,
    HttpLimits,
    Receive,
    Refusal,
    Scope,
    Send,
    body_share,
    declared_length,
    header,
    read_body,
    refuse,
    repeated_headers,
    send_pieces,
    send_raw,
)
from toolproof.runtime.serve.jsonrpc import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    MAX_MESSAGE_BYTES,
    METHOD_NOT_FOUND,
    MISSING_CLIENT_CAPABILITY,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    decode_message,
    encode_batch,
    encode_message,
    error_response,
    is_call,
    is_request_id,
)
from toolproof.runtime.serve.mcp import McpServer
from toolproof.runtime.serve.revisions import (
    BATCH_VERSIONS,
    MODERN_VERSIONS,
    SUPPORTED_VERSIONS,
    VERSION_META,
    envelope_problem,
)

__all__ = ["ENDPOINT", "StreamableMcp", "http_status"]

_log = logging.getLogger("toolproof.mcp.http")
_A = TypeVar("_A")

ENDPOINT: Final = "/mcp"
_BAD_REQUEST_CODES: Final = frozenset(
    {
        PARSE_ERROR,
        INVALID_REQUEST,
        INVALID_PARAMS,
        HEADER_MISMATCH,
        MISSING_CLIENT_CAPABILITY,
        UNSUPPORTED_PROTOCOL_VERSION,
    }
)
_NAMED: Final = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
"""Methods whose ``Mcp-Name`` header mirrors a param, and which param."""
_JSON: Final = "application/json"
_SSE: Final = "text/event-stream"


def http_status(answer: Mapping[str, Any]) -> int:
    """The HTTP status of a 2026-07-28 JSON-RPC answer: 400 for malformed or refused requests, 404 for unknown methods.

    Answers to 2025 requests go with 200 whatever their error: those revisions map no error to a status.
    """
    error = answer.get("error")
    if not isinstance(error, Mapping):
        return 200
    code = error.get("code")
    if code in _BAD_REQUEST_CODES:
        return 400
    return 404 if code == METHOD_NOT_FOUND else 200


_SPOKEN: Final = frozenset(SUPPORTED_VERSIONS)
"""The values of ``MCP-Protocol-Version`` served; any other gets -32022."""
_VERSION_HEADER: Final = "mcp-protocol-version"
_ROUTING: Final = (_VERSION_HEADER, "mcp-method", "mcp-name")
"""Headers a request may carry once only: what a balancer routes on must be what the server runs."""
_SHOWN: Final = {_VERSION_HEADER: "MCP-Protocol-Version", "mcp-method": "Mcp-Method", "mcp-name": "Mcp-Name"}


def _jsonrpc_problem(message: Mapping[str, Any]) -> str | None:
    """Why an object is no JSON-RPC 2.0 request, notification or response (None when it is one)."""
    if message.get("jsonrpc") != "2.0":
        return "Invalid Request: expected jsonrpc '2.0'"
    if "method" in message:
        if not isinstance(message["method"], str):
            return "Invalid Request: the method must be a string"
        if "id" in message and not is_request_id(message["id"]):
            return "Invalid Request: the request id must be a string or an integer"
        return None
    if "id" in message and ("result" in message) != ("error" in message):
        return None  # a response
    return "Invalid Request: expected a method (a request or a notification), or an id and a result or an error"


def _decoded_name(value: str) -> str | None:
    """An ``Mcp-Name`` header's value: trimmed, and ``=?base64?...?=`` decoded (None when that is broken)."""
    value = value.strip(" \t")
    if value.startswith("=?base64?") and value.endswith("?="):
        try:
            return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
    return value


def _header_problem(scope: Scope, message: Mapping[str, Any], version: str, repeated: Mapping[str, Any]) -> str | None:
    """How a 2026-07-28 request's routing headers disagree with its body, or come twice (None when they agree)."""
    for name in ("mcp-method", "mcp-name"):
        if name in repeated:
            return f"Header mismatch: {_SHOWN[name]} is sent more than once"
    method = message.get("method")
    params = message.get("params")
    params = params if isinstance(params, Mapping) else {}
    meta = params.get("_meta")
    if isinstance(meta, Mapping) and meta.get(VERSION_META) != version:
        return "Header mismatch: MCP-Protocol-Version differs from _meta's protocol version"
    if header(scope, "mcp-method") != method:
        return "Header mismatch: Mcp-Method is missing or differs from the body's method"
    key = _NAMED.get(method) if isinstance(method, str) else None
    if key is not None:
        sent = header(scope, "mcp-name")
        if sent is None or _decoded_name(sent) != params.get(key):
            return f"Header mismatch: Mcp-Name is missing or differs from params.{key}"
    return None


def _accepts(scope: Scope) -> tuple[bool, bool]:
    """Whether the client accepts JSON and SSE answers (a missing Accept header accepts both)."""
    accept = header(scope, "accept")
    return (True, True) if accept is None else _accepted(accept)


@functools.lru_cache(maxsize=64)
def _accepted(accept: str) -> tuple[bool, bool]:
    """Whether an Accept header value takes JSON and SSE answers (a client sends the same one every time)."""
    kinds = {part.split(";", 1)[0].strip().lower() for part in accept.split(",")}
    every = bool(kinds & {"*/*", "application/*"})
    return every or _JSON in kinds, "*/*" in kinds or _SSE in kinds or "text/*" in kinds


async def _note_gone(receive: Receive, gone: threading.Event) -> None:
    await disconnected(receive)
    gone.set()


def _envelope_problem(params: Any) -> str | None:
    return envelope_problem(params) if isinstance(params, Mapping) else "Invalid params: an object"


class StreamableMcp:
    """The ASGI application of the MCP endpoint, over one stateless protocol core.

    Args:
        server: the protocol core; built with ``handshake=False``, as no request may rely on an earlier one.
        limits: the app's bounds (body timeout, call slots, queue timeout).
        calls, responses, bodies: the call slots (and their threads), response bytes and request body bytes
            to share with the app's REST routes; new ones sized by ``limits`` when not given.
        gate: judges each ``tools/call`` before it runs, as on the REST routes (``gate.ScopeGate``); a batch
            holding a call it refuses is refused whole, with that call's answer.
    """

    def __init__(
        self,
        server: McpServer,
        limits: HttpLimits,
        *,
        calls: Calls | None = None,
        responses: Budget | None = None,
        bodies: Budget | None = None,
        gate: CallGate | None = None,
    ) -> None:
        self.server = server
        self.gate = gate
        self.limits = limits
        self._calls = calls if calls is not None else Calls(limits.max_calls)
        self._responses = responses if responses is not None else Budget(limits.max_in_flight_bytes)
        self._bodies = bodies if bodies is not None else Budget(limits.max_in_flight_bytes)
        self._tools = frozenset(spec.name for spec in server.runtime.specs)
        self.max_response = min(server.runtime.max_result_bytes, limits.max_in_flight_bytes, self._responses.total)
        """The largest answer written, alone or a batch's together: the runtime's cap, or less when no more may
        be in flight (as on the REST routes); a call's larger answer is its ``response_too_large``."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "POST":
            await _plain(
                send, 405, error_response(None, INVALID_REQUEST, "Method not allowed: POST only"), allow="POST"
            )
            return
        content_type = (header(scope, "content-type") or "").split(";", 1)[0].strip().lower()
        if content_type != _JSON:
            await _plain(
                send, 415, error_response(None, INVALID_REQUEST, "Unsupported Media Type: send application/json")
            )
            return
        json_ok, sse_ok = _accepts(scope)
        if not (json_ok or sse_ok):
            await _plain(send, 406, error_response(None, INVALID_REQUEST, f"Not Acceptable: accept {_JSON} or {_SSE}"))
            return
        declared = declared_length(scope)
        if declared is not None and declared > MAX_MESSAGE_BYTES:  # refused before a byte of it is awaited
            await _message_too_large(send)
            return
        held = min(body_share(declared, MAX_MESSAGE_BYTES), self._bodies.total)
        if held and not await self._bodies.acquire(held, self.limits.queue_timeout):
            busy = error_response(None, INTERNAL_ERROR, "the server is busy with other requests; retry shortly")
            await _plain(send, 503, busy, retry_after=True)
            return
        try:
            await self._read(scope, receive, send, json_ok, sse_ok)
        finally:
            if held:
                self._bodies.release(held)

    async def _read(self, scope: Scope, receive: Receive, send: Send, json_ok: bool, sse_ok: bool) -> None:
        """Read the body, parse it as one message, and answer it (the body's share of bytes held meanwhile)."""
        try:
            async with asyncio.timeout(self.limits.body_timeout):
                body = await read_body(receive, MAX_MESSAGE_BYTES)
        except TimeoutError:
            message = f"the request body did not arrive within {self.limits.body_timeout:g} seconds"
            await _plain(send, 408, error_response(None, INVALID_REQUEST, message), close=True)
            return
        if body is None:  # and the rest of it is not wanted: the connection closes
            await _message_too_large(send)
            return
        await self._message(scope, receive, send, body, json_ok, sse_ok)

    async def _message(
        self, scope: Scope, receive: Receive, send: Send, body: bytes, json_ok: bool, sse_ok: bool
    ) -> None:
        """Parse the body as one message and answer it; a tool call waits for its slot holding only the body."""
        try:
            message = await _decoded(body)  # valid JSON beyond the reader's bounds still read: answered by its id
        except ValueError:
            await _plain(send, 400, error_response(None, PARSE_ERROR, "Parse error: the body is not JSON"))
            return
        version = header(scope, _VERSION_HEADER)
        if version is not None:
            version = version.strip(" \t")  # optional whitespace (RFC 9110), which the parser leaves at the end
        repeated = repeated_headers(scope, _ROUTING)
        twice = repeated.get(_VERSION_HEADER)
        if version is not None and (version not in _SPOKEN or twice):  # before the body's checks: it is read by version
            asked = message.get("id") if isinstance(message, Mapping) and "method" in message else None
            await _plain(send, 400, _unsupported(asked, ", ".join(twice) if twice else version, twice=bool(twice)))
            return
        session = header(scope, "x-toolproof-session")
        if isinstance(message, list) and version in (None, *BATCH_VERSIONS):  # no header: 2025-03-26, by the spec
            if any(is_call(m) for m in message):
                refusal = self._batch_refusal(message, scope)
                if refusal is not None:
                    await refuse(send, refusal)
                    return
                del message  # parsed again in the call's thread: while it waits, the batch is held only as bytes
                await self._batch(receive, send, body, session, json_ok, sse_ok)
            else:  # cheap methods only: answered here
                answers = self.server.answer_batch(message, session=session)
                del message
                encoded = encode_batch(answers) if isinstance(answers, list) else b""
                granted = await self._take_share(encoded, receive)
                await self._answer_batch(send, answers, encoded, granted, json_ok, sse_ok)
            return
        if isinstance(message, Unreadable):  # a long body beyond the reader's bounds, read no further
            await _plain(
                send, 400, error_response(None, INVALID_REQUEST, f"Invalid Request: the body holds {message.what}")
            )
            return
        if not isinstance(message, Mapping):
            why = "a single JSON-RPC message object" if version is not None else "a JSON-RPC message object or a batch"
            await _plain(send, 400, error_response(None, INVALID_REQUEST, f"Invalid Request: the body must be {why}"))
            return
        problem = _jsonrpc_problem(message)
        if problem is not None:
            asked = message.get("id") if "method" in message else None
            await _plain(send, 400, error_response(asked, INVALID_REQUEST, problem))
            return
        request_id = message.get("id")
        modern = version in MODERN_VERSIONS
        if "method" not in message or "id" not in message:  # a notification, or a response
            if modern and "method" not in message:
                await _plain(send, 400, error_response(None, INVALID_REQUEST, "2026-07-28 clients send no responses"))
            else:
                self.server.handle(message)  # nothing to answer; the core checks its shape
                await send({"type": "http.response.start", "status": 202, "headers": [(b"content-length", b"0")]})
                await send({"type": "http.response.body", "body": b""})
            return
        if modern and version is not None:
            problem = _envelope_problem(message.get("params"))
            if problem is not None:
                await _plain(send, 400, error_response(request_id, INVALID_PARAMS, problem))
                return
            problem = _header_problem(scope, message, version, repeated)
            if problem is not None:
                await _plain(send, 400, error_response(request_id, HEADER_MISMATCH, problem))
                return
        elif version is None and _enveloped(message):
            await _plain(send, 400, error_response(request_id, HEADER_MISMATCH, _NO_VERSION_HEADER))
            return
        if message.get("method") != "tools/call":
            answer = self.server.answer(message, modern=modern, session=session)
            if answer is not None:
                status = http_status(answer) if modern else 200
                await _plain(send, status, answer, sse=sse_ok and not json_ok)
            return
        params = message.get("params")
        name = params.get("name") if isinstance(params, Mapping) else None
        kind = name if isinstance(name, str) and name in self._tools else None
        refusal = self.gate(kind, scope) if self.gate is not None and kind is not None else None
        if refusal is not None:
            await refuse(send, refusal)
            return
        call: Mapping[str, Any] | bytes = message
        if not self._calls.try_acquire(1):
            # Parsed JSON can take 30 times the memory of its text: while the call waits, only the text is kept.
            del message, params, call
            if not await self._slot(receive, send, request_id):
                return
            call = body  # parsed again in the call's thread, as it parsed before
        await self._call(receive, send, call, request_id, kind, modern, session, json_ok, sse_ok)

    async def _slot(self, receive: Receive, send: Send, request_id: Any) -> bool:
        """Wait for a call slot: True once taken; False if the client left (nothing sent) or the wait ran out (503)."""
        granted = await self._calls.acquire_for(1, self.limits.queue_timeout, receive)
        if granted is None:  # the client has gone: run nothing for no one
            return False
        if not granted:
            busy = error_response(request_id, INTERNAL_ERROR, "the server is busy with other tool calls; retry shortly")
            await _plain(send, 503, busy, retry_after=True)
        return granted

    def _share(self, encoded: bytes) -> int:
        """The response bytes an answer holds while it is written: none when it is small (``SMALL_RESPONSE``).

        Never more than the budget: an answer is at most ``max_response`` bytes, but for a refusal echoing a
        request id longer than that (an id no longer than its request, which the bodies' budget bounded).
        """
        return min(len(encoded), self._responses.total) if len(encoded) > SMALL_RESPONSE else 0

    async def _ready(self, work: Awaitable[tuple[_A, bytes]], receive: Receive) -> tuple[_A, bytes, bool | None]:
        """The answer ``work`` (run in a call slot) gives, as JSON, and whether its share of response bytes is taken.

        True once taken (or none is due), False when the wait for it ran out, None when the client left
        meanwhile. The slot is given back then, whatever came, and before a byte is written, as the REST
        routes do: answers waiting for clients that do not read are at most the calls that may run, and
        their bytes at most ``max_in_flight_bytes``.
        """
        try:
            answer, encoded = await work
            return answer, encoded, await self._take_share(encoded, receive)
        finally:
            self._calls.release(1)

    async def _take_share(self, encoded: bytes, receive: Receive) -> bool | None:
        """Take an answer's share of the response bytes: True once taken (or none is due), False when the wait
        ran out, None when the client left meanwhile."""
        share = self._share(encoded)
        return await self._responses.acquire_for(share, self.limits.queue_timeout, receive) if share else True

    def _abandon(self, ready: asyncio.Future[tuple[_A, bytes, bool | None]]) -> None:
        """Give back what ``_ready`` holds, or will, for an answer that is not written after all."""
        if not ready.done():
            ready.cancel()  # gives the slot back, and leaves the wait for bytes
        elif not ready.cancelled() and ready.exception() is None:
            _, encoded, granted = ready.result()
            self._give_back(encoded, granted)

    def _give_back(self, encoded: bytes, granted: bool | None) -> None:
        """Release the share of response bytes an answer took (when it took one) and will not write."""
        if granted and (share := self._share(encoded)):
            self._responses.release(share)

    def _batch_refusal(self, batch: list[Any], scope: Scope) -> Refusal | None:
        """The gate's refusal of the first call in ``batch`` it refuses; None when it refuses none (or is off)."""
        if self.gate is None:
            return None
        for message in batch:
            params = message.get("params") if is_call(message) else None
            name = params.get("name") if isinstance(params, Mapping) else None
            if isinstance(name, str) and name in self._tools:
                refusal = self.gate(name, scope)
                if refusal is not None:
                    return refusal
        return None

    async def _batch(
        self, receive: Receive, send: Send, body: bytes, session: str | None, json_ok: bool, sse_ok: bool
    ) -> None:
        """Answer a JSON-RPC batch with calls (protocol 2025-03-26): they run one after another, in one call slot.

        The answers that fit take at most ``max_response`` bytes together: a call whose answer would pass what
        is left gets ``response_too_large`` by its id instead (``McpServer.answer_batch``), and those refusals,
        a few hundred bytes each (64 at most), come on top.
        """
        if not await self._slot(receive, send, None):
            return
        gone = threading.Event()  # its calls stop being run when the client leaves
        watch = asyncio.ensure_future(_note_gone(receive, gone))

        def run() -> tuple[dict[str, Any] | list[dict[str, Any]] | None, bytes]:
            batch = decode_message(body)
            answers = self.server.answer_batch(batch, session=session, stop=gone.is_set, limit=self.max_response)
            del batch
            return answers, (encode_batch(answers) if isinstance(answers, list) else b"")

        async def watched() -> tuple[dict[str, Any] | list[dict[str, Any]] | None, bytes]:
            try:
                return await self._calls.run(run)
            finally:
                watch.cancel()  # before the wait for bytes listens for the client itself

        ready = asyncio.ensure_future(self._ready(watched(), receive))
        try:
            answers, encoded, granted = await ready
        except BaseException:
            self._abandon(ready)
            raise
        if not gone.is_set():
            await self._answer_batch(send, answers, encoded, granted, json_ok, sse_ok)
        else:
            self._give_back(encoded, granted)

    async def _answer_batch(
        self,
        send: Send,
        answers: dict[str, Any] | list[dict[str, Any]] | None,
        encoded: bytes,
        granted: bool | None,
        json_ok: bool,
        sse_ok: bool,
    ) -> None:
        """Write a batch's answers (``encoded``) once ``granted`` their share of response bytes; then give it back."""
        if granted is None:  # the client has gone: no one to write to
            return
        if answers is None:  # notifications and responses only
            await send({"type": "http.response.start", "status": 202, "headers": [(b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return
        if not isinstance(answers, list):  # the batch itself is refused: one error
            await _plain(send, 400, answers)
            return
        if not granted:
            busy = error_response(None, INTERNAL_ERROR, "the server is busy with other responses; retry shortly")
            await _plain(send, 503, busy, retry_after=True)
            return
        share = self._share(encoded)
        try:
            if sse_ok and not json_ok:
                await _start_sse(send)
                await _event(send, encoded)
                await send({"type": "http.response.body", "body": b""})
            else:
                await send_raw(send, 200, encoded)
        finally:
            if share:
                self._responses.release(share)

    async def _call(
        self,
        receive: Receive,
        send: Send,
        call: Mapping[str, Any] | bytes,
        request_id: Any,
        kind: str | None,
        modern: bool,
        session: str | None,
        json_ok: bool,
        sse_ok: bool,
    ) -> None:
        """Run a tool call in a thread of ``Calls``, its slot taken; stream its notifications as SSE if it reports any.

        ``call`` is the request, or its text when it waited for its slot (parsed again in the call's thread).
        The slot is given back once the answer exists and its share of the response bytes is taken (``_ready``),
        even while a note is still being written to a client that does not read; the answer is at most
        ``max_response`` bytes (a larger result is the tool's ``response_too_large``).
        """
        loop = asyncio.get_running_loop()
        notes: deque[Mapping[str, Any]] = deque()
        waiter: asyncio.Future[bool] | None = None  # True when a note comes or the answer is ready, False after silence

        def rouse(_: object = None) -> None:
            if waiter is not None and not waiter.done():
                waiter.set_result(True)

        def notify(note: Mapping[str, Any]) -> None:  # in the call's thread: noted before the call ends
            notes.append(note)
            loop.call_soon_threadsafe(rouse)

        def run(call: Mapping[str, Any] | bytes) -> tuple[dict[str, Any], bytes]:
            message = decode_message(call) if isinstance(call, bytes) else call
            del call
            answer = self.server.answer(
                message, modern=modern, notify=notify if sse_ok else None, session=session, limit=self.max_response
            )
            del message
            if answer is None:
                answer = error_response(request_id, INTERNAL_ERROR, "Internal error")
            return answer, encode_message(answer).rstrip(b"\n")

        ready = asyncio.ensure_future(self._ready(self._calls.run(run, call, kind=kind), receive))
        del call
        streaming = sse_ok and not json_ok
        try:
            if streaming:
                await _start_sse(send)
            if sse_ok:  # notes may come before the answer: send each as it comes
                ready.add_done_callback(rouse)
                while True:
                    while notes:
                        if not streaming:
                            streaming = True
                            await _start_sse(send)
                        await _event(send, encode_message(notes.popleft()).rstrip(b"\n"))
                    if ready.done():  # its notes were noted before it ended
                        break
                    waiter = loop.create_future()
                    silence = loop.call_later(self.limits.sse_keepalive, _settle, waiter) if streaming else None
                    try:
                        roused = await waiter
                    finally:
                        if silence is not None:
                            silence.cancel()
                    if not roused:  # a long call, silent: keep the stream open through proxies
                        await send({"type": "http.response.body", "body": _KEEPALIVE, "more_body": True})
            answer, encoded, granted = await ready
        except BaseException:
            self._abandon(ready)
            raise
        if granted is None:  # the client has gone: no one to write to
            return
        if not granted:
            busy = error_response(request_id, INTERNAL_ERROR, "the server is busy with other responses; retry shortly")
            if streaming:
                await _event(send, encode_message(busy).rstrip(b"\n"))
                await send({"type": "http.response.body", "body": b""})
            else:
                await _plain(send, 503, busy, retry_after=True)
            return
        share = self._share(encoded)
        try:
            if streaming:
                await _event(send, encoded)
                await send({"type": "http.response.body", "body": b""})
            else:
                await send_raw(send, http_status(answer) if modern else 200, encoded)
        finally:
            if share:
                self._responses.release(share)


_PARSED_ON_LOOP: Final = 2 * 1024
"""Bytes of the longest body parsed on the event loop: a few milliseconds at worst (deep nesting read slowly)."""
_PARSER: Final = ThreadPoolExecutor(max_workers=1, thread_name_prefix="toolproof-mcp-parse")
"""The thread longer bodies are parsed in, one at a time (started when first needed)."""


async def _decoded(body: bytes) -> Any:
    """``decode_message(body)``: on the loop when the body is small, else in ``_PARSER``'s thread.

    A 4 MiB body can take the reader a third of a second (a million empty arrays, say), and the loop must
    go on meanwhile, as the REST routes read their bodies in a thread. orjson holds the interpreter for
    all of one body (one call into C), so the loop gets it back between bodies, and during the slower
    readers' Python: one thread for them all, so that the loop contends with one reader, not several,
    and with the collector paused meanwhile (``_parse_paused``), which shortens that stretch threefold.
    Two clients sending such bodies in a loop took a probe's p90 from 860 ms to 250 (on the loop it
    waited behind every body queued before it).

    Raises:
        ValueError: the body is not JSON.
    """
    if len(body) <= _PARSED_ON_LOOP:
        return decode_message(body)
    return await asyncio.get_running_loop().run_in_executor(_PARSER, _parse_paused, body)


def _parse_paused(body: bytes) -> Any:
    """``decode_message(body)`` with the cyclic garbage collector paused (in ``_PARSER``'s thread only).

    The reader holds the interpreter throughout (one call into C), and a body of a million empty arrays
    makes the collector pass over the growing heap again and again: two thirds of the time, for nothing,
    as a parsed message holds no reference cycle. Reference counting frees it as ever.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        return decode_message(body)
    finally:
        if paused:
            gc.enable()


_KEEPALIVE: Final = b": keep-alive\r\n\r\n"
"""An SSE comment: clients ignore it, proxies see the stream is alive."""


def _unsupported(request_id: Any, version: str | None, *, twice: bool = False) -> dict[str, Any]:
    data = {"supported": list(SUPPORTED_VERSIONS), "requested": version}
    why = "the MCP-Protocol-Version header is sent more than once" if twice else version
    return error_response(request_id, UNSUPPORTED_PROTOCOL_VERSION, f"Unsupported protocol version: {why}", data)


_NO_VERSION_HEADER: Final = (
    f"Header mismatch: the MCP-Protocol-Version header is missing, and params._meta names a protocol version "
    f"(protocol {MODERN_VERSIONS[-1]} requires the header)"
)


def _enveloped(message: Mapping[str, Any]) -> bool:
    """Whether a request (but ``initialize``) carries a protocol version in ``params._meta``: the 2026 envelope."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    return isinstance(meta, Mapping) and VERSION_META in meta and message.get("method") != "initialize"


def _settle(waiter: asyncio.Future[bool]) -> None:
    if not waiter.done():
        waiter.set_result(False)


async def _message_too_large(send: Send) -> None:
    too_large = error_response(None, INVALID_REQUEST, f"message larger than {MAX_MESSAGE_BYTES} bytes")
    await _plain(send, 413, too_large, close=True)


async def _plain(
    send: Send,
    status: int,
    answer: Mapping[str, Any],
    *,
    allow: str | None = None,
    close: bool = False,
    retry_after: bool = False,
    sse: bool = False,
) -> None:
    """Write one JSON-RPC message as the whole response (an SSE stream of one event when ``sse``)."""
    encoded = encode_message(answer).rstrip(b"\n")
    if sse and status == 200:
        await _start_sse(send)
        await _event(send, encoded)
        await send({"type": "http.response.body", "body": b""})
        return
    extra: list[tuple[bytes, bytes]] = []
    if allow is not None:
        extra.append((b"allow", allow.encode()))
    if close:
        extra.append((b"connection", b"close"))
    if retry_after:
        extra.append((b"retry-after", b"1"))
    await send_raw(send, status, encoded, *extra)


_SSE_HEADERS: Final = (
    (b"content-type", _SSE.encode()),
    (b"cache-control", b"no-cache, no-transform"),
    (b"x-accel-buffering", b"no"),
)


async def _start_sse(send: Send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": list(_SSE_HEADERS)})


async def _event(send: Send, data: bytes) -> None:
    if len(data) <= SMALL_RESPONSE:
        body = b"event: message\r\ndata: " + data + b"\r\n\r\n"
        await send({"type": "http.response.body", "body": body, "more_body": True})
        return
    await send({"type": "http.response.body", "body": b"event: message\r\ndata: ", "more_body": True})
    await send_pieces(send, data, more=True)
    await send({"type": "http.response.body", "body": b"\r\n\r\n", "more_body": True})
