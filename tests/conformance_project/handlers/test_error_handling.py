"""test_error_handling: always a tool error."""

from __future__ import annotations

from tests.conformance_project.generated import test_error_handling as contract
from toolproof.runtime import ToolContext


def handle(args: contract.TestErrorHandlingInput, ctx: ToolContext) -> contract.TestErrorHandlingOutput:
    """The catalogued error the suite expects as an isError result."""
    raise contract.intentional_error()
