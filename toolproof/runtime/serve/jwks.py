"""The authorization server's signing keys: found, fetched off the event loop, cached, re-fetched on rotation.

The keys come from a JWKS document (RFC 7517 §5): at a configured URL, or at the ``jwks_uri`` of the
authorization server's metadata, looked up as RFC 8414 §3 says (``/.well-known/oauth-authorization-server``
inserted before the issuer's path) and then as OpenID Connect Discovery does (``/.well-known/openid-configuration``
after it); the metadata must name the configured issuer (RFC 8414 §3.3). A fetch runs in a thread with a
timeout, one at a time, so a request never blocks the loop and a burst of requests shares one fetch. The keys are
kept ``max_age`` seconds; a token naming a ``kid`` the cache does not hold triggers a fetch (the authorization
server rotated its keys), at most once every ``refetch_interval`` seconds, so a flood of tokens with made-up
``kid``s costs the authorization server one request in that interval.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import time
import urllib.request
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final
from urllib.parse import urlsplit

__all__ = ["MAX_DOCUMENT", "FetchError", "JsonFetch", "KeySet", "fetch_json", "https_or_loopback", "no_redirects"]

_log = logging.getLogger("toolproof.http")
MAX_DOCUMENT: Final = 1 << 20
"""Bytes of a metadata or JWKS document read at most."""

JsonFetch = Callable[[str, float], Awaitable[Mapping[str, Any]]]
"""Fetches the JSON object at a URL within a timeout (seconds); raises ``FetchError``."""


class FetchError(Exception):
    """A metadata or key document could not be fetched or read; the message says which and why."""


def https_or_loopback(url: str) -> bool:
    """Whether ``url`` is https, or http to a loopback address (a test or sidecar authorization server)."""
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return True
    if parts.scheme != "http" or not parts.hostname:
        return False
    if parts.hostname == "localhost":
        return True
    try:
        return ipaddress.ip_address(parts.hostname).is_loopback
    except ValueError:
        return False


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuses redirects: one could lead from https to plain http, where keys can be swapped in transit."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER: Final = urllib.request.build_opener(_NoRedirect)


def no_redirects() -> urllib.request.OpenerDirector:
    """The opener every request to the authorization server goes through: it follows no redirect."""
    return _OPENER


def _get(url: str, timeout: float) -> Mapping[str, Any]:
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            body = response.read(MAX_DOCUMENT + 1)
    except OSError as exc:  # URLError and HTTPError are OSErrors; the message names no secret
        raise FetchError(f"cannot fetch {url}: {exc}") from None
    if len(body) > MAX_DOCUMENT:
        raise FetchError(f"{url} is larger than {MAX_DOCUMENT} bytes")
    try:
        document = json.loads(body)
    except ValueError:
        raise FetchError(f"{url} is not JSON") from None
    if not isinstance(document, dict):
        raise FetchError(f"{url} is not a JSON object")
    return document


async def fetch_json(url: str, timeout: float) -> Mapping[str, Any]:
    """The JSON object at ``url``, fetched in a thread so the event loop goes on serving.

    Raises:
        FetchError: the URL is not https (or loopback http), cannot be fetched in time, or is not a JSON object.
    """
    if not https_or_loopback(url):
        raise FetchError(f"{url} is neither https nor http to a loopback address")
    try:
        return await asyncio.wait_for(asyncio.to_thread(_get, url, timeout), timeout + 1)
    except TimeoutError:
        raise FetchError(f"cannot fetch {url}: timed out") from None


def metadata_urls(issuer: str) -> list[str]:
    """Where an issuer's metadata may be: RFC 8414's well-known URL, then OpenID Connect Discovery's."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    origin = f"{parts.scheme}://{parts.netloc}"
    return [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{origin}{path}/.well-known/openid-configuration",
    ]


class KeySet:
    """The JWKs of one authorization server, by ``kid``, kept fresh.

    Args:
        issuer: the authorization server's issuer identifier.
        jwks_uri: where its JWKS is, or None to read ``jwks_uri`` from its metadata.
        fetch: fetches a JSON object (``fetch_json``; tests may count the fetches).
        timeout: seconds a fetch may take.
        max_age: seconds the keys are used before they are fetched again.
        refetch_interval: seconds between fetches an unknown ``kid`` may trigger, at least.
    """

    def __init__(
        self,
        issuer: str,
        jwks_uri: str | None = None,
        *,
        fetch: JsonFetch = fetch_json,
        timeout: float = 5.0,
        max_age: float = 600.0,
        refetch_interval: float = 30.0,
    ) -> None:
        self.issuer = issuer
        self.jwks_uri = jwks_uri
        self._fetch = fetch
        self._timeout = timeout
        self._max_age = max_age
        self._refetch_interval = refetch_interval
        self._keys: dict[str | None, Mapping[str, Any]] = {}
        self._expires = -float("inf")
        self._next_try = -float("inf")
        self._attempts = 0
        """Fetches finished (or failed): a request that waited for one to finish does not start another."""
        self._error: FetchError | None = None
        self._lock = asyncio.Lock()

    async def key(self, kid: str | None) -> Mapping[str, Any] | None:
        """The JWK named ``kid`` (a token without one: the set's only key), fetching the set when needed.

        Returns None when the set, fetched as recently as allowed, holds no such key. When a fetch fails,
        keys fetched before are used on, and the next try waits a few seconds.

        Raises:
            FetchError: no key was ever fetched, and the set cannot be fetched now.
        """
        now = time.monotonic()
        if (now >= self._expires or kid not in self._keys) and now >= self._next_try:
            await self._refresh(self._attempts)
        if not self._keys and self._error is not None:
            raise self._error
        return self._keys.get(kid)

    async def _refresh(self, attempt: int) -> None:
        async with self._lock:
            if self._attempts != attempt:  # another request fetched while this one waited: use its keys
                return
            try:
                self._keys = await self._fetch_keys()
            except FetchError as exc:
                self._attempts += 1
                self._error = exc
                self._next_try = time.monotonic() + min(self._refetch_interval, 5.0)
                _log.warning("cannot refresh the authorization server's keys: %s", exc)
                return
            now = time.monotonic()
            self._attempts += 1
            self._error, self._expires, self._next_try = None, now + self._max_age, now + self._refetch_interval

    async def _fetch_keys(self) -> dict[str | None, Mapping[str, Any]]:
        if self.jwks_uri is None:
            self.jwks_uri = await self._discover()
        document = await self._fetch(self.jwks_uri, self._timeout)
        keys = document.get("keys")
        if not isinstance(keys, list):
            raise FetchError(f"{self.jwks_uri} holds no 'keys' list")
        found: dict[str | None, Mapping[str, Any]] = {}
        for jwk in keys:
            if isinstance(jwk, dict) and jwk.get("use", "sig") == "sig":
                kid = jwk.get("kid")
                found[kid if isinstance(kid, str) else None] = jwk
        if len(found) == 1:
            found.setdefault(None, next(iter(found.values())))  # a token without kid may use the only key
        return found

    async def _discover(self) -> str:
        """The ``jwks_uri`` of the issuer's metadata (RFC 8414, then OpenID Connect Discovery)."""
        problems: list[str] = []
        for url in metadata_urls(self.issuer):
            try:
                metadata = await self._fetch(url, self._timeout)
            except FetchError as exc:
                problems.append(str(exc))
                continue
            if metadata.get("issuer") != self.issuer:  # RFC 8414 §3.3: else the metadata is not this issuer's
                problems.append(f"{url} names issuer {metadata.get('issuer')!r}, not {self.issuer!r}")
                continue
            jwks_uri = metadata.get("jwks_uri")
            if isinstance(jwks_uri, str) and https_or_loopback(jwks_uri):
                return jwks_uri
            problems.append(f"{url} names no https jwks_uri")
        raise FetchError("; ".join(problems))
