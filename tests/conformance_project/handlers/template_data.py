"""template_data: the JSON data of an id (a number)."""

from __future__ import annotations

import json

from tests.conformance_project.generated import template_data as contract
from toolproof.runtime import ToolContext


def handle(args: contract.TemplateDataInput, ctx: ToolContext) -> contract.TemplateDataOutput:
    """The JSON data of an id (a number)."""
    if not args["id"].isdigit():
        raise contract.unknown_id(id=args["id"])
    return {
        "text": json.dumps(
            {"id": args["id"], "templateTest": True, "data": f"Data for ID: {args['id']}"}, separators=(",", ":")
        )
    }
