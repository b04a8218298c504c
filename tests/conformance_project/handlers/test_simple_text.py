"""test_simple_text: a fixed text."""

from __future__ import annotations

from tests.conformance_project.generated import test_simple_text as contract
from toolproof.runtime import ToolContext


def handle(args: contract.TestSimpleTextInput, ctx: ToolContext) -> contract.TestSimpleTextOutput:
    """The text the suite expects."""
    return {"text": "This is a simple text response for testing."}
