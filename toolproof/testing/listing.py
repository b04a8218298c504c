"""A server's ``tools/list`` entry read against the contract's generated MCP export.

The ``inputSchema`` and ``outputSchema`` a server lists for a tool must be the
ones the contract's MCP export (``exports/mcp/all.json``) carries, keyword for
keyword. Numbers compare by value (``1`` is ``1.0``, never ``true``) and
``required`` as a set; a dynamic enum's ``enum`` and ``description`` are the
server's own (its values are discovered at start-up). A server that negotiated
a revision before 2025-06-18 need not list an ``outputSchema`` (see
``revisions``); one it lists anyway must still be the contract's.

Only what cannot change what a schema means, nor what a model reads, is
forgiven (toolproof's own strict exports drop the same keywords):

- ``$comment`` wherever a schema stands: JSON Schema forbids acting on it;
- ``$schema`` at the root naming 2020-12, the contracts' dialect and MCP's
  default, or draft-07 / 2019-09 (what zod and other SDKs write) when the
  contract's schema uses no keyword whose meaning those drafts change;
- ``"type": ["string"]`` for ``"type": "string"``, and a type list in another order.

``title`` and ``description`` (which the model reads) and ``$id`` (which moves
where a ``$ref`` resolves) are compared like every other keyword.

The tool's own ``title``, ``description`` and ``annotations`` must be the
export's too (``definition_differences``): a description is what the model
reads to choose the tool, so any change is a failure, shown where the texts
first differ. ``title`` came in 2025-06-18 and ``annotations`` in 2025-03-26, so
an older server need not list them; a hint it leaves out is taken at MCP's
default (``destructiveHint`` and ``openWorldHint`` true, the others false).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from toolproof.runtime.digests import DIGEST_META_KEY, LOCK_FILE, digest
from toolproof.runtime.serve.mcp import MCP_EXPORT
from toolproof.runtime.spec import ToolSpec, generated_json
from toolproof.testing.revisions import LATEST, structured

__all__ = ["MCP_EXPORT", "definition_differences", "digest_difference", "schema_difference", "show"]


_PLAIN_KEY = re.compile("[A-Za-z_][A-Za-z0-9_]*")
_SHOWN = 200
_DIALECT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
_OLDER_DIALECTS = ("http://json-schema.org/draft-07/schema", "https://json-schema.org/draft/2019-09/schema")
_DIALECT_SENSITIVE = frozenset(
    {
        *("prefixItems", "$ref", "$defs", "$anchor", "$dynamicRef", "$dynamicAnchor", "unevaluatedItems"),
        *("unevaluatedProperties", "dependentRequired", "dependentSchemas", "minContains", "maxContains"),
        *("contentSchema", "deprecated"),
    }
)
"""Keywords draft-07 or 2019-09 read otherwise than 2020-12, or not at all (``$ref`` with siblings, too)."""
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")
_SCHEMA_ONE_MORE = ("unevaluatedItems", "unevaluatedProperties", "contentSchema")
_TITLE_SINCE = "2025-06-18"
_ANNOTATIONS_SINCE = "2025-03-26"
_HINT_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
"""MCP's ``ToolAnnotations`` hints and the value a client assumes for one a server leaves out."""
_TEXT_SHOWN = 60


def show(value: object) -> str:
    """``value`` as JSON, cut to 200 characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _at(path: str, key: object) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if _PLAIN_KEY.fullmatch(str(key)) else f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def _same(got: object, want: object) -> bool:
    """Equal as JSON values: numbers by value, booleans only to booleans."""
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (got, want))
    return got == want if numbers else type(got) is type(want) and got == want


def _difference(got: Any, want: Any, path: str) -> str | None:
    """Where ``got`` first differs from ``want``, as ``path: the server has X, the contract has Y``; None if nowhere."""
    if isinstance(got, Mapping) and isinstance(want, Mapping):
        for key, value in want.items():
            if key not in got:
                return f"{_at(path, key)}: the server has nothing, the contract has {show(value)}"
            found = _difference(got[key], value, _at(path, key))
            if found is not None:
                return found
        extra = next((key for key in got if key not in want), None)
        if extra is None:
            return None
        return f"{_at(path, extra)}: the server has {show(got[extra])}, the contract has nothing"
    mismatch = f"{path}: the server has {show(got)}, the contract has {show(want)}"
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        if path.endswith(".required") and all(isinstance(name, str) for name in (*got, *want)):
            return None if set(got) == set(want) else mismatch
        for index, (item, wanted) in enumerate(zip(got, want, strict=True)):
            found = _difference(item, wanted, _at(path, index))
            if found is not None:
                return found
        return None
    return None if _same(got, want) else mismatch


def _keywords(schema: Any) -> set[str]:
    """Every keyword used wherever a schema stands in ``schema``."""
    if not isinstance(schema, Mapping):
        return set()
    found = set(schema)
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            for sub in value.values():
                found |= _keywords(sub)
        elif isinstance(value, list) and key in (*_SCHEMA_LISTS, "items"):
            for sub in value:
                found |= _keywords(sub)
        elif key in (*_SCHEMA_ONE, *_SCHEMA_ONE_MORE):
            found |= _keywords(value)
    if isinstance(schema.get("items"), list):
        found.add("prefixItems")  # draft-07's tuple form
    return found


def _plain(schema: Any) -> Any:
    """``schema`` without ``$comment`` and with each ``type`` list in one spelling, wherever a schema stands."""
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$comment":
            continue
        if key == "type" and isinstance(value, list) and all(isinstance(name, str) for name in value):
            names = sorted(set(value)) if len(set(value)) == len(value) else value
            out[key] = names[0] if len(names) == 1 else names
        elif key in _SCHEMA_MAPS and isinstance(value, Mapping):
            out[key] = {name: _plain(sub) for name, sub in value.items()}
        elif isinstance(value, list) and key in (*_SCHEMA_LISTS, "items"):
            out[key] = [_plain(sub) for sub in value]
        elif key in (*_SCHEMA_ONE, *_SCHEMA_ONE_MORE):
            out[key] = _plain(value)
        else:
            out[key] = value
    return out


def _comparable(got: Any, want: Any) -> tuple[Any, Any]:
    """Both schemas without what cannot change their meaning (see the module's docstring)."""
    got, want = _plain(got), _plain(want)
    if isinstance(got, Mapping) and isinstance(want, Mapping) and "$schema" in got and "$schema" not in want:
        dialect = got["$schema"].rstrip("#") if isinstance(got["$schema"], str) else None
        older = dialect in _OLDER_DIALECTS and not _keywords(want) & _DIALECT_SENSITIVE
        if dialect == _DIALECT_2020_12 or older:
            got = {key: value for key, value in got.items() if key != "$schema"}
    return got, want


@cache
def _exported(package: str) -> Mapping[str, Mapping[str, Any]]:
    """The package's MCP export by tool name.

    Raises:
        RegistryError: the export cannot be read.
        ValueError: it is not the MCP export gen writes.
    """
    data = generated_json(package, MCP_EXPORT)
    try:
        return {tool["name"]: tool for tool in data["tools"]}
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{package}: {MCP_EXPORT} is not the MCP export gen writes; run `toolproof gen`") from exc


def _without_dynamic_enums(spec: ToolSpec, schema: Any) -> Any:
    """``schema`` without the ``enum`` and ``description`` of its dynamic-enum properties (a host fills them)."""
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if not spec.dynamic_enums or not isinstance(props, Mapping):
        return schema
    masked = {
        name: {k: v for k, v in sub.items() if k not in ("enum", "description")}
        if name in spec.dynamic_enums and isinstance(sub, Mapping)
        else sub
        for name, sub in props.items()
    }
    return {**schema, "properties": masked}


def schema_difference(spec: ToolSpec, listed: Mapping[str, Any], revision: str = LATEST) -> str | None:
    """How the ``tools/list`` entry ``listed`` differs from the contract's MCP export; None when it does not.

    Args:
        spec: the contract.
        listed: the server's entry for the contract's tool.
        revision: the MCP revision the server negotiated; before 2025-06-18 no ``outputSchema`` is due.

    Raises:
        RegistryError, ValueError: the contract's MCP export cannot be read.
    """
    exported = _exported(spec.package).get(spec.name)
    if exported is None:
        return f"{spec.package}: {MCP_EXPORT} does not list '{spec.name}'; run `toolproof gen`"
    problems: list[str] = []
    for key in ("inputSchema", "outputSchema"):
        want = exported.get(key)
        if want is None:
            continue
        got = listed.get(key)
        if got is None:
            if key == "inputSchema" or structured(revision):
                problems.append(f"tools/list gives '{spec.name}' no {key}; the contract's is {show(want)}")
            continue
        if key == "inputSchema":
            got, want = _without_dynamic_enums(spec, got), _without_dynamic_enums(spec, want)
        found = _difference(*_comparable(got, want), "$")
        if found is not None:
            problems.append(f"tools/list gives '{spec.name}' an {key} other than the contract's: {found}")
    return "; ".join(problems) or None


def _text_difference(got: str, want: str) -> str:
    """Where two texts first differ: the server's and the contract's text from a little before there."""
    first = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), min(len(got), len(want)))
    start = max(first - 20, 0)

    def clip(text: str) -> str:
        part = text[start : start + _TEXT_SHOWN]
        return (
            ("..." if start else "")
            + json.dumps(part, ensure_ascii=False)[1:-1]
            + ("..." if start + _TEXT_SHOWN < len(text) else "")
        )

    return f'from character {first + 1}: the server has "{clip(got)}", the contract has "{clip(want)}"'


def definition_differences(spec: ToolSpec, listed: Mapping[str, Any], revision: str = LATEST) -> list[str]:
    """How the ``title``, ``description`` and ``annotations`` of ``listed`` differ from the contract's MCP export.

    Args:
        spec: the contract.
        listed: the server's ``tools/list`` entry for the contract's tool.
        revision: the MCP revision the server negotiated (see the module's docstring).

    Raises:
        RegistryError, ValueError: the contract's MCP export cannot be read.
    """
    exported = _exported(spec.package).get(spec.name)
    if exported is None:
        return []  # schema_difference says so
    name = spec.name
    problems: list[str] = []
    for key in ("title", "description"):
        want, got = exported.get(key), listed.get(key)
        if not isinstance(want, str) or (got is None and key == "title" and revision < _TITLE_SINCE):
            continue
        if got is None:
            problems.append(f"tools/list gives '{name}' no {key}; the contract's is {show(want)}")
        elif got != want:
            shown = _text_difference(got, want) if isinstance(got, str) else f"the server has {show(got)}"
            problems.append(f"tools/list gives '{name}' a {key} other than the contract's: {shown}")
    want_notes = exported.get("annotations")
    got_notes = listed.get("annotations")
    if not isinstance(want_notes, Mapping) or (got_notes is None and revision < _ANNOTATIONS_SINCE):
        return problems
    if not isinstance(got_notes, Mapping):
        got_notes = {}
    for hint, default in _HINT_DEFAULTS.items():
        want = want_notes.get(hint, default)
        got = got_notes.get(hint, default)
        if got != want:
            said = "leaves it out (MCP's default: " + json.dumps(default) + ")" if hint not in got_notes else show(got)
            problems.append(f"tools/list gives '{name}' annotations.{hint} {said}; the contract's is {show(want)}")
    title, want_title = got_notes.get("title"), want_notes.get("title")
    if title is not None and title != want_title:
        problems.append(
            f"tools/list gives '{name}' annotations.title {show(title)}; the contract's is {show(want_title)}"
        )
    return problems


@cache
def _pins(package: str) -> Mapping[str, Any]:
    """The package's lock file's ``tools`` (``runtime.digests``).

    Raises:
        RegistryError: the lock file cannot be read.
        ValueError: it is not the lock file gen writes.
    """
    data = generated_json(package, LOCK_FILE)
    tools = data.get("tools") if isinstance(data, Mapping) else None
    if not isinstance(tools, Mapping):
        raise ValueError(f"{package}: {LOCK_FILE} is not the lock file gen writes; run `toolproof gen`")
    return tools


def digest_difference(spec: ToolSpec, listed: Mapping[str, Any], revision: str = LATEST) -> str | None:
    """How the digest of the ``tools/list`` entry ``listed`` differs from the contract's pin; None when it does not.

    The digest covers ``title`` and ``outputSchema``, which came in 2025-06-18: a server that negotiated an
    older revision lists neither, and is not held to the pin (None).

    Raises:
        RegistryError, ValueError: the contract's lock file cannot be read.
    """
    if not structured(revision):
        return None
    pin = _pins(spec.package).get(spec.name)
    if not isinstance(pin, Mapping) or not isinstance(pin.get("digest"), str):
        return f"{spec.package}: {LOCK_FILE} pins no digest for '{spec.name}'; run `toolproof gen`"
    got = digest(listed, spec.dynamic_enums)
    claimed = listed.get("_meta", {}).get(DIGEST_META_KEY) if isinstance(listed.get("_meta"), Mapping) else None
    problems = []
    if got != pin["digest"]:
        problems.append(f"tools/list serves '{spec.name}' with digest {got}; the pin is {pin['digest']}")
    if claimed is not None and claimed != pin["digest"]:
        problems.append(f"its _meta[{DIGEST_META_KEY!r}] says {show(claimed)}; the pin is {pin['digest']}")
    return "; ".join(problems) or None
