"""test_elicitation: asks for a username and an email, and says what the user answered."""

from __future__ import annotations

import json

from tests.conformance_project.generated import test_elicitation as contract
from toolproof.runtime import ToolContext


def handle(args: contract.TestElicitationInput, ctx: ToolContext) -> contract.TestElicitationOutput:
    """The suite's reply: the action and the content, as JSON with sorted keys."""
    answer = ctx.ask("user_info")
    content = json.dumps(answer.content, sort_keys=True)
    return {"text": f"User response: action={answer.action}, content={content}"}
