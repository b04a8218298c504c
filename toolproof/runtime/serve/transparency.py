"""The lines a host shows its user so every tool call is visible.

``[Tool Call] read_file_in_skill(skill_name="calculator", file_path="examples/basic.py")``
then ``[Tool Result] <what the model reads>``.

Everything in them comes from a caller or a disk: the tool name, the argument
names and values, the text of the result. Each is escaped here (through
``toolproof.runtime.printable``), so no argument and no file can print a line
that passes for an audit record or for another call; the result's own lines
follow its first one indented.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from toolproof.runtime.printable import printable, printable_block, printable_json
from toolproof.runtime.result import ToolResult

__all__ = ["call_line", "result_line"]

_PLAIN_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


def _name(key: object) -> str:
    """An argument name as is when it is a plain name, else as a JSON string (so it cannot fake ``, x=...``)."""
    text = str(key)
    return text if _PLAIN_NAME.fullmatch(text) else printable_json(text)


def call_line(tool: str, arguments: Mapping[str, Any] | str | None) -> str:
    """``[Tool Call] name(key="value", ...)``; unparsable arguments are shown as sent, escaped."""
    name = printable(tool)
    parsed: Any = arguments
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments)
        except (ValueError, RecursionError):
            return f"[Tool Call] {name}({printable(arguments)})"
    if not isinstance(parsed, Mapping):
        return f"[Tool Call] {name}({printable_json(parsed)})"
    args = ", ".join(f"{_name(key)}={printable_json(value)}" for key, value in parsed.items())
    return f"[Tool Call] {name}({args})"


def result_line(result: ToolResult) -> str:
    """``[Tool Result] <text>``, or ``[Tool Error] <text>`` when the call failed; later lines indented."""
    return f"[Tool {'Result' if result.ok else 'Error'}] {printable_block(result.text)}"
