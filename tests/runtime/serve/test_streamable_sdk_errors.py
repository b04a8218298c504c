"""JSON-RPC errors over Streamable HTTP as the official TypeScript SDK clients see them, in each revision.

A 2025 client takes an HTTP status other than 200 (or 202) for a failed
transport: before the fix, an unknown tool answered with 400 surfaced as
``StreamableHTTPError`` (SDK 1.32.2) or ``SdkHttpError`` (client 2.4.0), not
as the JSON-RPC error its body held. Driven by ``ts_sdk_client.mjs``, as in
``test_ts_sdk_client.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.runtime.serve.test_streamable import MODERN, Server, _start
from tests.runtime.serve.test_ts_sdk_client import LEGACY, _launch, _reports

UNKNOWN = {"name": "no-such-tool", "arguments": {}}
PLANS = {
    "sdk-1.32.2 in 2025-11-25": {"sdk": "sdk", "revision": LEGACY, "calls": [UNKNOWN]},
    "client-2.4.0 in 2025-11-25": {"sdk": "client", "revision": LEGACY, "calls": [UNKNOWN]},
    "client-2.4.0 pinned to 2026-07-28": {"sdk": "client", "revision": MODERN, "calls": [UNKNOWN]},
}
STATUS = {"sdk-1.32.2 in 2025-11-25": 200, "client-2.4.0 in 2025-11-25": 200, "client-2.4.0 pinned to 2026-07-28": 400}
"""The HTTP status of the failed call: 200 in 2025 (no error maps to a status), 400 in 2026-07-28 (-32602)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("sdk-errors")
    ws, skills = base / "ws", base / "skills"
    ws.mkdir()
    skills.mkdir()
    roots: tuple[Path, Path] = (ws, skills)
    yield from _start(roots, {"TOOLPROOF_AUTH_TOKENS": ""})


@pytest.fixture(scope="module")
def reports(server: Server) -> dict[str, dict[str, Any]]:
    return _reports(_launch(server.url, PLANS), list(PLANS))


@pytest.mark.parametrize("plan", list(PLANS))
def test_an_unknown_tool_reaches_each_sdk_client_as_the_json_rpc_error_not_a_transport_failure(
    reports: dict[str, dict[str, Any]], plan: str
) -> None:
    report = reports[plan]

    error = report["error"]  # the script stops at the first call that raises
    assert error["code"] == -32602 and error["message"].endswith("Unknown tool: no-such-tool"), error
    assert error["name"] not in ("StreamableHTTPError", "SdkHttpError"), error
    last = report["wire"][-1]
    assert (last["method"], last["status"]) == ("tools/call", STATUS[plan])
