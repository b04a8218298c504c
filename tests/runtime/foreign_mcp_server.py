"""Toolproof's own MCP server, bent one way (``--mode``), for `toolproof conform` to judge.

- ``foreign``: an honest server in another language: every answer as ours, but no
  ``_meta["dev.toolproof/error"]`` (conform must read the codes from the texts).
- ``constant_error``: every call answers ``isError`` with the text "nope" and no code.
- ``wrong_text``: errors keep their ``_meta`` code, but their text is not the contract's rendering.
- ``bad_output``: a success's ``structuredContent`` loses its first required field.
- ``no_structured``: a success carries no ``structuredContent``.
- ``loose_schema``: ``tools/list`` gives every tool ``{"type": "object"}`` and no ``outputSchema``.
- ``jsonrpc_1``: every answer says ``"jsonrpc": "1.0"``.
- ``both``: a ``tools/call`` answer holds a result and an error.
"""

from __future__ import annotations

import argparse
from typing import Any

from toolproof.runtime.serve.mcp import McpServer, serve_stdio
from toolproof.runtime.toolbox import builtin_runtime


class ForeignServer(McpServer):
    """Answers like the real server, then bends the answer as ``mode`` says."""

    mode = "foreign"

    def handle(self, message: Any) -> dict[str, Any] | None:
        response = super().handle(message)
        if response is None or not isinstance(message, dict):
            return response
        if self.mode == "jsonrpc_1":
            return {**response, "jsonrpc": "1.0"}
        result = response.get("result")
        if not isinstance(result, dict):
            return response
        if message.get("method") == "tools/list" and self.mode == "loose_schema":
            for tool in result["tools"]:
                tool["inputSchema"] = {"type": "object"}
                tool.pop("outputSchema", None)
        if message.get("method") == "tools/call":
            self._bend(result)
            if self.mode == "both":
                response["error"] = {"code": -32603, "message": "and an error"}
        return response

    def _bend(self, result: dict[str, Any]) -> None:
        failed = result.get("isError")
        if self.mode == "foreign":
            result.pop("_meta", None)
        elif self.mode == "constant_error":
            result.clear()
            result.update({"content": [{"type": "text", "text": "nope"}], "isError": True})
        elif self.mode == "wrong_text" and failed:
            result["content"] = [{"type": "text", "text": "ERROR: something went wrong"}]
        elif self.mode == "bad_output" and not failed:
            structured = result["structuredContent"]
            structured.pop(next(iter(structured)))
        elif self.mode == "no_structured" and not failed:
            result.pop("structuredContent", None)


def main() -> None:
    """Serve the built-in tools on stdio, bent as ``--mode`` says."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True)
    parser.add_argument("--workspace", action="append", default=[])
    parser.add_argument("--skills", action="append", default=[])
    options = parser.parse_args()
    server = ForeignServer(builtin_runtime(workspace=options.workspace, skills=options.skills))
    server.mode = options.mode
    serve_stdio(server)


if __name__ == "__main__":
    main()
