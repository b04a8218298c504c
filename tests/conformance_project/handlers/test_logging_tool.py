"""test_logging_tool: a log message."""

from __future__ import annotations

from tests.conformance_project.generated import test_logging_tool as contract
from toolproof.runtime import ToolContext


def handle(args: contract.TestLoggingToolInput, ctx: ToolContext) -> contract.TestLoggingToolOutput:
    """One info message, which must not reach a 2026-07-28 client that asked for no log level."""
    ctx.log("info", "Logging diagnostic tool ran")
    return {"text": "Logged one message."}
