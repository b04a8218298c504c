"""``serve`` behind a real authorization server: oidc-provider on loopback issues client-credentials tokens.

The authorization server (``authorization_server/server.mjs``, oidc-provider pinned in the Makefile, run with Node
22) issues JWT access tokens bound to the served resource (RFC 8707), and opaque ones it answers introspection
for. ``toolproof serve http`` serves an ``init`` project whose tool names a scope; the official MCP Python client
calls it with a token, and tokens that lack the scope, are for another resource or are opaque go as the
specification says.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.ports import free_port

pytestmark = pytest.mark.slow  # a Node authorization server and a toolproof server, started once for the file

ROOT = Path(__file__).resolve().parents[3]
VENV = Path(os.environ.get("VENV", ROOT / ".venv"))
NODE = VENV / "node22" / "node_modules" / ".bin" / "node"
OIDC = VENV / "oidc" / "node_modules"
SCRIPT = Path(__file__).parent / "authorization_server" / "server.mjs"


@dataclass
class Stack:
    issuer: str
    resource: str
    url: str
    folder: Path
    """Where the authorization server runs from: its script, and the keys it signs with (``keys.json``)."""
    authorization: subprocess.Popen[bytes] | None = None

    def start_authorization_server(self, *keys: dict[str, Any]) -> None:
        """(Re)start the authorization server on its port, signing with ``keys`` (the first signs)."""
        if self.authorization is not None and self.authorization.poll() is None:
            self.authorization.terminate()
            self.authorization.wait(timeout=10)
        (self.folder / "keys.json").write_text(json.dumps({"keys": list(keys)}), encoding="utf-8")
        port = self.issuer.rsplit(":", 1)[1]
        command = [str(NODE), "server.mjs", port, self.resource, "keys.json"]
        self.authorization = subprocess.Popen(command, cwd=self.folder, stdout=subprocess.DEVNULL)
        _wait(f"{self.issuer}/.well-known/openid-configuration", self.authorization)


def _signing_key(kid: str) -> dict[str, Any]:
    """A new RSA signing key as a private JWK (oidc-provider signs with it; its JWKS publishes the public half)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk: dict[str, Any] = json.loads(RSAAlgorithm.to_jwk(key))
    return {**jwk, "kid": kid, "alg": "RS256", "use": "sig"}


def _wait(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    if not NODE.exists() or not (OIDC / "oidc-provider").is_dir():
        pytest.fail("oidc-provider or Node 22 is not installed: run `make` (its set-up installs both)")
    base = tmp_path_factory.mktemp("real-as")
    (base / "as").mkdir()
    shutil.copy(SCRIPT, base / "as" / "server.mjs")
    (base / "as" / "node_modules").symlink_to(OIDC)  # where Node looks for the script's imports
    project = base / "notes"
    subprocess.run([sys.executable, "-m", "toolproof", "init", str(project)], check=True, capture_output=True)
    contract = project / "contracts" / "word_count.yaml"
    contract.write_text(contract.read_text(encoding="utf-8") + "scopes: [notes:write]\n", encoding="utf-8")
    settings = project / "pyproject.toml"
    declared = '\n[tool.toolproof.serve]\nscopes = ["notes:read", "notes:write"]\n'
    settings.write_text(settings.read_text(encoding="utf-8") + declared, encoding="utf-8")
    subprocess.run([sys.executable, "-m", "toolproof", "gen", "--project", str(project)], check=True)
    as_port, port = free_port(), free_port()
    issuer, resource = f"http://127.0.0.1:{as_port}", f"http://127.0.0.1:{port}/mcp"
    stack = Stack(issuer, resource, resource, base / "as")
    env = {**os.environ, "TOOLPROOF_OAUTH_CLIENT_SECRET": "toolproof-secret", "TOOLPROOF_AUTH_TOKENS": ""}
    command = [sys.executable, "-m", "toolproof", "serve", "http", "--port", str(port), "--project", str(project)]
    command += ["--oauth-issuer", issuer, "--oauth-resource", resource]
    command += ["--oauth-introspection", f"{issuer}/token/introspection", "--oauth-client-id", "toolproof"]
    command += ["--oauth-refetch-interval", "0.2"]  # a key rotation is seen at once
    server = None
    try:
        stack.start_authorization_server(_signing_key("first"))
        server = subprocess.Popen(command, env=env)
        _wait(f"http://127.0.0.1:{port}/healthz", server)
        yield stack
    finally:
        for process in (server, stack.authorization):
            if process is not None and process.poll() is None:
                process.terminate()
                process.wait(timeout=10)


SCOPES = {"writer": "notes:read notes:write", "reader": "notes:read", "opaque": "notes:read notes:write"}


def _token(stack: Stack, client: str, resource: str | None = None) -> str:
    """An access token for ``client`` by the client credentials grant, with every scope the client may have."""
    form = {"grant_type": "client_credentials", "resource": resource or stack.resource, "scope": SCOPES[client]}
    request = urllib.request.Request(
        f"{stack.issuer}/token",
        data=urllib.parse.urlencode(form).encode("ascii"),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    request.add_header("Authorization", "Basic " + _basic(client))
    with urllib.request.urlopen(request, timeout=10) as response:
        token: str = json.loads(response.read())["access_token"]
    return token


def _basic(client: str) -> str:
    import base64

    return base64.b64encode(f"{client}:{client}-secret".encode()).decode("ascii")


def _call(stack: Stack, token: str | None) -> tuple[int, dict[str, str], bytes]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "word_count", "arguments": {"text": "a b"}}}  # fmt: skip
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25"}  # fmt: skip
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(stack.url, data=json.dumps(body).encode(), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()


def test_the_official_python_client_calls_a_tool_with_a_client_credentials_token(stack: Stack) -> None:
    token = _token(stack, "writer")

    async def session() -> None:
        with anyio.fail_after(30):
            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
            async with http, Client(streamable_http_client(stack.url, http_client=http)) as client:
                listed = {tool.name: tool for tool in (await client.list_tools()).tools}
                assert listed["word_count"].meta is not None
                assert listed["word_count"].meta["securitySchemes"] == [{"type": "oauth2", "scopes": ["notes:write"]}]
                result = await client.call_tool("word_count", {"text": "a b c"})
                assert result.is_error is False and result.structured_content == {"words": 3, "characters": 5}

    anyio.run(session)


def test_a_token_without_the_tools_scope_gets_the_scope_challenge(stack: Stack) -> None:
    status, headers, _ = _call(stack, _token(stack, "reader"))

    assert status == 403
    assert headers["www-authenticate"] == (
        f'Bearer resource_metadata="http://127.0.0.1:{stack.url.split(":")[2].split("/")[0]}'
        '/.well-known/oauth-protected-resource/mcp", scope="notes:write", error="insufficient_scope",'
        ' error_description="tool word_count needs the scope(s) notes:write"'
    )


def test_no_token_and_a_token_for_another_resource_get_401_naming_the_metadata(stack: Stack) -> None:
    missing, missing_headers, _ = _call(stack, None)
    other, other_headers, _ = _call(stack, _token(stack, "writer", "https://other.example/mcp"))

    assert missing == other == 401
    assert 'resource_metadata="http://127.0.0.1:' in missing_headers["www-authenticate"]
    assert 'error_description="the token was not issued for this resource"' in other_headers["www-authenticate"]


def test_an_opaque_token_is_introspected_at_the_authorization_server(stack: Stack) -> None:
    token = _token(stack, "opaque")
    assert token.count(".") != 2  # not a JWT

    status, _, body = _call(stack, token)
    refused, headers, _ = _call(stack, token + "x")

    assert status == 200 and json.loads(body)["result"]["structuredContent"] == {"words": 2, "characters": 3}
    assert refused == 401 and "the token is not active" in headers["www-authenticate"]


def test_the_metadata_names_the_authorization_server_and_every_scope(stack: Stack) -> None:
    port = stack.url.split(":")[2].split("/")[0]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp") as response:
        metadata = json.loads(response.read())

    assert metadata["authorization_servers"] == [stack.issuer]
    assert (metadata["resource"], metadata["scopes_supported"]) == (stack.resource, ["notes:write"])


def test_the_official_typescript_client_calls_a_tool_with_a_client_credentials_token(stack: Stack) -> None:
    plans = [
        {
            "sdk": sdk,
            "revision": "2025-11-25",
            "token": _token(stack, "writer"),
            "calls": [{"name": "word_count", "arguments": {"text": "a b c"}}],
        }
        for sdk in ("client", "sdk")
    ]
    script = Path(__file__).parent / "ts_sdk_client.mjs"
    env = {"NODE_PATH": str(VENV / "node" / "node_modules"), "PATH": str(NODE.parent)}

    done = subprocess.run(
        [str(NODE), str(script), stack.url, *map(json.dumps, plans)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )

    reports = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0 and len(reports) == 2, done.stdout + done.stderr
    for report in reports:
        (result,) = report["results"]
        assert (result["isError"], result["structuredContent"]) == (False, {"words": 3, "characters": 5}), report


def test_a_key_rotation_at_the_authorization_server_is_picked_up_without_a_restart(stack: Stack) -> None:
    before = _token(stack, "writer")
    assert _call(stack, before)[0] == 200
    time.sleep(0.3)  # past --oauth-refetch-interval since the keys were fetched

    stack.start_authorization_server(_signing_key("second"))  # the first key withdrawn
    after = _token(stack, "writer")

    assert _call(stack, after)[0] == 200
    status, headers, _ = _call(stack, before)
    assert (
        status == 401 and "signed with a key the authorization server does not publish" in headers["www-authenticate"]
    )
