"""test_tool_with_progress: three progress reports."""

from __future__ import annotations

import time

from tests.conformance_project.generated import test_tool_with_progress as contract
from toolproof.runtime import ToolContext


def handle(args: contract.TestToolWithProgressInput, ctx: ToolContext) -> contract.TestToolWithProgressOutput:
    """Progress 0, 50 and 100 of 100, about 50 ms apart."""
    for step in (0, 50, 100):
        ctx.progress(step, total=100, message=f"Completed step {step} of 100")
        if step < 100:
            time.sleep(0.05)
    return {"text": "Progress tool completed."}
