"""Tool definitions for LLM APIs, built as data from the model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from generator.model import Contract

__all__ = ["mcp_tools", "openai_tools"]


def openai_tools(contracts: Sequence[Contract], enums: Mapping[str, list[str]]) -> list[dict[str, Any]]:
    """OpenAI Chat Completions ``tools``; ``strict`` is always explicit."""
    return [
        {
            "type": "function",
            "function": {
                "name": c.name,
                "description": c.description,
                "parameters": c.exported_input(enums),
                "strict": False,
            },
        }
        for c in contracts
    ]


def mcp_tools(contracts: Sequence[Contract], enums: Mapping[str, list[str]]) -> dict[str, Any]:
    """An MCP ``tools/list`` result; all four annotation hints are explicit."""
    return {
        "tools": [
            {
                "name": c.name,
                "title": c.title,
                "description": c.description,
                "inputSchema": c.exported_input(enums),
                "outputSchema": dict(c.output_schema),
                "annotations": {
                    "title": c.title,
                    "readOnlyHint": c.annotations["read_only"],
                    "destructiveHint": c.annotations["destructive"],
                    "idempotentHint": c.annotations["idempotent"],
                    "openWorldHint": c.annotations["open_world"],
                },
            }
            for c in contracts
        ]
    }
