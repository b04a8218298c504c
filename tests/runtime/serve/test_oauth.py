"""``serve http --oauth-issuer``: an OAuth 2.1 resource server, as MCP's authorization specification describes it.

A small authorization server runs in the test on loopback: it serves RFC 8414 metadata and a JWKS of keys the
test generates, and counts the JWKS fetches. A real ``toolproof serve http`` trusts it and is driven as a client
drives it, over raw HTTP: REST calls and MCP ``tools/call`` with tokens the test signs, good and bad.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import json
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from tests.ports import free_port

pytestmark = pytest.mark.slow
SCOPE = "tools:call"
HANG = 20.0


@dataclass
class _Key:
    kid: str
    private: rsa.RSAPrivateKey = field(repr=False)

    @classmethod
    def new(cls) -> _Key:
        return cls(uuid.uuid4().hex, rsa.generate_private_key(public_exponent=65537, key_size=2048))

    def jwk(self) -> dict[str, Any]:
        public: dict[str, Any] = RSAAlgorithm.to_jwk(self.private.public_key(), as_dict=True)
        return {**public, "kid": self.kid, "use": "sig", "alg": "RS256"}


class AuthorizationServer:
    """RFC 8414 metadata at its well-known URL and a JWKS of ``keys`` at ``/jwks``, on a loopback port."""

    def __init__(self) -> None:
        self.keys = [_Key.new()]
        self.jwks_fetches = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body: dict[str, Any]
                if self.path == "/.well-known/oauth-authorization-server":
                    body = {"issuer": owner.issuer, "jwks_uri": owner.issuer + "/jwks", "token_endpoint": "x"}
                elif self.path == "/jwks":
                    owner.jwks_fetches += 1
                    body = {"keys": [key.jwk() for key in owner.keys]}
                else:
                    self.send_error(404)
                    return
                data = json.dumps(body).encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.issuer = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@dataclass(frozen=True)
class Host:
    port: int
    issuer: str
    auth: AuthorizationServer

    @property
    def resource(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def token(self, key: _Key | None = None, **changes: Any) -> str:
        """An access token for this host, signed with ``key`` (the AS's current one); ``changes`` edit the claims."""
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": self.resource,
            "sub": "user-42",
            "client_id": "client-7",
            "scope": f"openid {SCOPE}",
            "iat": now,
            "exp": now + 300,
        }
        claims.update(changes)
        claims = {name: value for name, value in claims.items() if value is not None}
        signer = key or self.auth.keys[-1]
        return jwt.encode(claims, signer.private, algorithm="RS256", headers={"kid": signer.kid})


def _request(
    port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG)
    try:
        data = None if body is None else json.dumps(body).encode("utf-8")
        sent = {**({"Content-Type": "application/json"} if data else {}), **(headers or {})}
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def _rest(host: Host, token: str | None) -> tuple[int, dict[str, str], bytes]:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    return _request(host.port, "POST", "/tools/file-read", {"path": "notes.txt"}, headers)


def _mcp_call(host: Host, token: str) -> tuple[int, dict[str, str], bytes]:
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "file-read", "arguments": {"path": "notes.txt"}},
    }
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    }
    return _request(host.port, "POST", "/mcp", message, headers)


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    auth = AuthorizationServer()
    workspace = tmp_path_factory.mktemp("oauth")
    (workspace / "notes.txt").write_text("hello\n", encoding="utf-8")
    port = free_port()
    command = [sys.executable, "-m", "toolproof", "serve", "http", "--port", str(port), "--workspace", str(workspace)]
    command += ["--oauth-issuer", auth.issuer, "--oauth-resource", f"http://127.0.0.1:{port}/mcp"]
    command += ["--oauth-scope", SCOPE, "--oauth-refetch-interval", "1"]
    log = (workspace / "server.log").open("wb")
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log, cwd=workspace)
    try:
        deadline = time.monotonic() + HANG
        while True:
            assert proc.poll() is None, (workspace / "server.log").read_text(encoding="utf-8")
            try:
                if _request(port, "GET", "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        yield Host(port, auth.issuer, auth)
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()
        auth.close()
    assert "eyJ" not in (workspace / "server.log").read_text(encoding="utf-8")  # no token ever reaches the log


def _challenge(headers: dict[str, str]) -> dict[str, str]:
    """The parameters of a ``WWW-Authenticate: Bearer`` challenge (ours: no commas inside values)."""
    scheme, _, rest = headers["www-authenticate"].partition(" ")
    assert scheme == "Bearer"
    params = {}
    for part in rest.split(", "):
        name, _, value = part.partition("=")
        assert value.startswith('"') and value.endswith('"'), part
        params[name] = value[1:-1]
    return params


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def test_a_valid_token_passes_on_a_rest_call_and_an_mcp_tools_call(host: Host) -> None:
    status, _, body = _rest(host, host.token())
    assert status == 200, body
    assert json.loads(body)["content"].endswith("hello")

    status, _, body = _mcp_call(host, host.token())
    assert status == 200, body
    assert b'"isError":false' in body.replace(b" ", b"") and b"hello" in body


def test_the_metadata_document_holds_rfc_9728_fields_at_both_well_known_urls(host: Host) -> None:
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
        status, headers, body = _request(host.port, "GET", path)  # no token: the document is public
        assert status == 200 and headers["content-type"].startswith("application/json")
        document = json.loads(body)
        assert document == {
            "resource": host.resource,
            "authorization_servers": [host.issuer],
            "bearer_methods_supported": ["header"],
            "resource_signing_alg_values_supported": document["resource_signing_alg_values_supported"],
            "scopes_supported": [SCOPE],
        }
        assert "none" not in document["resource_signing_alg_values_supported"]
        assert not any(alg.startswith("HS") for alg in document["resource_signing_alg_values_supported"])


def test_a_request_without_a_token_gets_401_naming_the_metadata_and_no_error_code(host: Host) -> None:
    status, headers, body = _rest(host, None)
    assert status == 401
    assert _challenge(headers) == {
        "resource_metadata": f"http://127.0.0.1:{host.port}/.well-known/oauth-protected-resource/mcp",
        "scope": SCOPE,
    }
    assert json.loads(body)["code"] == "unauthorized"


def _refused(host: Host, token: str, description: str) -> None:
    for status, headers, body in (_rest(host, token), _mcp_call(host, token)):
        assert status == 401, body
        challenge = _challenge(headers)
        assert challenge["error"] == "invalid_token"
        assert challenge["error_description"] == description
        assert challenge["resource_metadata"].endswith("/.well-known/oauth-protected-resource/mcp")
        assert token not in body.decode("utf-8")


def test_an_expired_token_is_refused(host: Host) -> None:
    now = int(time.time())
    _refused(host, host.token(iat=now - 600, exp=now - 120), "the token has expired")


def test_an_expired_token_within_the_clock_skew_still_passes(host: Host) -> None:
    now = int(time.time())
    assert _rest(host, host.token(iat=now - 600, exp=now - 30))[0] == 200


def test_a_token_not_yet_valid_is_refused(host: Host) -> None:
    now = int(time.time())
    _refused(host, host.token(nbf=now + 600), "the token is not yet valid")


def test_a_token_issued_in_the_future_is_refused(host: Host) -> None:
    now = int(time.time())
    _refused(host, host.token(iat=now + 600, exp=now + 900), "the token is not yet valid")


def test_a_token_minted_for_another_service_is_refused(host: Host) -> None:
    _refused(host, host.token(aud="https://other.example/mcp"), "the token was not issued for this resource")


def test_a_token_without_an_audience_is_refused(host: Host) -> None:
    _refused(host, host.token(aud=None), "the token lacks the aud claim")


def test_a_token_from_another_issuer_is_refused(host: Host) -> None:
    _refused(
        host, host.token(iss="https://evil.example"), "the token was not issued by the trusted authorization server"
    )


def test_an_unsigned_alg_none_token_is_refused(host: Host) -> None:
    claims = jwt.decode(host.token(), options={"verify_signature": False})
    header = _b64(json.dumps({"alg": "none", "typ": "JWT", "kid": host.auth.keys[-1].kid}).encode())
    token = f"{header}.{_b64(json.dumps(claims).encode())}."
    _refused(host, token, "the token's signing algorithm is not accepted")


def test_a_token_signed_with_a_key_the_issuer_does_not_publish_is_refused(host: Host) -> None:
    stranger = _Key.new()
    _refused(host, host.token(key=stranger), "the token is signed with a key the authorization server does not publish")


def test_a_token_signed_with_another_key_under_a_published_kid_is_refused(host: Host) -> None:
    forged = _Key(host.auth.keys[-1].kid, _Key.new().private)
    _refused(host, host.token(key=forged), "the token's signature does not verify")


def test_an_hs256_token_keyed_with_the_published_public_key_is_refused(host: Host) -> None:
    key = host.auth.keys[-1]
    pem = key.private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    claims = jwt.decode(host.token(), options={"verify_signature": False})
    signing_input = f"{_b64(json.dumps({'alg': 'HS256', 'kid': key.kid}).encode())}.{_b64(json.dumps(claims).encode())}"
    signature = hmac.new(pem, signing_input.encode("ascii"), hashlib.sha256).digest()
    _refused(host, f"{signing_input}.{_b64(signature)}", "the token's signing algorithm is not accepted")


@pytest.mark.parametrize("token", ["not-a-jwt", "a.b.c", "eyJhbGciOiJSUzI1NiJ9.e30", "x" * 5000])
def test_a_malformed_token_is_refused(host: Host, token: str) -> None:
    status, headers, _ = _rest(host, token)
    assert status == 401
    assert _challenge(headers)["error"] == "invalid_token"


def test_a_valid_token_without_the_required_scope_gets_403_insufficient_scope(host: Host) -> None:
    status, headers, _ = _rest(host, host.token(scope="openid"))
    assert status == 403
    challenge = _challenge(headers)
    assert challenge["error"] == "insufficient_scope" and challenge["scope"] == SCOPE


def test_a_key_rotation_at_the_authorization_server_is_picked_up_without_a_restart(host: Host) -> None:
    assert _rest(host, host.token())[0] == 200  # the current key is cached
    time.sleep(1.1)  # past --oauth-refetch-interval since the last fetch
    host.auth.keys.append(_Key.new())
    fetches = host.auth.jwks_fetches
    assert _rest(host, host.token())[0] == 200  # signed with the new key: an unknown kid, fetched once
    assert host.auth.jwks_fetches == fetches + 1


def test_a_flood_of_unknown_kids_fetches_the_keys_at_most_once_an_interval(host: Host) -> None:
    assert _rest(host, host.token())[0] == 200
    fetches = host.auth.jwks_fetches
    started = time.monotonic()
    for _ in range(30):
        assert _rest(host, host.token(key=_Key(uuid.uuid4().hex, host.auth.keys[-1].private)))[0] == 401
    elapsed = time.monotonic() - started
    assert host.auth.jwks_fetches - fetches <= 1 + int(elapsed)  # --oauth-refetch-interval 1
