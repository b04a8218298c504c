"""Every transport names at start each tool it leaves out for a need the host was not given, once."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.ports import free_port
from tests.testing.resource_project import TOOLPROOF, make_resource_project, toolproof

_LEFT_OUT = "warning: tool 'notes' is not served: it needs notes_db, which this host was not given"
_HELLO = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_resource_project(tmp_path_factory.mktemp("left-out") / "notes")


def _healthy(port: int, server: subprocess.Popen[str], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and server.poll() is None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.05)
        finally:
            connection.close()
    raise AssertionError(f"nothing healthy on port {port}")


def test_serve_mcp_over_stdio_names_the_tool_it_leaves_out_for_a_missing_resource(project: Path) -> None:
    stdin = "".join(
        json.dumps(m) + "\n"
        for m in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _HELLO},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        )
    )

    run = toolproof("serve", "mcp", cwd=project, stdin=stdin)

    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines() == [_LEFT_OUT]
    listing = json.loads(run.stdout.splitlines()[1])
    assert [tool["name"] for tool in listing["result"]["tools"]] == ["word_count"]


def test_the_sentence_is_the_one_call_gives_for_the_tool(project: Path) -> None:
    run = toolproof("call", "notes", "--args", '{"key": "a"}', cwd=project)

    assert run.returncode == 2
    assert run.stderr.splitlines()[-1] == "Error: " + _LEFT_OUT.removeprefix("warning: ")


@pytest.mark.parametrize(
    "argv",
    [["serve", "http"], ["serve", "mcp", "--transport", "http"], ["serve", "http", "--workers", "2"]],
    ids=["serve-http", "serve-mcp-http", "serve-http-workers"],
)
def test_every_http_start_names_the_tool_it_leaves_out_once(project: Path, argv: list[str]) -> None:
    port = free_port()
    server = subprocess.Popen(
        [*TOOLPROOF, *argv, "--port", str(port)],
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        _healthy(port, server)
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # the supervisor and its workers
        _, stderr = server.communicate(timeout=40)

    assert stderr.count("is not served") == 1, stderr
    assert _LEFT_OUT in stderr.splitlines()


def test_the_built_in_file_tools_left_out_without_a_workspace_are_named_with_the_option(tmp_path: Path) -> None:
    run = toolproof("serve", "mcp", cwd=tmp_path)

    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines() == [
        "warning: tool 'file-read' is not served: it needs workspace, which this host was not given (pass --workspace)"
    ]


def test_a_host_given_the_resource_names_nothing(project: Path) -> None:
    run = toolproof("serve", "mcp", cwd=project, env={"NOTES_DB": str(project / "notes.json")})

    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
