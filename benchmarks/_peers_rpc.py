"""One raw newline-JSON-RPC client over a child's pipes, shared by every stdio system in benchmarks/peers.py."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import orjson

__all__ = ["RpcPipe"]

_INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}


class RpcPipe:
    """A child process spoken to in newline-delimited JSON-RPC; answers are matched by id."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin
        self._out = self.proc.stdout
        self._next_id = 0

    def _send(self, method: str, params: dict[str, Any]) -> int:
        self._next_id += 1
        self._in.write(orjson.dumps({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params}))
        self._in.write(b"\n")
        return self._next_id

    def _answer(self, wanted: int) -> dict[str, Any]:
        while True:
            line = self._out.readline()
            if not line:
                raise RuntimeError(f"{self.proc.args!r} closed its stdout")
            message: dict[str, Any] = orjson.loads(line)
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{self.proc.args!r}: {message['error']}")
                return message

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send one request and return its answer (other messages are skipped)."""
        wanted = self._send(method, params)
        self._in.flush()
        return self._answer(wanted)

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """One tools/call; a tool error (isError) raises, so a figure is never of a failure."""
        result: dict[str, Any] = self.request("tools/call", {"name": tool, "arguments": arguments})["result"]
        if result.get("isError"):
            raise RuntimeError(f"{tool}: {result['content'][0]['text'][:300]}")
        return result

    def pipelined(self, tool: str, arguments: dict[str, Any], count: int, batch: int = 100) -> None:
        """``count`` calls, ``batch`` in flight at a time (for the memory workload, not for timing)."""
        done = 0
        while done < count:
            n = min(batch, count - done)
            pending = {self._send("tools/call", {"name": tool, "arguments": arguments}) for _ in range(n)}
            self._in.flush()
            while pending:  # answers may come in any order
                line = self._out.readline()
                if not line:
                    raise RuntimeError(f"{self.proc.args!r} closed its stdout")
                message = orjson.loads(line)
                if message.get("id") in pending:
                    pending.discard(message["id"])
                    if "error" in message or message["result"].get("isError"):
                        raise RuntimeError(f"{tool} failed under load: {message}")
            done += n

    def initialize(self) -> None:
        """The MCP handshake: initialize, then the initialized notification."""
        self.request("initialize", _INIT)
        self._in.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self._in.flush()

    def rss_kib(self) -> int:
        """The child's resident set size (VmRSS) in KiB."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text(encoding="utf-8").splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def close(self) -> None:
        """Close stdin and wait for the child to leave."""
        self._in.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._out.close()
