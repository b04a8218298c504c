"""Serving figures: MCP over stdio next to the official SDK's server and a bare pipe, and HTTP throughput.

Run with ``make bench``. Every stdio server is driven by the same raw
newline-JSON-RPC client: sequential ``tools/call`` round trips of
read_file_in_skill (the echo server answers every request empty, the floor;
``_bare_read_server`` does the same read with nothing else, the floor for the work),
and process start to first result (spawn, initialize, first call). HTTP:
requests per second for a small read with uvicorn on loopback, next to uvicorn
serving a bare ASGI app that answers every request at once.
"""

from __future__ import annotations

import http.client
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
ARGS = {"skill_name": "calculator", "file_path": "examples/basic.py"}


class _Pipe:
    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0

    def request(self, method: str, params: dict[str, Any]) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.next_id += 1
        self.proc.stdin.write(
            json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}).encode() + b"\n"
        )
        self.proc.stdin.flush()
        while True:
            message = json.loads(self.proc.stdout.readline())
            if message.get("id") == self.next_id:
                return message

    def initialize(self) -> None:
        self.request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
        )
        assert self.proc.stdin is not None
        self.proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        self.proc.stdin.flush()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def _servers(skills: Path) -> dict[str, list[str]]:
    return {
        "bare JSON-RPC echo over pipes": [sys.executable, str(HERE / "_echo_server.py")],
        "bare JSON-RPC loop doing the same read": [sys.executable, str(HERE / "_bare_read_server.py"), str(skills)],
        "toolproof serve mcp": [sys.executable, "-m", "toolproof", "serve", "mcp", "--skills", str(skills)],
        "official SDK stdio server (mcp MCPServer)": [sys.executable, str(HERE / "_sdk_server.py"), str(skills)],
    }


def _round_trips(argv: list[str], calls: int) -> list[float]:
    pipe = _Pipe(argv)
    pipe.initialize()
    for _ in range(50):  # warm up
        pipe.request("tools/call", {"name": "read_file_in_skill", "arguments": ARGS})
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        answer = pipe.request("tools/call", {"name": "read_file_in_skill", "arguments": ARGS})
        times.append(time.perf_counter() - start)
        assert "error" not in answer, answer
    pipe.close()
    return times


def _start_to_first_result(argv: list[str]) -> float:
    start = time.perf_counter()
    pipe = _Pipe(argv)
    pipe.initialize()
    pipe.request("tools/call", {"name": "read_file_in_skill", "arguments": ARGS})
    elapsed = time.perf_counter() - start
    pipe.close()
    return elapsed


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rps(port: int, path: str, body: bytes, seconds: float, clients: int = 4) -> float:
    counts = [0] * clients
    stop = time.monotonic() + seconds

    def client(i: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        while time.monotonic() < stop:
            connection.request("POST", path, body, {"content-type": "application/json"})
            response = connection.getresponse()
            response.read()
            assert response.status == 200, response.status
            counts[i] += 1
        connection.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts) / seconds


def _uvicorn(argv: list[str], port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("uvicorn did not start")


def _http(skills: Path) -> dict[str, float]:
    figures: dict[str, float] = {}
    body = json.dumps(ARGS).encode()
    runs: dict[str, tuple[list[str], str]] = {}
    port = _free_port()
    runs["uvicorn + bare ASGI app"] = (
        [sys.executable, "-m", "uvicorn", "--app-dir", str(HERE), "--port", str(port), "--log-level", "warning",
         "--no-access-log", "_bare_asgi:app"],
        "/",
    )  # fmt: skip
    port2 = _free_port()
    runs["toolproof serve http"] = (
        [sys.executable, "-m", "toolproof", "serve", "http", "--skills", str(skills), "--port", str(port2)],
        "/tools/read_file_in_skill",
    )
    for name, (argv, path) in runs.items():
        chosen = port if "bare" in name else port2
        proc = _uvicorn(argv, chosen)
        try:
            _rps(chosen, path, body, 0.5)  # warm up
            figures[name] = statistics.median(_rps(chosen, path, body, 2.0) for _ in range(3))
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    return figures


def _table(title: str, rows: dict[str, float], unit: str, baseline: str, fmt: Callable[[float], str]) -> None:
    base = rows[baseline]
    width = max(len(k) for k in rows)
    print(f"\n{title}")
    for name, value in rows.items():
        print(f"  {name:<{width}}  {fmt(value):>12} {unit}  {value / base:6.2f}x {baseline}")


def main() -> None:
    """Print the stdio and HTTP figures."""
    with tempfile.TemporaryDirectory() as tmp:
        skills = Path(tmp) / "skills"
        (skills / "calculator" / "examples").mkdir(parents=True)
        (skills / "calculator" / "examples" / "basic.py").write_text(
            "def add(a, b):\n    return a + b\n", encoding="utf-8"
        )
        servers = _servers(skills)
        trips = {name: statistics.median(_round_trips(argv, 500)) * 1e6 for name, argv in servers.items()}
        starts = {
            name: statistics.median(_start_to_first_result(argv) for _ in range(7)) * 1e3
            for name, argv in servers.items()
        }
        http_rps = _http(skills)
    floor = "bare JSON-RPC echo over pipes"
    _table("stdio: sequential tools/call round trip (median of 500)", trips, "us", floor, lambda v: f"{v:.1f}")
    same = "bare JSON-RPC loop doing the same read"
    _table("stdio: the same round trips against the loop doing the same read", trips, "us", same, lambda v: f"{v:.1f}")
    _table("stdio: process start to first result (median of 7)", starts, "ms", floor, lambda v: f"{v:.1f}")
    _table("HTTP on loopback, 4 keep-alive clients (median of 3 x 2 s)", http_rps, "req/s", "uvicorn + bare ASGI app",
           lambda v: f"{v:.0f}")  # fmt: skip


if __name__ == "__main__":
    main()
