"""test_elicitation_sep1330_enums: a form of single- and multi-select enums."""

from __future__ import annotations

import json

from tests.conformance_project.generated import test_elicitation_sep1330_enums as contract
from toolproof.runtime import ToolContext


def handle(
    args: contract.TestElicitationSep1330EnumsInput, ctx: ToolContext
) -> contract.TestElicitationSep1330EnumsOutput:
    """The suite's reply: the action and the content, as JSON with sorted keys."""
    answer = ctx.ask("options")
    content = json.dumps(answer.content, sort_keys=True)
    return {"text": f"Elicitation completed: action={answer.action}, content={content}"}
