"""Scopes from the contract: a call whose token lacks its tool's scopes gets the MCP scope challenge (403).

The HTTP app runs in process over the built-in tools, with ``file-read`` given the scopes a contract would name;
tokens are signed by a key the test generates, as in ``test_oauth_gate``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

from tests.asgi import exchange
from toolproof.runtime.serve.app import Security, ToolproofApp
from toolproof.runtime.serve.gate import ScopeGate, needed_scopes
from toolproof.runtime.serve.http import HttpApp
from toolproof.runtime.serve.jwks import FetchError
from toolproof.runtime.serve.limits import HttpLimits
from toolproof.runtime.serve.mcp import McpServer
from toolproof.runtime.serve.oauth import OAuthSettings, ResourceServer
from toolproof.runtime.serve.streamable import StreamableMcp
from toolproof.runtime.toolbox import builtin_runtime

ISSUER = "https://as.example"
RESOURCE = "https://tools.example/mcp"
KEY = ec.generate_private_key(ec.SECP256R1())
JWK = {**ECAlgorithm.to_jwk(KEY.public_key(), as_dict=True), "kid": "k1", "alg": "ES256"}
METADATA = "https://tools.example/.well-known/oauth-protected-resource/mcp"
_MCP = {"host": "127.0.0.1", "accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}


async def _as(url: str, timeout: float) -> Mapping[str, Any]:
    if url == "https://as.example/.well-known/oauth-authorization-server":
        return {"issuer": ISSUER, "jwks_uri": "https://as.example/keys"}
    if url == "https://as.example/keys":
        return {"keys": [JWK]}
    raise FetchError(f"cannot fetch {url}: 404")


def _token(scope: str) -> str:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": RESOURCE, "sub": "u1", "iat": now, "exp": now + 60, "scope": scope}
    return jwt.encode(claims, KEY, algorithm="ES256", headers={"kid": "k1"})


@pytest.fixture
def app(tmp_path: Path) -> ToolproofApp:
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    runtime = builtin_runtime(workspace=[tmp_path])
    settings = OAuthSettings(ISSUER, RESOURCE, scopes=("tools",), supported=("files:read", "files:audit"))
    scoped = [replace(s, scopes=("files:read", "files:audit")) for s in runtime.specs if s.name == "file-read"]
    gate = ScopeGate(scoped, settings)
    rest = HttpApp(runtime, limits=HttpLimits(), gate=gate)
    core = McpServer(runtime, session="http", handshake=False)
    mcp = StreamableMcp(core, rest.limits, calls=rest.calls, gate=gate)
    return ToolproofApp(rest, mcp, Security.build("127.0.0.1", oauth=ResourceServer(settings, fetch=_as)))


def _call(request_id: int, name: str) -> dict[str, Any]:
    params = {"name": name, "arguments": {"path": "notes.txt"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _post(
    app: ToolproofApp, path: str, body: Any, scope: str, method: str = "POST", **headers: str
) -> tuple[int, dict[str, str], Any]:
    sent = {"host": "127.0.0.1", **headers, "authorization": f"Bearer {_token(scope)}"}
    return exchange(app, path, json.dumps(body).encode("utf-8"), sent, method)


CHALLENGE = (
    f'Bearer resource_metadata="{METADATA}", scope="tools files:read files:audit", error="insufficient_scope",'
    ' error_description="tool file-read needs the scope(s) files:audit"'
)


def test_an_mcp_call_whose_token_lacks_a_scope_of_its_tool_gets_403_naming_every_scope_the_call_needs(
    app: ToolproofApp,
) -> None:
    status, headers, body = _post(app, "/mcp", _call(1, "file-read"), "tools files:read", **_MCP)

    assert status == 403
    assert headers["www-authenticate"] == CHALLENGE
    assert body == {
        "code": "insufficient_scope",
        "message": "tool file-read needs the scope(s) files:audit, which the access token does not hold",
    }


def test_a_rest_call_whose_token_lacks_a_scope_of_its_tool_gets_the_same_challenge(app: ToolproofApp) -> None:
    status, headers, _ = _post(app, "/tools/file-read", {"path": "notes.txt"}, "tools")

    assert (status, headers["www-authenticate"]) == (
        403,
        CHALLENGE.replace("(s) files:audit", "(s) files:read files:audit"),
    )


def test_a_token_holding_the_tools_scopes_calls_it(app: ToolproofApp) -> None:
    status, _, body = _post(app, "/mcp", _call(2, "file-read"), "tools files:read files:audit", **_MCP)
    rest, _, output = _post(app, "/tools/file-read", {"path": "notes.txt"}, "files:audit files:read tools")

    assert (status, body["result"]["isError"]) == (200, False)
    assert rest == 200 and "hello" in json.dumps(output)


def test_a_tool_naming_no_scope_needs_only_what_every_call_needs(app: ToolproofApp) -> None:
    status, _, body = _post(app, "/mcp", _call(3, "get_skill"), "tools", **_MCP)

    assert status == 200  # run: its answer is the tool's own (here: no such skill), not a refusal
    assert body["result"]["_meta"]["dev.toolproof/error"]["code"] != "insufficient_scope"


def test_a_batch_holding_a_call_the_token_may_not_make_is_refused_whole(app: ToolproofApp) -> None:
    batch = [_call(4, "get_skill"), _call(5, "file-read")]
    headers = {**_MCP, "mcp-protocol-version": "2025-03-26"}

    status, answered, _ = _post(app, "/mcp", batch, "tools files:read", **headers)

    assert (status, 'error="insufficient_scope"' in answered["www-authenticate"]) == (403, True)


def test_the_metadata_names_every_scope_a_call_may_need(app: ToolproofApp) -> None:
    status, _, body = _post(app, "/.well-known/oauth-protected-resource/mcp", None, "", "GET")

    assert (status, body["scopes_supported"]) == (200, ["tools", "files:read", "files:audit"])
    twice = OAuthSettings(ISSUER, RESOURCE, scopes=("tools",), supported=("files:read", "tools"))
    assert twice.metadata()["scopes_supported"] == ["tools", "files:read"]


def test_the_scopes_each_tool_needs_are_those_of_every_call_then_its_contracts_once_each(tmp_path: Path) -> None:
    runtime = builtin_runtime(workspace=[tmp_path])
    read = next(s for s in runtime.specs if s.name == "file-read")

    needed = needed_scopes([replace(read, scopes=("b", "a")), *runtime.specs[:0]], ("a", "c"))

    assert needed == {"file-read": ("a", "c", "b")}
