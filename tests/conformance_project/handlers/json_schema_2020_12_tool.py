"""json_schema_2020_12_tool: echoes who it was given."""

from __future__ import annotations

from tests.conformance_project.generated import json_schema_2020_12_tool as contract
from toolproof.runtime import ToolContext


def handle(args: contract.JsonSchema202012ToolInput, ctx: ToolContext) -> contract.JsonSchema202012ToolOutput:
    """Accepts arguments shaped by 2020-12 keywords."""
    return {"text": f"Received: {args.get('name', '(no name)')}"}
