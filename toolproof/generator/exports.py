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
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from toolproof.generator.losses import Limit, Loss
from toolproof.generator.model import Contract
from toolproof.generator.transforms import (
    anthropic_schema,
    gemini_json_schema,
    gemini_openapi_schema,
    openai_strict_schema,
)
from toolproof.runtime.digests import DIGEST_META_KEY, digest
from toolproof.runtime.uritemplate import UriTemplate
from toolproof.runtime.validation import SchemaValidator

__all__ = ["DEFINITION_FORMATS", "Exported", "demonstrations", "export_definitions", "tool_digest"]

DEFINITION_FORMATS: Final = ("openai", "openai-responses", "anthropic", "mcp", "gemini", "gemini-openapi")

OPENAI_LIMITS: Final = {"properties": 5000, "depth": 10, "enum_values": 1000, "characters": 120_000}
ANTHROPIC_LIMITS: Final = {"strict_tools": 20, "optional": 24, "unions": 16}
MAX_INPUT_EXAMPLES: Final = 5
_GEMINI_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
"""A property name the parameters form takes (contracts-providers reference, 3.0)."""

Path = tuple[str | int, ...]


@dataclass(slots=True)
class Exported:
    """One format's definitions for a set of tools, what was lost, and any limit broken."""

    data: Any
    losses: list[Loss] = field(default_factory=list)
    problems: list[Limit] = field(default_factory=list)


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
    schemas = [
        (c.name, t["function"]["parameters"] if fmt == "openai" else t["parameters"])
        for c, t in zip(contracts, out.data, strict=True)
    ]
    out.problems.extend(_openai_limits(schemas, fmt))
    return out


def _walk(node: Any, path: Path, depth: int) -> Iterator[tuple[str, int, Path]]:
    """What one schema counts against OpenAI's per-request limits: (stat, amount, where), in document order.

    ``depth`` stats carry the nesting level reached, the others an amount to add.
    """
    if not isinstance(node, dict):
        return
    if isinstance(node.get("properties"), dict):
        props = node["properties"]
        yield "properties", len(props), (*path, "properties")
        yield "characters", sum(len(k) for k in props), (*path, "properties")
        yield "depth", depth, (*path, "properties")
        for name, sub in props.items():
            yield from _walk(sub, (*path, "properties", name), depth + 1)
    if isinstance(node.get("enum"), list):
        values = node["enum"]
        chars = sum(len(str(v)) for v in values)
        yield "enum_values", len(values), (*path, "enum")
        yield "characters", chars, (*path, "enum")
        if len(values) > 250 and chars > 15_000:
            yield "big_enum", 1, (*path, "enum")
    if "const" in node:
        yield "characters", len(str(node["const"])), (*path, "const")
    for key in ("$defs", "definitions"):
        if isinstance(node.get(key), dict):
            yield "characters", sum(len(k) for k in node[key]), (*path, key)
            for name, sub in node[key].items():
                yield from _walk(sub, (*path, key, name), depth)
    for key in ("items", "additionalProperties"):
        yield from _walk(node.get(key), (*path, key), depth)
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(node.get(key), list):
            for i, sub in enumerate(node[key]):
                yield from _walk(sub, (*path, key, i), depth)


def _openai_limits(schemas: list[tuple[str, Any]], fmt: str) -> list[Limit]:
    """The per-request limits the tools' schemas break together, each where a tool's schema first crossed it."""
    totals = dict.fromkeys(OPENAI_LIMITS, 0)
    crossed: dict[str, tuple[str, Path]] = {}
    big_enums: list[tuple[str, Path]] = []
    for tool, schema in schemas:
        for stat, amount, path in _walk(schema, (), 1):
            if stat == "big_enum":
                big_enums.append((tool, path))
                continue
            totals[stat] = max(totals[stat], amount) if stat == "depth" else totals[stat] + amount
            if totals[stat] > OPENAI_LIMITS[stat] and stat not in crossed:
                crossed[stat] = (tool, path)
    problems = [
        Limit(
            fmt,
            crossed[key][0],
            "input",
            crossed[key][1],
            f"{totals[key]} {key.replace('_', ' ')} in one request; OpenAI allows at most {limit}",
        )
        for key, limit in OPENAI_LIMITS.items()
        if key in crossed
    ]
    problems.extend(
        Limit(fmt, tool, "input", path, "a string enum of over 250 values exceeds 15,000 characters")
        for tool, path in big_enums
    )
    return problems


def demonstrations(c: Contract) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """The contract's examples a reader may copy as a call, each with its index among ``c.examples``.

    Providers show these to the model as how to call the tool (Anthropic ``input_examples``, the OpenAPI
    request examples), so only calls that succeed as written qualify: an example expecting an error (a
    refused or attack input, a catalogued error such as a missing token) would teach the model that call,
    and one the conformance tests complete at run time (a ``${TEST_DIR}`` placeholder, the ``skill_token``
    they put into the input) would fail as written.
    """
    for i, example in enumerate(c.examples):
        if "error" in example["expect"] or "skill_token" in example or "${" in json.dumps(example["input"]):
            continue
        yield i, example


def _input_examples(c: Contract, schema: Mapping[str, Any]) -> list[Any]:
    """Up to five distinct demonstrations (:func:`demonstrations`) that the exported schema accepts."""
    valid = SchemaValidator(schema).is_valid  # the runtime's compiled validator: what a call would accept
    seen: list[Any] = []
    for _, example in demonstrations(c):
        args = example["input"]
        if args in seen or not valid(args):
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
        if examples:  # omitted, not empty, when no example demonstrates a call: the field is optional
            tool["input_examples"] = examples
        out.data.append(tool)
    return out


def _mcp_entry(c: Contract, input_schema: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "name": c.name,
        "title": c.title,
        "description": c.description,
        "inputSchema": dict(input_schema),
        "outputSchema": dict(c.output_schema),
        "annotations": {
            "title": c.title,
            "readOnlyHint": c.annotations["read_only"],
            "destructiveHint": c.annotations["destructive"],
            "idempotentHint": c.annotations["idempotent"],
            "openWorldHint": c.annotations["open_world"],
        },
    }


def tool_digest(c: Contract) -> str:
    """The pinned digest of ``c`` (``runtime.digests``): of its ``tools/list`` entry as a host serves it.

    A host lists the contract's own input schema with each dynamic enum filled by its own values, which
    the digest leaves out; so the digest is taken of the contract's input schema, not of an export's,
    whose dynamic enums carry the built-in default values and a note saying so.
    """
    return digest(_mcp_entry(c, c.input_schema), c.dynamic_enums)


def _resource_entry(c: Contract) -> dict[str, Any]:
    """A ``resources/list`` entry (a fixed URI) or a ``resources/templates/list`` one (a URI template)."""
    assert c.resource is not None
    uri = c.resource["uri"]
    entry: dict[str, Any] = {"uriTemplate" if UriTemplate(uri).variables else "uri": uri}
    entry.update(name=c.name, title=c.title, description=c.description, mimeType=c.resource["mime_type"])
    if c.resource.get("annotations"):
        entry["annotations"] = dict(c.resource["annotations"])
    return entry


def _prompt_entry(c: Contract, enums: Mapping[str, list[str]]) -> dict[str, Any]:
    """A ``prompts/list`` entry: each input property an argument (lint holds them to strings)."""
    schema = c.exported_input(enums)
    required = set(schema.get("required", ()))
    arguments = []
    for name, prop in schema.get("properties", {}).items():
        argument: dict[str, Any] = {"name": name}
        if isinstance(prop, Mapping) and isinstance(prop.get("description"), str):
            argument["description"] = prop["description"]
        argument["required"] = name in required
        arguments.append(argument)
    return {"name": c.name, "title": c.title, "description": c.description, "arguments": arguments}


def _mcp(contracts: Sequence[Contract], enums: Mapping[str, list[str]]) -> Exported:
    """``tools/list``'s entries, and those of ``resources/list``, ``resources/templates/list`` and ``prompts/list``
    when the set holds any (each list sorted by name, as the contracts are)."""
    resources = [_resource_entry(c) for c in contracts if c.kind == "resource"]
    lists: dict[str, list[dict[str, Any]]] = {
        "resources": [r for r in resources if "uri" in r],
        "resourceTemplates": [r for r in resources if "uriTemplate" in r],
        "prompts": [_prompt_entry(c, enums) for c in contracts if c.kind == "prompt"],
    }
    exported = _mcp_tools([c for c in contracts if c.is_tool], enums)
    exported.data.update({key: entries for key, entries in lists.items() if entries})
    return exported


def _mcp_tools(contracts: Sequence[Contract], enums: Mapping[str, list[str]]) -> Exported:
    return Exported(
        {
            "tools": [
                {
                    **_mcp_entry(c, c.exported_input(enums)),
                    "_meta": {DIGEST_META_KEY: tool_digest(c), **_security(c)},
                }
                for c in contracts
            ]
        }
    )


def _security(c: Contract) -> dict[str, Any]:
    """The `_meta` entries of the scopes a call needs, as the OpenAI Apps SDK reads them (`securitySchemes`); none: {}.

    Every tool is listed to every caller, marked, rather than hidden from one whose token lacks the scopes:
    the MCP authorization specification has a client learn of a missing scope from a call's 403
    ``insufficient_scope`` and step up, which a hidden tool never reaches; and a list the same for every
    caller says the same to each of them.
    """
    if not c.scopes:
        return {}
    return {"securitySchemes": [{"type": "oauth2", "scopes": list(c.scopes)}]}


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
        out.problems.extend(
            Limit("gemini-openapi", c.name, "input", path, f"cannot be expressed: {why}")
            for path, why in rewrite.blockers
        )
        for name in c.exported_input(enums).get("properties", {}):
            if not _GEMINI_NAME.fullmatch(name):
                message = (
                    f"Gemini refuses the property name {name!r}: a name must match ^[A-Za-z_][A-Za-z0-9_]{{0,63}}$"
                )
                out.problems.append(Limit("gemini-openapi", c.name, "input", ("properties", name), message))
        out.data["functionDeclarations"].append(
            {"name": c.name, "description": c.description, "parameters": rewrite.schema}
        )
    return out


def export_definitions(fmt: str, contracts: Sequence[Contract], enums: Mapping[str, list[str]]) -> Exported:
    """Definitions of ``contracts`` (one request's tool set) in ``fmt``.

    Raises:
        ValueError: ``fmt`` is not one of ``DEFINITION_FORMATS``.
    """
    if fmt == "mcp":  # the one format with resources and prompts
        return _mcp(contracts, enums)
    contracts = [c for c in contracts if c.is_tool]  # the provider APIs have no resources or prompts
    if fmt in ("openai", "openai-responses"):
        return _openai(contracts, enums, fmt)
    if fmt == "anthropic":
        return _anthropic(contracts, enums)
    if fmt == "gemini":
        return _gemini(contracts, enums)
    if fmt == "gemini-openapi":
        return _gemini_openapi(contracts, enums)
    raise ValueError(f"unknown definition format {fmt!r}; choose from {', '.join(DEFINITION_FORMATS)}")
