"""What an MCP server offers beside tools: its resources, resource templates and prompts, and completions.

Each is a contract served by the same runtime as a tool (``Runtime.call``: the
arguments validated, the handler run within the runtime's limits and timeout,
its output validated and audited, its errors catalogued); this module maps the
MCP methods onto it:

- ``resources/read``: the URI is matched against the fixed URIs first, then
  against the URI templates (in name order); its variables are the call's
  arguments. The handler's ``{text}`` or ``{blob}`` becomes one content item
  with the contract's MIME type. A URI that names no resource gets
  ``RESOURCE_NOT_FOUND`` (2025 revisions; -32602 in 2026-07-28, SEP-2164) with
  ``data.uri``; a catalogued error of the handler gets -32602 (the URI names
  nothing readable), ``internal_error`` -32603, each with ``data.uri`` and the
  error under ``data["dev.toolproof/error"]``.
- ``prompts/get``: the arguments are the call's; the handler's output is the
  result (``{description?, messages}``). Errors as for a read, ``data.name``.
- ``completion/complete``: the values of the argument's ``enum`` (a contract's,
  or a dynamic enum filled by the host at start-up, such as its skills), or of
  the host's resource its ``completions:`` names, that start with what the
  client typed, at most ``MAX_COMPLETIONS``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import INTERNAL_ERROR as INTERNAL_CODE
from toolproof.runtime.errors import RESPONSE_TOO_LARGE, STANDARD_ERRORS
from toolproof.runtime.result import ErrorInfo
from toolproof.runtime.serve.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, error_response, result_response
from toolproof.runtime.spec import ToolSpec
from toolproof.runtime.uritemplate import UriTemplate

__all__ = ["ERROR_DATA_KEY", "MAX_COMPLETIONS", "RESOURCE_NOT_FOUND", "Offers"]

RESOURCE_NOT_FOUND: Final = -32002
"""The 2025 revisions' code for a URI no resource answers to (2026-07-28 uses -32602, SEP-2164)."""
MAX_COMPLETIONS: Final = 100
"""The most values one ``completion/complete`` answer holds (MCP's bound)."""
ERROR_DATA_KEY: Final = "dev.toolproof/error"
"""Where a JSON-RPC error's ``data`` carries the catalogued ``{code, message, hint?}``."""

Answer = dict[str, Any]


class Offers:
    """The resources, resource templates and prompts of ``runtime``, with their MCP list entries.

    Args:
        runtime: the runtime serving them (and the tools).
        exported: the generated MCP export (``resources``, ``resourceTemplates``, ``prompts`` entries by name).
    """

    def __init__(self, runtime: Runtime, exported: Mapping[str, Any]) -> None:
        self.runtime = runtime
        served = {spec.name: spec for spec in runtime.specs if spec.kind != "tool"}
        self._specs = served
        self.resources = [dict(e) for e in exported.get("resources", ()) if e.get("name") in served]
        self.templates = [dict(e) for e in exported.get("resourceTemplates", ()) if e.get("name") in served]
        self.prompts = [dict(e) for e in exported.get("prompts", ()) if e.get("name") in served]
        self._fixed = {e["uri"]: served[e["name"]] for e in self.resources}
        self._templates = [(UriTemplate(e["uriTemplate"]), served[e["name"]]) for e in self.templates]
        self._prompts = {e["name"]: served[e["name"]] for e in self.prompts}

    @property
    def has_resources(self) -> bool:
        """Whether any resource or resource template is offered."""
        return bool(self.resources or self.templates)

    def missing(self) -> list[str]:
        """The served resources and prompts the export lists not (gen has not run since they changed)."""
        listed = {e["name"] for e in (*self.resources, *self.templates, *self.prompts)}
        return sorted(name for name in self._specs if name not in listed)

    def read(self, request_id: Any, params: Mapping[str, Any], session: str, *, modern: bool) -> Answer:
        """The answer to ``resources/read``."""
        uri = params.get("uri")
        if not isinstance(uri, str):
            return error_response(request_id, INVALID_PARAMS, "Invalid params: params.uri must be a string")
        found = self.find(uri)
        if found is None:
            code = INVALID_PARAMS if modern else RESOURCE_NOT_FOUND
            return error_response(request_id, code, "Resource not found", {"uri": uri})
        spec, arguments = found
        result = self.runtime.call(spec.name, arguments, session=session)
        if result.error is not None:
            return _failed(request_id, result.error, {"uri": uri})
        assert spec.resource is not None  # a resource's spec always carries it
        content: dict[str, Any] = {"uri": uri, "mimeType": spec.resource["mime_type"], **result.output}
        limit = spec.resource.get("max_bytes")
        size = _size(content)
        if isinstance(limit, int) and size > limit:
            return _failed(request_id, _too_large(spec, size, limit), {"uri": uri})
        return result_response(request_id, {"contents": [content]})

    def find(self, uri: str) -> tuple[ToolSpec, dict[str, str]] | None:
        """The resource ``uri`` names and its template's variables, or None."""
        spec = self._fixed.get(uri)
        if spec is not None:
            return spec, {}
        for template, spec in self._templates:
            variables = template.match(uri)
            if variables is not None:
                return spec, variables
        return None

    def get(self, request_id: Any, params: Mapping[str, Any], session: str) -> Answer:
        """The answer to ``prompts/get``."""
        name = params.get("name")
        if not isinstance(name, str):
            return error_response(request_id, INVALID_PARAMS, "Invalid params: params.name must be a string")
        spec = self._prompts.get(name)
        if spec is None:
            return error_response(request_id, INVALID_PARAMS, f"Unknown prompt: {name}", {"name": name})
        arguments = params.get("arguments")
        if arguments is not None and not isinstance(arguments, Mapping):
            return error_response(request_id, INVALID_PARAMS, "Invalid params: params.arguments must be an object")
        result = self.runtime.call(name, arguments or {}, session=session)
        if result.error is not None:
            return _failed(request_id, result.error, {"name": name})
        return result_response(request_id, dict(result.output))

    def complete(self, request_id: Any, params: Mapping[str, Any]) -> Answer:
        """The answer to ``completion/complete``."""
        ref, argument = params.get("ref"), params.get("argument")
        if not isinstance(ref, Mapping) or not isinstance(argument, Mapping):
            return error_response(
                request_id, INVALID_PARAMS, "Invalid params: params.ref and params.argument are objects"
            )
        name, value = argument.get("name"), argument.get("value", "")
        if not isinstance(name, str) or not isinstance(value, str):
            why = "params.argument needs a name and a value, both strings"
            return error_response(request_id, INVALID_PARAMS, f"Invalid params: {why}")
        spec = self._referenced(ref)
        if spec is None:
            return error_response(
                request_id, INVALID_PARAMS, "Invalid params: params.ref names no prompt or resource template"
            )
        prop = spec.input_schema.get("properties", {}).get(name)
        if not isinstance(prop, Mapping):
            return error_response(request_id, INVALID_PARAMS, f"Invalid params: {spec.name} has no argument {name!r}")
        source = (spec.completions or {}).get(name)
        offered = prop.get("enum", ()) if source is None else self.runtime.enum_values(source) or ()
        choices = [c for c in offered if isinstance(c, str) and c.startswith(value)]
        completion = {
            "values": choices[:MAX_COMPLETIONS],
            "total": len(choices),
            "hasMore": len(choices) > MAX_COMPLETIONS,
        }
        return result_response(request_id, {"completion": completion})

    def _referenced(self, ref: Mapping[str, Any]) -> ToolSpec | None:
        if ref.get("type") == "ref/prompt":
            return self._prompts.get(ref.get("name"))
        if ref.get("type") == "ref/resource":
            uri = ref.get("uri")
            return next((spec for template, spec in self._templates if template.text == uri), self._fixed.get(uri))
        return None


def _size(content: Mapping[str, Any]) -> int:
    """The bytes of a content item: its text as UTF-8, or its blob decoded (estimated from the base64)."""
    if "text" in content:
        return len(str(content["text"]).encode("utf-8", "surrogatepass"))
    blob = str(content.get("blob", ""))
    return len(blob) * 3 // 4 - blob.endswith("=") - blob.endswith("==")


def _too_large(spec: ToolSpec, size: int, limit: int) -> ErrorInfo:
    entry = spec.errors.get(RESPONSE_TOO_LARGE)
    values = {"size": size, "limit": limit}
    if entry is not None:
        return ErrorInfo(RESPONSE_TOO_LARGE, entry.message.render(values), entry.hint)
    standard = STANDARD_ERRORS[RESPONSE_TOO_LARGE]
    return ErrorInfo(RESPONSE_TOO_LARGE, standard.render(values), standard.hint)


def _failed(request_id: Any, error: ErrorInfo, data: dict[str, Any]) -> Answer:
    code = INTERNAL_ERROR if error.code == INTERNAL_CODE else INVALID_PARAMS
    return error_response(request_id, code, error.message, {**data, ERROR_DATA_KEY: error.to_dict()})
