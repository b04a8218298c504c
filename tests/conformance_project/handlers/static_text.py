"""static_text: the fixed text the suite reads."""

from __future__ import annotations

from typing import Any

from tests.conformance_project.generated import static_text as contract
from toolproof.runtime import ToolContext


def handle(args: dict[str, Any], ctx: ToolContext) -> contract.StaticTextOutput:
    """The fixed text the suite reads."""
    return {"text": "This is the content of the static text resource."}
