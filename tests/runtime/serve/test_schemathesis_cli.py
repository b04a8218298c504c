"""A third party's fuzzer, as its users run it: ``schemathesis run --checks all`` against ``toolproof serve http``.

The CLI runs with its default configuration, so its ``positive_data_acceptance``
check accepts only 2xx, 3xx, 401, 403, 404, 409, 429 and 5xx for a schema-valid
request: a tool's refusal of one (a directory path, an offset past the end,
skill name ".") must be one of those, never 422.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ports import free_port

pytestmark = pytest.mark.slow  # a whole server, venv or Node process a test: `make test` runs them all

SECRET = "schemathesis-cli-secret-32-bytes"
SCHEMATHESIS = shutil.which("schemathesis", path=str(Path(sys.executable).parent))


def _wait_for(port: int, server: subprocess.Popen[bytes], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"nothing listens on port {port} after {seconds} s")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    ws, skills = tmp_path / "ws", tmp_path / "skills"
    (ws / "src").mkdir(parents=True)
    (ws / "notes.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    (skills / "calculator" / "examples").mkdir(parents=True)
    (skills / "calculator" / "SKILL.MD").write_text("# Calculator\n", encoding="utf-8")
    (skills / "calculator" / "examples" / "basic.py").write_text("x = 1\n", encoding="utf-8")
    port = free_port()
    command = [sys.executable, "-m", "toolproof", "serve", "http", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--workspace", str(ws), "--skills", str(skills)]
    env = {**os.environ, "TOOLPROOF_GATE_SECRET": SECRET}
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    try:
        _wait_for(port, process)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.mark.skipif(SCHEMATHESIS is None, reason="the schemathesis CLI is not installed beside this Python")
def test_schemathesis_run_with_every_check_and_its_default_config_finds_no_failure(server: str, tmp_path: Path) -> None:
    assert SCHEMATHESIS is not None
    command = [SCHEMATHESIS, "run", f"{server}/openapi.json", "--checks", "all", "--max-examples", "20"]
    command += ["--seed", "1", "--generation-database", "none"]
    done = subprocess.run(
        command, capture_output=True, text=True, encoding="utf-8", cwd=tmp_path, timeout=600, check=False
    )

    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "schema-valid request rejected" not in done.stdout.lower()
    assert "Valid data should have been accepted" not in done.stdout
