"""Tool definitions for every provider, built as data, with the losses each rewrite caused.

Formats: ``openai`` (Chat Completions ``tools``), ``openai-responses``
(Responses function tools), ``anthropic`` (Messages ``tools``), ``mcp``
(``tools/list``), ``gemini`` (``functionDeclarations`` with
``parametersJsonSchema``) and ``gemini-openapi`` (the OpenAPI-subset
``parameters``). Limits each provider enforces per request are checked over
the whole tool set.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from toolproof.generator.losses import Loss
from toolproof.generator.model import Contract
from toolproof.generator.transforms import (
    anthropic_schema,
    gemini_json_schema,
    gemini_openapi_schema,
    openai_strict_schema,
)
from toolproof.runtime.errors import INVALID_ARGUMENTS
from toolproof.runtime.validation import SchemaValidator

__all__ = ["DEFINITION_FORMATS", "Exported", "export_definitions"]

DEFINITION_FORMATS: Final = ("openai", "openai-responses", "anthropic", "mcp", "gemini", "gemini-openapi")

OPENAI_LIMITS: Final = {"properties": 5000, "depth": 10, "enum_values": 1000, "characters": 120_000}
ANTHROPIC_LIMITS: Final = {"strict_tools": 20, "optional": 24, "unions": 16}
MAX_INPUT_EXAMPLES: Final = 5


@dataclass(slots=True)
class Exported:
    """One format's definitions for a set of tools, what was lost, and any limit broken."""

    data: Any
    losses: list[Loss] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _unshown_output(fmt: str, c: Contract) -> Loss:
    return Loss(
        fmt,
        c.name,
        "output",
        (),
        "output",
        "not shown",
        "this API has no field for a tool's output schema; the model reads the rendered result text",
    )


CARRIED_BLOCKS: Final = {
    "mcp": frozenset({"text", "image", "audio", "resource", "resource_link"}),
    "anthropic": frozenset({"text", "image"}),
}
"""Content block kinds (``attaches``) each format's tool result carries; the others carry text only."""

_RESULT_CARRIES: Final = {
    "anthropic": "text and image blocks",
    "openai": "text only",
    "openai-responses": "text only",
    "gemini": "a JSON response only",
    "gemini-openapi": "a JSON response only",
}


def _dropped_blocks(fmt: str, c: Contract) -> list[Loss]:
    """A loss for each kind of content block the tool attaches that ``fmt``'s tool results cannot carry."""
    carried = CARRIED_BLOCKS.get(fmt, frozenset())
    return [
        Loss(
            fmt,
            c.name,
            "result",
            (),
            kind,
            "dropped",
            f"a tool result here carries {_RESULT_CARRIES[fmt]}, so the {kind} blocks the tool attaches over MCP"
            " never reach the model; its rendered text must say what they hold",
        )
        for kind in c.attaches
        if kind not in carried
    ]


def _openai(contracts: Sequence[Contract], enums: Mapping[str, list[str]], fmt: str) -> Exported:
    out = Exported([])
    for c in contracts:
        rewrite = openai_strict_schema(c.exported_input(enums), c.name, fmt)
        out.losses.extend(rewrite.losses)
        out.losses.append(_unshown_output(fmt, c))
        out.losses.extend(_dropped_blocks(fmt, c))
        if fmt == "openai":
            out.data.append(
                {
                    "type": "function",
                    "function": {
                        "name": c.name,
                        "description": c.description,
                        "parameters": rewrite.schema,
                        "strict": rewrite.strict,
                    },
                }
            )
        else:
            out.data.append(
                {
                    "type": "function",
                    "name": c.name,
                    "description": c.description,
                    "parameters": rewrite.schema,
                    "strict": rewrite.strict,
                }
            )
    schemas = [t["function"]["parameters"] if fmt == "openai" else t["parameters"] for t in out.data]
    out.problems.extend(_openai_limits(schemas, fmt))
    return out


def _walk(node: Any, depth: int, stats: dict[str, int]) -> None:
    if isinstance(node, dict):
        if "properties" in node and isinstance(node["properties"], dict):
            stats["properties"] += len(node["properties"])
            stats["characters"] += sum(len(k) for k in node["properties"])
            stats["depth"] = max(stats["depth"], depth)
            for sub in node["properties"].values():
                _walk(sub, depth + 1, stats)
        if isinstance(node.get("enum"), list):
            stats["enum_values"] += len(node["enum"])
            chars = sum(len(str(v)) for v in node["enum"])
            stats["characters"] += chars
            if len(node["enum"]) > 250 and chars > 15_000:
                stats["big_enum"] += 1
        if "const" in node:
            stats["characters"] += len(str(node["const"]))
        for key in ("$defs", "definitions"):
            if isinstance(node.get(key), dict):
                stats["characters"] += sum(len(k) for k in node[key])
                for sub in node[key].values():
                    _walk(sub, depth, stats)
        for key in ("items", "additionalProperties"):
            _walk(node.get(key), depth, stats)
        for key in ("anyOf", "oneOf", "allOf"):
            for sub in node.get(key, ()) if isinstance(node.get(key), list) else ():
                _walk(sub, depth, stats)


def _openai_limits(schemas: list[Any], fmt: str) -> list[str]:
    stats = {"properties": 0, "depth": 0, "enum_values": 0, "characters": 0, "big_enum": 0}
    for schema in schemas:
        _walk(schema, 1, stats)
    problems = [
        f"{fmt}: {stats[key]} {key.replace('_', ' ')} in one request; OpenAI allows at most {limit}"
        for key, limit in OPENAI_LIMITS.items()
        if stats[key] > limit
    ]
    if stats["big_enum"]:
        problems.append(f"{fmt}: a string enum of over 250 values exceeds 15,000 characters")
    return problems


def _input_examples(c: Contract, schema: Mapping[str, Any]) -> list[Any]:
    """Up to five distinct example inputs that the exported schema accepts (placeholders excluded)."""
    valid = SchemaValidator(schema).is_valid  # the runtime's compiled validator: what a call would accept
    seen: list[Any] = []
    for example in c.examples:
        args = example["input"]
        if example["expect"].get("error") == INVALID_ARGUMENTS or "${" in json.dumps(args) or args in seen:
            continue
        if not valid(args):
            continue
        seen.append(args)
        if len(seen) == MAX_INPUT_EXAMPLES:
            break
    return seen


def _count(schema: Mapping[str, Any]) -> tuple[int, int]:
    """(optional parameters, union-typed parameters) of one input schema, top-level and nested."""
    optional = unions = 0
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        props = node.get("properties")
        if isinstance(props, dict):
            required = set(node.get("required", ()))
            optional += sum(1 for name in props if name not in required)
            for sub in props.values():
                if isinstance(sub, dict) and ("anyOf" in sub or isinstance(sub.get("type"), list)):
                    unions += 1
                stack.append(sub)
        for key in ("items", "$defs"):
            value = node.get(key)
            stack.extend(value.values() if isinstance(value, dict) and key == "$defs" else [value])
    return optional, unions


def _anthropic(contracts: Sequence[Contract], enums: Mapping[str, list[str]]) -> Exported:
    out = Exported([])
    strict_tools = optional = unions = 0
    for c in contracts:
        rewrite = anthropic_schema(c.exported_input(enums), c.name)
        out.losses.extend(rewrite.losses)
        out.losses.append(_unshown_output("anthropic", c))
        out.losses.extend(_dropped_blocks("anthropic", c))
        strict = rewrite.strict
        if strict:
            o, u = _count(rewrite.schema)
            over = [
                name
                for name, value, limit in (
                    ("strict tools", strict_tools + 1, ANTHROPIC_LIMITS["strict_tools"]),
                    ("optional parameters", optional + o, ANTHROPIC_LIMITS["optional"]),
                    ("union-typed parameters", unions + u, ANTHROPIC_LIMITS["unions"]),
                )
                if value > limit
            ]
            if over:
                strict = False
                out.losses.append(
                    Loss(
                        "anthropic",
                        c.name,
                        "input",
                        (),
                        "strict",
                        "exported non-strict",
                        f"strict would exceed the per-request budget of {', '.join(over)}",
                    )
                )
            else:
                strict_tools, optional, unions = strict_tools + 1, optional + o, unions + u
        tool: dict[str, Any] = {
            "name": c.name,
            "description": c.description,
            "input_schema": rewrite.schema,
            "strict": strict,
        }
        examples = _input_examples(c, c.exported_input(enums))
        if examples:
            tool["input_examples"] = examples
        out.data.append(tool)
    return out


def _mcp(contracts: Sequence[Contract], enums: Mapping[str, list[str]]) -> Exported:
    return Exported(
        {
            "tools": [
                {
                    "name": c.name,
                    "title": c.title,
                    "description": c.description,
                    "inputSchema": c.exported_input(enums),
                    "outputSchema": dict(c.output_schema),
                    "annotations": {
                        "title": c.title,
                        "readOnlyHint": c.annotations["read_only"],
                        "destructiveHint": c.annotations["destructive"],
                        "idempotentHint": c.annotations["idempotent"],
                        "openWorldHint": c.annotations["open_world"],
                    },
                }
                for c in contracts
            ]
        }
    )


def _gemini(contracts: Sequence[Contract], enums: Mapping[str, list[str]]) -> Exported:
    out = Exported({"functionDeclarations": []})
    for c in contracts:
        params = gemini_json_schema(c.exported_input(enums), c.name, "input")
        response = gemini_json_schema(dict(c.output_schema), c.name, "output")
        out.losses.extend(params.losses + response.losses + _dropped_blocks("gemini", c))
        out.data["functionDeclarations"].append(
            {
                "name": c.name,
                "description": c.description,
                "parametersJsonSchema": params.schema,
                "responseJsonSchema": response.schema,
            }
        )
    return out


def _gemini_openapi(contracts: Sequence[Contract], enums: Mapping[str, list[str]]) -> Exported:
    out = Exported({"functionDeclarations": []})
    for c in contracts:
        rewrite = gemini_openapi_schema(c.exported_input(enums), c.name)
        out.losses.extend(rewrite.losses)
        out.losses.append(_unshown_output("gemini-openapi", c))
        out.losses.extend(_dropped_blocks("gemini-openapi", c))
        if rewrite.why_not_strict:
            out.problems.append(f"gemini-openapi: tool '{c.name}' cannot be expressed: {rewrite.why_not_strict}")
        for name in c.exported_input(enums).get("properties", {}):
            if not name.replace("_", "a").isalnum() or name[:1].isdigit() or len(name) > 64:
                out.problems.append(f"gemini-openapi: tool '{c.name}' has a property name Gemini refuses: {name!r}")
        out.data["functionDeclarations"].append(
            {"name": c.name, "description": c.description, "parameters": rewrite.schema}
        )
    return out


def export_definitions(fmt: str, contracts: Sequence[Contract], enums: Mapping[str, list[str]]) -> Exported:
    """Definitions of ``contracts`` (one request's tool set) in ``fmt``.

    Raises:
        ValueError: ``fmt`` is not one of ``DEFINITION_FORMATS``.
    """
    if fmt in ("openai", "openai-responses"):
        return _openai(contracts, enums, fmt)
    if fmt == "anthropic":
        return _anthropic(contracts, enums)
    if fmt == "mcp":
        return _mcp(contracts, enums)
    if fmt == "gemini":
        return _gemini(contracts, enums)
    if fmt == "gemini-openapi":
        return _gemini_openapi(contracts, enums)
    raise ValueError(f"unknown definition format {fmt!r}; choose from {', '.join(DEFINITION_FORMATS)}")
