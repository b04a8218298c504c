"""Conform's reading of a server's resources and prompts: the request an example makes, and what the answer means.

A resource example reads the URI its template expands to from the example's
input (``resources/read``); a prompt example gets the prompt with the input as
its arguments (``prompts/get``). The answer cannot pass by accident:

- a success must be the contract's: a read's first content item must carry the
  URI asked for and the contract's MIME type, and its ``text`` or ``blob`` (the
  one the MIME type implies) becomes the output; a prompt's ``messages`` (and
  ``description``) are the output; either must satisfy the implied output schema;
- an error is a JSON-RPC error. Its code is the catalogued one the server names
  in ``data["dev.toolproof/error"]`` (a code of the contract's catalogue, whose
  message must fit the code's template); a server that names none passes only
  where its message fits the template of the error the example expects.

The listing is held to the contract too (``listing_problems``): the resource is
listed by ``resources/list`` (a fixed URI) or ``resources/templates/list`` (a
template) with the contract's URI and MIME type, the prompt by ``prompts/list``
with the contract's arguments, each required as the contract's input says.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from toolproof.runtime.result import ErrorInfo, ToolResult
from toolproof.runtime.serve.offers import ERROR_DATA_KEY
from toolproof.runtime.spec import ToolSpec
from toolproof.runtime.uritemplate import UriTemplate
from toolproof.runtime.validation import SchemaValidator
from toolproof.testing.replay import ExampleFailure

__all__ = ["LIST_METHODS", "listing_problems", "read_offered", "refused_offered", "request_of"]

LIST_METHODS: Final = (
    ("resources/list", "resources"),
    ("resources/templates/list", "resourceTemplates"),
    ("prompts/list", "prompts"),
)
"""The list methods that name a server's resources, resource templates and prompts, and the key of each list."""


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def request_of(spec: ToolSpec, arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The MCP request that replays an example of ``spec`` with ``arguments``: its method and params."""
    if spec.kind == "resource":
        assert spec.resource is not None  # a resource's spec always carries it
        return "resources/read", {"uri": UriTemplate(str(spec.resource["uri"])).expand(arguments)}
    return "prompts/get", {"name": spec.name, "arguments": dict(arguments)}


def read_offered(spec: ToolSpec, raw: Any, params: Mapping[str, Any], name: str) -> ToolResult:
    """A server's successful answer to ``request_of`` as a ``ToolResult``.

    Raises:
        ExampleFailure: the answer is not the contract's (see the module's docstring).
    """
    if not isinstance(raw, Mapping):
        raise ExampleFailure(f"example {name!r}: the answer is {_show(raw)}, not an object")
    text = ""
    if spec.kind == "resource":
        assert spec.resource is not None
        contents = raw.get("contents")
        if not isinstance(contents, list) or not contents or not isinstance(contents[0], Mapping):
            raise ExampleFailure(f"example {name!r}: resources/read returned no content item: {_show(raw)}")
        item = contents[0]
        if item.get("uri") != params["uri"]:
            raise ExampleFailure(
                f"example {name!r}: the content's uri {_show(item.get('uri'))} is not {params['uri']!r}"
            )
        if item.get("mimeType") != spec.resource["mime_type"]:
            raise ExampleFailure(
                f"example {name!r}: the content's mimeType {_show(item.get('mimeType'))} is not the contract's"
                f" {spec.resource['mime_type']!r}"
            )
        output: dict[str, Any] = {key: item[key] for key in ("text", "blob") if key in item}
        text = str(output.get("text", ""))
    else:
        output = {key: raw[key] for key in ("description", "messages") if key in raw}
    validator = SchemaValidator(spec.output_schema)
    if not validator.is_valid(output):
        raise ExampleFailure(f"example {name!r}: the {spec.kind} breaks its contract: {validator.explain(output)}")
    return ToolResult(spec.name, output, None, text)


def refused_offered(spec: ToolSpec, error: Any, expected: str | None, name: str) -> ToolResult:
    """A server's JSON-RPC error answer to ``request_of`` as a ``ToolResult`` holding the catalogued error.

    Raises:
        ExampleFailure: the error names no catalogued error, or its message does not fit the template of the one
            it names (or, naming none, of the one the example expects).
    """
    body = error if isinstance(error, Mapping) else {}
    data = body.get("data")
    named = data.get(ERROR_DATA_KEY) if isinstance(data, Mapping) else None
    if isinstance(named, Mapping) and isinstance(named.get("code"), str):
        code, message = named["code"], named.get("message")
        hint = named.get("hint") if isinstance(named.get("hint"), str) else None
    elif expected is not None:
        code, message, hint = expected, body.get("message"), None
    else:
        raise ExampleFailure(f"example {name!r}: a JSON-RPC error that names no catalogued error: {_show(body)}")
    entry = spec.errors.get(code)
    if entry is None:
        raise ExampleFailure(f"example {name!r}: the server names error {code!r}, which the catalogue lacks")
    if not isinstance(message, str) or entry.message.pattern().fullmatch(message) is None:
        raise ExampleFailure(
            f"example {name!r}: the error message {_show(message)} does not fit {code!r}'s {entry.message.source!r}"
        )
    return ToolResult(spec.name, None, ErrorInfo(code, message, hint), message)


def listing_problems(spec: ToolSpec, listed: Mapping[str, Any]) -> list[str]:
    """How the server's list entry of ``spec`` differs from the contract (empty when it does not)."""
    if spec.kind == "resource":
        assert spec.resource is not None
        uri = str(spec.resource["uri"])
        key = "uriTemplate" if UriTemplate(uri).variables else "uri"
        problems = [] if listed.get(key) == uri else [f"{key} {_show(listed.get(key))}, not {uri!r}"]
        if listed.get("mimeType") != spec.resource["mime_type"]:
            problems.append(f"mimeType {_show(listed.get('mimeType'))}, not {spec.resource['mime_type']!r}")
        return problems
    required = set(spec.input_schema.get("required", ()))
    want = {arg: arg in required for arg in spec.input_schema.get("properties", {})}
    arguments = listed.get("arguments") or []
    got = {a.get("name"): bool(a.get("required")) for a in arguments if isinstance(a, Mapping)}
    return [] if got == want else [f"arguments {_show(got)} (name: required), not {want!r}"]
