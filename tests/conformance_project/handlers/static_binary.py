"""static_binary: a 1x1 PNG, base64."""

from __future__ import annotations

from typing import Any

from tests.conformance_project.generated import static_binary as contract
from tests.conformance_project.handlers._fixtures import IMAGE
from toolproof.runtime import ToolContext


def handle(args: dict[str, Any], ctx: ToolContext) -> contract.StaticBinaryOutput:
    """A 1x1 PNG, base64."""
    return {"blob": IMAGE}
