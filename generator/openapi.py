"""The OpenAPI 3.1 document of the HTTP façade: one ``POST /tools/{name}`` per contract.

The request body is the tool's input schema (also accepting null for an optional
property, as the runtime does: ``runtime.nulls``), a 200 is its output, and each
catalogued error is documented under its HTTP status as a typed body whose
``code`` enumerates the codes that status can carry. Schemathesis fuzzes the
served app against this document.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from toolproof.generator.model import Contract
from toolproof.generator.transforms import lifted_defs
from toolproof.runtime.errors import INVALID_ARGUMENTS, STANDARD_ERRORS, UNKNOWN_TOOL
from toolproof.runtime.nulls import accepting_dropped_nulls

__all__ = ["SESSION_HEADER", "openapi_document"]

SESSION_HEADER: Final = "X-Toolproof-Session"
_STATUS_TEXT: Final = {
    400: "The body is not a JSON object",
    403: "Refused",
    404: "Not found",
    413: "Too large",
    422: "The arguments were understood and refused",
    500: "Internal error: the failure was logged",
}


def _error_body(codes: Sequence[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "code": {"enum": list(codes)},
            "message": {"type": "string"},
            "hint": {"type": "string"},
            "output": {"type": "object", "description": "The error as the contract's render.error_output builds it."},
        },
        "required": ["code", "message"],
        "additionalProperties": False,
    }


def _lift_defs(schema: Mapping[str, Any], prefix: str, components: dict[str, Any]) -> dict[str, Any]:
    """``schema`` as the component ``prefix``, its ``$defs`` moved beside it as components, every ``$ref`` rewritten."""
    return lifted_defs(schema, prefix, components, ("components", "schemas"))


def _examples(c: Contract) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, example in enumerate(c.examples):
        if example["expect"].get("error") == INVALID_ARGUMENTS or "${" in json.dumps(example["input"]):
            continue
        out[f"example{i + 1}"] = {"summary": example["name"], "value": example["input"]}
    return out


def openapi_document(contracts: Sequence[Contract], enums: Mapping[str, list[str]], version: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document for ``contracts``."""
    components: dict[str, Any] = {}
    paths: dict[str, Any] = {}
    for c in sorted(contracts, key=lambda c: c.name):
        accepted = accepting_dropped_nulls(c.exported_input(enums))  # null for "absent", as the host reads it
        components[f"{c.prefix}Input"] = _lift_defs(accepted, f"{c.prefix}Input", components)
        components[f"{c.prefix}Output"] = _lift_defs(c.output_schema, f"{c.prefix}Output", components)
        by_status: dict[int, list[str]] = {400: [INVALID_ARGUMENTS], 413: [INVALID_ARGUMENTS]}
        for code, std in STANDARD_ERRORS.items():
            if code != UNKNOWN_TOOL:
                by_status.setdefault(std.status, []).append(code)
        for error in c.errors:
            by_status.setdefault(error.status, []).append(error.code)
        responses: dict[str, Any] = {
            "200": {
                "description": "The tool's output",
                "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{c.prefix}Output"}}},
            }
        }
        for status in sorted(by_status):
            name = f"{c.prefix}Error{status}"
            components[name] = _error_body(by_status[status])
            codes = ", ".join(by_status[status])
            responses[str(status)] = {
                "description": f"{_STATUS_TEXT.get(status, 'Error')}: {codes}",
                "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}},
            }
        body: dict[str, Any] = {"schema": {"$ref": f"#/components/schemas/{c.prefix}Input"}}
        examples = _examples(c)
        if examples:
            body["examples"] = examples
        paths[f"/tools/{c.name}"] = {
            "post": {
                "operationId": c.module,
                "summary": c.title,
                "description": c.description,
                "tags": list(c.toolsets),
                "parameters": [
                    {
                        "name": SESSION_HEADER,
                        "in": "header",
                        "required": False,
                        "description": "The caller's session, for tools with per-session state (the skill gate).",
                        "schema": {"type": "string"},
                    }
                ],
                "requestBody": {"required": True, "content": {"application/json": body}},
                "responses": responses,
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "toolproof tools",
            "version": version,
            "description": "One POST /tools/{name} per tool contract; the body is the tool's arguments.",
        },
        "paths": paths,
        "components": {"schemas": dict(sorted(components.items()))},
    }
