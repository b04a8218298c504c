"""test_streaming_elicitation: one confirmation."""

from __future__ import annotations

from tests.conformance_project.generated import test_streaming_elicitation as contract
from toolproof.runtime import ToolContext


def handle(args: contract.TestStreamingElicitationInput, ctx: ToolContext) -> contract.TestStreamingElicitationOutput:
    """Proceeded once the user confirms."""
    return {"text": "Proceeded." if ctx.ask("proceed").accepted else "Stopped."}
