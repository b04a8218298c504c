"""The one ASGI application a host deploys: MCP at ``/mcp``, the REST routes, and ``/healthz``.

Every request but the health check passes three gates first, in this order:

1. **Host**: the ``Host`` header must name an allowed host (by default
   ``localhost``, ``127.0.0.1``, ``[::1]`` and the address the server binds),
   else 421 Misdirected Request. With the Origin check this defeats DNS
   rebinding: a page on ``evil.example`` whose name now points at 127.0.0.1
   still sends ``Host: evil.example``.
2. **Origin**: a request that carries an ``Origin`` header must come from an
   allowed origin (by default loopback origins on any port), else 403, as the
   MCP transport specification requires. Requests without one (not from a
   browser) pass.
3. **Bearer token**, when the host was given tokens: ``Authorization: Bearer
   <token>`` must match one of them (compared in constant time over the bytes),
   else 401 with ``WWW-Authenticate: Bearer``. Or, for per-user tokens, **OAuth**
   (``Security.oauth``, ``oauth.py``): the token must be an access token the
   trusted authorization server issued for this resource, else 401 with
   ``resource_metadata=`` in that header (403 when it lacks a required scope);
   the protected-resource metadata (RFC 9728) is served, past the first two
   gates, at its well-known URLs; the caller the token names reaches handlers as
   ``ToolContext.caller``.

**CORS**, for browsers on an allowed origin other than the server's own (a
page on ``--allow-origin https://app.example``, or a loopback dev server on
another port): a preflight (``OPTIONS`` with ``Origin`` and
``Access-Control-Request-Method``) that passes the first two gates gets 204
with the methods the path takes and the request headers MCP clients send
(browsers send no credentials on a preflight, so the token gate does not
apply to it), and every response to a request from an allowed origin,
refusals by the token gate included, carries ``Access-Control-Allow-Origin``
(that origin, never ``*``), ``Vary: Origin`` and the MCP response headers a
page may read. A request without ``Origin`` gets no CORS headers; a refused
origin still gets 403.

``/healthz`` answers 200 ``{"status":"ok"}`` to any GET, unauthenticated, so a
load balancer can probe it; it says nothing about the tools. It passes no gate,
the Host gate included, on purpose: probes come with no ``Host`` (HAProxy's
default check is HTTP/1.0) or name an address no allow-list knows ahead (the
pod's IP, from Kubernetes), and a fixed answer that takes no input tells a
DNS-rebinding page only that a server is up. The Host gate judges the authority
of an absolute-form target (``GET http://evil.example/x``) in place of the
``Host`` header: the server puts it there (``http_server``). Refusals are
logged at INFO with the offending header made printable and cut short; a
token never reaches the log, right or wrong.
"""

from __future__ import annotations

import hmac
import logging
import os
import time
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit

import orjson

from toolproof.runtime.context import Caller, calling_as
from toolproof.runtime.printable import one_line, printable
from toolproof.runtime.secret_files import warn_if_shared
from toolproof.runtime.serve.http import (
    HttpApp,
    HttpLimits,
    Message,
    Receive,
    Scope,
    Send,
    header,
    json_headers,
    repeated_headers,
)
from toolproof.runtime.serve.streamable import ENDPOINT, StreamableMcp

if TYPE_CHECKING:
    from toolproof.runtime.serve.oauth import ResourceServer
    from toolproof.runtime.serve.telemetry import Telemetry

__all__ = ["HEALTH", "TOKENS_ENV", "Security", "ToolproofApp", "load_tokens"]

_log = logging.getLogger("toolproof.http")
REFUSALS_LOGGED_PER_SECOND: Final = 10
"""Refusal lines a process logs a second at most: a client sending refused requests as fast as it can (pipelined
401s ran at ~25,000 a second) must not fill the log; the lines left out are counted in the next one."""


class _RefusalLog:
    """Warnings about refused requests, at most ``REFUSALS_LOGGED_PER_SECOND`` a second, the rest counted.

    Used on the event loop's thread only, so it needs no lock.
    """

    def __init__(self) -> None:
        self._second = 0.0
        self._left = REFUSALS_LOGGED_PER_SECOND
        self._unlogged = 0

    def warning(self, message: str, *args: object) -> None:
        now = time.monotonic()
        if now - self._second >= 1.0:
            self._second, self._left = now, REFUSALS_LOGGED_PER_SECOND
        if self._left == 0:
            self._unlogged += 1
            return
        self._left -= 1
        if self._unlogged:
            _log.warning("%d more refused request(s) were not logged", self._unlogged)
            self._unlogged = 0
        _log.warning(message, *args)


HEALTH: Final = "/healthz"
TOKENS_ENV: Final = "TOOLPROOF_AUTH_TOKENS"
_LOOPBACK: Final = ("localhost", "127.0.0.1", "[::1]")
_LOGGED_CHARS: Final = 120
_SINGLE: Final = frozenset({"host", "origin", "authorization"})
"""Headers the gates read, which a request may carry once only."""
_ALLOWED_HEADERS: Final = (
    b"Accept, Authorization, Content-Type, Last-Event-ID, Mcp-Method, Mcp-Name, Mcp-Protocol-Version, "
    b"Mcp-Session-Id, X-Toolproof-Session"
)
"""The request headers a page may send (the MCP clients' and ours), named in an answer to a preflight."""
_EXPOSED_HEADERS: Final = b"Mcp-Protocol-Version, Mcp-Session-Id, Retry-After, WWW-Authenticate"
"""The response headers a page may read besides the CORS-safelisted ones."""
_PREFLIGHT_MAX_AGE: Final = b"600"
METADATA_PATH: Final = "/.well-known/oauth-protected-resource"
"""The root well-known URL of the protected-resource metadata (``oauth.METADATA_PATH``, without importing it)."""
_METADATA_HEADERS: Final = [(b"cache-control", b"public, max-age=3600")]
"""Seconds a browser may keep a preflight's answer."""


def _host_name(value: str) -> str | None:
    """The host of a ``Host`` header value (``[::1]:8000`` → ``[::1]``), lowercased.

    None when the value is malformed: a port that is not a number, or anything after an IPv6 address but one.
    """
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]") + 1
        host, rest = (value[:end], value[end:]) if end else (value, "")
    elif value.count(":") == 1:
        host, colon, port = value.partition(":")
        rest = colon + port
    else:
        host, rest = value, ""
    if rest and not (rest[0] == ":" and rest[1:].isascii() and rest[1:].isdigit() and len(rest) <= 6):
        return None
    return host


def _bracketed(host: str) -> str:
    """``host`` as it appears in a Host header: IPv6 addresses in brackets."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host.lower()


@dataclass(frozen=True, slots=True)
class Security:
    """Who may talk to the app: allowed hosts, allowed origins, bearer tokens (none: no authentication)."""

    hosts: frozenset[str] = frozenset(_LOOPBACK)
    """Host names (no port) the ``Host`` header may carry; IPv6 in brackets."""
    origins: frozenset[str] = frozenset()
    """Origins (``scheme://host[:port]``) allowed besides loopback ones, which are allowed on any port."""
    tokens: tuple[bytes, ...] = field(default=(), repr=False)
    """Accepted bearer tokens; empty means the app asks for none."""
    oauth: ResourceServer | None = field(default=None, repr=False)
    """Checks OAuth access tokens (then ``tokens`` is empty); None: no OAuth."""

    @classmethod
    def build(
        cls,
        bound: str,
        allow_hosts: Iterable[str] = (),
        allow_origins: Iterable[str] = (),
        tokens: Iterable[str] = (),
        oauth: ResourceServer | None = None,
    ) -> Security:
        """The default policy for a server bound to ``bound``, widened by the given hosts and origins."""
        hosts = {*_LOOPBACK, _bracketed(bound), *(_bracketed(host) for host in allow_hosts)}
        origins = {origin.strip().rstrip("/").lower() for origin in allow_origins}
        encoded = tuple(token.encode("utf-8") for token in tokens)
        return cls(frozenset(hosts), frozenset(origins), encoded, oauth)

    def host_allowed(self, value: str | None) -> bool:
        """Whether a ``Host`` header value names an allowed host (a missing one does not)."""
        return value is not None and _host_name(value) in self.hosts

    def origin_allowed(self, value: str | None) -> bool:
        """Whether an ``Origin`` header value is allowed (a missing one is: the request is not from a browser)."""
        if value is None:
            return True
        origin = value.strip().rstrip("/").lower()
        if origin in self.origins:
            return True
        parts = urlsplit(origin)
        plain = not (parts.path or parts.query or parts.fragment or "@" in parts.netloc)
        return plain and parts.scheme in ("http", "https") and _host_name(parts.netloc) in _LOOPBACK

    def token_allowed(self, authorization: str | None) -> bool:
        """Whether an ``Authorization`` header carries an accepted bearer token (always, when none is set).

        Every token is compared, in constant time, whichever matches: the time taken says nothing about them.
        """
        if not self.tokens:
            return True
        scheme, _, presented = (authorization or "").strip().partition(" ")
        given = presented.strip().encode("latin-1", "replace")  # the header's bytes, as they came
        matched = False
        for token in self.tokens:
            matched |= hmac.compare_digest(given, token)
        return matched and scheme.lower() == "bearer"


def load_tokens(path: Path | None, environ: dict[str, str] | None = None, *, warn: bool = True) -> list[str]:
    """The bearer tokens from ``TOOLPROOF_AUTH_TOKENS`` (comma-separated) and ``path`` (one a line, ``#`` comments).

    A file other users may read is used, with a warning naming it and ``chmod 600`` (``warn_if_shared``),
    unless ``warn`` is False (a ``serve --workers`` worker: its supervisor has warned).

    Raises:
        OSError: the file cannot be read.
        ValueError: a token holds whitespace, or is shorter than 16 characters (too easy to guess).
    """
    env = os.environ if environ is None else environ
    tokens = [token.strip() for token in env.get(TOKENS_ENV, "").split(",") if token.strip()]
    if path is not None:
        if warn:
            warn_if_shared(path, "the auth token file")
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                tokens.append(line.strip())
    for number, token in enumerate(tokens, 1):
        if len(token) < 16 or any(char.isspace() for char in token):
            raise ValueError(f"auth token #{number} is shorter than 16 characters or holds whitespace")
    return tokens


def _shown(value: str | None) -> str:
    """A header value as it may be logged: one printable line, cut short."""
    return printable(one_line(value or ""))[:_LOGGED_CHARS]


_Refusal = tuple[int, dict[str, str], list[tuple[bytes, bytes]]]
"""A gate's refusal: the status, the body, extra headers."""


class ToolproofApp:
    """The ASGI 3 application of one host: ``/healthz``, then the gates, then ``/mcp`` or the REST routes.

    Args:
        rest: the REST application (``/tools/{name}``, ``/openapi.json``).
        mcp: the Streamable HTTP endpoint.
        security: the gates (default: loopback hosts and origins, no token).
        telemetry: the host's OpenTelemetry, when on (``Runtime.telemetry``): each request's ``traceparent``
            header then names the trace its spans join.
    """

    def __init__(
        self, rest: HttpApp, mcp: StreamableMcp, security: Security | None = None, telemetry: Telemetry | None = None
    ) -> None:
        self.rest = rest
        self.mcp = mcp
        self.security = security if security is not None else Security()
        self.limits: HttpLimits = rest.limits
        self._refusals = _RefusalLog()
        self.telemetry = telemetry

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.rest(scope, receive, send)  # lifespan
            return
        path = scope["path"]
        if path == HEALTH:
            await _answer(send, 200 if scope["method"] in ("GET", "HEAD") else 405, {"status": "ok"})
            return
        refusal = self._refusal(scope)
        if refusal is None:
            origin = header(scope, "origin")
            if origin is not None:  # from a browser page, on an allowed origin
                origin = origin.strip()
                if scope["method"] == "OPTIONS" and header(scope, "access-control-request-method") is not None:
                    await _preflight(send, origin, "POST" if path == ENDPOINT else "GET, POST")
                    return
                send = _cors(send, origin)
            oauth = self.security.oauth
            if oauth is not None and path in (METADATA_PATH, oauth.settings.metadata_path):
                get = scope["method"] in ("GET", "HEAD")
                await _answer(send, 200 if get else 405, oauth.settings.metadata() if get else {}, _METADATA_HEADERS)
                return
            caller: Caller | None = None
            if oauth is None:
                refusal = self._token_refusal(scope)
            else:
                refusal, caller = await self._oauth_refusal(scope, oauth)
        if refusal is not None:
            status, payload, extra = refusal
            await _answer(send, status, payload, extra)
            return
        traced = nullcontext() if self.telemetry is None else self.telemetry.attached(_trace_carrier(scope))
        with calling_as(caller), traced:
            if path == ENDPOINT:
                await self.mcp(scope, receive, send)
            else:
                await self.rest(scope, receive, send)

    def _refusal(self, scope: Scope) -> _Refusal | None:
        """Why the first gates (one of each, host, origin) refuse this request; None when it may pass."""
        # A gate reads one value; a repeated header would let it read another value than the next hop does,
        # so such a request is refused (RFC 9110 §5.3, RFC 9112 §3.2 for Host).
        repeated = next(iter(repeated_headers(scope, _SINGLE)), None)
        if repeated is not None:
            self._refusals.warning("refused a request carrying more than one %s header", repeated)
            return 400, {"code": "bad_request", "message": f"the request carries more than one {repeated} header"}, []
        host = header(scope, "host")
        if not self.security.host_allowed(host):
            self._refusals.warning("refused a request for host %s", _shown(host))
            return 421, {"code": "misdirected_request", "message": "this server does not answer for that host"}, []
        origin = header(scope, "origin")
        if not self.security.origin_allowed(origin):
            self._refusals.warning("refused a request from origin %s", _shown(origin))
            return 403, {"code": "forbidden", "message": "requests from this origin are not allowed"}, []
        return None

    def _token_refusal(self, scope: Scope) -> _Refusal | None:
        """Why the token gate refuses this request, as (status, body, extra headers); None when it may pass."""
        authorization = header(scope, "authorization")
        if not self.security.token_allowed(authorization):
            wrong = authorization is not None
            self._refusals.warning("refused a request with %s bearer token", "a wrong" if wrong else "no")
            challenge = 'Bearer realm="toolproof"' + (', error="invalid_token"' if wrong else "")
            payload = {"code": "unauthorized", "message": "a valid bearer token is required"}
            return 401, payload, [(b"www-authenticate", challenge.encode())]
        return None

    async def _oauth_refusal(self, scope: Scope, oauth: ResourceServer) -> tuple[_Refusal | None, Caller | None]:
        """Why OAuth refuses this request (None when it may pass), and the caller its token names."""
        from toolproof.runtime.serve.oauth import FetchError, TokenRefusal

        try:
            checked = await oauth.authenticate(header(scope, "authorization"))
        except FetchError:  # logged by the key set; the token may be good: the client should retry, not re-authorize
            payload = {"code": "unavailable", "message": "the authorization server cannot be reached; retry shortly"}
            return (503, payload, [(b"retry-after", b"5")]), None
        if not isinstance(checked, TokenRefusal):
            return None, checked
        self._refusals.warning("refused a request: %s", checked.description if checked.error else "no bearer token")
        code = "forbidden" if checked.status == 403 else "unauthorized"
        payload = {"code": code, "message": checked.description}
        return (checked.status, payload, [(b"www-authenticate", checked.challenge(oauth.settings))]), None


def _trace_carrier(scope: Scope) -> dict[str, str | None]:
    """The W3C Trace Context headers of a request (a ``_meta`` that names its own trace context wins over them)."""
    return {"traceparent": header(scope, "traceparent"), "tracestate": header(scope, "tracestate")}


def _cors(send: Send, origin: str) -> Send:
    """``send``, adding to the response's headers those that let a page on ``origin`` (allowed) read it."""
    added = [
        (b"access-control-allow-origin", origin.encode("latin-1")),
        (b"access-control-expose-headers", _EXPOSED_HEADERS),
        (b"vary", b"Origin"),
    ]

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *added]}
        await send(message)

    return sending


async def _preflight(send: Send, origin: str, methods: str) -> None:
    """Answer a CORS preflight from an allowed ``origin``: 204, and what a page there may send."""
    headers = [
        (b"access-control-allow-origin", origin.encode("latin-1")),
        (b"access-control-allow-methods", methods.encode()),
        (b"access-control-allow-headers", _ALLOWED_HEADERS),
        (b"access-control-max-age", _PREFLIGHT_MAX_AGE),
        (b"vary", b"Origin"),
    ]  # and no Content-Length: a 204 has none (RFC 9110)
    await send({"type": "http.response.start", "status": 204, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


async def _answer(send: Send, status: int, payload: object, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = orjson.dumps(payload)
    await send({"type": "http.response.start", "status": status, "headers": json_headers(len(body), *(extra or ()))})
    await send({"type": "http.response.body", "body": body})
