"""The official MCP SDK's stdio server with a naive line-window read tool, the peer in benchmarks/peers.py."""

from __future__ import annotations

import sys
from pathlib import Path

# This script's folder comes first on sys.path; drop it, so no benchmark there can shadow a module the SDK imports.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from mcp.server.mcpserver import MCPServer  # noqa: E402 (after the sys.path fix above)

ROOT = Path(sys.argv[1]).resolve()
app = MCPServer("sdk-peer", log_level="WARNING")


@app.tool()
def read_text(path: str, offset: int = 1, limit: int = 2000) -> str:
    """Read ``limit`` lines from line ``offset`` as ``N<tab>line``: the whole file is read and split each call."""
    target = (ROOT / path).resolve()
    if not target.is_relative_to(ROOT):
        raise ValueError("Path outside the root")
    lines = target.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    window = lines[offset - 1 : offset - 1 + limit]
    return "\n".join(f"{offset + i}\t{line}" for i, line in enumerate(window))


if __name__ == "__main__":
    app.run("stdio")
