"""Opaque access tokens, checked by asking the authorization server (RFC 7662 token introspection).

A token that is not a JWT (``oauth.ResourceServer`` reads JWTs itself) is POSTed to the introspection
endpoint as ``token=...&token_type_hint=access_token``, the host authenticating as an OAuth client with its
client credentials (HTTP Basic, RFC 7662 §2.1, RFC 6749 §2.3.1). The answer must say ``active: true``; its
``iss``, when given, must be the trusted issuer; its ``aud`` must hold this resource (MCP: tokens must have
been issued for this server), and ``exp`` and ``nbf`` allow the same clock skew as a JWT's.

Answers are cached by the token's SHA-256 (never the token itself) for the token's remaining life, at most
``max_age`` seconds (a revoked token is refused within that bound), a refusal for ``REFUSAL_AGE`` seconds;
the cache holds ``max_entries`` tokens at most, the least recently used forgotten first. One introspection of
a token runs at a time: requests with the same token share its answer.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import time
import urllib.parse
import urllib.request
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from toolproof.runtime.context import Caller
from toolproof.runtime.serve.jwks import MAX_DOCUMENT, FetchError, https_or_loopback, no_redirects

__all__ = ["REFUSAL_AGE", "Introspection", "IntrospectionPost", "post_form"]

_log = logging.getLogger("toolproof.http")
REFUSAL_AGE: Final = 30.0
"""Seconds an inactive or refused token's answer is kept (a client retrying it does not reach the server)."""

IntrospectionPost = Callable[[str, Mapping[str, str], tuple[str, str], float], Awaitable[Mapping[str, Any]]]
"""POSTs a form to a URL with Basic credentials within a timeout; the JSON object answered, or ``FetchError``."""


def _post(url: str, form: Mapping[str, str], credentials: tuple[str, str], timeout: float) -> Mapping[str, Any]:
    user, secret = (urllib.parse.quote(part, safe="") for part in credentials)  # RFC 6749 §2.3.1: form-encoded
    basic = base64.b64encode(f"{user}:{secret}".encode()).decode("ascii")
    request = urllib.request.Request(
        url,
        data=urllib.parse.urlencode(form).encode("ascii"),
        headers={
            "Accept": "application/json",
            "Content-Type": "application/x-www-form-urlencoded",
            "Authorization": f"Basic {basic}",
        },
        method="POST",
    )
    try:
        with no_redirects().open(request, timeout=timeout) as response:
            body = response.read(MAX_DOCUMENT + 1)
    except OSError as exc:  # the message names the URL and the status, never the token or the secret
        raise FetchError(f"cannot introspect at {url}: {exc}") from None
    if len(body) > MAX_DOCUMENT:
        raise FetchError(f"{url} answered more than {MAX_DOCUMENT} bytes")
    try:
        answer = json.loads(body)
    except ValueError:
        raise FetchError(f"{url} did not answer JSON") from None
    if not isinstance(answer, dict):
        raise FetchError(f"{url} did not answer a JSON object")
    return answer


async def post_form(
    url: str, form: Mapping[str, str], credentials: tuple[str, str], timeout: float
) -> Mapping[str, Any]:
    """POST ``form`` to ``url`` in a thread, authenticated as ``credentials`` (client id, secret).

    Raises:
        FetchError: the endpoint cannot be reached in time, refuses, or does not answer a JSON object.
    """
    try:
        return await asyncio.wait_for(asyncio.to_thread(_post, url, form, credentials, timeout), timeout + 1)
    except TimeoutError:
        raise FetchError(f"cannot introspect at {url}: timed out") from None


class Introspection:
    """Asks the authorization server about opaque tokens; see the module's docstring.

    Args:
        url: the introspection endpoint (https, or http to loopback).
        credentials: this host's client id and secret at the authorization server.
        issuer: the trusted issuer; an answer naming another is refused.
        resource: this host's resource identifier; an answer's ``aud`` must hold it.
        leeway: seconds of clock skew allowed on ``exp`` and ``nbf``.
        post: POSTs the form (tests may count the requests).
        timeout: seconds an introspection may take.
        max_age: seconds an active token's answer is kept at most.
        max_entries: tokens whose answers are kept at most.

    Raises:
        ValueError: the URL is not https (or http to loopback).
    """

    def __init__(
        self,
        url: str,
        credentials: tuple[str, str],
        *,
        issuer: str,
        resource: str,
        leeway: float,
        post: IntrospectionPost = post_form,
        timeout: float = 5.0,
        max_age: float = 300.0,
        max_entries: int = 10_000,
    ) -> None:
        if not https_or_loopback(url):
            raise ValueError(f"the OAuth introspection endpoint {url!r} must be an https URL (or http to loopback)")
        self.url = url
        self._credentials = credentials
        self._issuer, self._resource, self._leeway = issuer, resource, leeway
        self._post, self._timeout = post, timeout
        self._max_age, self._max_entries = max_age, max_entries
        self._cache: OrderedDict[bytes, tuple[float, Caller | str]] = OrderedDict()
        self._pending: dict[bytes, asyncio.Future[Caller | str]] = {}

    async def check(self, token: str) -> Caller | str:
        """The caller ``token`` names, or why it names none (a sentence for ``error_description``).

        Raises:
            FetchError: the endpoint cannot answer now (the host answers 503: the token may be good).
        """
        key = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
        now = time.monotonic()
        cached = self._cache.get(key)
        if cached is not None and cached[0] > now:
            self._cache.move_to_end(key)
            return cached[1]
        pending = self._pending.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Caller | str] = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            answer = await self._post(
                self.url, {"token": token, "token_type_hint": "access_token"}, self._credentials, self._timeout
            )
            outcome, keep = self._judged(answer, time.time())
        except BaseException as exc:
            if isinstance(exc, FetchError):
                _log.warning("cannot introspect a token: %s", exc)
                future.set_exception(exc)
                future.exception()  # retrieved: the waiters, if any, raise it themselves
            else:  # cancelled (the client left) or a bug: the waiters must not wait for ever
                future.cancel()
            raise
        finally:
            del self._pending[key]
        self._cache[key] = (time.monotonic() + keep, outcome)
        self._cache.move_to_end(key)
        while len(self._cache) > self._max_entries:
            self._cache.popitem(last=False)
        future.set_result(outcome)
        return outcome

    def _judged(self, answer: Mapping[str, Any], now: float) -> tuple[Caller | str, float]:
        """The caller an answer names and how long to keep it, or why the token is refused and ``REFUSAL_AGE``."""
        if answer.get("active") is not True:
            return "the token is not active (expired, revoked or unknown to the authorization server)", REFUSAL_AGE
        issuer = answer.get("iss", self._issuer)
        if issuer != self._issuer:
            return "the token was not issued by the trusted authorization server", REFUSAL_AGE
        audience = answer.get("aud")
        audiences = [audience] if isinstance(audience, str) else audience if isinstance(audience, list) else []
        if self._resource not in audiences:
            return "the token was not issued for this resource", REFUSAL_AGE
        expires, starts = answer.get("exp"), answer.get("nbf")
        if isinstance(expires, (int, float)) and expires + self._leeway <= now:
            return "the token has expired", REFUSAL_AGE
        if isinstance(starts, (int, float)) and starts - self._leeway > now:
            return "the token is not yet valid", REFUSAL_AGE
        keep = self._max_age if not isinstance(expires, (int, float)) else min(self._max_age, expires - now)
        scope = answer.get("scope", "")
        subject, client = answer.get("sub"), answer.get("client_id")
        caller = Caller(
            subject=subject if isinstance(subject, str) else None,
            client_id=client if isinstance(client, str) else None,
            scopes=frozenset(scope.split() if isinstance(scope, str) else ()),
            issuer=self._issuer,
        )
        return caller, max(keep, 0.0)
