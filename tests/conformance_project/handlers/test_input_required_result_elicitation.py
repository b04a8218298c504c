"""test_input_required_result_elicitation: asks the user's name and greets them."""

from __future__ import annotations

from tests.conformance_project.generated import test_input_required_result_elicitation as contract
from toolproof.runtime import ToolContext


def handle(
    args: contract.TestInputRequiredResultElicitationInput, ctx: ToolContext
) -> contract.TestInputRequiredResultElicitationOutput:
    """Hello, <name>! (the suite's round 2)."""
    answer = ctx.ask("user_name")
    if not answer.accepted:
        return {"text": "Hello, whoever you are."}
    return {"text": f"Hello, {answer.value['name']}!"}
