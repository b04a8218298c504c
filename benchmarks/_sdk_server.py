"""The official MCP SDK's stdio server exposing read_file_in_skill, for the side-by-side benchmark."""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

SKILLS = Path(sys.argv[1])
app = MCPServer("sdk-bench", log_level="WARNING")


@app.tool()
def read_file_in_skill(skill_name: str, file_path: str) -> str:
    """Read a file inside a skill's folder (the plain seed recipe, for comparison)."""
    skill_dir = (SKILLS / skill_name).resolve()
    target = (skill_dir / file_path).resolve()
    if not target.is_relative_to(skill_dir):
        raise ValueError("Path traversal detected: cannot access files outside skill folder")
    return target.read_text(encoding="utf-8")


if __name__ == "__main__":
    app.run("stdio")
