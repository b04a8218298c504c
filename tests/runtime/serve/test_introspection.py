"""RFC 7662 introspection of opaque tokens: what the answer must say, the cache, and the request on the wire."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
import time
import urllib.parse
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from click.testing import CliRunner

from toolproof.cli import cli
from toolproof.runtime.context import Caller
from toolproof.runtime.serve.introspection import Introspection, post_form
from toolproof.runtime.serve.jwks import FetchError
from toolproof.runtime.serve.oauth import OAuthSettings, ResourceServer, TokenRefusal

ISSUER = "https://as.example"
RESOURCE = "https://tools.example/mcp"
URL = "https://as.example/introspect"


class _Server:
    """An introspection endpoint standing in for the authorization server: answers by token, counts requests."""

    def __init__(self, answers: Mapping[str, Mapping[str, Any]], delay: float = 0.0) -> None:
        self.answers = answers
        self.delay = delay
        self.asked: list[str] = []

    async def __call__(
        self, url: str, form: Mapping[str, str], credentials: tuple[str, str], timeout: float
    ) -> Mapping[str, Any]:
        assert (url, form["token_type_hint"], credentials) == (URL, "access_token", ("toolproof", "s3cret"))
        self.asked.append(form["token"])
        await asyncio.sleep(self.delay)
        return self.answers.get(form["token"], {"active": False})


def _active(**claims: Any) -> dict[str, Any]:
    now = int(time.time())
    return {"active": True, "iss": ISSUER, "aud": RESOURCE, "sub": "u1", "client_id": "c1",
            "scope": "notes:read", "exp": now + 600, **claims}  # fmt: skip


def _introspection(server: _Server, **options: Any) -> Introspection:
    return Introspection(
        URL, ("toolproof", "s3cret"), issuer=ISSUER, resource=RESOURCE, leeway=60.0, post=server, **options
    )


def _check(introspection: Introspection, *tokens: str) -> list[Caller | str]:
    async def run() -> list[Caller | str]:
        return [await introspection.check(token) for token in tokens]

    return asyncio.run(run())


def test_an_active_token_for_this_resource_names_its_caller_and_is_asked_about_once() -> None:
    server = _Server({"opaque-1": _active()})

    first, again = _check(_introspection(server), "opaque-1", "opaque-1")

    assert first == again == Caller(subject="u1", client_id="c1", scopes=frozenset({"notes:read"}), issuer=ISSUER)
    assert server.asked == ["opaque-1"]


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ({"active": False}, "the token is not active (expired, revoked or unknown to the authorization server)"),
        (_active(aud="https://other.example"), "the token was not issued for this resource"),
        (_active(aud=None), "the token was not issued for this resource"),
        (_active(iss="https://evil.example"), "the token was not issued by the trusted authorization server"),
        (_active(exp=int(time.time()) - 120), "the token has expired"),
        (_active(nbf=int(time.time()) + 600), "the token is not yet valid"),
    ],
)
def test_a_token_the_answer_does_not_vouch_for_is_refused_saying_why(answer: dict[str, Any], why: str) -> None:
    assert _check(_introspection(_Server({"t": answer})), "t") == [why]


def test_the_cache_holds_a_bounded_number_of_tokens_the_least_recently_used_forgotten_first() -> None:
    server = _Server({name: _active() for name in ("a", "b", "c")})

    _check(_introspection(server, max_entries=2), "a", "b", "a", "c", "a", "b")

    assert server.asked == ["a", "b", "c", "b"]


def test_an_answer_is_kept_no_longer_than_max_age() -> None:
    server = _Server({"a": _active()})

    _check(_introspection(server, max_age=0.0), "a", "a")

    assert server.asked == ["a", "a"]


def test_requests_with_one_token_at_once_share_one_introspection() -> None:
    server = _Server({"a": _active()}, delay=0.05)
    introspection = _introspection(server)

    async def many() -> list[Caller | str]:
        return await asyncio.gather(*(introspection.check("a") for _ in range(10)))

    assert all(isinstance(caller, Caller) for caller in asyncio.run(many()))
    assert server.asked == ["a"]


def test_the_resource_server_introspects_what_is_no_jwt_and_answers_401_or_503() -> None:
    async def down(url: str, form: Mapping[str, str], credentials: tuple[str, str], timeout: float) -> Any:
        raise FetchError(f"cannot introspect at {url}: connection refused")

    async def no_keys(url: str, timeout: float) -> Mapping[str, Any]:
        raise AssertionError("an opaque token needs no key")

    settings = OAuthSettings(ISSUER, RESOURCE)
    good = ResourceServer(settings, fetch=no_keys, introspection=_introspection(_Server({"opaque": _active()})))
    broken = ResourceServer(settings, fetch=no_keys, introspection=_introspection(down))  # type: ignore[arg-type]

    assert isinstance(asyncio.run(good.authenticate("Bearer opaque")), Caller)
    refused = asyncio.run(good.authenticate("Bearer unknown"))
    assert isinstance(refused, TokenRefusal) and (refused.status, refused.error) == (401, "invalid_token")
    with pytest.raises(FetchError):
        asyncio.run(broken.authenticate("Bearer opaque"))


@pytest.fixture
def endpoint() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            seen.append(
                {
                    "authorization": self.headers["Authorization"],
                    "content-type": self.headers["Content-Type"],
                    "form": urllib.parse.parse_qs(self.rfile.read(length).decode("ascii")),
                }
            )
            body = json.dumps({"active": True}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/introspect", seen
    server.shutdown()
    server.server_close()


def test_the_request_is_a_form_post_authenticated_with_the_clients_credentials(
    endpoint: tuple[str, list[dict[str, Any]]],
) -> None:
    url, seen = endpoint

    answer = asyncio.run(post_form(url, {"token": "t&=1", "token_type_hint": "access_token"}, ("c:1", "s é"), 5.0))

    assert answer == {"active": True}
    basic = base64.b64encode(b"c%3A1:s%20%C3%A9").decode("ascii")  # each part form-encoded first (RFC 6749 2.3.1)
    assert seen == [
        {
            "authorization": f"Basic {basic}",
            "content-type": "application/x-www-form-urlencoded",
            "form": {"token": ["t&=1"], "token_type_hint": ["access_token"]},
        }
    ]


@pytest.mark.parametrize(
    ("options", "env", "message"),
    [
        (["--oauth-introspection", URL], {}, "--oauth-introspection needs --oauth-client-id and the client's secret"),
        (["--oauth-introspection", URL, "--oauth-client-id", "c"], {}, "secret in $TOOLPROOF_OAUTH_CLIENT_SECRET"),
        (["--oauth-client-id", "c"], {}, "--oauth-client-id is for --oauth-introspection"),
        (
            ["--oauth-introspection", "http://as.example/i", "--oauth-client-id", "c"],
            {"TOOLPROOF_OAUTH_CLIENT_SECRET": "s"},
            "must be an https URL",
        ),
    ],
)
def test_half_an_introspection_setting_is_a_usage_error(options: list[str], env: dict[str, str], message: str) -> None:
    command = ["serve", "http", "--port", "0", "--oauth-issuer", ISSUER, "--oauth-resource", RESOURCE, *options]

    result = CliRunner(env={"TOOLPROOF_OAUTH_CLIENT_SECRET": "", **env}).invoke(cli, command)

    assert result.exit_code == 2 and message in result.output, result.output
