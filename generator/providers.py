"""Tool definitions for LLM APIs, built as data from the model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from generator.model import Contract

__all__ = ["mcp_tools", "openai_tools"]


def openai_tools(contracts: Sequence[Contract]) -> list[dict[str, Any]]:
    """OpenAI Chat Completions ``tools``; ``strict`` is always explicit."""
    return [
        {
            "type": "function",
            "function": {
                "name": c.name,
                "description": c.description,
                "parameters": dict(c.input_schema),
                "strict": False,
            },
        }
        for c in contracts
    ]


def mcp_tools(contracts: Sequence[Contract]) -> dict[str, Any]:
    """An MCP ``tools/list`` result; all four annotation hints are explicit."""
    return {
        "tools": [
            {
                "name": c.name,
                "title": c.title,
                "description": c.description,
                "inputSchema": dict(c.input_schema),
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
