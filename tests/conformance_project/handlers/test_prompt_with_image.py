"""test_prompt_with_image: an image, then an instruction."""

from __future__ import annotations

from typing import Any

from tests.conformance_project.generated import test_prompt_with_image as contract
from tests.conformance_project.handlers._fixtures import IMAGE
from toolproof.runtime import ToolContext


def handle(args: dict[str, Any], ctx: ToolContext) -> contract.TestPromptWithImageOutput:
    """An image, then an instruction."""
    return {
        "messages": [
            {"role": "user", "content": {"type": "image", "data": IMAGE, "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}},
        ]
    }
