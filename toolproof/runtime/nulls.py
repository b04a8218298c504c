"""Read ``null`` as "absent" where a provider's strict mode forced it.

OpenAI strict mode makes every property required and turns the optional ones
into ``[T, "null"]``, at every object of the schema: nested properties, array
items, ``$defs`` reached by ``$ref``, and each branch of ``anyOf``/``oneOf``/
``allOf``. So a model sends ``"offset": null`` for "no offset". For an optional
property whose contract schema does not accept null, the runtime drops such a
key before validation, wherever the exported schema made it nullable, so the
handler sees exactly what the contract describes.

Where branches name the same property, it is dropped only when no branch
accepts null for it. Nothing is dropped where a keyword counts or tests which
keys are present (``minProperties``, ``maxProperties``, ``dependentRequired``,
``dependentSchemas``, ``not``, ``if``, ``oneOf``'s exclusivity): there, leaving a
key out and sending it null differ, and the value is judged as it came
(``kept_nulls`` says whether a schema has such a place, for exports that
would make its properties nullable). Local references (``#``, ``#/json/pointer``, ``#anchor``)
are followed, recursive ones included; other references are not.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from toolproof.runtime.plans import leading, rewrite
from toolproof.runtime.pointers import resolve_local

__all__ = [
    "NullPlan",
    "accepting_dropped_nulls",
    "accepts_null",
    "drop_absent_nulls",
    "kept_nulls",
    "passes_null",
    "plan_for",
]

_BRANCHES = ("anyOf", "oneOf", "allOf")
_PRESENCE = ("minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "not", "if", "oneOf")
"""Keywords whose verdict may change when a key is left out instead of sent null: no null is dropped beside them."""


class NullPlan:
    """Which keys of an object may be dropped when null, and the plans for what lies inside it."""

    __slots__ = ("droppable", "items", "prefix", "properties")

    def __init__(self) -> None:
        self.droppable: frozenset[str] = frozenset()
        self.properties: dict[str, NullPlan] = {}
        self.items: NullPlan | None = None
        self.prefix: tuple[NullPlan | None, ...] = ()

    def _children(self) -> list[NullPlan]:
        return [*self.properties.values(), *(p for p in (self.items, *self.prefix) if p is not None)]


def accepts_null(schema: Any) -> bool:
    """Whether one schema lets null through (a schema without a type or shape does; ``allOf`` when every part does)."""
    if not isinstance(schema, Mapping) or not schema:
        return schema is not False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "enum" in schema:
        return None in schema["enum"]
    if "const" in schema:
        return schema["const"] is None
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and any(accepts_null(sub) for sub in schema[key]):
            return True
    if isinstance(schema.get("allOf"), list) and not all(accepts_null(sub) for sub in schema["allOf"]):
        return False
    shaped = ("enum", "const", "anyOf", "oneOf", "allOf", "$ref", "properties")
    return kind is None and not any(k in schema for k in shaped)


class _Planner:
    """Builds plans over a whole schema: ``$ref`` resolved against its root, each set of facets planned once."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.plans: dict[tuple[int, ...], NullPlan] = {}
        self.keep: list[Any] = []  # the facets whose ids key ``plans``, kept alive while planning
        self.marks: list[tuple[list[Mapping[str, Any]], frozenset[str]]] = []
        """Each plan's facets and the keys it drops, for ``accepting_dropped_nulls``."""
        self.kept = False
        """Whether some optional key that does not take null is kept when null (``_PRESENCE``)."""

    def resolve(self, ref: Any) -> Any:
        """The schema a local ``$ref`` names, or None."""
        return resolve_local(self.root, ref)

    def facets(self, schemas: list[Any]) -> list[Mapping[str, Any]]:
        """The object schemas a value may have to meet: each schema, its ``$ref`` and its branches, flattened."""
        out: list[Mapping[str, Any]] = []
        seen: set[int] = set()
        todo = list(schemas)
        while todo:
            schema = todo.pop()
            if not isinstance(schema, Mapping) or id(schema) in seen:
                continue
            seen.add(id(schema))
            out.append(schema)
            if "$ref" in schema:
                todo.append(self.resolve(schema["$ref"]))
            for key in _BRANCHES:
                if isinstance(schema.get(key), list):
                    todo.extend(schema[key])
        return out

    def plan(self, schemas: list[Any]) -> NullPlan:
        facets = self.facets(schemas)
        key = tuple(sorted(id(facet) for facet in facets))
        if key in self.plans:  # done, or being built higher up a recursive schema
            return self.plans[key]
        plan = self.plans[key] = NullPlan()
        self.keep.append(facets)
        declared: dict[str, list[Any]] = {}
        optional: set[str] = set()
        items: list[Any] = []
        prefix: list[list[Any]] = []
        for facet in facets:
            props = facet.get("properties")
            if isinstance(props, Mapping):
                required = facet.get("required", ())
                for name, sub in props.items():
                    declared.setdefault(name, []).append(sub)
                    if name not in required:
                        optional.add(name)
            if "items" in facet:
                items.append(facet["items"])
            if isinstance(facet.get("prefixItems"), list):
                for index, sub in enumerate(facet["prefixItems"]):
                    if index == len(prefix):
                        prefix.append([])
                    prefix[index].append(sub)
        plan.droppable = frozenset(
            name
            for name in optional
            if not any(accepts_null(sub) for sub in [*declared[name], *self.facets(declared[name])])
        )
        if plan.droppable and any(key in facet for facet in facets for key in _PRESENCE):
            plan.droppable = frozenset()  # a key left out and a key sent null may be judged apart here
            self.kept = True
        if plan.droppable:
            self.marks.append((facets, plan.droppable))
        plan.properties = {name: self.plan(subs) for name, subs in declared.items()}
        plan.items = self.plan(items) if items else None
        plan.prefix = tuple(self.plan(subs) for subs in prefix)
        return plan


def _prune(top: NullPlan) -> NullPlan | None:
    """``top`` with every plan that can reach no droppable key cut off; None when nothing is left."""
    nodes: list[NullPlan] = []
    seen: set[int] = set()
    todo = [top]
    while todo:
        node = todo.pop()
        if id(node) not in seen:
            seen.add(id(node))
            nodes.append(node)
            todo.extend(node._children())
    useful = leading(nodes, NullPlan._children, lambda node: bool(node.droppable))
    for node in nodes:
        node.properties = {name: sub for name, sub in node.properties.items() if id(sub) in useful}
        node.items = node.items if node.items is not None and id(node.items) in useful else None
        prefix = tuple(sub if sub is not None and id(sub) in useful else None for sub in node.prefix)
        node.prefix = prefix if any(sub is not None for sub in prefix) else ()
    return top if id(top) in useful else None


def plan_for(schema: Any) -> NullPlan | None:
    """The plan for an input schema, or None when no null could ever be dropped from a value it describes."""
    if not isinstance(schema, Mapping):
        return None
    return _prune(_Planner(schema).plan([schema]))


def passes_null(schema: Any, root: Any) -> bool:
    """Whether the runtime hands a null sent for an optional property of ``schema`` (within ``root``) to the handler.

    It does when the schema, a local ``$ref`` it leads to, or a branch lets null
    through (``accepts_null``); else it reads the null as absent and drops it.
    """
    if not isinstance(schema, Mapping):
        return schema is not False
    return any(accepts_null(facet) for facet in _Planner(root).facets([schema]))


def kept_nulls(schema: Any) -> bool:
    """Whether some optional property that does not take null keeps its null here (next to a ``_PRESENCE`` keyword).

    An export that makes every optional property nullable (OpenAI strict mode)
    would let a model send a null there that the runtime refuses.
    """
    if not isinstance(schema, Mapping):
        return False
    planner = _Planner(schema)
    planner.plan([schema])
    return planner.kept


def accepting_dropped_nulls(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of an input schema that also accepts null wherever ``drop_absent_nulls`` reads it as absent.

    For documents of what a host accepts (the OpenAPI document of ``serve
    http``): a caller may send null for an optional property the contract does
    not make nullable, OpenAI strict mode's way of leaving it out, and the host
    takes it, so the document must say so or a fuzzer holding the host to it
    (schemathesis' ``negative_data_rejection``) fails the host. Each such
    property becomes ``anyOf: [its schema, {"type": "null"}]`` (its annotations
    beside) in every object schema that declares it optional, ``$defs`` and
    branches included.
    """
    copied: dict[str, Any] = copy.deepcopy(dict(schema))
    planner = _Planner(copied)
    planner.plan([copied])
    done: set[tuple[int, str]] = set()
    for facets, droppable in planner.marks:
        for facet in facets:
            props = facet.get("properties")
            required = facet.get("required", ())
            if not isinstance(props, dict):
                continue
            for name in droppable:
                if name in props and name not in required and (id(facet), name) not in done:
                    done.add((id(facet), name))
                    props[name] = _or_null(props[name])
    return copied


_ANNOTATIONS = ("title", "description", "default", "examples")


def _or_null(schema: Any) -> dict[str, Any]:
    """``schema`` or null, its annotations kept outside, where a reader of the document looks for them."""
    if not isinstance(schema, dict):
        return {"anyOf": [schema, {"type": "null"}]}
    inner = {key: value for key, value in schema.items() if key not in _ANNOTATIONS}
    outer = {key: schema[key] for key in _ANNOTATIONS if key in schema}
    return {"anyOf": [inner, {"type": "null"}], **outer}


def drop_absent_nulls(plan: NullPlan, value: Any) -> Any:
    """``value`` without the null keys ``plan`` allows to drop (a copy only when something changes)."""
    return rewrite(plan, value, _drop_here, _property_plan, dict)


def _drop_here(plan: NullPlan, value: Any) -> Any:
    """An object without the null keys ``plan`` drops; any other value as it is."""
    if not isinstance(value, dict):
        return value
    changed: dict[str, Any] | None = None
    for name in plan.droppable:
        if name in value and value[name] is None:
            if changed is None:
                changed = dict(value)
            del changed[name]
    return value if changed is None else changed


def _property_plan(plan: NullPlan, key: str) -> NullPlan | None:
    return plan.properties.get(key)
