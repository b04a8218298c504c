"""test_elicitation_sep1034_defaults: a form whose fields all have defaults."""

from __future__ import annotations

import json

from tests.conformance_project.generated import test_elicitation_sep1034_defaults as contract
from toolproof.runtime import ToolContext


def handle(
    args: contract.TestElicitationSep1034DefaultsInput, ctx: ToolContext
) -> contract.TestElicitationSep1034DefaultsOutput:
    """The suite's reply: the action and the content, as JSON with sorted keys."""
    answer = ctx.ask("profile")
    content = json.dumps(answer.content, sort_keys=True)
    return {"text": f"Elicitation completed: action={answer.action}, content={content}"}
