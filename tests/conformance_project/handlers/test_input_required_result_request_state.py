"""test_input_required_result_request_state: asks for a confirmation across a verified requestState."""

from __future__ import annotations

from tests.conformance_project.generated import test_input_required_result_request_state as contract
from toolproof.runtime import ToolContext


def handle(
    args: contract.TestInputRequiredResultRequestStateInput, ctx: ToolContext
) -> contract.TestInputRequiredResultRequestStateOutput:
    """state-ok: the runtime verified the retry's state before this run (a forged one never reaches here)."""
    answer = ctx.ask("confirm")
    confirmed = answer.accepted and answer.value["ok"] is True
    return {"text": f"state-ok: {'confirmed' if confirmed else 'not confirmed'}"}
