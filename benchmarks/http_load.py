"""HTTP figures under a real load generator: toolproof's app with 1 and N workers, next to a bare ASGI app.

Run with ``make bench`` (or ``python benchmarks/http_load.py [--seconds S] [--workers N]``). ``wrk`` (Debian's
package, installed by the Makefile) drives, on loopback, a small read two ways: REST ``POST
/tools/read_file_in_skill`` and a stateless 2026-07-28 MCP ``tools/call`` of the same tool over ``/mcp``;
and, as the floor, ``benchmarks/_bare_asgi.py`` (answers ``{}`` at once) under the same hardened server
(``toolproof.runtime.serve.http_server.serve``: the same protocol, parser and event loop, the same
``SO_REUSEPORT`` sockets for N workers). For 1, 8 and 64 keep-alive connections it prints requests per
second, p50/p99 latency, each request-rate's ratio to the bare app's at the same connections and workers,
and the CPU time the server's processes spent a request (all their threads, user and system; read from
``/proc``). On a shared machine the rates swing with the neighbours' load; CPU a request swings less.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from _results import Row, record

HERE = Path(__file__).parent
CONNECTIONS = (1, 8, 64)
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
}
ARGS = {"skill_name": "calculator", "file_path": "examples/basic.py"}
# The bare app is loaded from its file (benchmarks/ is not a package), and health is asked over a raw socket.
_BARE = """
import importlib.util
spec = importlib.util.spec_from_file_location("_bare_asgi", {path!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
bare = module.app
from toolproof.runtime.serve.http import HttpLimits
from toolproof.runtime.serve.http_server import serve

class Bare:
    limits = HttpLimits()
    async def __call__(self, scope, receive, send):
        await bare(scope, receive, send)

serve(Bare(), host="127.0.0.1", port={port}, reuse_port=True)
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait(port: int, procs: list[subprocess.Popen[bytes]]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
                conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                if conn.recv(64).startswith(b"HTTP/1.1 200"):
                    return
        except OSError:
            if any(proc.poll() is not None for proc in procs):
                break
            time.sleep(0.05)
    raise RuntimeError(f"no server on port {port}")


def _start_toolproof(skills: Path, port: int, workers: int) -> list[subprocess.Popen[bytes]]:
    argv = [sys.executable, "-m", "toolproof", "serve", "http", "--skills", str(skills), "--port", str(port)]
    argv += ["--workers", str(workers), "--max-calls", "8"]
    return [subprocess.Popen(argv, stderr=subprocess.DEVNULL)]


def _start_bare(port: int, workers: int) -> list[subprocess.Popen[bytes]]:
    code = _BARE.format(path=str(HERE / "_bare_asgi.py"), port=port)
    return [subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.DEVNULL) for _ in range(workers)]


def _lua(body: Mapping[str, object], headers: Mapping[str, str]) -> str:
    lines = ['wrk.method = "POST"', f"wrk.body = {json.dumps(json.dumps(body))}"]
    lines += [f"wrk.headers[{json.dumps(k)}] = {json.dumps(v)}" for k, v in headers.items()]
    return "\n".join(lines) + "\n"


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}


def _ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    if match is None:
        raise ValueError(f"not a wrk duration: {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def _cpu_seconds(procs: list[subprocess.Popen[bytes]]) -> float | None:
    """CPU seconds (user and system, every thread) spent so far by ``procs`` and their children; None without /proc."""
    roots = {proc.pid for proc in procs}
    total = 0
    try:
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text(encoding="utf-8").rsplit(")", 1)[1].split()
            except OSError:  # the process ended meanwhile
                continue
            if int(stat.parent.name) in roots or int(fields[1]) in roots:  # fields[1]: the parent's pid
                total += int(fields[11]) + int(fields[12])  # utime, stime
    except OSError:
        return None
    return total / os.sysconf("SC_CLK_TCK")


def _wrk(
    wrk: str, url: str, script: Path, connections: int, seconds: int, procs: list[subprocess.Popen[bytes]]
) -> tuple[float, float, float, int, float | None]:
    """Requests per second, p50 and p99 latency (ms), non-2xx answers and server CPU us a request of one wrk run."""
    argv = [wrk, f"-t{min(connections, 4)}", f"-c{connections}", f"-d{seconds:g}s", "--latency", "-s", str(script), url]
    before = _cpu_seconds(procs)
    out = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=seconds + 30).stdout
    after = _cpu_seconds(procs)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p50 = _ms(re.search(r"^\s*50%\s+(\S+)", out, re.M).group(1))  # type: ignore[union-attr]
    p99 = _ms(re.search(r"^\s*99%\s+(\S+)", out, re.M).group(1))  # type: ignore[union-attr]
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    count = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    cpu = (after - before) / count * 1e6 if before is not None and after is not None and count else None
    return rps, p50, p99, int(bad.group(1)) if bad else 0, cpu


def _median(
    runs: list[tuple[float, float, float, int, float | None]],
) -> tuple[float, float, float, int, float | None]:
    """Each figure's median over ``runs`` (non-2xx answers: the most of any run)."""
    cpus = [run[4] for run in runs if run[4] is not None]
    return (
        statistics.median(run[0] for run in runs),
        statistics.median(run[1] for run in runs),
        statistics.median(run[2] for run in runs),
        max(run[3] for run in runs),
        statistics.median(cpus) if cpus else None,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=2, help="Seconds per wrk run.")
    parser.add_argument("--workers", type=int, default=2, help="N, the workers of the scaled-out runs.")
    parser.add_argument("--rounds", type=int, default=1, help="Runs of each figure; the median is shown.")
    parser.add_argument("--quick", action="store_true", help="1 s a run")
    options = parser.parse_args()
    if options.quick:
        options.seconds = 1
    wrk = shutil.which("wrk")
    if wrk is None:
        sys.exit("benchmarks/http_load.py needs wrk: `make` installs it (apt-get install -y wrk)")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        skills = base / "skills"
        (skills / "calculator" / "examples").mkdir(parents=True)
        (skills / "calculator" / "SKILL.md").write_text(
            "---\nname: calculator\ndescription: Adds numbers.\n---\n# Calculator\n", encoding="utf-8"
        )
        (skills / "calculator" / "examples" / "basic.py").write_text(
            "def add(a, b):\n    return a + b\n", encoding="utf-8"
        )
        scripts = {
            "REST read": ("/tools/read_file_in_skill", base / "rest.lua"),
            "MCP tools/call": ("/mcp", base / "mcp.lua"),
            "bare ASGI app": ("/", base / "bare.lua"),
        }
        scripts["REST read"][1].write_text(_lua(ARGS, {"Content-Type": "application/json"}), encoding="utf-8")
        message = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "read_file_in_skill", "arguments": ARGS, "_meta": ENVELOPE},
        }
        mcp_headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": "read_file_in_skill",
        }
        scripts["MCP tools/call"][1].write_text(_lua(message, mcp_headers), encoding="utf-8")
        scripts["bare ASGI app"][1].write_text(_lua({}, {"Content-Type": "application/json"}), encoding="utf-8")

        names = ("bare ASGI app", "REST read", "MCP tools/call")
        runs: dict[tuple[str, int, int], list[tuple[float, float, float, int, float | None]]] = {}
        for workers in (1, options.workers):
            ports = {"bare": _free_port(), "toolproof": _free_port()}
            procs = {"bare": _start_bare(ports["bare"], workers)}
            procs["toolproof"] = _start_toolproof(skills, ports["toolproof"], workers)
            try:
                for kind, port in ports.items():
                    _wait(port, procs[kind])
                for connections in CONNECTIONS:
                    # The three, back to back and in rounds, so a neighbour's load falls on each alike.
                    for round_ in range(-1, options.rounds):  # round -1 warms up
                        for name in names:
                            kind = "bare" if name == "bare ASGI app" else "toolproof"
                            path, script = scripts[name]
                            url = f"http://127.0.0.1:{ports[kind]}{path}"
                            seconds = 1 if round_ < 0 else options.seconds
                            measured = _wrk(wrk, url, script, connections, seconds, procs[kind])
                            if round_ >= 0:
                                runs.setdefault((name, workers, connections), []).append(measured)
            finally:
                for group in procs.values():
                    for proc in group:
                        proc.terminate()
                for group in procs.values():
                    for proc in group:
                        proc.wait(timeout=40)
        results = {key: _median(value) for key, value in runs.items()}

    print(
        f"\nHTTP on loopback under wrk ({options.seconds:g} s a run, median of {options.rounds}), small read;"
        " ratios to the bare ASGI app"
    )
    print(
        f"{'':18} {'workers':>7} {'conns':>5} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}  {'x bare req/s':>12}"
        f"  {'CPU us/req':>10}"
    )
    for workers in (1, options.workers):
        for name in ("bare ASGI app", "REST read", "MCP tools/call"):
            for connections in CONNECTIONS:
                rps, p50, p99, bad, cpu = results[name, workers, connections]
                ratio = rps / results["bare ASGI app", workers, connections][0]
                flag = f"  ({bad} non-2xx)" if bad else ""
                shown = f"{cpu:>10.0f}" if cpu is not None else f"{'-':>10}"
                print(
                    f"{name:18} {workers:>7} {connections:>5} {rps:>9.0f} {p50:>8.2f} {p99:>8.2f}  {ratio:>12.2f}"
                    f"  {shown}{flag}"
                )
    _record(results, options.workers, quick=options.quick)


_SYSTEMS = {"toolproof": "REST read", "toolproof MCP": "MCP tools/call", "floor": "bare ASGI app"}


def _record(results: Mapping[tuple[str, int, int], tuple[float, float, float, int, float | None]], n: int, *,
            quick: bool) -> None:  # fmt: skip
    """Time a request (1 / req/s) and p99 latency, each system a column, into results.json."""
    rows: list[Row] = []
    for workers in (1, n):
        for connections in CONNECTIONS:
            rows.append((
                f"HTTP small read, {connections} connections, {workers} worker{'s' if workers > 1 else ''}",
                "us/req",
                {system: 1e6 / results[name, workers, connections][0] for system, name in _SYSTEMS.items()},
            ))  # fmt: skip
    rows.append((
        f"HTTP small read p99 latency, {CONNECTIONS[-1]} connections, 1 worker",
        "ms",
        {system: results[name, 1, CONNECTIONS[-1]][2] for system, name in _SYSTEMS.items()},
    ))  # fmt: skip
    systems = {
        "toolproof": "POST /tools/read_file_in_skill (REST)",
        "toolproof MCP": "stateless 2026-07-28 tools/call over /mcp",
        "floor": "benchmarks/_bare_asgi.py under the same server",
    }
    record("http", "HTTP on loopback under wrk (time a request = 1 / req/s)", rows, systems, quick=quick)


if __name__ == "__main__":
    main()
