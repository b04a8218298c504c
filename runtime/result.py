"""What one tool call produced, in the shapes hosts and providers need, and the JSON every transport speaks.

``json_value`` reads and ``json_bytes`` writes JSON the way every transport
must: orjson for speed, the standard library for what orjson gets wrong or
refuses (integers beyond 64 bits, which orjson reads as floats and will not
write), and no NaN or infinity either way.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Final

import orjson

__all__ = ["ErrorInfo", "ToolResult", "json_bytes", "json_value"]

_LONG_DIGITS: Final = re.compile(r"\d{19}")
_LONG_DIGITS_B: Final = re.compile(rb"\d{19}")


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of the range of a number")
    return value


def json_value(data: str | bytes) -> Any:
    """One JSON text as a value, integers of any size exact.

    orjson reads almost every text; one holding 19 digits in a row (an integer
    orjson would turn into a float) or one orjson refuses (a lone surrogate
    escape, which the runtime then refuses by name) goes to the standard library,
    which also says where invalid text goes wrong.

    Raises:
        ValueError: ``data`` is not JSON; NaN, infinities and numbers beyond the range of a float included.
        RecursionError: ``data`` is nested too deeply to read.
    """
    long_digits = _LONG_DIGITS_B if isinstance(data, bytes) else _LONG_DIGITS
    if long_digits.search(data) is None:  # type: ignore[arg-type]
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return json.loads(data, parse_constant=_reject_constant, parse_float=_finite)


def json_bytes(value: Any) -> bytes:
    """``value`` as compact UTF-8 JSON, integers of any size kept exact.

    orjson writes almost every message; it refuses integers beyond 64 bits
    (and nesting deeper than 254), which the standard library writes instead,
    digit for digit.

    Raises:
        ValueError: ``value`` cannot be JSON: a lone surrogate, a type JSON has
            no form for, or a NaN or infinity that orjson did not handle.
    """
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        pass
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    except (TypeError, RecursionError) as exc:
        raise ValueError(f"not JSON: {exc}") from None


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
