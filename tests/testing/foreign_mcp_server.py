"""Toolproof's own MCP server, bent as ``--mode`` says (modes join with commas), for `toolproof conform` to judge.

- ``foreign``: an honest server in another language: every answer as ours, but no
  ``_meta["dev.toolproof/error"]`` (conform must read the codes from the texts).
- ``constant_error``: every call answers ``isError`` with the text "nope" and no code.
- ``wrong_text``: errors keep their ``_meta`` code, but their text is not the contract's rendering.
- ``wrong_success_text``: a success's text gains a trailing "!".
- ``wrong_hint``: an error's text shows another hint than the one its ``_meta`` (and the catalogue) names.
- ``error_structured``: an error's ``_meta`` output (``render.error_output``) is also its ``structuredContent``.
- ``bad_output``: a success's ``structuredContent`` loses its first required field.
- ``no_structured``: a success carries no ``structuredContent``.
- ``loose_schema``: ``tools/list`` gives every tool ``{"type": "object"}`` and no ``outputSchema``.
- ``unstructured``: as a server of a revision before 2025-06-18: ``tools/list`` gives no
  ``outputSchema`` (nor ``title``), and a success no ``structuredContent``.
- ``args_as_rpc``: invalid arguments are answered with a JSON-RPC ``-32602`` error, not ``isError``.
- ``annotated``: every listed schema names ``$schema`` (draft-07) and carries a ``$comment``
  wherever a schema stands, and each ``type`` is a one-element list.
- ``titled``: every listed input property gains a ``title``.
- ``misdescribed``: every listed tool's description gains a sentence, its title is another, and
  its ``readOnlyHint`` is left out (MCP's default: false).
- ``blank_lines``: an empty line and a line of white space before each message.
- ``jsonrpc_1``: every answer says ``"jsonrpc": "1.0"``.
- ``both``: a ``tools/call`` answer holds a result and an error.

``--revision`` makes ``initialize`` answer with that ``protocolVersion`` whatever the client asked.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, Any, BinaryIO, cast

from toolproof.runtime.serve.mcp import ERROR_META_KEY, McpServer, serve_stdio
from toolproof.runtime.toolbox import builtin_runtime

DRAFT_07 = "http://json-schema.org/draft-07/schema#"


class ForeignServer(McpServer):
    """Answers like the real server, then bends the answer as ``modes`` say."""

    modes: frozenset[str] = frozenset({"foreign"})
    revision: str | None = None

    def handle(self, message: Any) -> dict[str, Any] | None:
        response = super().handle(message)
        if response is None or not isinstance(message, dict):
            return response
        if "jsonrpc_1" in self.modes:
            return {**response, "jsonrpc": "1.0"}
        result = response.get("result")
        if not isinstance(result, dict):
            return response
        if message.get("method") == "initialize" and self.revision is not None:
            result["protocolVersion"] = self.revision
        if message.get("method") == "tools/list":
            for tool in result["tools"]:
                self._bend_listing(tool)
        if message.get("method") == "tools/call":
            error = (result.get("_meta") or {}).get(ERROR_META_KEY) or {}
            if "args_as_rpc" in self.modes and error.get("code") == "invalid_arguments":
                return {"jsonrpc": "2.0", "id": response["id"], "error": {"code": -32602, "message": error["message"]}}
            self._bend(result)
            if "both" in self.modes:
                response["error"] = {"code": -32603, "message": "and an error"}
        return response

    def _bend_listing(self, tool: dict[str, Any]) -> None:
        if "loose_schema" in self.modes:
            tool["inputSchema"] = {"type": "object"}
            tool.pop("outputSchema", None)
        if "unstructured" in self.modes:
            tool.pop("outputSchema", None)
            tool.pop("title", None)
        if "annotated" in self.modes:
            for key in ("inputSchema", "outputSchema"):
                if key in tool:
                    tool[key] = {"$schema": DRAFT_07, **_annotated(tool[key])}
        if "misdescribed" in self.modes:
            tool["description"] += " Also writes it."
            tool["title"] = "Another title"
            tool.get("annotations", {}).pop("readOnlyHint", None)
        if "titled" in self.modes:
            for name, prop in tool["inputSchema"].get("properties", {}).items():
                prop["title"] = name.title()

    def _bend(self, result: dict[str, Any]) -> None:
        failed = result.get("isError")
        error = (result.get("_meta") or {}).get(ERROR_META_KEY) or {}
        if "error_structured" in self.modes and "output" in error:
            result["structuredContent"] = error["output"]
        if "wrong_hint" in self.modes and error.get("hint"):
            result["content"] = [
                {"type": "text", "text": result["content"][0]["text"].replace(error["hint"], "Try harder.")}
            ]
        if "foreign" in self.modes:
            result.pop("_meta", None)
        if "constant_error" in self.modes:
            result.clear()
            result.update({"content": [{"type": "text", "text": "nope"}], "isError": True})
        elif "wrong_text" in self.modes and failed:
            result["content"] = [{"type": "text", "text": "ERROR: something went wrong"}]
        elif "bad_output" in self.modes and not failed:
            structured = result["structuredContent"]
            structured.pop(next(iter(structured)))
        elif ("no_structured" in self.modes or "unstructured" in self.modes) and not failed:
            result.pop("structuredContent", None)
        if "wrong_success_text" in self.modes and not failed:
            result["content"] = [{"type": "text", "text": result["content"][0]["text"] + "!"}]


def _annotated(schema: Any) -> Any:
    """``schema`` with a ``$comment`` wherever a schema stands and each ``type`` a one-element list."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {"$comment": "written by hand"}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            out[key] = [value]
        elif key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {name: _annotated(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "not") or key in ("anyOf", "oneOf", "allOf"):
            out[key] = [_annotated(sub) for sub in value] if isinstance(value, list) else _annotated(value)
        else:
            out[key] = value
    return out


class _BlankLines:
    """A binary stdout that writes an empty line and a line of white space before each message."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream

    def write(self, data: bytes) -> int:
        return self._stream.write(b"\n \t\r\n" + data)

    def flush(self) -> None:
        self._stream.flush()


def main() -> None:
    """Serve the built-in tools on stdio, bent as ``--mode`` says."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True)
    parser.add_argument("--revision")
    parser.add_argument("--workspace", action="append", default=[])
    parser.add_argument("--skills", action="append", default=[])
    options = parser.parse_args()
    server = ForeignServer(builtin_runtime(workspace=options.workspace, skills=options.skills))
    server.modes = frozenset(options.mode.split(","))
    server.revision = options.revision
    blank = "blank_lines" in server.modes
    serve_stdio(server, stdout=cast(BinaryIO, _BlankLines(sys.stdout.buffer)) if blank else None)


if __name__ == "__main__":
    main()
