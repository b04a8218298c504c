"""test_multiple_content_types: text, an image and a resource."""

from __future__ import annotations

from tests.conformance_project.generated import test_multiple_content_types as contract
from tests.conformance_project.handlers._fixtures import IMAGE
from toolproof.runtime import ToolContext


def handle(args: contract.TestMultipleContentTypesInput, ctx: ToolContext) -> contract.TestMultipleContentTypesOutput:
    """The suite's mixed content: text, then an image and a JSON resource."""
    ctx.attach({"type": "image", "data": IMAGE, "mimeType": "image/png"})
    data = '{"test":"data","value":123}'
    ctx.attach(
        {
            "type": "resource",
            "resource": {"uri": "test://mixed-content-resource", "mimeType": "application/json", "text": data},
        }
    )
    return {"text": "Multiple content types test:"}
