"""The contract format, published: everything a contract says and ``conform`` checks, for any language.

``toolproof export --format contract`` prints one document per tool
(``published_contract``), valid against the JSON Schema shipped beside this
module (``contract-format.schema.json``, ``CONTRACT_FORMAT_ID``). The document
is self-contained: schemas with their shared ``$defs`` bundled in, the
catalogue with the standard errors, the render rules, the examples with their
fixtures. ``docs/specification.md`` says what an implementation must do with it.

``FORMAT_VERSION`` is ``major.minor``: a minor version adds optional fields a
reader may ignore; a major version changes or removes one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any, Final

from toolproof.generator.model import DEFAULT_ENUM_NOTE, Contract, ErrorModel, HostEnums
from toolproof.runtime.errors import inherited_errors
from toolproof.runtime.serve.mcp import ERROR_META_KEY
from toolproof.runtime.template import Template

__all__ = [
    "CONTRACT_FORMAT_ID",
    "ERROR_META_ID",
    "FORMAT_VERSION",
    "contract_format_schema",
    "error_meta_schema",
    "published_contract",
]

FORMAT_VERSION: Final = "1.1"
"""The version of the published contract format (``format_version`` in every document)."""
CONTRACT_FORMAT_ID: Final = "https://toolproof.dev/schemas/contract-format/1.json"
"""The ``$id`` of the format's JSON Schema, and the ``$schema`` every document names."""
ERROR_META_ID: Final = "https://toolproof.dev/schemas/error-meta/1.json"
"""The ``$id`` of the JSON Schema of ``_meta["dev.toolproof/error"]`` on an MCP error result."""

_STANDARD_PARAMS: Final[Mapping[str, Mapping[str, Any]]] = {
    "size": {"type": "integer", "minimum": 0},
    "limit": {"type": "integer", "minimum": 0},
    "seconds": {"type": "number", "exclusiveMinimum": 0},
}
"""Params of the standard errors that are no text (``response_too_large``, ``timed_out``); the others are strings."""


def _param_schema(c: Contract, error: ErrorModel, name: str) -> Any:
    """A param's schema: the one its catalogue entry declares, else its input field's, else a string."""
    declared = error.param_schemas.get(name)
    if declared is not None:
        return declared
    return c.input_schema.get("properties", {}).get(name, {"type": "string"})


def _entry(message: str, params: Mapping[str, Any], hint: str | None, status: int) -> dict[str, Any]:
    return {"message": message, "params": dict(params), **({"hint": hint} if hint else {}), "status": status}


def _standard_errors(asks: bool) -> dict[str, Any]:
    return {
        code: _entry(
            std.message,
            {name: _STANDARD_PARAMS.get(name, {"type": "string"}) for name in dict.fromkeys(std.template.fields)},
            std.hint,
            std.status,
        )
        for code, std in inherited_errors(asks).items()
    }


def _ask(c: Contract, name: str, wire: Mapping[str, Any]) -> dict[str, Any]:
    """A question as published: its kind, message, the params its message names beyond the input, and its form."""
    declared = c.asks[name].get("params", {})
    fields = dict.fromkeys(Template(wire["message"]).fields)
    inputs = c.input_schema.get("properties", {})
    params = {p: declared.get(p, {"type": "string"}) for p in fields if p not in inputs or p in declared}
    return {**wire, "params": params}


def _dynamic_enums(c: Contract, enums: Mapping[str, list[str]]) -> dict[str, Any]:
    """Each host-filled field: its source, where its ``enum`` goes, and the values exported by default."""
    by_host = isinstance(enums, HostEnums)
    return {
        name: {
            "source": source,
            "pointer": f"/properties/{name.replace('~', '~0').replace('/', '~1')}",
            "default": list(enums.get(source, [])),
            "default_from": "host" if by_host else "generation",
            **({} if by_host else {"note": DEFAULT_ENUM_NOTE}),
        }
        for name, source in c.dynamic_enums.items()
    }


def published_contract(c: Contract, enums: Mapping[str, list[str]]) -> dict[str, Any]:
    """The published document of one contract (format ``FORMAT_VERSION``).

    Args:
        c: the checked contract.
        enums: the values of each dynamic-enum source to publish as the default (``HostEnums``
            when a host supplied them: ``toolproof export --skills``).
    """
    settings: dict[str, Any] = {"symlinks": c.symlinks}
    if c.hardlinks:
        settings["hardlinks"] = c.hardlinks
    if c.skill_gate:
        settings["skill_gate"] = dict(c.skill_gate)
    render: dict[str, Any] = {"result": c.render["result"], "error": c.render["error"]}
    if c.error_output:
        render["error_output"] = dict(c.error_output)
    kind: dict[str, Any] = {}
    if not c.is_tool:  # absent for a tool, so a tool's document is what it always was
        kind["kind"] = c.kind
        if c.resource is not None:
            kind["resource"] = dict(c.resource)
        if c.completions:
            kind["completions"] = dict(c.completions)
    return {
        "$schema": CONTRACT_FORMAT_ID,
        "format_version": FORMAT_VERSION,
        **kind,
        "name": c.name,
        "version": c.version,
        "title": c.title,
        "description": c.description,
        "annotations": dict(c.annotations),
        "toolsets": list(c.toolsets),
        "needs": list(c.needs),
        **({"scopes": list(c.scopes)} if c.scopes else {}),
        "same_answer": c.same_answer,
        "timeout": c.timeout,
        "attaches": list(c.attaches),
        **({"asks": {name: _ask(c, name, ask) for name, ask in c.wire_asks().items()}} if c.asks else {}),
        "input": dict(c.input_schema),
        "output": dict(c.output_schema),
        "dynamic_enums": _dynamic_enums(c, enums),
        "errors": {
            e.code: _entry(e.message, {p.name: _param_schema(c, e, p.name) for p in e.params}, e.hint, e.status)
            for e in c.errors
        },
        "standard_errors": _standard_errors(bool(c.asks)),
        "render": render,
        "error_meta_key": ERROR_META_KEY,
        "settings": settings,
        "examples": list(c.examples),
        "sources": dict(sorted(c.sources.items())),
    }


def _schema(name: str) -> dict[str, Any]:
    text = resources.files("toolproof.generator").joinpath(name).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def contract_format_schema() -> dict[str, Any]:
    """The JSON Schema of a published contract document (``$id`` ``CONTRACT_FORMAT_ID``)."""
    return _schema("contract-format.schema.json")


def error_meta_schema() -> dict[str, Any]:
    """The JSON Schema of ``_meta["dev.toolproof/error"]`` on an MCP error result (``$id`` ``ERROR_META_ID``)."""
    return _schema("error-meta.schema.json")
