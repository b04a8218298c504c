"""test_prompt_with_embedded_resource: the resource its argument names, embedded, then an instruction."""

from __future__ import annotations

from tests.conformance_project.generated import test_prompt_with_embedded_resource as contract
from toolproof.runtime import ToolContext


def handle(
    args: contract.TestPromptWithEmbeddedResourceInput, ctx: ToolContext
) -> contract.TestPromptWithEmbeddedResourceOutput:
    """The resource its argument names, embedded, then an instruction."""
    resource = {"uri": args["resourceUri"], "mimeType": "text/plain", "text": "Embedded resource content for testing."}
    return {
        "messages": [
            {"role": "user", "content": {"type": "resource", "resource": resource}},
            {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}},
        ]
    }
