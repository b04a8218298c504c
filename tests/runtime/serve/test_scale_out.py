"""Scale-out: two ``serve mcp --transport http --workers 2`` instances behind a real haproxy, one worker killed mid-run.

Mixed stateless MCP (2026-07-28 ``tools/call``) and REST traffic, each request
with a unique id that its answer must carry back, goes through haproxy on
loopback; one worker is SIGKILLed while requests are in flight. No call may
fail beyond those in flight at that moment, every request is answered exactly
once, and the skill-gate token one worker issued is accepted by every other:
the instances share no memory, only the per-user key the supervisors hand
their workers.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.ports import free_port

pytestmark = pytest.mark.slow  # a whole server, venv or Node process a test: `make test` runs them all

MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "scale-out", "version": "1"},
}
SESSION = "scale-out"
REQUESTS = 400
CLIENTS = 4
KILL_AFTER = 100
"""Answers received before one worker is killed."""


def haproxy_config(port: int, backends: list[int]) -> str:
    """The haproxy configuration the README's deployment section shows: round robin over toolproof instances.

    Health checks on /healthz take a dead backend out within a second; ``retry-on`` and ``option redispatch``
    send a request whose connection failed, or whose backend died before answering, to another backend.
    """
    servers = "\n".join(
        f"    server toolproof{index} 127.0.0.1:{backend} check inter 500ms fall 2 rise 1"
        for index, backend in enumerate(backends, 1)
    )
    return f"""\
global
    maxconn 1024

defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response response-timeout

frontend mcp
    bind 127.0.0.1:{port}
    default_backend toolproof

backend toolproof
    balance roundrobin
    option httpchk
    http-check send meth GET uri /healthz
    http-check expect status 200
{servers}
"""


def _request(
    port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    """One raw HTTP request on a fresh connection; the status and the body."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        data = None if body is None else json.dumps(body).encode("utf-8")
        sent = {"Content-Type": "application/json", **(headers or {})} if data is not None else dict(headers or {})
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _mcp_call(port: int, name: str, arguments: dict[str, Any], id_: int) -> tuple[int, dict[str, Any]]:
    """A stateless 2026-07-28 ``tools/call`` over /mcp; the status and the JSON-RPC answer."""
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": name,
        "X-Toolproof-Session": SESSION,
    }
    message = {
        "jsonrpc": "2.0",
        "id": id_,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": ENVELOPE},
    }
    status, body = _request(port, "POST", "/mcp", message, headers)
    return status, json.loads(body) if body else {}


def _wait_healthy(port: int, process: subprocess.Popen[bytes] | None, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if _request(port, "GET", "/healthz")[0] == 200:
                return
        except OSError:
            pass
        if process is not None and process.poll() is not None:
            break
        time.sleep(0.05)
    raise RuntimeError(f"nothing healthy on port {port}")


def _workers(supervisor: int) -> list[int]:
    children = Path(f"/proc/{supervisor}/task/{supervisor}/children").read_text(encoding="utf-8")
    return [int(pid) for pid in children.split()]


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=40)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)


@dataclass
class Cluster:
    lb: int
    backends: list[int]
    supervisors: list[subprocess.Popen[bytes]]
    workspace: Path


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    haproxy = shutil.which("haproxy")
    if haproxy is None:
        pytest.fail("haproxy is not installed: `make` installs it (apt-get install -y haproxy), or install it yourself")
    base = tmp_path_factory.mktemp("scale")
    ws, skills, state = base / "ws", base / "skills", base / "state"
    for folder in (ws, skills / "calculator" / "examples", state):
        folder.mkdir(parents=True)
    (skills / "calculator" / "SKILL.md").write_text(
        "---\nname: calculator\ndescription: Adds numbers.\n---\n# Calculator\n", encoding="utf-8"
    )
    (skills / "calculator" / "examples" / "basic.py").write_text("x = 1\n", encoding="utf-8")
    for id_ in range(REQUESTS):
        (ws / f"req-{id_}.txt").write_text(f"answer {id_}\n", encoding="utf-8")
    # No $TOOLPROOF_GATE_SECRET: each supervisor reads the per-user key file once and hands it to its workers.
    env = {k: v for k, v in os.environ.items() if k != "TOOLPROOF_GATE_SECRET"}
    env |= {"XDG_STATE_HOME": str(state), "TOOLPROOF_AUTH_TOKENS": ""}
    backends = [free_port(), free_port()]
    supervisors = []
    for port in backends:
        command = [sys.executable, "-m", "toolproof", "serve", "mcp", "--transport", "http", "--workers", "2"]
        command += ["--port", str(port), "--workspace", str(ws), "--skills", str(skills), "--max-calls", "8"]
        supervisors.append(subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL))
    lb = free_port()
    config = base / "haproxy.cfg"
    config.write_text(haproxy_config(lb, backends), encoding="utf-8")
    balancer = subprocess.Popen([haproxy, "-db", "-q", "-f", str(config)], stdin=subprocess.DEVNULL)
    try:
        for port, supervisor in zip(backends, supervisors, strict=True):
            _wait_healthy(port, supervisor)
        _wait_healthy(lb, balancer)
        time.sleep(1.2)  # both backends pass haproxy's first health checks
        yield Cluster(lb, backends, supervisors, ws)
    finally:
        _stop(balancer)
        for supervisor in supervisors:
            _stop(supervisor)


@dataclass
class _Traffic:
    lock: threading.Lock = field(default_factory=threading.Lock)
    in_flight: int = 0
    answered: list[int] = field(default_factory=list)
    failed: list[tuple[int, str]] = field(default_factory=list)


def _token(port: int) -> str:
    status, answer = _mcp_call(port, "read_file", {"path": "builtin://read_file/SKILL.md"}, 0)
    assert status == 200, answer
    token: str = answer["result"]["structuredContent"]["skillToken"]
    return token


def _one(cluster: Cluster, id_: int, token: str) -> str | None:
    """Send request ``id_`` (MCP when even, REST when odd); None when answered right, else what went wrong."""
    arguments = {"path": str(cluster.workspace / f"req-{id_}.txt"), "skillToken": token}
    if id_ % 2 == 0:
        status, answer = _mcp_call(cluster.lb, "read_file", arguments, id_)
        if status != 200 or answer.get("id") != id_:
            return f"MCP {status}: {answer}"
        result = answer["result"]
        if result.get("isError") or result["structuredContent"]["content"].rstrip("\n") != f"1\tanswer {id_}":
            return f"MCP result: {result}"
        return None
    status, body = _request(cluster.lb, "POST", "/tools/read_file", arguments, {"X-Toolproof-Session": SESSION})
    if status != 200 or json.loads(body)["content"].rstrip("\n") != f"1\tanswer {id_}":
        return f"REST {status}: {body[:300]!r}"
    return None


def test_a_worker_killed_mid_run_loses_no_call_beyond_those_in_flight_and_tokens_cross_workers(
    cluster: Cluster,
) -> None:
    token = _token(cluster.lb)
    traffic = _Traffic()
    ids = iter(range(REQUESTS))
    ids_lock = threading.Lock()

    def client() -> None:
        while True:
            with ids_lock:
                id_ = next(ids, None)
            if id_ is None:
                return
            with traffic.lock:
                traffic.in_flight += 1
            try:
                problem = _one(cluster, id_, token)
            except (OSError, http.client.HTTPException, ValueError) as exc:
                problem = repr(exc)
            with traffic.lock:
                traffic.in_flight -= 1
                if problem is None:
                    traffic.answered.append(id_)
                else:
                    traffic.failed.append((id_, problem))

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    while len(traffic.answered) < KILL_AFTER and time.monotonic() < deadline:
        time.sleep(0.001)
    victim = _workers(cluster.supervisors[0].pid)[0]
    with traffic.lock:
        os.kill(victim, signal.SIGKILL)
        in_flight_at_kill = traffic.in_flight
        answered_at_kill = len(traffic.answered)
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)

    print(
        f"{REQUESTS} requests over {CLIENTS} clients; worker {victim} killed after {answered_at_kill} answers "
        f"with {in_flight_at_kill} in flight; {len(traffic.failed)} failed: {traffic.failed}"
    )
    assert answered_at_kill < REQUESTS, "the worker was killed after the run"
    assert len(traffic.failed) <= in_flight_at_kill, traffic.failed
    assert len(traffic.answered) == len(set(traffic.answered))
    assert sorted(traffic.answered + [id_ for id_, _ in traffic.failed]) == list(range(REQUESTS))
    # The supervisor replaced the dead worker.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        workers = _workers(cluster.supervisors[0].pid)
        if len(workers) == 2 and victim not in workers:
            break
        time.sleep(0.1)
    assert len(workers) == 2 and victim not in workers, workers


def test_a_gate_token_one_worker_issued_is_accepted_by_every_other(cluster: Cluster) -> None:
    token = _token(cluster.backends[0])  # issued by a worker of the first instance
    arguments = {"path": str(cluster.workspace / "req-7.txt"), "skillToken": token}
    answers = []
    for id_ in range(40):  # through the balancer, and straight to each instance: every worker answers some
        port = [cluster.lb, *cluster.backends][id_ % 3]
        status, answer = _mcp_call(port, "read_file", arguments, id_)
        answers.append((status, answer["result"].get("isError", False), answer["id"]))
    for id_ in range(40):
        status, body = _request(
            cluster.backends[id_ % 2], "POST", "/tools/read_file", arguments, {"X-Toolproof-Session": SESSION}
        )
        answers.append((status, b"answer 7" not in body, id_))

    assert answers == [(200, False, id_) for id_ in range(40)] * 2


def test_workers_sign_with_the_very_bytes_of_the_key_file_the_supervisor_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolproof.builtin.skills.gate import KEY_HEX_ENV, default_secret
    from toolproof.runtime.serve.workers import shared_secret_env

    monkeypatch.delenv("TOOLPROOF_GATE_SECRET", raising=False)
    monkeypatch.delenv(KEY_HEX_ENV, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    handed = shared_secret_env()
    key = (tmp_path / "toolproof" / "gate.key").read_bytes()
    monkeypatch.setenv(KEY_HEX_ENV, handed[KEY_HEX_ENV])
    (tmp_path / "toolproof" / "gate.key").unlink()  # a worker does not read the file

    assert default_secret() == key and len(key) == 32
    monkeypatch.setenv("TOOLPROOF_GATE_SECRET", "a-secret-of-at-least-16-bytes")
    assert shared_secret_env() == {}  # the workers inherit the variable


def test_a_second_server_on_a_port_our_workers_serve_refuses_to_start(cluster: Cluster) -> None:
    port = cluster.backends[0]
    command = [sys.executable, "-m", "toolproof", "serve", "http", "--workers", "2", "--port", str(port)]
    command += ["--workspace", str(cluster.workspace)]
    env = {**os.environ, "TOOLPROOF_GATE_SECRET": "a-secret-of-sixteen-bytes-or-more"}

    second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)

    assert second.returncode == 1, second.stderr
    assert f"cannot serve on 127.0.0.1:{port}: port {port} is already served by another toolproof server" in (
        second.stderr
    )
    assert "Traceback" not in second.stderr


def test_ctrl_c_stops_every_worker_without_a_traceback(tmp_path: Path) -> None:
    port = free_port()
    command = [sys.executable, "-m", "toolproof", "serve", "http", "--workers", "2", "--port", str(port)]
    command += ["--workspace", str(tmp_path)]
    env = {**os.environ, "TOOLPROOF_GATE_SECRET": "a-secret-of-sixteen-bytes-or-more"}
    server = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, start_new_session=True)
    try:
        _wait_healthy(port, server)
        os.killpg(server.pid, signal.SIGINT)  # as a terminal's Ctrl-C: to the supervisor and every worker
        _, stderr = server.communicate(timeout=30)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()

    assert server.returncode == 0, stderr
    assert b"Traceback" not in stderr and b"KeyboardInterrupt" not in stderr, stderr.decode()


def _serve_workers(port: int, host: str, workspace: Path, env: dict[str, str], *extra: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "toolproof", "serve", "http", "--workers", "2", "--host", host]
    command += ["--port", str(port), "--workspace", str(workspace), *extra]
    return subprocess.Popen(command, env=env, stderr=subprocess.PIPE, start_new_session=True)


def _stop_group(server: subprocess.Popen[bytes]) -> bytes:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
    _, stderr = server.communicate(timeout=30)
    return stderr


def test_a_second_address_on_the_same_port_is_served_alongside(cluster: Cluster) -> None:
    port = cluster.backends[0]
    env = {**os.environ, "TOOLPROOF_GATE_SECRET": "a-secret-of-sixteen-bytes-or-more"}
    beside = _serve_workers(port, "127.0.0.2", cluster.workspace, env)
    try:
        deadline = time.monotonic() + 20
        while True:
            assert beside.poll() is None, beside.communicate()[1].decode()
            try:
                with socket.create_connection(("127.0.0.2", port), timeout=1) as sock:
                    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.2\r\nConnection: close\r\n\r\n")
                    if sock.recv(64).startswith(b"HTTP/1.1 200"):
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the second address was not served"
            time.sleep(0.1)
    finally:
        _stop_group(beside)


def test_workers_serving_no_gated_tool_need_no_gate_key_file(tmp_path: Path) -> None:
    port = free_port()
    (tmp_path / "state").write_text("a file where the state folder should be", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "TOOLPROOF_GATE_SECRET"}
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    server = _serve_workers(port, "127.0.0.1", tmp_path, env, "--toolset", "aintern")
    try:
        _wait_healthy(port, server)
    finally:
        stderr = _stop_group(server)

    assert b"gate key" not in stderr, stderr.decode()


def test_a_rate_limit_counts_a_callers_calls_across_the_workers_together(tmp_path: Path) -> None:
    project = tmp_path / "limited"
    subprocess.run([sys.executable, "-m", "toolproof", "init", str(project)], check=True, capture_output=True)
    settings = project / "pyproject.toml"
    limit = '\n[[tool.toolproof.serve.rate-limits]]\ncalls = 5\nseconds = 600\nper = "address"\n'
    settings.write_text(settings.read_text(encoding="utf-8") + limit, encoding="utf-8")
    port = free_port()
    server = _serve_workers(port, "127.0.0.1", tmp_path, dict(os.environ), "--project", str(project))
    try:
        _wait_healthy(port, server)
        # Each on a new connection: the kernel spreads them over both workers (SO_REUSEPORT).
        answers = [_request(port, "POST", "/tools/word_count", {"text": "a b"}) for _ in range(12)]
    finally:
        _stop_group(server)

    assert [status for status, _ in answers] == [200] * 5 + [429] * 7
    assert json.loads(answers[-1][1])["code"] == "rate_limited"
