"""test_embedded_resource: an embedded resource."""

from __future__ import annotations

from tests.conformance_project.generated import test_embedded_resource as contract
from toolproof.runtime import ToolContext


def handle(args: contract.TestEmbeddedResourceInput, ctx: ToolContext) -> contract.TestEmbeddedResourceOutput:
    """A text resource block after the text."""
    resource = {
        "uri": "test://embedded-resource",
        "mimeType": "text/plain",
        "text": "This is an embedded resource content.",
    }
    ctx.attach({"type": "resource", "resource": resource})
    return {"text": "An embedded resource follows."}
