"""Refused requests are logged, but a client sending them as fast as it can does not fill the log."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.asgi import post_json
from toolproof.runtime.serve.app import REFUSALS_LOGGED_PER_SECOND, Security, ToolproofApp
from toolproof.runtime.serve.http import HttpApp, HttpLimits
from toolproof.runtime.serve.mcp import McpServer
from toolproof.runtime.serve.streamable import StreamableMcp
from toolproof.runtime.toolbox import builtin_runtime


def test_a_flood_of_refused_requests_logs_a_few_lines_and_counts_the_rest(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    runtime = builtin_runtime(workspace=[tmp_path])
    rest = HttpApp(runtime, limits=HttpLimits())
    mcp = StreamableMcp(McpServer(runtime, session="http", handshake=False), rest.limits, calls=rest.calls)
    app = ToolproofApp(rest, mcp, Security.build("127.0.0.1", tokens=["a-token-of-sixteen-chars"]))
    headers = {"host": "127.0.0.1"}

    with caplog.at_level(logging.WARNING, logger="toolproof.http"):
        statuses = {post_json(app, "/tools/file-read", {"path": "a"}, headers)[0] for _ in range(300)}

    assert statuses == {401}
    lines = [record.getMessage() for record in caplog.records]
    assert lines[0] == "refused a request with no bearer token"
    assert len(lines) <= 2 * REFUSALS_LOGGED_PER_SECOND + 2  # 300 refusals in at most a couple of seconds
    assert all("bearer token" in line or "were not logged" in line for line in lines)


def test_the_refusals_left_out_are_counted_in_the_next_second_line(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolproof.runtime.serve import app as app_module

    clock = [100.0]
    monkeypatch.setattr("toolproof.runtime.serve.app.time.monotonic", lambda: clock[0])
    log = app_module._RefusalLog()

    with caplog.at_level(logging.WARNING, logger="toolproof.http"):
        for _ in range(REFUSALS_LOGGED_PER_SECOND + 5):
            log.warning("refused %s", "x")
        clock[0] += 1.0
        log.warning("refused %s", "y")

    lines = [record.getMessage() for record in caplog.records]
    counted = "5 more refused request(s) were not logged"
    assert lines == [*["refused x"] * REFUSALS_LOGGED_PER_SECOND, counted, "refused y"]
