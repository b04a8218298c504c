"""The official MCP conformance suite against ``toolproof serve mcp --transport http``, on both wires.

``make`` installs Node 22 and ``@modelcontextprotocol/conformance`` (pinned) into the venv. The server
serves the fixture project in ``tests/conformance_project``. The suite runs every server scenario
(``--suite all``) for one protocol revision, with the committed baseline of expected failures
(``tests/conformance_project/expected-failures.<revision>.yml``, one reason a line): it exits
non-zero on a failure the baseline does not list, and on a listed one that now passes, so the
baseline can only shrink as features land."""

from __future__ import annotations

import http.client
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[3]
VENV = Path(os.environ.get("VENV", ROOT / ".venv"))
NODE = VENV / "node22" / "node_modules" / ".bin" / "node"
SUITE = VENV / "conformance" / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
PROJECT = ROOT / "tests" / "conformance_project"
"""The fixture tools the suite calls, a toolproof project with its own settings; its baselines live beside it."""
SUITE_TIMEOUT = 240.0

pytestmark = pytest.mark.slow  # Node 22 and the official suite, installed by `make`'s set-up: missing, they fail


def _healthy(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A live ``serve mcp --transport http`` of the fixture project on a free loopback port."""
    port = free_port()
    log = (tmp_path_factory.mktemp("conformance") / "server.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "toolproof",
            "serve",
            "mcp",
            "--transport",
            "http",
            "--port",
            str(port),
            "--project",
            str(PROJECT),
        ],
        stdout=subprocess.DEVNULL,
        stderr=log,
        env={**os.environ, "TOOLPROOF_GATE_SECRET": "conformance-secret-of-32-bytes!!", "TOOLPROOF_AUTH_TOKENS": ""},
    )
    try:
        deadline = time.monotonic() + 20
        while not _healthy(port):
            assert process.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        log.close()


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
def test_the_official_conformance_suite_fails_exactly_the_baselined_checks(
    url: str, revision: str, tmp_path: Path
) -> None:
    baseline = PROJECT / f"expected-failures.{revision}.yml"
    command = [str(NODE), str(SUITE), "server", "--url", url, "--suite", "all", "--spec-version", revision]
    command += ["--expected-failures", str(baseline), "-o", str(tmp_path)]

    done = subprocess.run(
        command, capture_output=True, text=True, encoding="utf-8", timeout=SUITE_TIMEOUT, cwd=tmp_path, check=False
    )

    output = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)
    assert done.returncode == 0, output[-6000:]
    assert "Baseline check passed" in output, output[-6000:]
