"""A long file read tells its caller how far it got: in process through ``reporting``, and over MCP stdio."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from toolproof.builtin.files.lines import clear_index_cache
from toolproof.builtin.files.progress import PROGRESS_MIN
from toolproof.builtin.skills.resources import skill_gate
from toolproof.runtime.context import reporting
from toolproof.runtime.toolbox import builtin_runtime

SECRET = "progress-test-secret-of-32-bytes"
SERVER = [sys.executable, "-m", "toolproof", "serve", "mcp"]
HANDSHAKE = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 10 MiB file of short lines (just under the tools' cap) and a small one."""
    ws = tmp_path_factory.mktemp("progress")
    (ws / "big.txt").write_bytes(b"".join(b"line %07d\n" % i for i in range(10 * 1024 * 1024 // 13)))
    (ws / "small.txt").write_bytes(b"line\n" * 1000)
    return ws


class _Reports:
    """A fake reporter: the params of every progress report a call makes."""

    def __init__(self) -> None:
        self.progress: list[dict[str, Any]] = []

    def __call__(self, kind: str, params: Mapping[str, Any]) -> None:
        if kind == "progress":
            self.progress.append(dict(params))


def _call(workspace: Path, tool: str, path: str) -> _Reports:
    runtime = builtin_runtime(workspace=[workspace], gate_secret=SECRET.encode(), audit=lambda record: None)
    if tool == "read_file":
        gate = skill_gate(runtime, "read_file")
        assert gate is not None
        args: dict[str, Any] = {"path": path, "offset": 5, "limit": 10, "skillToken": gate.token("s")}
    else:
        args = {"path": path, "start_line": 5, "max_lines": 10}
    reports = _Reports()
    clear_index_cache()  # a first read: the line index is cold, so the whole file is counted
    with reporting(reports):
        result = runtime.call(tool, args, session="s")
    assert result.ok, result.error
    return reports


@pytest.mark.parametrize("tool", ["read_file", "file-read"])
def test_a_first_read_of_a_10_mib_file_reports_progress_ascending_bounded_and_ending_at_its_size(
    workspace: Path, tool: str
) -> None:
    size = (workspace / "big.txt").stat().st_size

    reports = _call(workspace, tool, "big.txt").progress

    done = [report["progress"] for report in reports]
    assert 2 <= len(done) <= 16
    assert done == sorted(set(done))
    assert done[0] >= PROGRESS_MIN
    assert reports[-1] == {"progress": size, "total": size}
    assert {report["total"] for report in reports} == {size}


@pytest.mark.parametrize("tool", ["read_file", "file-read"])
def test_a_read_of_a_small_file_reports_no_progress(workspace: Path, tool: str) -> None:
    assert _call(workspace, tool, "small.txt").progress == []


def _send(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8") + b"\n")
    proc.stdin.flush()


def _until_answer(proc: subprocess.Popen[bytes], request_id: int) -> list[dict[str, Any]]:
    """Every message up to and including the answer to ``request_id``."""
    assert proc.stdout is not None
    messages: list[dict[str, Any]] = []
    while not messages or messages[-1].get("id") != request_id:
        line = proc.stdout.readline()
        assert line, "the server closed its output"
        messages.append(json.loads(line))
    return messages


@pytest.mark.parametrize("tool", ["read_file", "file-read"])
def test_progress_notifications_of_a_10_mib_read_reach_a_stdio_client_before_its_result(
    workspace: Path, tool: str
) -> None:
    size = (workspace / "big.txt").stat().st_size
    proc = subprocess.Popen(
        [*SERVER, "--workspace", str(workspace)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "TOOLPROOF_GATE_SECRET": SECRET},
    )
    try:
        _send(proc, {"id": 1, "method": "initialize", "params": HANDSHAKE})
        _until_answer(proc, 1)
        _send(proc, {"method": "notifications/initialized"})
        args: dict[str, Any] = {"path": "big.txt", "start_line": 5, "max_lines": 10}
        if tool == "read_file":
            _send(
                proc,
                {
                    "id": 2,
                    "method": "tools/call",
                    "params": {"name": "read_file", "arguments": {"path": "builtin://read_file/SKILL.md"}},
                },
            )
            token = _until_answer(proc, 2)[-1]["result"]["structuredContent"]["skillToken"]
            args = {"path": "big.txt", "offset": 5, "limit": 10, "skillToken": token}
        call = {"name": tool, "arguments": args, "_meta": {"progressToken": "read-1"}}
        _send(proc, {"id": 3, "method": "tools/call", "params": call})
        *notes, answer = _until_answer(proc, 3)
    finally:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.wait(30)
        proc.stdout.close()

    assert answer["result"]["isError"] is False
    progress = [note["params"] for note in notes if note.get("method") == "notifications/progress"]
    assert {report["progressToken"] for report in progress} == {"read-1"}
    done = [report["progress"] for report in progress]
    assert 2 <= len(done) <= 16 and done == sorted(set(done))
    assert (progress[-1]["progress"], progress[-1]["total"]) == (size, size)
