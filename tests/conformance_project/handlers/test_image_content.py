"""test_image_content: an image block."""

from __future__ import annotations

from tests.conformance_project.generated import test_image_content as contract
from tests.conformance_project.handlers._fixtures import IMAGE
from toolproof.runtime import ToolContext


def handle(args: contract.TestImageContentInput, ctx: ToolContext) -> contract.TestImageContentOutput:
    """A PNG image block after the text."""
    ctx.attach({"type": "image", "data": IMAGE, "mimeType": "image/png"})
    return {"text": "An image follows."}
