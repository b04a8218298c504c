"""Rewrite a contract's JSON Schema into what each provider accepts, recording every loss.

The runtime always validates against the contract's full schema; these
rewrites only shape what a provider is shown. Each function returns the new
schema and the losses; none mutates its input.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from toolproof.generator.losses import Loss

__all__ = ["Rewrite", "anthropic_schema", "gemini_json_schema", "gemini_openapi_schema", "openai_strict_schema"]

Path = tuple[str | int, ...]

_OPENAI_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
_ANTHROPIC_FORMATS = _OPENAI_FORMATS | {"uri"}
_NEVER_STRICT = (
    "patternProperties",
    "unevaluatedProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "unevaluatedItems",
    "contains",
    "uniqueItems",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "prefixItems",
)
"""Keywords neither OpenAI's nor Anthropic's strict mode takes."""
_OPENAI_UNSUPPORTED = ("minLength", "maxLength", *_NEVER_STRICT)
_ANTHROPIC_UNSUPPORTED = (
    *("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    *("minLength", "maxLength", "maxItems", *_NEVER_STRICT),
)
_ANNOTATIONS_DROPPED = ("$schema", "$id", "$comment")
_LOOKAROUND = re.compile(r"\(\?<?[=!]")

_ENFORCED = "the runtime still enforces it"
_CLOSED = "strict mode needs closed objects; the contract allows extra keys"
_ONE_BRANCH = "the runtime still enforces that exactly one branch matches"
_NO_FORMATS = "the runtime does not assert formats"


def _copied(schema: Any) -> Any:
    """A deep copy of a JSON schema, through orjson (~10x faster than ``copy.deepcopy``) when it is plain JSON."""
    try:
        return orjson.loads(orjson.dumps(schema))
    except (orjson.JSONEncodeError, TypeError):  # integers beyond 64 bits, keys that are not strings
        return copy.deepcopy(schema)


@dataclass(slots=True)
class Rewrite:
    """The outcome of one rewrite: the schema, whether it can be strict, and the losses."""

    schema: dict[str, Any]
    strict: bool
    losses: list[Loss] = field(default_factory=list)
    why_not_strict: str | None = None


class _Walker:
    def __init__(self, fmt: str, tool: str, which: str) -> None:
        self.fmt, self.tool, self.which = fmt, tool, which
        self.losses: list[Loss] = []
        self.blockers: list[str] = []

    def loss(self, path: Path, keyword: str, action: str, detail: str) -> None:
        self.losses.append(Loss(self.fmt, self.tool, self.which, path, keyword, action, detail))

    def close(self, node: dict[str, Any], path: Path) -> None:
        """Make an object schema closed, as strict modes require; a map cannot be."""
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            self.blockers.append(f"{path or '(root)'}: a map (additionalProperties with a schema)")
        elif extra is not False:
            self.loss(path, "additionalProperties", "set to false", _CLOSED)
        node["additionalProperties"] = False

    def one_of_as_any_of(self, node: dict[str, Any], path: Path) -> None:
        """Rewrite ``oneOf`` as ``anyOf``, which strict modes take."""
        if "oneOf" in node:
            node["anyOf"] = node.pop("oneOf")
            self.loss(path, "oneOf", "rewritten as anyOf", _ONE_BRANCH)

    def result(self, original: dict[str, Any], rewritten: dict[str, Any]) -> Rewrite:
        """The strict rewrite, or, when something blocked it, the schema as written and why."""
        if not self.blockers:
            return Rewrite(rewritten, True, self.losses)
        plain = {k: v for k, v in original.items() if k not in _ANNOTATIONS_DROPPED}
        why = "; ".join(self.blockers)
        loss = Loss(
            self.fmt, self.tool, self.which, (), "strict", "exported non-strict", f"cannot be made strict: {why}"
        )
        return Rewrite(plain, False, [loss], why)

    def to_description(self, node: dict[str, Any], path: Path, keyword: str, why: str) -> None:
        value = node.pop(keyword)
        note = f"{keyword}: {_show(value)}"
        text = node.get("description", "")
        node["description"] = f"{text} ({note})" if text else f"({note})"
        self.loss(path, keyword, "moved to description", why)


def _show(value: Any) -> str:
    if isinstance(value, str):
        return value
    import json

    return json.dumps(value, ensure_ascii=False)


def _children(node: dict[str, Any], path: Path, visit: Callable[[Any, Path], Any]) -> None:
    for key in ("properties", "$defs", "definitions"):
        if isinstance(node.get(key), dict):
            node[key] = {name: visit(sub, (*path, key, name)) for name, sub in node[key].items()}
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            node[key] = visit(node[key], (*path, key))
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(node.get(key), list):
            node[key] = [visit(sub, (*path, key, i)) for i, sub in enumerate(node[key])]


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """A schema that also accepts null."""
    node = dict(node)
    if "$ref" in node or "const" in node or ("anyOf" in node and "type" not in node):
        options = node.pop("anyOf", None) or [{k: node.pop(k) for k in ("$ref", "const") if k in node}]
        description = node.pop("description", None)
        out: dict[str, Any] = {"anyOf": [*options, {"type": "null"}], **node}
        if description is not None:
            out["description"] = description
        return out
    kind = node.get("type")
    if isinstance(kind, str) and kind != "null":
        node["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        node["type"] = [*kind, "null"]
    if "enum" in node and None not in node["enum"]:
        node["enum"] = [*node["enum"], None]
    return node


def openai_strict_schema(schema: dict[str, Any], tool: str, fmt: str = "openai") -> Rewrite:
    """OpenAI strict mode: closed objects, every property required, optional ones nullable.

    Unsupported keywords move into the description; ``default`` does too unless
    the description already says it; ``title`` and ``examples`` are dropped;
    ``oneOf`` becomes ``anyOf``. When a construct cannot be made strict (a map,
    a multi-part ``allOf``, an untyped array), the tool is exported non-strict
    with its schema as written, and the reason is recorded.
    """
    w = _Walker(fmt, tool, "input")

    def visit(node: Any, path: Path) -> Any:
        if not isinstance(node, dict):
            return node
        node = dict(node)
        for key in _ANNOTATIONS_DROPPED:
            node.pop(key, None)
        for key in ("title", "examples"):
            if key in node:
                node.pop(key)
                w.loss(path, key, "dropped", f"OpenAI strict mode does not take '{key}'; it is documentation only")
        if "default" in node:
            described = "default" in str(node.get("description", "")).lower()
            if described:
                node.pop("default")
                w.loss(path, "default", "dropped", "the description already states the default; the handler applies it")
            else:
                w.to_description(node, path, "default", "OpenAI strict mode has no 'default'; the handler applies it")
        for key in _OPENAI_UNSUPPORTED:
            if key in node:
                w.to_description(node, path, key, f"OpenAI strict mode rejects it; {_ENFORCED}")
        if "format" in node and node["format"] not in _OPENAI_FORMATS:
            w.to_description(node, path, "format", f"not an OpenAI strict format; {_NO_FORMATS}")
        if isinstance(node.get("pattern"), str) and _LOOKAROUND.search(node["pattern"]):
            w.to_description(node, path, "pattern", f"OpenAI strict mode has no lookaround; {_ENFORCED}")
        w.one_of_as_any_of(node, path)
        if "allOf" in node:
            parts = node.pop("allOf")
            if len(parts) == 1 and isinstance(parts[0], dict):
                node = {**parts[0], **node}
                w.loss(path, "allOf", "inlined", "a one-part allOf means the same as its part")
            else:
                w.blockers.append(f"{path or '(root)'}: allOf with {len(parts)} parts")
        if "$ref" in node and len(node) > 1:
            ref = node.pop("$ref")
            node["anyOf"] = [{"$ref": ref}]
        if node.get("type") == "array" and "items" not in node:
            w.blockers.append(f"{path or '(root)'}: an array without typed items")
        _children(node, path, visit)
        if node.get("type") == "object" or "properties" in node:
            w.close(node, path)
            props: dict[str, Any] = node.setdefault("properties", {})
            required = set(node.get("required", ()))
            for name in props:
                if name not in required:
                    props[name] = _nullable(props[name])
                    w.loss(
                        (*path, "properties", name),
                        "required",
                        "made required and nullable",
                        "strict mode requires every property; the runtime reads null as absent",
                    )
            node["required"] = list(props)
        return node

    return w.result(schema, visit(_copied(schema), ()))


def anthropic_schema(schema: dict[str, Any], tool: str) -> Rewrite:
    """Anthropic strict tool use: closed objects, supported keywords only; optional stays optional.

    Unsupported constraints move into the description, as the Anthropic SDK's
    ``transform_schema`` does, but recorded. Maps, complex enum values and
    recursion leave the tool non-strict.
    """
    w = _Walker("anthropic", tool, "input")

    def visit(node: Any, path: Path) -> Any:
        if not isinstance(node, dict):
            return node
        node = dict(node)
        for key in _ANNOTATIONS_DROPPED:
            node.pop(key, None)
        if "title" in node:
            node.pop("title")
            w.loss(path, "title", "dropped", "Anthropic strict mode does not take 'title'; documentation only")
        for key in _ANTHROPIC_UNSUPPORTED:
            if key in node:
                w.to_description(node, path, key, f"Anthropic strict mode rejects it; {_ENFORCED}")
        if node.get("minItems", 0) > 1:
            w.to_description(node, path, "minItems", f"Anthropic strict mode allows minItems 0 or 1; {_ENFORCED}")
        if "format" in node and node["format"] not in _ANTHROPIC_FORMATS:
            w.to_description(node, path, "format", "not among Anthropic's strict formats")
        if isinstance(node.get("pattern"), str) and (_LOOKAROUND.search(node["pattern"]) or "\\b" in node["pattern"]):
            w.to_description(node, path, "pattern", "Anthropic strict regexes have no lookaround or \\b")
        w.one_of_as_any_of(node, path)
        if "enum" in node and any(isinstance(v, (dict, list)) for v in node["enum"]):
            w.blockers.append(f"{path or '(root)'}: an enum of objects or arrays")
        if "$ref" in node and not str(node["$ref"]).startswith("#"):
            w.blockers.append(f"{path or '(root)'}: a non-local $ref")
        _children(node, path, visit)
        if node.get("type") == "object" or "properties" in node:
            w.close(node, path)
        return node

    return w.result(schema, visit(_copied(schema), ()))


def gemini_json_schema(schema: dict[str, Any], tool: str, which: str) -> Rewrite:
    """Gemini ``parametersJsonSchema`` / ``responseJsonSchema``: the field lessons of pydantic-ai, recorded."""
    w = _Walker("gemini", tool, which)

    def visit(node: Any, path: Path) -> Any:
        if not isinstance(node, dict):
            return node
        node = dict(node)
        for key in (*_ANNOTATIONS_DROPPED, "discriminator"):
            node.pop(key, None)
        for key in ("title", "examples"):
            if key in node:
                node.pop(key)
                w.loss(path, key, "dropped", f"Gemini mishandles '{key}' (python-genai#1732); documentation only")
        if "const" in node:
            value = node.pop("const")
            node["enum"] = [value]
            w.loss(path, "const", "rewritten as a one-value enum", "the same set of values")
        if "format" in node:
            w.to_description(node, path, "format", f"Gemini ignores or rejects string formats; {_NO_FORMATS}")
        for key in ("exclusiveMinimum", "exclusiveMaximum"):
            if key in node:
                w.to_description(node, path, key, f"Gemini rejects it; {_ENFORCED}")
        _children(node, path, visit)
        return node

    return Rewrite(visit(_copied(schema), ()), True, w.losses)


_GEMINI_TYPES = {
    "string": "STRING",
    "integer": "INTEGER",
    "number": "NUMBER",
    "boolean": "BOOLEAN",
    "array": "ARRAY",
    "object": "OBJECT",
    "null": "NULL",
}
_GEMINI_KEEP = (
    "description",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
    "pattern",
    "default",
)
"""JSON Schema keywords the Gemini ``Schema`` takes under the same (camelCase wire) names."""


def gemini_openapi_schema(schema: dict[str, Any], tool: str) -> Rewrite:
    """Gemini's OpenAPI-subset ``parameters``: upper-case types, ``nullable``, string enums, no maps."""
    w = _Walker("gemini-openapi", tool, "input")
    defs = schema.get("$defs", {})

    def visit(node: Any, path: Path, depth: int = 0) -> dict[str, Any]:
        if not isinstance(node, dict):
            return {}
        if "$ref" in node:
            name = str(node["$ref"]).removeprefix("#/$defs/")
            if depth > 16 or name not in defs:
                w.blockers.append(f"{path}: $ref {node['$ref']} cannot be inlined")
                return {}
            w.loss(path, "$ref", "inlined", "the parameters form has no references; the definition is copied in")
            return visit({**defs[name], **{k: v for k, v in node.items() if k != "$ref"}}, path, depth + 1)
        out: dict[str, Any] = {}
        kind = node.get("type")
        if isinstance(kind, list):
            rest = [k for k in kind if k != "null"]
            if "null" in kind:
                out["nullable"] = True
            if len(rest) == 1:
                kind = rest[0]
            else:
                out["anyOf"] = [{"type": _GEMINI_TYPES[k]} for k in rest]
                kind = None
        if isinstance(kind, str):
            out["type"] = _GEMINI_TYPES[kind]
        for key in _GEMINI_KEEP:
            if key in node:
                out[key] = node[key]
        for key in ("title", "examples", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "uniqueItems", "format"):
            if key in node:
                w.loss(path, key, "dropped", f"the parameters form has no such field; {_ENFORCED}")
        if "const" in node or "enum" in node:
            values = [node["const"]] if "const" in node else node["enum"]
            if any(not isinstance(v, str) for v in values if v is not None):
                w.loss(
                    path,
                    "enum",
                    "stringified",
                    "the parameters form takes string enums only; the runtime checks the real values",
                )
            if None in values:
                out["nullable"] = True
            out["enum"] = [str(v) if not isinstance(v, str) else v for v in values if v is not None]
            out["format"] = "enum"
            out.setdefault("type", "STRING")
        for key in ("anyOf", "oneOf"):
            if key in node:
                options = [visit(sub, (*path, key, i), depth) for i, sub in enumerate(node[key])]
                real = [o for o in options if o.get("type") != "NULL"]
                if len(real) < len(options):
                    out["nullable"] = True
                if len(real) == 1:
                    out.update(real[0])
                else:
                    out["anyOf"] = real
                if key == "oneOf":
                    w.loss(
                        path,
                        "oneOf",
                        "rewritten as anyOf",
                        _ONE_BRANCH,
                    )
        if "properties" in node:
            out["properties"] = {k: visit(v, (*path, "properties", k), depth) for k, v in node["properties"].items()}
            out["propertyOrdering"] = list(node["properties"])
            if node.get("required"):
                out["required"] = list(node["required"])
            out.setdefault("type", "OBJECT")
        if "additionalProperties" in node and node["additionalProperties"] is not False:
            w.loss(
                path,
                "additionalProperties",
                "dropped",
                "a map arrives empty through this form; prefer parametersJsonSchema",
            )
        elif node.get("additionalProperties") is False:
            w.loss(
                path,
                "additionalProperties",
                "dropped",
                "this form cannot close an object; the runtime refuses extra keys",
            )
        if isinstance(node.get("items"), dict):
            out["items"] = visit(node["items"], (*path, "items"), depth)
        return out

    rewritten = visit(schema, ())
    if w.blockers:
        return Rewrite({}, False, w.losses, "; ".join(w.blockers))
    return Rewrite(rewritten, True, w.losses)
