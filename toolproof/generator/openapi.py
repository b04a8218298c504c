"""The OpenAPI 3.1 document of the HTTP façade: one ``POST /tools/{name}`` per contract.

The request body is the tool's input schema (also accepting null for an optional
property, as the runtime does: ``runtime.nulls``), a 200 is its output, and each
catalogued error is documented under its HTTP status as a typed body whose
``code`` enumerates the codes that status can carry. Schemathesis fuzzes the
served app against this document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from toolproof.generator.exports import demonstrations
from toolproof.generator.model import Contract
from toolproof.generator.transforms import lifted_defs
from toolproof.runtime.errors import INVALID_ARGUMENTS, STANDARD_ERRORS, UNKNOWN_TOOL
from toolproof.runtime.nulls import accepting_dropped_nulls
from toolproof.runtime.project import ProjectConfig

__all__ = ["SESSION_HEADER", "UNNAMED", "UNVERSIONED", "ApiInfo", "api_info", "openapi_document"]

SESSION_HEADER: Final = "X-Toolproof-Session"
_STATUS_TEXT: Final = {
    400: "The body is not a JSON object",
    403: "Refused",
    404: "Not found",
    413: "Too large",
    422: "The arguments were understood and refused",
    500: "Internal error: the failure was logged",
}


@dataclass(frozen=True, slots=True)
class ApiInfo:
    """What the document's ``info`` names: the project's title and the version of its tools."""

    title: str
    version: str


UNNAMED: Final = "toolproof tools"
"""The title of a project whose pyproject.toml declares no ``[project]`` name."""
UNVERSIONED: Final = "0.0.0"
"""The version of a project whose pyproject.toml declares none (client generators take it as a package version)."""


def api_info(config: ProjectConfig) -> ApiInfo:
    """The title and version of ``config``'s project: the ``[project]`` name and version of its pyproject.toml.

    Read from the file beside the settings, never from an installed package, so every checkout renders the same
    document (``gen --check``). A version the file leaves ``dynamic`` is known only when the package is built:
    the document says ``0.0.0`` then, as it does for a project with no version or no pyproject.toml. The
    built-in tools are toolproof's own: they carry its version, however the project was found.
    """
    from toolproof.generator import __version__

    if config.is_builtin:
        return ApiInfo("toolproof built-in tools", __version__)
    table = _project_table(config.root / "pyproject.toml")
    name, version = table.get("name"), table.get("version")
    return ApiInfo(
        name if isinstance(name, str) and name else UNNAMED,
        version if isinstance(version, str) and version else UNVERSIONED,
    )


def _project_table(path: Path) -> Mapping[str, Any]:
    """The ``[project]`` table of the pyproject.toml at ``path``; empty when there is none or it cannot be read."""
    import tomllib  # here, as in runtime.project: its import costs ~2 ms and only gen needs it

    try:
        with path.open("rb") as handle:
            table = tomllib.load(handle).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):  # none, or a broken one beside a toolproof.toml: nothing declared
        return {}
    return table if isinstance(table, Mapping) else {}


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
    """Request examples: the calls that succeed as written (``exports.demonstrations``), keyed by their place."""
    return {f"example{i + 1}": {"summary": ex["name"], "value": ex["input"]} for i, ex in demonstrations(c)}


def openapi_document(contracts: Sequence[Contract], enums: Mapping[str, list[str]], info: ApiInfo) -> dict[str, Any]:
    """The OpenAPI 3.1 document for ``contracts``, its ``info`` naming the project as ``info`` says."""
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
            "title": info.title,
            "version": info.version,
            "description": "One POST /tools/{name} per tool contract; the body is the tool's arguments.",
        },
        "paths": paths,
        "components": {"schemas": dict(sorted(components.items()))},
    }
