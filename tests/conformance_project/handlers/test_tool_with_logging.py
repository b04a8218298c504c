"""test_tool_with_logging: three log messages."""

from __future__ import annotations

import time

from tests.conformance_project.generated import test_tool_with_logging as contract
from toolproof.runtime import ToolContext


def handle(args: contract.TestToolWithLoggingInput, ctx: ToolContext) -> contract.TestToolWithLoggingOutput:
    """Three info messages, about 50 ms apart, as the suite expects."""
    for step, message in enumerate(("Tool execution started", "Tool processing data", "Tool execution completed")):
        if step:
            time.sleep(0.05)
        ctx.log("info", message)
    return {"text": "Tool with logging executed successfully"}
