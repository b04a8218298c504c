"""test_simple_prompt: one fixed user message."""

from __future__ import annotations

from typing import Any

from tests.conformance_project.generated import test_simple_prompt as contract
from toolproof.runtime import ToolContext


def handle(args: dict[str, Any], ctx: ToolContext) -> contract.TestSimplePromptOutput:
    """One fixed user message."""
    return {"messages": [{"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}]}
