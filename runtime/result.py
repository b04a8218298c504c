"""What one tool call produced, in the shapes hosts and providers need."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ErrorInfo", "ToolResult"]


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """A catalogued error as data: its code, its message and a hint for the model."""

    code: str
    message: str
    hint: str | None = None

    def to_dict(self) -> dict[str, str]:
        """``{"code", "message"}`` plus ``hint`` when there is one."""
        out = {"code": self.code, "message": self.message}
        if self.hint is not None:
            out["hint"] = self.hint
        return out


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of one call: a structured output or a catalogued error, and the text the model reads."""

    tool: str
    output: Any
    error: ErrorInfo | None
    text: str

    @property
    def ok(self) -> bool:
        """True when the tool succeeded."""
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        """The CLI's shape: ``{"ok", "output", "error": {"code", "message"} | None, "text"}``."""
        return {
            "ok": self.error is None,
            "output": self.output,
            "error": None if self.error is None else {"code": self.error.code, "message": self.error.message},
            "text": self.text,
        }

    def to_openai_message(self, tool_call_id: str) -> dict[str, Any]:
        """An OpenAI Chat Completions ``role: tool`` message; errors travel in the content."""
        return {"role": "tool", "tool_call_id": tool_call_id, "content": self.text}

    def to_mcp(self) -> dict[str, Any]:
        """An MCP ``CallToolResult``: text content, ``structuredContent`` on success, ``isError`` on failure."""
        result: dict[str, Any] = {"content": [{"type": "text", "text": self.text}], "isError": self.error is not None}
        if self.error is None and isinstance(self.output, dict):
            result["structuredContent"] = self.output
        return result
