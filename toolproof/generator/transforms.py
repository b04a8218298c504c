"""Rewrite a contract's JSON Schema into what each provider accepts, recording every loss.

The runtime always validates against the contract's full schema; these
rewrites only shape what a provider is shown. Each function returns the new
schema and the losses; none mutates its input.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import quote

import orjson

from toolproof.generator.losses import MADE_NULLABLE, Loss, pointer
from toolproof.generator.refs import locate, recursive_refs, resolve, walk
from toolproof.runtime.nulls import kept_nulls, passes_null
from toolproof.runtime.validation import FORMATS as ASSERTED_FORMATS

__all__ = [
    "Rewrite",
    "anthropic_schema",
    "gemini_json_schema",
    "gemini_openapi_schema",
    "lifted_defs",
    "merged_all_of",
    "openai_strict_schema",
]

Path = tuple[str | int, ...]
Blocker = tuple[Path, str]

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
_STRICT_DROPPED = (*_ANNOTATIONS_DROPPED, "$anchor")
"""What a strict export drops silently; ``$anchor`` once every ``$ref`` to one is a JSON pointer."""
_LOOKAROUND = re.compile(r"\(\?<?[=!]")
_BACKREFERENCE = re.compile(r"\\(?:[1-9]|k<)")
"""A backreference, by number or by name (``\\k<name>``), outside a character class (see ``_has_backreference``)."""

_ENFORCED = "the runtime still enforces it"
_DOCUMENTATION = "documentation only"
_CLOSED = "strict mode needs closed objects; the contract allows extra keys"
_ONE_BRANCH = "the runtime still enforces that exactly one branch matches"


def _format_why(name: object) -> str:
    """Why moving or dropping a ``format`` loses nothing at run time, or that it does (an unknown one)."""
    return _ENFORCED if name in ASSERTED_FORMATS else "the runtime does not assert this format"


_PRESENCE_KEPT = (
    "an optional property stands where a keyword tells a key left out from a key sent null (minProperties,"
    " oneOf, not, ...): strict mode would make the model send null there, which the runtime refuses"
)
_NULL_KEPT = (
    "optional, and null is one of its values: strict mode requires every property, so a call could no longer"
    " leave it out, which the contract tells apart from null"
)


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
    blockers: list[Blocker] = field(default_factory=list)
    """What kept the schema from being strict (or, for gemini-openapi, expressed): each place and why."""


class _Walker:
    def __init__(self, fmt: str, tool: str, which: str) -> None:
        self.fmt, self.tool, self.which = fmt, tool, which
        self.losses: list[Loss] = []
        self.blockers: list[Blocker] = []

    def loss(self, path: Path, keyword: str, action: str, detail: str) -> None:
        self.losses.append(Loss(self.fmt, self.tool, self.which, path, keyword, action, detail))

    def block(self, path: Path, why: str) -> None:
        """Record what keeps the schema from being strict, at ``path``."""
        self.blockers.append((path, why))

    def close(self, node: dict[str, Any], path: Path) -> None:
        """Make an object schema closed, as strict modes require; a map cannot be."""
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            self.block(path, "a map (additionalProperties with a schema)")
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
        why = self.why()
        loss = Loss(
            self.fmt, self.tool, self.which, (), "strict", "exported non-strict", f"cannot be made strict: {why}"
        )
        return Rewrite(plain, False, [loss], why, list(self.blockers))

    def why(self) -> str:
        """Every blocker, in one sentence: ``/properties/tags: a map (...); /items: ...``."""
        return "; ".join(f"{pointer(path) or '(root)'}: {why}" for path, why in self.blockers)

    def pointer_ref(self, node: dict[str, Any], root: Any, path: Path) -> None:
        """Write a ``$ref`` to an ``$anchor`` as the JSON pointer to the schema that holds it."""
        ref = node.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#") or ref[1:2] in ("", "/"):
            return
        target, _ = locate(root, ref)
        if target is not None:
            node["$ref"] = "#" + quote(pointer(target), safe="/~$!&'()*+,;=:@")
            self.loss(path, "$ref", "rewritten as a JSON pointer", f"{ref} names the same schema; no $anchor here")

    def tuple_items(self, node: dict[str, Any], path: Path) -> None:
        """Drop ``items: false`` beside ``prefixItems``, which strict modes cannot keep: alone it allows only ``[]``."""
        if node.get("items") is False and isinstance(node.get("prefixItems"), list):
            del node["items"]
            detail = "without the prefixItems strict mode drops, items: false would allow only an empty array"
            self.loss(path, "items", "dropped", f"{detail}; {_ENFORCED}")

    def false_properties(self, node: dict[str, Any], path: Path) -> None:
        """Drop each property whose schema is ``false``: the closed object strict mode makes refuses it anyway."""
        props = node.get("properties")
        if not isinstance(props, dict):
            return
        for name in [n for n, sub in props.items() if sub is False]:
            del props[name]
            detail = "a property whose schema is false may never be sent; the closed object refuses it the same"
            self.loss((*path, "properties", name), "false", "dropped", detail)

    def false_branches(self, node: dict[str, Any], path: Path) -> None:
        """Drop each ``false`` branch of an ``anyOf``/``oneOf``: it matches nothing."""
        for key in ("anyOf", "oneOf"):
            branches = node.get(key)
            if isinstance(branches, list) and any(b is False for b in branches):
                for i in [i for i, b in enumerate(branches) if b is False]:
                    self.loss((*path, key, i), "false", "dropped", "a branch whose schema is false matches nothing")
                node[key] = [b for b in branches if b is not False]
                if not node[key]:
                    self.block((*path, key), "no branch can match")

    def to_description(self, node: dict[str, Any], path: Path, keyword: str, why: str) -> None:
        value = node.pop(keyword)
        note = f"{keyword}: {_show(value)}"
        text = node.get("description", "")
        node["description"] = f"{text} ({note})" if text else f"({note})"
        self.loss(path, keyword, "moved to description", why)


def _show(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _children(node: dict[str, Any], path: Path, visit: Callable[[Any, Path], Any]) -> None:
    """Visit the subschemas a provider rewrite handles, ``true`` and ``false`` included (not a boolean
    ``additionalProperties``, which closing an object deals with)."""
    for key in ("properties", "$defs", "definitions"):
        if isinstance(node.get(key), dict):
            node[key] = {name: visit(sub, (*path, key, name)) for name, sub in node[key].items()}
    if isinstance(node.get("items"), dict | bool):
        node["items"] = visit(node["items"], (*path, "items"))
    if isinstance(node.get("additionalProperties"), dict):
        node["additionalProperties"] = visit(node["additionalProperties"], (*path, "additionalProperties"))
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(node.get(key), list):
            node[key] = [visit(sub, (*path, key, i)) for i, sub in enumerate(node[key])]


def _boolean(w: _Walker, node: bool, path: Path, provider: str) -> bool:
    """A ``true`` or ``false`` subschema in a strict export, where no rewrite could drop it: it blocks strict."""
    if node:
        w.block(path, f"true (any value), which {provider} strict mode cannot type")
    else:
        w.block(path, f"false (no value), which {provider} strict mode cannot express")
    return node


def _has_backreference(pattern: str) -> bool:
    """Whether ``pattern`` holds a backreference (``\\1``, ``\\k<name>``) outside a character class."""
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            if not in_class and _BACKREFERENCE.match(pattern, i):
                return True
            i += 2
            continue
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        i += 1
    return False


def _accepts_null(node: Any) -> bool:
    """Whether a schema plainly accepts null: its type, enum and const allow it, and so does a branch of its anyOf.

    A ``$ref`` (or an ``allOf``, ``oneOf`` or ``not``) is not looked into: such a schema is taken not to.
    """
    if node is True:
        return True
    if not isinstance(node, dict) or any(k in node for k in ("$ref", "allOf", "oneOf", "not")):
        return False
    kind = node.get("type", "null")
    if "null" not in (kind if isinstance(kind, list) else [kind]):
        return False
    if ("enum" in node and None not in node["enum"]) or node.get("const", None) is not None:
        return False
    branches = node.get("anyOf")
    return not isinstance(branches, list) or any(_accepts_null(b) for b in branches)


def _nullable(node: Any) -> Any:
    """A schema that also accepts null: unchanged when it already does (``true``, a null branch, a null type)."""
    if not isinstance(node, dict) or _accepts_null(node):
        return node
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


_ADJACENT: Final = (
    ("properties", "patternProperties", "additionalProperties"),
    ("prefixItems", "items"),
    ("contains", "minContains", "maxContains"),
    ("if", "then", "else"),
)
"""Keywords that read each other in one schema object: merged from two places, they would mean something else."""
_UNMERGEABLE: Final = ("$ref", "$defs", "definitions", "$id", "$anchor", "unevaluatedProperties", "unevaluatedItems")


def merged_all_of(node: Mapping[str, Any]) -> dict[str, Any] | None:
    """``node`` with its ``allOf`` parts written into it, when one schema says the same; else None.

    That holds when every part is an object schema, no keyword has two different values (``required``
    lists are joined), and keywords that read each other (``additionalProperties`` reads ``properties``)
    come from one place. Nothing with a ``$ref`` or that ``unevaluated*`` could see is merged.
    """
    parts = node.get("allOf")
    if not isinstance(parts, list) or not all(isinstance(p, Mapping) for p in parts):
        return None
    merged = {k: v for k, v in node.items() if k != "allOf"}
    places: list[Mapping[str, Any]] = [merged, *parts]
    if any(k in place for place in places for k in _UNMERGEABLE):
        return None
    if any(sum(1 for place in places if any(k in place for k in group)) > 1 for group in _ADJACENT):
        return None
    for part in parts:
        for key, value in part.items():
            if key == "required" and isinstance(value, list) and isinstance(merged.get(key), list):
                merged[key] = list(dict.fromkeys([*merged[key], *value]))
            elif key in merged and merged[key] != value:
                return None
            else:
                merged[key] = value
    return merged


_REBASING: Final = ("$schema", "$id", "$anchor")
"""What a schema moved into a bigger document drops: once every reference in it is a JSON pointer, an
``$id`` would move the base they resolve against, and an ``$anchor`` could clash with another schema's."""


def lifted_defs(
    schema: Mapping[str, Any], home: str, defs: dict[str, Any], base: tuple[str, ...] = ("$defs",)
) -> dict[str, Any]:
    """``schema`` made to stand at ``#/$defs/<home>`` of a bigger document, its own ``$defs`` moved beside it.

    ``base`` is where ``defs`` stands in that document (``("components", "schemas")`` in OpenAPI's).

    Under JSON Schema 2020-12 a ``#...`` reference resolves against the document's root, so a schema
    nested unchanged would point at nothing. Each definition moves into ``defs`` (the document's
    ``$defs``, whose names it avoids) as ``home`` and its name (``address`` of ``Input`` becomes
    ``InputAddress``), and every local ``$ref`` becomes the JSON pointer to where its target now
    stands: ``#`` becomes ``#/$defs/<home>``, an anchor the pointer to the schema that holds it.

    Returns:
        The schema to store as ``defs[home]``: a copy, without its ``$defs`` and without ``$schema``,
        ``$id`` and ``$anchor`` anywhere (``_REBASING``).
    """
    copied: dict[str, Any] = _copied(dict(schema))
    moved = copied.pop("$defs", None)
    moved = moved if isinstance(moved, dict) else {}
    names: dict[str, str] = {}
    for name in moved:
        target = home + re.sub(r"[^A-Za-z0-9]", "", name.title())
        while target == home or target in defs or target in names.values():
            target += "_"
        names[name] = target

    def moved_ref(ref: str) -> str:
        path, _ = locate(schema, ref)
        if path is None:
            return ref
        where = home
        if len(path) >= 2 and path[0] == "$defs" and path[1] in names:
            where, path = names[str(path[1])], path[2:]
        return "#" + quote(pointer((*base, where, *path)), safe="/~$!&'()*+,;=:@")

    for top in (copied, *moved.values()):
        for _, node in walk(top):
            if not isinstance(node, dict):
                continue
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#"):
                node["$ref"] = moved_ref(ref)
            for key in _REBASING:
                node.pop(key, None)
    for name, target in names.items():
        defs[target] = moved[name]
    return copied


def openai_strict_schema(schema: dict[str, Any], tool: str, fmt: str = "openai") -> Rewrite:
    """OpenAI strict mode: closed objects, every property required, optional ones nullable.

    Unsupported keywords move into the description; ``default`` does too unless
    the description already says it; ``title`` and ``examples`` are dropped;
    ``oneOf`` becomes ``anyOf``. When a construct cannot be made strict (a map,
    a multi-part ``allOf``, an untyped array, an optional property that takes
    null, where a null the runtime passes on and a key left out mean different
    things, or one beside a keyword that counts the keys present:
    ``nulls.kept_nulls``), the tool is exported non-strict with its schema as written, and the
    reason is recorded.
    """
    w = _Walker(fmt, tool, "input")
    if kept_nulls(schema):
        w.block((), _PRESENCE_KEPT)

    def visit(node: Any, path: Path) -> Any:
        if isinstance(node, bool):
            return _boolean(w, node, path, "OpenAI")
        if not isinstance(node, dict):
            return node
        node = dict(node)
        if "allOf" in node:  # first: an inlined part must pass every rule below, as if written here
            parts = node.pop("allOf")
            if parts == [True]:
                w.loss(path, "allOf", "dropped", "a one-part allOf of true constrains nothing")
            elif len(parts) == 1 and isinstance(parts[0], dict):
                clash = sorted(k for k, v in parts[0].items() if k in node and node[k] != v)
                if not clash:
                    w.loss(path, "allOf", "inlined", "a one-part allOf means the same as its part")
                    return visit({**parts[0], **node}, path)
                w.block(path, f"allOf whose part sets {', '.join(clash)} otherwise")
            else:
                w.block(path, f"allOf with {len(parts)} parts")
        for key in _STRICT_DROPPED:
            node.pop(key, None)
        w.pointer_ref(node, schema, path)
        w.tuple_items(node, path)
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
            w.to_description(node, path, "format", f"not an OpenAI strict format; {_format_why(node['format'])}")
        if isinstance(node.get("pattern"), str) and _LOOKAROUND.search(node["pattern"]):
            w.to_description(node, path, "pattern", f"OpenAI strict mode has no lookaround; {_ENFORCED}")
        w.false_branches(node, path)
        w.one_of_as_any_of(node, path)
        if "$ref" in node and len(node) > 1:
            ref = node.pop("$ref")
            node["anyOf"] = [{"$ref": ref}]
        if node.get("type") == "array" and "items" not in node:
            w.block(path, "an array without typed items")
        w.false_properties(node, path)
        required = set(node.get("required", ()))
        declared = node.get("properties")
        null_kept = {
            name
            for name, sub in (declared.items() if isinstance(declared, dict) else ())
            if name not in required and isinstance(sub, dict) and passes_null(sub, schema)  # not true: it blocks
        }
        _children(node, path, visit)
        if node.get("type") == "object" or "properties" in node:
            w.close(node, path)
            props: dict[str, Any] = node.setdefault("properties", {})
            for name in props:
                if name in null_kept:
                    w.block((*path, "properties", name), _NULL_KEPT)
                elif name not in required:
                    props[name] = _nullable(props[name])
                    w.loss(
                        (*path, "properties", name),
                        "required",
                        MADE_NULLABLE,
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
    for path, ref in recursive_refs(schema):
        w.block(path, f"a recursive $ref ({ref}), which Anthropic strict mode refuses")

    def visit(node: Any, path: Path) -> Any:
        if isinstance(node, bool):
            return _boolean(w, node, path, "Anthropic")
        if not isinstance(node, dict):
            return node
        node = dict(node)
        for key in _STRICT_DROPPED:
            node.pop(key, None)
        w.pointer_ref(node, schema, path)
        w.tuple_items(node, path)
        if "title" in node:
            node.pop("title")
            w.loss(path, "title", "dropped", "Anthropic strict mode does not take 'title'; documentation only")
        for key in _ANTHROPIC_UNSUPPORTED:
            if key in node:
                w.to_description(node, path, key, f"Anthropic strict mode rejects it; {_ENFORCED}")
        if node.get("minItems", 0) > 1:
            w.to_description(node, path, "minItems", f"Anthropic strict mode allows minItems 0 or 1; {_ENFORCED}")
        if "format" in node and node["format"] not in _ANTHROPIC_FORMATS:
            w.to_description(
                node, path, "format", f"not among Anthropic's strict formats; {_format_why(node['format'])}"
            )
        pattern = node.get("pattern")
        if isinstance(pattern, str) and (_LOOKAROUND.search(pattern) or "\\b" in pattern):
            w.to_description(node, path, "pattern", f"Anthropic strict regexes have no lookaround or \\b; {_ENFORCED}")
        elif isinstance(pattern, str) and _has_backreference(pattern):
            w.to_description(node, path, "pattern", f"Anthropic strict regexes have no backreferences; {_ENFORCED}")
        w.false_branches(node, path)
        w.one_of_as_any_of(node, path)
        if "enum" in node and any(isinstance(v, (dict, list)) for v in node["enum"]):
            w.block(path, "an enum of objects or arrays")
        if "$ref" in node and not str(node["$ref"]).startswith("#"):
            w.block(path, "a non-local $ref")
        w.false_properties(node, path)
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
            why = f"Gemini ignores or rejects string formats; {_format_why(node['format'])}"
            w.to_description(node, path, "format", why)
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
_WIDER: Final = {"integer": "NUMBER"}
"""A type that holds all the values of another: integer values may stand in a number."""


_GEMINI_DROPPED = (
    *("title", "examples", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "uniqueItems", "format"),
    *("allOf", "not", "if", "then", "else", "prefixItems", "contains", "minContains", "maxContains"),
    *("patternProperties", "propertyNames", "dependentRequired", "dependentSchemas", "dependencies"),
    *("unevaluatedItems", "unevaluatedProperties"),
)
"""Keywords the parameters form has no field for."""
_GEMINI_DROPPED_WHY: Final = {
    "title": f"the parameters form has no such field; {_DOCUMENTATION}",
    "examples": f"the parameters form has no such field; {_DOCUMENTATION}",
}
"""Why a dropped keyword is safe to drop, where "the runtime still enforces it" would not be true."""


def _json_type(value: Any) -> str:
    """The JSON type of a value from a schema's enum."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string" if isinstance(value, str) else "null" if value is None else "array or object"


def _size(node: Any) -> int:
    """The bytes ``node`` takes as compact JSON: what an inlined definition costs a request."""
    return len(json.dumps(node, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def gemini_openapi_schema(schema: dict[str, Any], tool: str) -> Rewrite:
    """Gemini's OpenAPI-subset ``parameters``: upper-case types, ``nullable``, string enums, no maps.

    It has no references: each ``$ref`` is inlined, and a recursive one once, its recursion then
    exported as a schema of the same type with nothing inside (a loss). ``true`` becomes an empty
    schema; ``false`` is dropped where that means the same (a property of a closed object, an
    ``anyOf`` branch, array items) and cannot be expressed anywhere else.
    """
    w = _Walker("gemini-openapi", tool, "input")

    def enum(node: dict[str, Any], out: dict[str, Any], path: Path) -> None:
        """A string enum as the form's enum; one of numbers or booleans as its type, the values described."""
        keyword = "const" if "const" in node else "enum"
        values = [node["const"]] if keyword == "const" else list(node["enum"])
        present = [v for v in values if v is not None]
        if None in values:
            out["nullable"] = True
        if all(isinstance(v, str) for v in present):
            out["enum"] = present
            out["format"] = "enum"
            out.setdefault("type", "STRING")
            return
        kinds = {_json_type(v) for v in present}
        kind = "number" if kinds == {"integer", "number"} else next(iter(kinds)) if len(kinds) == 1 else ""
        declared = out.get("type", _GEMINI_TYPES.get(kind))
        if kind not in ("integer", "number", "boolean") or declared not in (_GEMINI_TYPES[kind], _WIDER.get(kind)):
            shown = ", ".join(json.dumps(v, ensure_ascii=False) for v in values)
            why = "the parameters form takes string enums only, and the runtime would refuse the strings"
            w.block(path, f"{keyword} {shown}: {why}")
            return
        out.pop("anyOf", None)  # from a list of types: the values have one
        out["type"] = declared
        text = out.get("description", "")
        note = f"({keyword}: {_show(values if keyword == 'enum' else values[0])})"
        out["description"] = f"{text} {note}" if text else note
        detail = f"the parameters form takes string enums only; the model reads the values; {_ENFORCED}"
        w.loss(path, keyword, "moved to description", detail)

    def visit(node: Any, path: Path, origin: Path, jumps: tuple[Path, ...] = ()) -> dict[str, Any]:
        """``node`` (at ``path`` in the export, ``origin`` in the schema), after ``$ref`` jumps from ``jumps``."""
        if node is True:
            return {}
        if not isinstance(node, dict):
            w.block(path, "false (no value), which the parameters form cannot express")
            return {}
        if isinstance(node.get("$ref"), str):
            return inline(node, path, origin, jumps)
        merged = merged_all_of(node)
        if merged is not None:
            w.loss(path, "allOf", "merged", "its parts constrain different keywords, so one schema says the same")
            node = merged
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
        for key in _GEMINI_DROPPED:
            if key in node:
                why = _GEMINI_DROPPED_WHY.get(key, f"the parameters form has no such field; {_ENFORCED}")
                if key == "format":
                    why = f"the parameters form takes only a few formats of its own; {_format_why(node[key])}"
                w.loss(path, key, "dropped", why)
        if "const" in node or "enum" in node:
            enum(node, out, path)
        for key in ("anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                branches = [(i, sub) for i, sub in enumerate(node[key]) if sub is not False]
                options = [visit(sub, (*path, key, i), (*origin, key, i), jumps) for i, sub in branches]
                real = [o for o in options if o.get("type") != "NULL"]
                if len(real) < len(options):
                    out["nullable"] = True
                if len(real) == 1:
                    out.update(real[0])
                elif real:
                    out["anyOf"] = real
                else:
                    w.block((*path, key), "no branch can match")
                if key == "oneOf":
                    w.loss(path, "oneOf", "rewritten as anyOf", _ONE_BRANCH)
        if isinstance(node.get("properties"), dict):
            props = node["properties"]
            for name in [n for n, sub in props.items() if sub is False]:
                detail = f"a property whose schema is false may never be sent; this form cannot say so; {_ENFORCED}"
                w.loss((*path, "properties", name), "false", "dropped", detail)
            out["properties"] = {
                k: visit(v, (*path, "properties", k), (*origin, "properties", k), jumps)
                for k, v in props.items()
                if v is not False
            }
            out["propertyOrdering"] = list(out["properties"])
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
        items = node.get("items")
        if items is False and "prefixItems" not in node:
            out["maxItems"] = 0
            w.loss(path, "items", "rewritten as maxItems: 0", "items: false allows only an empty array, as maxItems: 0")
        elif isinstance(items, dict | bool) and items is not False:
            out["items"] = visit(items, (*path, "items"), (*origin, "items"), jumps)
        return out

    def inline(node: dict[str, Any], path: Path, origin: Path, jumps: tuple[Path, ...]) -> dict[str, Any]:
        ref = node["$ref"]
        target, why = locate(schema, ref)
        if target is None:
            w.block(path, f"$ref {ref} resolves to nothing: {why}")
            return {}
        _, found = resolve(schema, ref)
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        merged: Any = siblings if found is True else {**found, **siblings} if isinstance(found, dict) else found
        if any(place[: len(target)] == target for place in (origin, *jumps)):  # inlining it again never ends
            kind = merged.get("type") if isinstance(merged, dict) else None
            detail = (
                f"the parameters form has no references: {ref} is recursive, so it is inlined once and here"
                f" exported with nothing inside; {_ENFORCED}"
            )
            w.loss(path, "$ref", "recursion cut", detail)
            return {"type": _GEMINI_TYPES[kind]} if isinstance(kind, str) and kind in _GEMINI_TYPES else {}
        added = _size(merged) - _size(node)
        detail = f"the parameters form has no references; the definition is copied in, +{added} bytes of schema"
        w.loss(path, "$ref", "inlined", detail)
        return visit(merged, path, target, (*jumps, origin))

    rewritten = visit(schema, (), ())
    if w.blockers:
        return Rewrite({}, False, w.losses, w.why(), list(w.blockers))
    return Rewrite(rewritten, True, w.losses)
