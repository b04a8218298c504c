"""toolproof next to its peers and the physical floors: MCP servers over stdio, one raw client for all.

Run with ``make bench`` (``--quick`` for fewer rounds). Systems: ``toolproof serve mcp`` (the
gateway read_file, with its skill token; file-read for the whole file), the reference MCP
filesystem server (npm @modelcontextprotocol/server-filesystem, read_text_file with head/tail;
it has no middle window), and an official-SDK MCPServer with a naive read tool
(_peers_sdk_server.py). Floors: the echo JSON-RPC pipe (_echo_server.py) for start-up and round
trips, and ``cat``, ``wc -l``, ``head -n 2000``, ``tail -n +K | head -n 2000`` for the files.
Every case runs once untimed, then once per round in a rotated order; figures are medians. A
"first" read comes right after the file is rewritten (new mtime), so toolproof's line index is
cold; a "repeated" read is the same call again. Its rows go to benchmarks/results.json and
benchmarks/results.svg (``_results``).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _peers_rpc import RpcPipe
from _results import record

HERE = Path(__file__).parent
ROOT = HERE.parent
REFERENCE_JS = ROOT / ".venv/node/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
WINDOW = 2000
SIZES_MIB = (1, 4, 10)
TOOLPROOF, REFERENCE, SDK, FLOOR = "toolproof", "reference server (node)", "SDK MCPServer (naive)", "floor"
SERVERS = (TOOLPROOF, REFERENCE, SDK)

Op = Callable[[], object]


def _source_like(path: Path, size: int) -> int:
    """About 59-byte lines of code, one in 300 with a non-ASCII comment; returns the line count."""
    rng = random.Random(size)
    words = ["self", "value", "result", "items", "config", "index", "return", "async", "await", "data"]
    extras = ["# café", "# — note", "# über", "# → next", "# straße"]
    out, total, count = [], 0, 0
    while total < size - 200:
        line = "    " * rng.randint(0, 3) + " ".join(rng.choice(words) for _ in range(rng.randint(3, 8)))
        if count % 300 == 0:
            line += "  " + rng.choice(extras)
        encoded = (line + "\n").encode("utf-8")
        out.append(encoded)
        total += len(encoded)
        count += 1
    path.write_bytes(b"".join(out))
    return count


def _argv(system: str, ws: Path) -> list[str]:
    if system == TOOLPROOF:
        return [sys.executable, "-m", "toolproof", "serve", "mcp", "--workspace", str(ws)]
    if system == REFERENCE:
        return ["node", str(REFERENCE_JS), str(ws)]
    if system == SDK:
        return [sys.executable, str(HERE / "_peers_sdk_server.py"), str(ws)]
    return [sys.executable, str(HERE / "_echo_server.py")]


class _Server:
    """A started, initialized server with its read call for each workload."""

    def __init__(self, system: str, ws: Path) -> None:
        self.system = system
        self.ws = ws
        self.pipe = RpcPipe(_argv(system, ws))
        self.pipe.initialize()
        self.pipe.request("tools/list", {})
        self.token = ""
        if system == TOOLPROOF:
            skill = self.pipe.call("read_file", {"path": "builtin://read_file/SKILL.md"})
            self.token = str(skill["structuredContent"]["skillToken"])

    def window(self, name: str, offset: int, total: int) -> Op | None:
        """The call that reads ``WINDOW`` lines from line ``offset`` of ``name``, or None if it has none."""
        p = self.pipe
        if self.system == TOOLPROOF:
            args = {"path": name, "offset": offset, "limit": WINDOW, "skillToken": self.token}
            return lambda: p.call("read_file", args)
        if self.system == SDK:
            sdk_args = {"path": name, "offset": offset, "limit": WINDOW}
            return lambda: p.call("read_text", sdk_args)
        path = str(self.ws / name)
        if offset == 1:
            return lambda: p.call("read_text_file", {"path": path, "head": WINDOW})
        if offset + WINDOW - 1 >= total:
            return lambda: p.call("read_text_file", {"path": path, "tail": total - offset + 1})
        return None

    def small(self) -> tuple[str, dict[str, Any]]:
        """The tool and arguments of the small read."""
        if self.system == TOOLPROOF:
            return "read_file", {"path": "small.py", "skillToken": self.token}
        if self.system == SDK:
            return "read_text", {"path": "small.py"}
        return "read_text_file", {"path": str(self.ws / "small.py")}

    def whole(self, name: str) -> Op:
        """The call that reads all of ``name``."""
        p = self.pipe
        if self.system == TOOLPROOF:
            args: dict[str, Any] = {"path": name, "max_lines": 1_000_000}
            return lambda: p.call("file-read", args)
        if self.system == SDK:
            sdk_args = {"path": name, "limit": 1_000_000}
            return lambda: p.call("read_text", sdk_args)
        ref_args = {"path": str(self.ws / name)}
        return lambda: p.call("read_text_file", ref_args)


def _timed(op: Op) -> float:
    start = time.perf_counter()
    op()
    return time.perf_counter() - start


def _rotate(items: list[Any], r: int) -> list[Any]:
    k = r % len(items)
    return items[k:] + items[:k]


def _spawn(cmd: str) -> Op:
    return lambda: subprocess.run(["sh", "-c", cmd], stdout=subprocess.DEVNULL, check=True)


def _startup(ws: Path, rounds: int) -> dict[str, float]:
    def start(system: str) -> float:
        t0 = time.perf_counter()
        pipe = RpcPipe(_argv(system, ws))
        pipe.initialize()
        pipe.request("tools/list", {})
        elapsed = time.perf_counter() - t0
        pipe.close()
        return elapsed

    systems = [*SERVERS, FLOOR]
    samples: dict[str, list[float]] = {s: [] for s in systems}
    for r in range(rounds):
        for s in _rotate(systems, r):
            samples[s].append(start(s))
    return {s: statistics.median(v) * 1e3 for s, v in samples.items()}


def _small_reads(servers: dict[str, _Server], echo: RpcPipe, rounds: int) -> tuple[dict[str, float], dict[str, float]]:
    ops: dict[str, Op] = {FLOOR: lambda: echo.request("tools/call", {})}
    for s, server in servers.items():
        tool, args = server.small()
        ops[s] = lambda p=server.pipe, t=tool, a=args: p.call(t, a)  # type: ignore[misc]
    for op in ops.values():
        for _ in range(30):
            op()
    samples: dict[str, list[float]] = {s: [] for s in ops}
    for r in range(rounds):
        for s in _rotate(list(ops), r):
            samples[s].extend(_timed(ops[s]) for _ in range(50))
    median = {s: statistics.median(v) * 1e6 for s, v in samples.items()}
    p99 = {s: statistics.quantiles(v, n=100)[98] * 1e6 for s, v in samples.items()}
    return median, p99


def _windows(servers: dict[str, _Server], ws: Path, rounds: int) -> dict[str, dict[str, float]]:
    figures: dict[str, dict[str, float]] = {}
    stamp = [time.time_ns()]

    def rewrite(path: Path, data: bytes) -> None:
        path.write_bytes(data)
        stamp[0] += 1_000_000  # a new mtime every time, even inside one kernel clock tick
        os.utime(path, ns=(stamp[0], stamp[0]))

    for mib in SIZES_MIB:
        name = f"src_{mib}m.txt"
        path = ws / name
        total = _source_like(path, mib * 1024 * 1024)
        data = path.read_bytes()
        for where, offset in (("start", 1), ("middle", total // 2), ("end", total - WINDOW + 1)):
            floor_cmd = f"head -n {WINDOW} {path}" if offset == 1 else f"tail -n +{offset} {path} | head -n {WINDOW}"
            ops: dict[str, Op] = {FLOOR: _spawn(floor_cmd)}
            for s, server in servers.items():
                op = server.window(name, offset, total)
                if op is not None:
                    ops[s] = op
            for op in ops.values():
                op()  # once untimed: what a process pays once (imports, a JIT) is no part of a read
            for mode in ("first", "repeated"):
                samples: dict[str, list[float]] = {s: [] for s in ops}
                for r in range(rounds):
                    for s in _rotate(list(ops), r):
                        if mode == "first":
                            rewrite(path, data)
                        else:
                            ops[s]()
                        samples[s].append(_timed(ops[s]))
                figures[f"{mode} 2000-line window, {where} of {mib} MiB"] = {
                    s: statistics.median(v) * 1e3 for s, v in samples.items()
                }
    return figures


def _whole(servers: dict[str, _Server], ws: Path, rounds: int) -> dict[str, dict[str, float]]:
    path = ws / "src_1m.txt"
    ops: dict[str, Op] = {"floor: cat": _spawn(f"cat {path}"), "floor: wc -l": _spawn(f"wc -l {path}")}
    ops.update({s: server.whole(path.name) for s, server in servers.items()})
    for op in ops.values():
        op()
    samples: dict[str, list[float]] = {s: [] for s in ops}
    for r in range(rounds):
        for s in _rotate(list(ops), r):
            samples[s].append(_timed(ops[s]))
    medians = {s: statistics.median(v) * 1e3 for s, v in samples.items()}
    floor = min(medians["floor: cat"], medians["floor: wc -l"])
    row = {s: v for s, v in medians.items() if not s.startswith("floor")}
    row[FLOOR] = floor
    return {"whole 1 MiB file (floor: cat / wc -l)": row, "_floors": medians}


def _memory(ws: Path, reads: int) -> dict[str, dict[str, float]]:
    """Resident memory of fresh servers: idle (initialized, tools listed), then after ``reads`` small reads."""
    servers = {s: _Server(s, ws) for s in SERVERS}
    echo = RpcPipe(_argv(FLOOR, ws))
    try:
        echo.request("ping", {})  # started: its interpreter is up, as the servers' are
        idle = {s: server.pipe.rss_kib() / 1024 for s, server in servers.items()}
        idle[FLOOR] = echo.rss_kib() / 1024
        after: dict[str, float] = {}
        for s, server in servers.items():
            tool, args = server.small()
            server.pipe.pipelined(tool, args, reads)
            after[s] = server.pipe.rss_kib() / 1024
        echo.pipelined("x", {}, reads)
        after[FLOOR] = echo.rss_kib() / 1024
    finally:
        for server in servers.values():
            server.pipe.close()
        echo.close()
    return {"RSS idle": idle, f"RSS after {reads:,} small reads": after}


def _print(rows: list[tuple[str, str, dict[str, float]]]) -> None:
    systems = [*SERVERS, FLOOR]
    print(f"\n{'workload':<48} {'unit':>4}  " + "  ".join(f"{s[:22]:>22}" for s in systems))
    for workload, unit, values in rows:
        fastest = min(values.values())
        cells = []
        for s in systems:
            v = values.get(s)
            cells.append(f"{'n/a':>22}" if v is None else f"{v:>10.3g} ({v / fastest:>6.2f}x)".rjust(22))
        print(f"{workload:<48} {unit:>4}  " + "  ".join(cells))
    print("\n(x = ratio to the fastest system of the row, from the same run)")


def main() -> None:
    """Run every workload, print the table, record the section in results.json and results.svg."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, 2,000 reads for memory")
    quick = parser.parse_args().quick
    rounds, reads = (3, 2_000) if quick else (7, 10_000)
    if not REFERENCE_JS.exists():
        sys.exit(f"missing {REFERENCE_JS}: run `make` (the Makefile installs the reference server)")
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        (ws / "small.py").write_text(
            "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(10)), encoding="utf-8"
        )
        rows: list[tuple[str, str, dict[str, float]]] = [("start-up to first tools/list", "ms", _startup(ws, rounds))]
        servers = {s: _Server(s, ws) for s in SERVERS}
        echo = RpcPipe(_argv(FLOOR, ws))
        try:
            median, p99 = _small_reads(servers, echo, rounds + 3)
            rows += [("small read round trip, median", "us", median), ("small read round trip, p99", "us", p99)]
            rows += [(k, "ms", v) for k, v in _windows(servers, ws, rounds).items()]
            whole = _whole(servers, ws, rounds)
            floors = whole.pop("_floors")
            rows += [(k, "ms", v) for k, v in whole.items()]
        finally:
            for server in servers.values():
                server.pipe.close()
            echo.close()
        rows += [(k, "MiB", v) for k, v in _memory(ws, reads).items()]
    _print(rows)
    print(f"whole-file floors: cat {floors['floor: cat']:.2f} ms, wc -l {floors['floor: wc -l']:.2f} ms")
    systems = {
        TOOLPROOF: " ".join(_argv(TOOLPROOF, Path("WORKSPACE"))[1:]),
        REFERENCE: "@modelcontextprotocol/server-filesystem (read_text_file)",
        SDK: "benchmarks/_peers_sdk_server.py (read_text)",
        FLOOR: "echo pipe; cat / wc -l; head -n 2000; tail -n +K | head -n 2000",
    }
    record("peers", "MCP servers over stdio, one raw client", rows, systems, quick=quick)
    print(f"peers: {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
