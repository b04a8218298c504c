"""What an HTTP host lets its callers hold, in one light module: the server, the app and the command line read it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HttpLimits"]


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
    max_in_flight_bytes: int = 80 << 20
    """Bytes of large responses being written at once (an answer larger than this is ``response_too_large``;
    the default is the runtime's result cap), and apart from them, bytes of request bodies over 64 KiB being
    read and used (never below the argument cap); more wait."""
    queue_timeout: float = 10.0
    """Seconds a request waits for a call slot or for its share of bytes before 503 with ``Retry-After``."""
    sse_keepalive: float = 15.0
    """Seconds of silence on an open SSE answer after which a comment line is sent, so proxies keep it open."""
