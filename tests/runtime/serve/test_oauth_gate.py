"""The OAuth gate in process: the caller a token names reaches handlers; the command line refuses half a setting."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any, cast

import jwt
import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

from tests.asgi import post_json
from toolproof.cli import cli
from toolproof.runtime.context import Caller, ToolContext
from toolproof.runtime.serve.app import Security, ToolproofApp
from toolproof.runtime.serve.http import HttpLimits, Receive, Scope, Send
from toolproof.runtime.serve.jwks import FetchError
from toolproof.runtime.serve.oauth import OAuthSettings, ResourceServer

ISSUER = "https://as.example/tenant"
RESOURCE = "https://tools.example/mcp"
KEY = ec.generate_private_key(ec.SECP256R1())
JWK = {**ECAlgorithm.to_jwk(KEY.public_key(), as_dict=True), "kid": "k1", "alg": "ES256"}


class _Seen:
    """A REST app standing in for the real one: it answers 200 and keeps the caller a handler would see."""

    limits = HttpLimits()

    def __init__(self) -> None:
        self.callers: list[Caller | None] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.callers.append(ToolContext(tool="t").caller)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"{}"})


def _app(fetch: Any) -> tuple[ToolproofApp, _Seen]:
    settings = OAuthSettings(ISSUER, RESOURCE, scopes=("tools:call",))
    rest = _Seen()
    app = ToolproofApp(
        cast(Any, rest), cast(Any, None), Security.build("127.0.0.1", oauth=ResourceServer(settings, fetch=fetch))
    )
    return app, rest


async def _as(url: str, timeout: float) -> Mapping[str, Any]:
    if url == "https://as.example/.well-known/oauth-authorization-server/tenant":  # RFC 8414 §3.1 path insertion
        return {"issuer": ISSUER, "jwks_uri": "https://as.example/keys"}
    if url == "https://as.example/keys":
        return {"keys": [JWK]}
    raise FetchError(f"cannot fetch {url}: 404")


def _token(**claims: Any) -> str:
    now = int(time.time())
    base = {
        "iss": ISSUER,
        "aud": [RESOURCE, "https://x.example"],
        "sub": "u1",
        "azp": "c1",
        "iat": now,
        "exp": now + 60,
    }
    return jwt.encode({**base, **claims}, KEY, algorithm="ES256", headers={"kid": "k1"})


def test_the_caller_a_token_names_reaches_the_handler_as_tool_context_caller() -> None:
    app, rest = _app(_as)
    status, _ = post_json(
        app, "/tools/t", {}, {"host": "127.0.0.1", "authorization": f"Bearer {_token(scp=['tools:call', 'x'])}"}
    )
    assert status == 200
    assert rest.callers == [Caller(subject="u1", client_id="c1", scopes=frozenset({"tools:call", "x"}), issuer=ISSUER)]
    assert ToolContext(tool="t").caller is None  # only for the request it came with


def test_keys_that_cannot_be_fetched_answer_503_not_a_401_that_would_send_the_client_to_reauthorize() -> None:
    async def down(url: str, timeout: float) -> Mapping[str, Any]:
        raise FetchError(f"cannot fetch {url}: connection refused")

    app, rest = _app(down)
    status, body = post_json(app, "/tools/t", {}, {"host": "127.0.0.1", "authorization": f"Bearer {_token()}"})
    assert (status, body["code"], rest.callers) == (503, "unavailable", [])


def test_metadata_whose_issuer_is_another_is_not_used_for_keys() -> None:
    async def impostor(url: str, timeout: float) -> Mapping[str, Any]:
        return {"issuer": "https://evil.example", "jwks_uri": "https://evil.example/keys", "keys": [JWK]}

    app, _ = _app(impostor)
    status, _ = post_json(app, "/tools/t", {}, {"host": "127.0.0.1", "authorization": f"Bearer {_token()}"})
    assert status == 503


def test_concurrent_requests_share_one_key_fetch() -> None:
    fetched: list[str] = []

    async def slow(url: str, timeout: float) -> Mapping[str, Any]:
        fetched.append(url)
        await asyncio.sleep(0.05)
        return await _as(url, timeout)

    server = ResourceServer(OAuthSettings(ISSUER, RESOURCE), fetch=slow)

    async def many() -> list[Any]:
        return await asyncio.gather(*(server.authenticate(f"Bearer {_token()}") for _ in range(20)))

    assert all(isinstance(result, Caller) for result in asyncio.run(many()))
    assert fetched == ["https://as.example/.well-known/oauth-authorization-server/tenant", "https://as.example/keys"]


@pytest.mark.parametrize(
    ("issuer", "resource"),
    [("http://as.example", RESOURCE), (ISSUER, "http://tools.example/mcp"), (ISSUER, RESOURCE + "?x=1")],
)
def test_an_issuer_or_resource_that_is_not_https_is_refused_at_start_up(issuer: str, resource: str) -> None:
    with pytest.raises(ValueError, match="must be an https URL"):
        OAuthSettings(issuer, resource)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--oauth-issuer", ISSUER], "--oauth-issuer needs --oauth-resource"),
        (["--oauth-resource", RESOURCE], "the --oauth-* options need --oauth-issuer"),
        (["--oauth-issuer", "http://as.example", "--oauth-resource", RESOURCE], "must be an https URL"),
    ],
)
def test_half_an_oauth_setting_is_a_usage_error(options: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, ["serve", "http", "--port", "0", *options])
    assert result.exit_code == 2 and message in result.output


def test_oauth_and_static_tokens_together_are_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLPROOF_AUTH_TOKENS", "a-token-of-sixteen-chars")
    result = CliRunner().invoke(cli, ["serve", "http", "--oauth-issuer", ISSUER, "--oauth-resource", RESOURCE])
    assert result.exit_code == 2 and "exclude each other" in result.output


def test_oauth_without_the_extra_installed_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "jwt.algorithms", None)
    result = CliRunner().invoke(cli, ["serve", "http", "--oauth-issuer", ISSUER, "--oauth-resource", RESOURCE])
    assert result.exit_code == 2 and "pip install 'toolproof[oauth]'" in result.output
