"""test_input_required_result_tampered_state: asks for a confirmation across a verified requestState."""

from __future__ import annotations

from tests.conformance_project.generated import test_input_required_result_tampered_state as contract
from toolproof.runtime import ToolContext


def handle(
    args: contract.TestInputRequiredResultTamperedStateInput, ctx: ToolContext
) -> contract.TestInputRequiredResultTamperedStateOutput:
    """state-ok: the runtime verified the retry's state before this run (a forged one never reaches here)."""
    answer = ctx.ask("confirm")
    confirmed = answer.accepted and answer.value["ok"] is True
    return {"text": f"state-ok: {'confirmed' if confirmed else 'not confirmed'}"}
