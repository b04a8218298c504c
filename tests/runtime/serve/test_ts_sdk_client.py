"""The official TypeScript MCP SDK as a client of ``toolproof serve mcp --transport http``, in both revisions.

Which SDK speaks what (npm, checked against the published packages): ``@modelcontextprotocol/sdk``
(v1; 1.32.2 is its latest) has ``StreamableHTTPClientTransport`` and speaks the ``initialize``
handshake up to 2025-11-25 only. Its successor ``@modelcontextprotocol/client`` (v2; 2.4.0) speaks
2025-11-25 by default and the stateless 2026-07-28 when asked: pinned
(``versionNegotiation: {mode: {pin: "2026-07-28"}}``, ``server/discover`` then no handshake, each
request carrying its ``_meta`` envelope and the routing headers) or ``"auto"``, which probes with
``server/discover`` and falls back to ``initialize``. The Makefile pins both into ``.venv/node``;
``ts_sdk_client.mjs`` drives them under the venv's Node 22 and prints what the client saw, down to
each HTTP exchange.

The server keeps no sessions: it answers ``initialize`` without ``Mcp-Session-Id``, as 2025-11-25
allows, so the SDK sends none; a client that holds one anyway (resuming a session, which skips
``initialize``) is served all the same. Bearer tokens come from ``TOOLPROOF_AUTH_TOKENS`` (or
``--auth-tokens FILE``); without the right one the SDK's first request gets 401.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.runtime.serve.test_streamable import ENVELOPE, MODERN, TOKEN, Server, _modern, _start

pytestmark = pytest.mark.slow  # a whole server, venv or Node process a test: `make test` runs them all

ROOT = Path(__file__).resolve().parents[3]
VENV = Path(os.environ.get("VENV", ROOT / ".venv"))
NODE = VENV / "node22" / "node_modules" / ".bin" / "node"
NODE_MODULES = VENV / "node" / "node_modules"
SCRIPT = Path(__file__).parent / "ts_sdk_client.mjs"
PINNED = {"@modelcontextprotocol/client": "2.4.0", "@modelcontextprotocol/sdk": "1.32.2"}
"""The SDK packages the Makefile installs, at the versions these tests were written against."""
LEGACY = "2025-11-25"
WRONG_TOKEN = "not-the-token-at-all-no"
SESSIONS_TIMEOUT = 60.0
"""Seconds one run of the script may take (its sessions take well under one)."""

READ = {"name": "file-read", "arguments": {"path": "notes.txt"}}
MISSING = {"name": "file-read", "arguments": {"path": "missing.txt"}}
READ_TEXT = "Read 3 lines from notes.txt\n\n1 | one\n2 | two\n3 | three"
READ_OUTPUT = {
    "path": "notes.txt",
    "content": "1 | one\n2 | two\n3 | three",
    "message": "Read 3 lines from notes.txt",
    "summary": "Read file 'notes.txt'",
    "total_lines": 3,
    "start_line": 1,
    "end_line": 3,
    "lines_returned": 3,
    "was_truncated": False,
    "remaining_lines": 0,
    "percentage_read": 100,
    "encoding": "utf-8",
    "file_size": 14,
}
MISSING_TEXT = "Error: File not found: missing.txt Check the path, relative to the workspace, then retry."
MISSING_ERROR = {
    "code": "file_not_found",
    "message": "File not found: missing.txt",
    "hint": "Check the path, relative to the workspace, then retry.",
}

CLIENTS = {
    "sdk-1.32.2 in 2025-11-25": ({"sdk": "sdk", "revision": LEGACY}, LEGACY),
    "client-2.4.0 in 2025-11-25": ({"sdk": "client", "revision": LEGACY}, LEGACY),
    "client-2.4.0 pinned to 2026-07-28": ({"sdk": "client", "revision": MODERN}, MODERN),
    "client-2.4.0 negotiating (auto)": ({"sdk": "client", "revision": "auto"}, MODERN),
}
"""Each SDK client in each revision it speaks: its plan for the script, and the revision it must end up in."""
RESUMING = {sdk: {"sessionId": "resumed-0123456789", "protocolVersion": LEGACY} for sdk in ("sdk", "client")}
"""Per SDK, a transport resuming a session the server never issued (the SDKs then skip ``initialize``)."""
GUARDED = ["sdk-1.32.2 in 2025-11-25", "client-2.4.0 pinned to 2026-07-28"]
TOKENS = {"the token": TOKEN, "no token": None, "a wrong token": WRONG_TOKEN}


@dataclass(frozen=True, slots=True)
class Runs:
    """The script's reports against the open server, by plan name; and the raw 2026 calls made meanwhile."""

    reports: dict[str, dict[str, Any]]
    raw: list[tuple[int, bytes]]


def _node() -> Path:
    """The venv's Node 22, with the pinned SDK packages beside it; fails (never skips) saying how to install them."""
    assert NODE.exists(), f"Node 22 is installed by `make gen` (npm, into {VENV / 'node22'})"
    for package, version in PINNED.items():
        manifest = NODE_MODULES / package / "package.json"
        assert manifest.exists(), f"{package}@{version} is installed by `make gen` (npm, into {VENV / 'node'})"
        installed = json.loads(manifest.read_text(encoding="utf-8"))["version"]
        assert installed == version, f"{package} is {installed}, not {version}: run `make gen`"
    return NODE


def _launch(url: str, plans: dict[str, dict[str, Any]]) -> subprocess.Popen[str]:
    """Start the script: one client session per plan, all at once, against ``url``."""
    return subprocess.Popen(
        [str(_node()), str(SCRIPT), url, *(json.dumps(plan) for plan in plans.values())],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env={"NODE_PATH": str(NODE_MODULES), "PATH": str(NODE.parent)},
    )


def _reports(process: subprocess.Popen[str], names: list[str]) -> dict[str, dict[str, Any]]:
    """The script's report on each session, by plan name (a failed one holds ``error`` and ``wire``)."""
    try:
        stdout, stderr = process.communicate(timeout=SESSIONS_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        raise
    lines = stdout.splitlines()
    assert len(lines) == len(names), f"exit {process.returncode}: {stdout[-2000:]}{stderr[-2000:]}"
    return dict(zip(names, map(json.loads, lines), strict=True))


def _succeeded(report: dict[str, Any]) -> dict[str, Any]:
    assert "error" not in report, report
    return report


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("ts-sdk")
    ws, skills = base / "ws", base / "skills"
    ws.mkdir()
    skills.mkdir()
    (ws / "notes.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    return ws, skills


@pytest.fixture(scope="module")
def server(roots: tuple[Path, Path]) -> Iterator[Server]:
    yield from _start(roots, {"TOOLPROOF_AUTH_TOKENS": ""})


@pytest.fixture(scope="module")
def guarded(roots: tuple[Path, Path]) -> Iterator[Server]:
    yield from _start(roots, {"TOOLPROOF_AUTH_TOKENS": TOKEN})


@pytest.fixture(scope="module")
def runs(server: Server) -> Runs:
    """Every SDK client session against the open server at once, with raw 2026 tool calls until they end."""
    plans: dict[str, dict[str, Any]] = {name: {**plan, "calls": [READ, MISSING]} for name, (plan, _) in CLIENTS.items()}
    for sdk, resume in RESUMING.items():
        plans[f"{sdk} resuming"] = {"sdk": sdk, "revision": LEGACY, "resume": resume, "calls": [READ]}
    process = _launch(server.url, plans)
    raw: list[tuple[int, bytes]] = []
    deadline = time.monotonic() + SESSIONS_TIMEOUT
    while process.poll() is None and time.monotonic() < deadline:
        status, _, body = _modern(server.port, "tools/call", {**READ, "_meta": ENVELOPE}, {"Mcp-Name": "file-read"})
        raw.append((status, body))
        time.sleep(0.05)
    reports = _reports(process, list(plans))
    assert process.returncode == 0, reports
    return Runs(reports, raw)


@pytest.fixture(scope="module", params=list(CLIENTS))
def session(request: pytest.FixtureRequest, runs: Runs) -> tuple[dict[str, Any], str]:
    """One SDK client's session (list the tools, read a file, read a missing one); and its revision."""
    return _succeeded(runs.reports[request.param]), CLIENTS[request.param][1]


@pytest.fixture(scope="module")
def guarded_runs(guarded: Server) -> dict[str, dict[str, Any]]:
    """Each of ``GUARDED`` with each of ``TOKENS``, at once, against the server that needs a token."""
    plans: dict[str, dict[str, Any]] = {}
    for name in GUARDED:
        for kind, token in TOKENS.items():
            plan = {**CLIENTS[name][0], "calls": [READ]}
            plans[f"{name} with {kind}"] = plan if token is None else {**plan, "token": token}
    return _reports(_launch(guarded.url, plans), list(plans))


def test_each_sdk_client_ends_up_in_the_revision_it_asked_for(session: tuple[dict[str, Any], str]) -> None:
    report, revision = session
    methods = [exchange["method"] for exchange in report["wire"]]

    assert report["protocolVersion"] == revision
    if revision == MODERN:
        assert report["era"] == "modern" and methods[0] == "server/discover" and "initialize" not in methods
        assert all(exchange["http"] == "POST" for exchange in report["wire"])  # no standalone stream in 2026
    else:
        assert report["era"] == "legacy" and methods[:2] == ["initialize", "notifications/initialized"]
    assert {exchange["sentProtocolVersion"] for exchange in report["wire"][1:]} == {revision}


def test_each_sdk_client_lists_what_the_server_lists(session: tuple[dict[str, Any], str], server: Server) -> None:
    report, _ = session
    _, _, listed = _modern(server.port, "tools/list")

    assert report["names"] == [tool["name"] for tool in json.loads(listed)["result"]["tools"]]
    assert {"file-read", "read_file_in_skill"} <= set(report["names"])


def test_each_sdk_client_reads_a_file_as_text_and_structured_content_of_its_output_schema(
    session: tuple[dict[str, Any], str],
) -> None:
    report, _ = session
    result = report["results"][0]

    assert result["isError"] is False
    assert result["content"] == [{"type": "text", "text": READ_TEXT}]
    assert {key: result["structuredContent"][key] for key in READ_OUTPUT} == READ_OUTPUT
    Draft202012Validator(report["outputSchemas"]["file-read"]).validate(result["structuredContent"])


def test_each_sdk_client_gets_a_tool_error_as_is_error_with_the_catalogued_code(
    session: tuple[dict[str, Any], str],
) -> None:
    report, _ = session
    result = report["results"][1]

    assert result["isError"] is True and result["structuredContent"] is None
    assert result["content"] == [{"type": "text", "text": MISSING_TEXT}]
    assert result["_meta"]["dev.toolproof/error"] == MISSING_ERROR


def test_the_server_never_issues_a_session_id(session: tuple[dict[str, Any], str]) -> None:
    report, _ = session

    assert report["sessionId"] is None
    assert {(exchange["sessionId"], exchange["sentSessionId"]) for exchange in report["wire"]} == {(None, None)}


@pytest.mark.parametrize("sdk", list(RESUMING))
def test_a_client_resuming_a_session_the_server_never_issued_is_served_without_initialize(runs: Runs, sdk: str) -> None:
    report = _succeeded(runs.reports[f"{sdk} resuming"])

    assert "initialize" not in [exchange["method"] for exchange in report["wire"]]
    assert {exchange["sentSessionId"] for exchange in report["wire"]} == {"resumed-0123456789"}
    assert {exchange["status"] for exchange in report["wire"]} == {200}
    assert report["results"][0]["content"] == [{"type": "text", "text": READ_TEXT}]


def test_raw_2026_calls_are_served_while_sdk_clients_of_both_revisions_run(runs: Runs) -> None:
    contents = [json.loads(body)["result"]["structuredContent"]["content"] for _, body in runs.raw]

    assert runs.raw and {status for status, _ in runs.raw} == {200}
    assert set(contents) == {READ_OUTPUT["content"]}


@pytest.mark.parametrize("name", GUARDED)
def test_the_sdk_client_with_the_token_passes_and_without_it_or_with_a_wrong_one_gets_401(
    guarded_runs: dict[str, dict[str, Any]], name: str
) -> None:
    right = _succeeded(guarded_runs[f"{name} with the token"])
    refused = [guarded_runs[f"{name} with {kind}"] for kind in ("no token", "a wrong token")]
    first = "initialize" if CLIENTS[name][0]["revision"] == LEGACY else "server/discover"

    assert right["results"][0]["content"] == [{"type": "text", "text": READ_TEXT}]
    for report in refused:
        assert report["error"]["status"] == 401, report
        assert [(exchange["method"], exchange["status"]) for exchange in report["wire"]] == [(first, 401)]
