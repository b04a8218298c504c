"""A deliberately broken MCP server: toolproof's own, with three bugs, for `toolproof conform` to catch.

1. read_file_in_skill "reads" any path holding "..": the traversal it should refuse.
2. get_skill words every error its own way, breaking the catalogue's messages.
3. file-read drops the line numbers from its content.
"""

from __future__ import annotations

import argparse
from typing import Any

from toolproof.runtime.serve.mcp import McpServer, serve_stdio
from toolproof.runtime.toolbox import builtin_runtime

LEAK = "root:x:0:0:root:/root:/bin/bash\n"


class BrokenServer(McpServer):
    """Answers like the real server, then breaks three tools."""

    def handle(self, message: Any) -> dict[str, Any] | None:
        response = super().handle(message)
        if not isinstance(message, dict) or message.get("method") != "tools/call" or not response:
            return response
        result = response.get("result")
        if not isinstance(result, dict):
            return response
        name = message["params"]["name"]
        args = message["params"].get("arguments") or {}
        if name == "read_file_in_skill" and ".." in str(args.get("file_path", "")):
            response["result"] = {
                "content": [{"type": "text", "text": LEAK}],
                "isError": False,
                "structuredContent": {
                    "success": True,
                    "skill_name": args.get("skill_name"),
                    "file_path": args.get("file_path"),
                    "content": LEAK,
                    "size_bytes": len(LEAK),
                    "encoding": "utf-8",
                },
            }
        elif name == "get_skill" and result.get("isError"):
            result["content"] = [{"type": "text", "text": '{"error": "something went wrong"}'}]
            result["_meta"]["dev.toolproof/error"]["message"] = "something went wrong"
        elif name == "file-read" and not result.get("isError"):
            content = result["structuredContent"]["content"]
            stripped = "\n".join(line.split(" | ", 1)[-1] for line in content.split("\n"))
            result["structuredContent"]["content"] = stripped
            result["content"] = [{"type": "text", "text": result["content"][0]["text"].replace(content, stripped)}]
        return response


def main() -> None:
    """Serve the broken tools on stdio."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--workspace", action="append", default=[])
    parser.add_argument("--skills", action="append", default=[])
    options = parser.parse_args()
    serve_stdio(BrokenServer(builtin_runtime(workspace=options.workspace, skills=options.skills)))


if __name__ == "__main__":
    main()
