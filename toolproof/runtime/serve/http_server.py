"""Run the HTTP app under uvicorn, with the limits a host that callers cannot stop needs.

uvicorn closes idle keep-alive connections, but it never times out a request
whose head arrives a byte at a time, and its ``limit_concurrency`` answers 503
only to requests whose head is complete: half-sent requests pile up until the
process runs out of descriptors, and then no one is served. Its httptools
protocol, extended here, adds what is missing:

- a **head timeout**: a request head that has not arrived ``head_timeout``
  seconds after the connection opened (or after the previous response) gets
  408 and the connection closes;
- a **head size limit**: a request head (request line and headers) over
  ``MAX_HEAD_BYTES`` gets 400 and the connection closes. httptools has no
  limit of its own and holds a header line whole before it hands it on, so
  the bytes received while a head is awaited are counted too. Behind
  pipelined requests, reading stops at once, and the requests in hand are
  answered in full first (within the calls' own bounds); so is a request
  head that is not HTTP at all;
- a **connection limit**: a connection beyond ``max_connections`` takes the
  place of the one that has waited longest for its request (idle, or with a
  head or body half-sent), which is answered 503 and closed; when every
  connection has a whole request in hand, the new one is answered 503 with
  ``Retry-After`` and closed. Half-sent requests thus cannot keep out a client
  that sends its request whole, and descriptors remain for the files the calls
  open;
- a **lingering close**: an answer that ends the connection before the
  request has come whole (413 for a body too large, 408 for one too slow,
  on the REST routes and on ``/mcp``) is followed by the end of what the
  server sends, and what the client still sends is read and dropped, for at
  most ``_DRAIN_BYTES`` and ``_DRAIN_SECONDS``, before the connection closes:
  closing a socket with unread data resets it, and a client still sending its
  body lost the answer to a broken pipe. Such a connection gives way to a new
  one as a half-sent request does;
- the **authority of an absolute-form target** (``GET http://evil.example/x``)
  takes the place of the ``Host`` header, as RFC 9112 §3.2.2 asks of an
  origin server: uvicorn keeps only the target's path, and the app's Host
  gate (``toolproof.runtime.serve.app``) would have judged a loopback ``Host``
  while the request named another host;
- a **send timeout**: a client that stops reading a response for
  ``send_timeout`` seconds is dropped, so it cannot hold the response's memory.
  When a client goes, dropped or not, the request being answered is told so
  (uvicorn tells only the last one parsed, and the other's next write raised
  and logged a traceback);
- a **pipelining bound**: httptools parses all it is handed, and uvicorn
  queues each request that arrives while another is answered and reads on
  after every answer, so a client that pipelined without reading had the
  server queue requests by the million. Here the parser is handed
  ``_PARSE_BYTES`` at a time (a body of declared length whole), and while a
  request waits behind the one being answered, the rest waits unparsed and
  reading stops: a connection holds at most one read unparsed (256 KiB) and
  the requests one slice holds (64 of the shortest), and a client that reads
  no answers is soon read no more.

The body timeout and the bounds on calls and bytes in flight are the app's
(``toolproof.runtime.serve.http``). The protocol leans on attributes of
uvicorn's ``HttpToolsProtocol``, its request cycle and its flow control, and on
its parser callbacks, none of them public API: ``UVICORN_INTERNALS`` lists
them all, pyproject bounds uvicorn to the releases checked, and a test fails
naming any the installed release lacks; ``tests/runtime/serve/test_http_limits.py``
drives a live server through each of these limits. At start, the descriptor limit is raised to
the hard limit, and ``max_connections`` lowered to what remains once the tool
calls have the descriptors they may need.

Why httptools and uvloop, not h11 and asyncio's loop: parsing with h11 took
more of a small read's time than the call itself. Under the same hardening, at
64 connections, a bare app spent 40 us of CPU a request instead of 135 (17500
requests a second instead of 6200), and a small REST read 165 instead of 276
(5600 instead of 3300); uvloop takes another tenth off (one interleaved run of
``benchmarks/http_load.py``'s setup, which serves both under this very server).
Both are imported only when a server starts.

With ``reuse_port`` (each worker of ``serve --workers``), the server binds its
own listening socket with ``SO_REUSEPORT`` (``reuse_port_socket``), and the
kernel spreads new connections over the workers' sockets.
"""

from __future__ import annotations

import asyncio
import errno
import functools
import logging
import os
import resource
import signal
import socket
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from types import FrameType, MappingProxyType
from typing import Any, ClassVar, Final, Protocol
from urllib.parse import urlsplit

import orjson
from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from toolproof.builtin.files.access import MAX_OPEN_DIRS
from toolproof.launch import ready
from toolproof.runtime.serve.http import HttpLimits, Receive, Scope, Send

__all__ = [
    "BACKLOG",
    "MAX_HEAD_BYTES",
    "UVICORN_INTERNALS",
    "LimitedApp",
    "affordable_connections",
    "check_bindable",
    "claim_port",
    "raise_descriptor_limit",
    "reuse_port_socket",
    "serve",
]

_log = logging.getLogger("toolproof.http")

MAX_HEAD_BYTES: Final = 16 * 1024
"""The longest request head (request line and headers); a longer one gets 400."""
_REQUEST_LINE_BYTES: Final = 16
"""What a request line holds besides its target (method, version, spaces, line end), at the least."""
_PARSE_BYTES: Final = 1024
"""Bytes handed to the parser at once (and a declared body whole): a request takes 16 at the least, so 64 a slice."""
_NOTHING: Final = memoryview(b"")
_SPARE_DESCRIPTORS: Final = 64
"""Descriptors kept for the process itself: the listening socket, the event loop, logs, imports."""
_MAX_LINGERING: Final = 64
_LINGER_SECONDS: Final = 1.0
_DRAIN_BYTES: Final = 64 * 1024 * 1024
"""What a client may still send after an answer that closes its connection, read and dropped so it reads the answer."""
_DRAIN_SECONDS: Final = 5.0
"""How long what a client still sends after such an answer is read and dropped, at most (as nginx's lingering close)."""
BACKLOG: Final = 128
"""Connections the kernel queues before they are accepted, and so the most one burst of accepts opens at once."""

UVICORN_INTERNALS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "HttpToolsProtocol": (
            # attributes, read or set (after connection_made)
            "connections",
            "cycle",
            "flow",
            "pipeline",
            "scope",
            "transport",
            "url",
            # methods extended, or called
            "connection_made",
            "connection_lost",
            "data_received",
            "handle_websocket_upgrade",
            "send_400_response",
            "on_message_begin",
            "on_url",
            "on_header",
            "on_headers_complete",
            "on_body",
            "on_message_complete",
            "on_response_complete",
            "pause_writing",
            "resume_writing",
        ),
        "RequestResponseCycle": (
            "disconnected",
            "message_event",
            "more_body",
            "response_complete",
            "response_started",
            "transport",  # replaced, so that its close after a whole answer lingers
        ),
        "FlowControl": ("read_paused", "pause_reading", "resume_reading"),
        "Server": ("handle_exit", "should_exit", "started", "startup"),
    }
)
"""The names of uvicorn's httptools protocol, request cycle, flow control and server that ``_Guarded`` and ``serve``
rely on, by class.

None is public API: a release that moves one breaks the limits above, so a test checks each on the installed
release (``tests/runtime/serve/test_http_server.py``), and pyproject admits only releases it has passed on."""


def _response(status: str, payload: dict[str, str], *extra: str) -> bytes:
    """A whole HTTP/1.1 response that closes the connection, written outside any request cycle."""
    body = orjson.dumps(payload)
    head = [f"HTTP/1.1 {status}", "content-type: application/json", f"content-length: {len(body)}", *extra]
    return "\r\n".join([*head, "connection: close", "", ""]).encode("latin-1") + body


_BUSY: Final = _response(
    "503 Service Unavailable",
    {"code": "server_busy", "message": "the server has too many connections; retry shortly"},
    "retry-after: 1",
)
_HEAD_TOO_LARGE: Final = _response(
    "400 Bad Request",
    {"code": "head_too_large", "message": f"the request head is longer than {MAX_HEAD_BYTES} bytes"},
)


class _HeadTooLarge(Exception):
    """Raised from a parser callback to stop parsing a head over ``MAX_HEAD_BYTES``."""


class _Flow(FlowControl):
    """uvicorn's flow control, which resumes reading only when the connection may read (``_Guarded._may_read``)."""

    def __init__(self, transport: asyncio.Transport, may_read: Callable[[], bool]) -> None:
        super().__init__(transport)
        self._may_read = may_read

    def resume_reading(self) -> None:
        if self.read_paused and self._may_read():
            super().resume_reading()


class _CycleTransport:
    """The transport as uvicorn's request cycles see it: the same, but for ``close``, which is ``_Guarded``'s.

    A cycle closes the connection after an answer that says ``connection: close``; the protocol decides
    whether to close at once or to read and drop the rest of the request first (``_Guarded._close_answered``).
    """

    def __init__(self, transport: asyncio.Transport, close: Callable[[], None]) -> None:
        self._transport = transport
        self.write = transport.write  # bound once: a cycle writes every answer through these
        self.is_closing = transport.is_closing
        self.close = close

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class _Guarded(HttpToolsProtocol):
    """uvicorn's httptools protocol with the limits above: on heads, connections, slow readers and pipelining."""

    limits: ClassVar[HttpLimits] = HttpLimits()
    waiting: ClassVar[dict[_Guarded, None]] = {}
    """The server's connections waiting for a request head or body, longest-waiting first (one per server)."""
    refusing: ClassVar[set[_Guarded]] = set()
    """Refused connections still open until the client reads the 503 (one set per server)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._refused = False
        self._linger: asyncio.TimerHandle | None = None
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_begun = False
        """Whether part of the awaited head has arrived (else the connection is idle, and closes without a word)."""
        self._in_head = True
        """Whether the parser is between requests or inside a head (not a body)."""
        self._received = 0
        """Bytes received in reads that began while the parser was inside a head (or between requests)."""
        self._parsed = 0
        """Bytes of the current head the parser has handed on (target and headers), a lower bound of its size."""
        self._begun = False
        """Whether the parser has begun a request it has not finished."""
        self._too_large = False
        self._stall_timer: asyncio.TimerHandle | None = None
        self._last_word: Callable[[], None] | None = None
        """What refuses a bad head once the requests in hand before it are answered (it stops reading meanwhile)."""
        self._unparsed = _NOTHING
        """What was read and not yet parsed, held while a request waits behind the one being answered."""
        self._body_left = 0
        """Bytes of the current request's body yet to be parsed, as its ``Content-Length`` declares them."""
        self._answering: RequestResponseCycle | None = None
        """The request being answered (uvicorn's ``cycle`` is the last one parsed, which may wait behind it)."""
        self._draining: int | None = None
        """Bytes still dropped after an answer that closed the connection before its request came whole; None
        when not draining."""
        self._drain_timer: asyncio.TimerHandle | None = None
        self._cycle_transport: _CycleTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if len(self.connections) >= self.limits.max_connections and not self._evict_one():
            self._refuse(transport)  # type: ignore[arg-type]
            return
        super().connection_made(transport)  # type: ignore[arg-type]
        self.flow = _Flow(self.transport, self._may_read)
        self._cycle_transport = _CycleTransport(self.transport, self._close_answered)
        self._start_head_timer()

    def _refuse(self, transport: asyncio.Transport) -> None:
        """Answer 503 and close once the client has read it.

        Closing a socket with unread data resets it, and the client loses the answer: so what the client
        sends is read and dropped until it closes (uvicorn's protocol closes on end of file), for at most a
        second, unless too many refused connections linger already.
        """
        self._refused = True
        self.transport = transport
        transport.write(_BUSY)
        if len(self.refusing) >= _MAX_LINGERING or not transport.can_write_eof():
            transport.close()
            return
        transport.write_eof()
        self.refusing.add(self)
        self._linger = asyncio.get_running_loop().call_later(_LINGER_SECONDS, transport.abort)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._refused:
            if self._linger is not None:
                self._linger.cancel()
            self.refusing.discard(self)
            return
        self._stop_head_timer()
        if self._stall_timer is not None:
            self._stall_timer.cancel()
        if self._drain_timer is not None:
            self._drain_timer.cancel()
        answering = self._answering
        if answering is not None and not answering.response_complete:  # its next write would raise: it stops
            answering.disconnected = True
            answering.message_event.set()
        self.pipeline.clear()
        self._unparsed = _NOTHING
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused or self.transport.is_closing():
            return
        if self._draining is not None:  # the rest of a request answered already: dropped, up to a bound
            self._draining -= len(data)
            if self._draining < 0:
                self.transport.close()
            return
        if self._refusing():  # what follows a bad head is dropped; finishing an answer resumed reading
            self.transport.pause_reading()
            return
        if self._unparsed or self.pipeline or len(data) > _PARSE_BYTES:
            self._unparsed = memoryview(bytes(self._unparsed) + data if self._unparsed else data)
            self._parse()
        else:  # no more than a slice: parsed at once
            self._parse_piece(data)

    def _parse(self) -> None:
        """Hand what was read to the parser a slice at a time, while no request waits behind the one being answered.

        What is left waits, and reading stops, until the requests in hand are
        answered (``on_response_complete``); what follows a bad head is dropped.
        """
        while self._unparsed and not self._holding():
            size = max(self._body_left, 0) + _PARSE_BYTES  # a declared body cannot hold a request: it goes whole
            piece, self._unparsed = self._unparsed[:size], self._unparsed[size:]
            self._parse_piece(piece)
        if not self._unparsed:
            return
        if self._refusing() or self.transport.is_closing():
            self._unparsed = _NOTHING
        else:
            self.flow.pause_reading()

    def _holding(self) -> bool:
        """Whether what the client sent must wait: a request waits behind the one being answered, or none will be."""
        return bool(self.pipeline) or self._refusing() or self.transport.is_closing()

    def _may_read(self) -> bool:
        """Whether the connection may read more: nothing read waits to be parsed, and nothing holds it."""
        return not self._unparsed and not self._holding()

    def _parse_piece(self, data: bytes | memoryview) -> None:
        """Parse ``data``, counting the bytes of a head, and stop a head that grows past ``MAX_HEAD_BYTES``."""
        if self._in_head:
            self._received += len(data)
        super().data_received(data)  # type: ignore[arg-type]  # a parse error (a head too large too) is answered 400
        if self._refusing():  # ... once the requests before it are answered
            return
        if self._in_head and self._received > MAX_HEAD_BYTES and not self.transport.is_closing():
            self._refuse_head()  # httptools holds a header line whole until it ends: stop it growing
            return
        if self._head_timer is not None:
            self._head_begun = True
        if self._head_timer is None and not self._body_due():
            self.waiting.pop(self, None)  # the request is in hand (else it stays, as old as its head)

    def handle_websocket_upgrade(self) -> None:
        self._unparsed = _NOTHING  # the WebSocket's bytes: uvicorn drops the rest of the read they came in, as ever
        super().handle_websocket_upgrade()

    def send_400_response(self, msg: str) -> None:
        if self._too_large:  # what stopped the parser; else uvicorn answers that the request is not HTTP
            self._refuse_head()
            return
        self._after_answers(functools.partial(super().send_400_response, msg))

    def _refuse_head(self) -> None:
        """Answer a head over ``MAX_HEAD_BYTES`` with 400 and close, once the requests before it are answered."""
        self._after_answers(self._close_with_head_too_large)

    def _close_with_head_too_large(self) -> None:
        self.transport.write(_HEAD_TOO_LARGE)
        self.transport.close()

    def _after_answers(self, last_word: Callable[[], None]) -> None:
        """Run ``last_word`` (which answers and closes) now, or once every request in hand is answered.

        Until then nothing more is read: the client's bytes wait in the kernel's
        buffers, and the client, when it writes, waits too. The requests in hand are
        bounded as any are (call timeouts, ``queue_timeout``, ``send_timeout``).
        """
        if self._refusing():  # the first reason stands
            return
        self._stop_head_timer()
        cycle = self.cycle  # the last request parsed, and so the last to be answered
        if cycle is None or cycle.response_complete or cycle.more_body:  # none in hand, or the bad bytes are its body
            last_word()
            return
        self._last_word = last_word
        self.transport.pause_reading()

    def _refusing(self) -> bool:
        """Whether a bad head is refused, to be answered once the requests before it are."""
        return self._last_word is not None

    # Parser callbacks: count the head, and follow where the parser is.

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._begun = True
        self._parsed = _REQUEST_LINE_BYTES

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value) + 4)  # ": " and the line end
        super().on_header(name, value)
        if len(name) == 14 and self._in_head and name.lower() == b"content-length" and value.isdigit():
            self._body_left = int(value)  # (in the head, not in a chunked body's trailer)

    def _count(self, size: int) -> None:
        self._parsed += size
        if self._parsed > MAX_HEAD_BYTES:
            self._too_large = True
            raise _HeadTooLarge  # httptools stops, and raises a parse error, which uvicorn answers

    def on_headers_complete(self) -> None:
        self._in_head = False
        if self._head_timer is not None:  # a head arrived; the app times its body (waiting for it, it stays waiting)
            self._head_timer.cancel()
            self._head_timer = None
        if b"://" in self.url[:16] and self.url[:1] != b"/":
            self._take_target_authority()
        super().on_headers_complete()
        if self.cycle is not None:  # (its task has not begun yet: it sees only this transport)
            self.cycle.transport = self._cycle_transport  # type: ignore[assignment]
        if not self.pipeline or self.pipeline[0][0] is not self.cycle:  # it did not join the queue: it started
            self._answering = self.cycle

    def _take_target_authority(self) -> None:
        """Make the authority of an absolute-form target the request's one ``Host`` (RFC 9112 §3.2.2).

        uvicorn hands the app the target's path alone; the Host gate must judge the host the request names.
        A target without an authority (``http:///x``) leaves an empty ``Host``, which no allow-list holds.
        """
        authority = urlsplit(self.url.decode("latin-1")).netloc.encode("latin-1")
        kept = [(name, value) for name, value in self.scope["headers"] if name != b"host"]
        self.scope["headers"] = [*kept, (b"host", authority)]

    def on_body(self, body: bytes) -> None:
        if self._body_left:  # a chunked body declares no length
            self._body_left -= len(body)
        HttpToolsProtocol.on_body(self, body)  # not super(), slower, for every piece of every body

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._body_left = 0
        self._in_head = True
        self._begun = False
        self._received = 0

    def _close_answered(self) -> None:
        """Close the connection after a whole answer that ends it, letting a client still sending read that answer.

        When the request has come whole, the connection closes at once. Else (a
        413 or a 408 answered before the body came) the server ends what it
        sends, and reads and drops what the client sends, until the client
        closes, or ``_DRAIN_BYTES`` or ``_DRAIN_SECONDS`` pass: closing with
        unread data would reset the connection, and a client writing its body
        would get a broken pipe and never read the answer. Meanwhile the
        connection gives way to a new one (``_evict_one``).
        """
        transport = self.transport
        if transport.is_closing():
            return
        answering = self._answering
        pending = self._begun or bool(self._unparsed) or bool(self.pipeline)
        if not pending or answering is None or not answering.response_complete or not transport.can_write_eof():
            transport.close()
            return
        self._stop_head_timer()
        self.pipeline.clear()
        self._unparsed = _NOTHING
        self._draining = _DRAIN_BYTES
        transport.write_eof()
        self._drain_timer = asyncio.get_running_loop().call_later(_DRAIN_SECONDS, transport.close)
        self.waiting[self] = None
        transport.resume_reading()

    def on_response_complete(self) -> None:
        if self._draining is not None:  # the connection ends: no next request, no keep-alive
            return
        following = self.pipeline[-1][0] if self.pipeline else None  # a request already in hand starts now
        super().on_response_complete()
        if self.transport.is_closing():
            return
        if following is not None:
            self._answering = following
            if self._unparsed:  # what was read while it waited
                self._parse()
            self.flow.resume_reading()  # uvicorn asked before it took the request from the queue
            return
        if self._last_word is not None:  # every request before a bad head is answered: refuse it now
            self._last_word()
            return
        self._start_head_timer()  # waiting for the next request's head

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stall_timer is None:
            self._stall_timer = asyncio.get_running_loop().call_later(self.limits.send_timeout, self._stalled)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None

    def _start_head_timer(self) -> None:
        self._stop_head_timer()
        self._head_begun = self._begun  # a pipelined head may be under way
        self._head_timer = asyncio.get_running_loop().call_later(self.limits.head_timeout, self._head_timed_out)
        self.waiting[self] = None

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        self.waiting.pop(self, None)

    def _head_timed_out(self) -> None:
        self._head_timer = None
        message = f"the request head did not arrive within {self.limits.head_timeout:g} seconds"
        self._close_waiting(_response("408 Request Timeout", {"code": "request_timeout", "message": message}))

    def _body_due(self) -> bool:
        """Whether the app waits for more of the request body, having answered nothing yet."""
        cycle = self.cycle
        return cycle is not None and cycle.more_body and not cycle.response_started

    def _close_waiting(self, response: bytes) -> None:
        """Close a connection that has no whole request in hand, answering it if part of one came."""
        begun = self._head_begun or self._body_due()
        self._stop_head_timer()
        if not self.transport.is_closing():
            if begun:
                self.transport.write(response)
            self.transport.close()

    def _evict_one(self) -> bool:
        """Close the connection that has waited longest for its request; False when none is waiting."""
        while self.waiting:
            victim = next(iter(self.waiting))
            if victim._draining is not None:  # answered already: what it still sends is not wanted
                del self.waiting[victim]
                victim.transport.close()
                return True
            if victim._head_timer is not None or victim._body_due():
                victim._close_waiting(_BUSY)
                return True
            del self.waiting[victim]  # its request came whole, or is being answered, since
        return False

    def _stalled(self) -> None:
        self._stall_timer = None
        _log.debug("dropped a client that read nothing for %g seconds", self.limits.send_timeout)
        self.transport.abort()


def raise_descriptor_limit() -> int:
    """Raise this process's soft limit on open descriptors to its hard limit; return the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            _log.warning("could not raise the limit on open files from %d to %d", soft, wanted)
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


def affordable_connections(limits: HttpLimits, descriptors: int) -> int:
    """The connections ``descriptors`` can hold, once a burst of accepts and every tool call have theirs."""
    per_call = MAX_OPEN_DIRS + 3  # the walk's directories, its root, the file, the skill folder
    # A burst of accepts opens up to BACKLOG sockets before any is admitted, and as many connections they
    # replaced close only on the next turn of the loop; refused ones may linger.
    spare = _SPARE_DESCRIPTORS + 2 * BACKLOG + _MAX_LINGERING + limits.max_calls * per_call
    return max(1, min(limits.max_connections, descriptors - spare))


class LimitedApp(Protocol):
    """An ASGI 3 application that carries the limits it is served within (``HttpApp``, ``ToolproofApp``)."""

    limits: HttpLimits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None: ...


def claim_port(address: str, port: int) -> socket.socket | None:
    """This user's claim on ``address:port`` for one ``serve --workers``, held while the returned socket is open.

    ``SO_REUSEPORT`` lets any process of the same user bind the port too, so a
    second server started on it would silently share its connections. The
    claim is an abstract Unix socket named after the user, the address as
    bound and the port: the kernel refuses a second one and drops it with the
    process that held it. None where there are no abstract sockets (not
    Linux): no claim is made.

    Raises:
        OSError: ``EADDRINUSE``, another toolproof server of this user holds the address and port.
    """
    if not sys.platform.startswith("linux"):
        return None
    claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        claim.bind(f"\0toolproof-http-{os.geteuid()}-{address}-{port}")
    except OSError:
        claim.close()
        raise OSError(errno.EADDRINUSE, f"port {port} is already served by another toolproof server") from None
    return claim


def _cannot_bind(host: str, port: int, exc: OSError) -> OSError:
    """``exc`` said of the address: ``cannot bind 127.0.0.1:8765: address already in use`` (its errno kept)."""
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    reason = exc.strerror or str(exc) or type(exc).__name__
    return OSError(exc.errno, f"cannot bind {where}: {reason[:1].lower()}{reason[1:]}")


def check_bindable(host: str, port: int) -> None:
    """Bind, and let go, each address ``host`` resolves to on ``port``, as uvicorn's start then does.

    Tried first so that a port in use, an address this machine does not have or a name that does
    not resolve is an ``OSError`` naming the address, which the command line says in one line,
    rather than uvicorn's log line and exit status 3.

    Raises:
        OSError: ``cannot bind HOST:PORT: <why>``, with the errno of the failure.
    """
    try:
        found = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        raise _cannot_bind(host, port, exc) from None
    for family, kind, proto, _, address in dict.fromkeys(found):
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as asyncio's create_server binds
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                raise _cannot_bind(host, port, exc) from None


def reuse_port_socket(host: str, port: int, *, listen: bool = True) -> socket.socket:
    """A TCP socket bound to ``host:port`` with ``SO_REUSEPORT``, listening unless ``listen`` is False.

    Workers that each bind such a socket share the port, and the kernel hands
    each new connection to one of them: no worker accepts for another, and none
    wakes for a connection another takes. The socket is made with the protocol
    ``IPPROTO_TCP`` (as ``getaddrinfo`` gives it), not 0: asyncio sets
    ``TCP_NODELAY`` only on accepted sockets whose protocol says TCP, and
    without it Nagle's algorithm meets the client's delayed ACK and a small
    response waits about 40 ms (what uvicorn's ``--workers`` shows, whose
    shared socket is made with protocol 0).

    Raises:
        OSError: the address cannot be bound (in use by a socket without ``SO_REUSEPORT``, say), naming it.
    """
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        raise _cannot_bind(host, port, exc) from None
    family, kind, proto, _, address = found[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            raise _cannot_bind(host, port, exc) from None
        if listen:
            sock.listen(BACKLOG)
            sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


def serve(app: LimitedApp, *, host: str, port: int, reuse_port: bool = False) -> None:
    """Serve ``app`` on ``host:port`` until interrupted, within ``app.limits``.

    SIGTERM stops it gracefully (the requests in hand are answered) and it returns, so the process exits 0 as a
    ``serve --workers`` supervisor does; SIGINT stops it as gracefully, then is raised again, as uvicorn does.

    Args:
        app: the application and its limits.
        host: the address to listen on.
        port: the port to listen on.
        reuse_port: bind with ``SO_REUSEPORT``, sharing the port with the other workers of ``serve --workers``.
    """
    import uvicorn

    limits = app.limits
    connections = affordable_connections(limits, raise_descriptor_limit())
    if connections < limits.max_connections:
        _log.warning("serving at most %d connections: the limit on open files allows no more", connections)
        limits = replace(limits, max_connections=connections)
    protocol = type("Guarded", (_Guarded,), {"limits": limits, "waiting": {}, "refusing": set()})
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http=protocol,
        loop="auto",  # uvloop where installed (the `fast` extra), else asyncio's
        timeout_keep_alive=limits.keep_alive_timeout,
        backlog=BACKLOG,
        log_level="warning",
        access_log=False,
        proxy_headers=False,  # no app here reads the client's address: trust no X-Forwarded-* header
        server_header=False,  # say nothing of what serves
    )

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if sig == signal.SIGTERM:  # a graceful stop that ends with status 0, as ``serve --workers`` does
                self.should_exit = True  # (uvicorn raises the signal again once stopped: status 143)
                return
            super().handle_exit(sig, frame)

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started and not reuse_port:  # a supervisor names the port for its workers
                ports = sorted({sock.getsockname()[1] for listening in self.servers for sock in listening.sockets})
                print(f"toolproof: serving http://{host}:{ports[0] if ports else port}", file=sys.stderr, flush=True)

    if not reuse_port:  # a worker's supervisor has bound the port already
        check_bindable(host, port)
    server = Server(config)
    ready()  # uvicorn takes SIGINT over as it starts, and shuts down gracefully on it
    server.run(sockets=[reuse_port_socket(host, port)] if reuse_port else None)
    if not server.started:
        raise SystemExit(3)  # uvicorn logged why (the address taken since check_bindable), as uvicorn.run exits
