"""test_input_required_result_multi_round: two questions, the second naming the first answer."""

from __future__ import annotations

from tests.conformance_project.generated import test_input_required_result_multi_round as contract
from toolproof.runtime import ToolContext


def handle(
    args: contract.TestInputRequiredResultMultiRoundInput, ctx: ToolContext
) -> contract.TestInputRequiredResultMultiRoundOutput:
    """Ask the name, then (only with a name) the colour: each answer reaches a later run of this handler."""
    who = ctx.ask("step1")
    if not who.accepted:
        return {"text": "No name, no colour."}
    name = who.value["name"]
    colour = ctx.ask("step2", name=name)
    return {"text": f"{name} likes {colour.value['color']}." if colour.accepted else f"{name} picked no colour."}
