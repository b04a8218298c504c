"""What one tool call produced, in the shapes hosts and providers need.

The JSON every transport speaks is read in ``json_reader`` and written and sized in ``json_writer``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ErrorInfo", "ToolResult"]


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """A catalogued error as data: its code, its message, a hint for the model and its structured object."""

    code: str
    message: str
    hint: str | None = None
    output: Mapping[str, Any] | None = None
    """The object the contract's ``render.error_output`` builds for this error (None when it declares none)."""

    def to_dict(self) -> dict[str, Any]:
        """``{"code", "message"}`` plus ``hint`` and ``output`` when there are."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.hint is not None:
            out["hint"] = self.hint
        if self.output is not None:
            out["output"] = self.output
        return out


@dataclass(frozen=True, slots=True, init=False)
class ToolResult:
    """The outcome of one call: a structured output or a catalogued error, the text the model reads, any blocks."""

    tool: str
    output: Any
    error: ErrorInfo | None
    text: str
    attached: tuple[Mapping[str, Any], ...]
    """The MCP content blocks the handler attached (``ctx.attach``), in order; none when the call failed."""

    def __init__(
        self, tool: str, output: Any, error: ErrorInfo | None, text: str, attached: Sequence[Mapping[str, Any]] = ()
    ) -> None:
        # The generated __init__ of a frozen dataclass sets each field through object.__setattr__;
        # the slots' own descriptors do the same in half the time, and one is built per call.
        _SET_TOOL(self, tool)
        _SET_OUTPUT(self, output)
        _SET_ERROR(self, error)
        _SET_TEXT(self, text)
        _SET_ATTACHED(self, attached if type(attached) is tuple else tuple(attached))

    @property
    def ok(self) -> bool:
        """True when the tool succeeded."""
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        """The CLI's shape: ``{"ok", "output", "error": {"code", "message", "hint"?, "output"?} | None, "text"}``."""
        error = None if self.error is None else self.error.to_dict()
        return {"ok": self.error is None, "output": self.output, "error": error, "text": self.text}

    def to_openai_message(self, tool_call_id: str) -> dict[str, Any]:
        """An OpenAI Chat Completions ``role: tool`` message; errors travel in the content."""
        return {"role": "tool", "tool_call_id": tool_call_id, "content": self.text}

    def to_mcp(self) -> dict[str, Any]:
        """An MCP ``CallToolResult``, as every MCP transport of toolproof sends it.

        ``content`` is the rendered text, then each attached block (a copy); ``structuredContent``
        the output on success; ``isError`` whether the call failed. A failed call carries no blocks.
        """
        content: list[dict[str, Any]] = [{"type": "text", "text": self.text}]
        result: dict[str, Any] = {"content": content, "isError": self.error is not None}
        if self.error is None:
            content.extend(dict(block) for block in self.attached)  # after the text, which every client reads
            if isinstance(self.output, dict):
                result["structuredContent"] = self.output
        return result


# The descriptors of ToolResult's slots, which its __init__ sets the fields through.
_SET_TOOL, _SET_OUTPUT, _SET_ERROR, _SET_TEXT, _SET_ATTACHED = (
    vars(ToolResult)[name].__set__ for name in ("tool", "output", "error", "text", "attached")
)
