"""The lines a host shows its user so every tool call is visible.

``[Tool Call] read_file_in_skill(skill_name="calculator", file_path="examples/basic.py")``
then ``[Tool Result] <what the model reads>``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolproof.runtime.result import ToolResult

__all__ = ["call_line", "result_line"]


def call_line(tool: str, arguments: Mapping[str, Any] | str | None) -> str:
    """``[Tool Call] name(key="value", ...)``; unparsable arguments are shown as sent."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return f"[Tool Call] {tool}({arguments})"
    if not isinstance(arguments, Mapping):
        return f"[Tool Call] {tool}({json.dumps(arguments, ensure_ascii=False)})"
    args = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in arguments.items())
    return f"[Tool Call] {tool}({args})"


def result_line(result: ToolResult) -> str:
    """``[Tool Result] <text>``, or ``[Tool Error] <text>`` when the call failed."""
    return f"[Tool {'Result' if result.ok else 'Error'}] {result.text}"
