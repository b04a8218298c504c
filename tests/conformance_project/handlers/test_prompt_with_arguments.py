"""test_prompt_with_arguments: a user message quoting both arguments."""

from __future__ import annotations

from tests.conformance_project.generated import test_prompt_with_arguments as contract
from toolproof.runtime import ToolContext


def handle(args: contract.TestPromptWithArgumentsInput, ctx: ToolContext) -> contract.TestPromptWithArgumentsOutput:
    """A user message quoting both arguments."""
    text = f"Prompt with arguments: arg1='{args['arg1']}', arg2='{args['arg2']}'"
    return {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]}
