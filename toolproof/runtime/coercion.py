"""Hand handlers the integers their generated types promise.

JSON Schema counts a whole-number float (``849.0``) as an integer, so
``"limit": 849.0`` passes validation; a handler typed ``limit: int`` would then
slice, range or format with a float and fail. At bind time the runtime works
out, from each input schema, where an integer stands, and after validation it
turns a whole-number float found there into the int it equals. Nothing else
changes: a float anywhere else stays a float, and a value that is not a
whole-number float is left as it is. JSON Schema holds ``2.0`` and ``2`` to be
the same number, so this never changes what validation decided.

An integer stands where the schemas that apply there say ``integer`` and none
of them lets a fraction through:

- ``type: integer``, or a type list holding ``integer`` but not ``number``;
- a local ``$ref`` (``#``, ``#/json/pointer``, ``#anchor``; recursive ones
  included) and each part of ``allOf`` apply beside the schema that holds them,
  so one of them saying integer is enough;
- of ``anyOf``/``oneOf``, some branch must say integer and no branch may take a
  fraction: beside a branch of ``number`` (or of no type at all) the float
  stays a float. Inside objects and arrays only the branches that describe a
  property or item count for it: a branch that leaves it free does not type it,
  so the generated types promise ``int`` there in every branch that does.

This is followed through ``properties``, ``patternProperties``,
``additionalProperties``, ``prefixItems`` and ``items`` at any depth. Keywords
that only test a value (``not``, ``if``, ``contains``, ...) and references to
other documents are not followed: nothing becomes an int on their word. A
schema with no ``integer`` anywhere has no plan, so its calls pay nothing.

Each place is planned once for the set of schemas that hold there, so a
recursive schema plans to a finite graph; a schema planned beyond
``_MAX_PLACES`` places is planned that far, and the properties nothing names at
a place with more than ``_MAX_PATTERNS`` patterns are left as sent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any, TypeAlias

from toolproof.runtime.plans import leading, rewrite
from toolproof.runtime.pointers import resolve_local

__all__ = ["IntegerPlan", "coerce_integers", "plan_for"]

_SHAPING = ("type", "enum", "const", "properties", "patternProperties", "additionalProperties", "items", "prefixItems")
"""The keywords a schema needs to say anything here; a schema with none of them (``minimum: 0``) says nothing."""
_OBJECT = ("properties", "patternProperties", "additionalProperties")
_ARRAY = ("prefixItems", "items")
_NOTHING: Mapping[str, Any] = {"type": []}
"""The schema ``false``, which nothing passes."""
_MAX_PATTERNS = 4
"""More distinct ``patternProperties`` at one place, and the other properties there are left as they are."""
_MAX_PLACES = 4096
"""Places planned per schema at most: a recursive schema whose places never repeat is not planned on forever."""


class IntegerPlan:
    """Where integers stand in a value of one schema: the value itself, its properties, its items.

    A recursive schema plans to a graph with cycles; coercion follows the
    value, which is finite.
    """

    __slots__ = ("additional", "declared", "here", "items", "others", "patterns", "prefix", "properties")

    def __init__(self) -> None:
        self.here = False
        """Whether a whole-number float here becomes an int."""
        self.properties: dict[str, IntegerPlan | None] | None = None
        self.declared: frozenset[str] = frozenset()
        """Every property named here, when other properties have a plan: those are the others."""
        self.additional: IntegerPlan | None = None
        """The plan of a property named nowhere here and matching no pattern."""
        self.patterns: tuple[tuple[str, re.Pattern[str]], ...] = ()
        self.others: dict[frozenset[str], IntegerPlan | None] = {}
        """With ``patterns``: the plan of a property named nowhere here, by the patterns it matches."""
        self.items: IntegerPlan | None = None
        self.prefix: tuple[IntegerPlan | None, ...] = ()

    def _children(self) -> Iterator[IntegerPlan | None]:
        yield from (self.properties or {}).values()
        yield from self.others.values()
        yield from (self.additional, self.items, *self.prefix)


@dataclass(frozen=True, slots=True)
class _Either:
    """``anyOf``/``oneOf``: one of these holds, each a set of terms that hold together."""

    branches: frozenset[_Terms]


_Terms: TypeAlias = "frozenset[int | _Either]"
"""What holds at one place: the schemas that apply there (by id, their own keywords) and the choices among branches."""

_Child: TypeAlias = tuple[str, Any]
"""A child of a value: ``("name", name)``, ``("other", patterns it matches)``, ``("index", i)``, ``("rest", None)``."""


def _says_integer(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "integer" or (isinstance(kind, list) and "integer" in kind)


def _fraction(value: Any) -> bool:
    return type(value) is float and not value.is_integer()


def _takes_fraction(schema: Mapping[str, Any]) -> bool:
    """Whether the schema's own keywords let a number with a fraction through."""
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else None
    if kinds is not None and "number" not in kinds:
        return False
    if "const" in schema and not _fraction(schema["const"]):
        return False
    return not (isinstance(schema.get("enum"), list) and not any(_fraction(value) for value in schema["enum"]))


def _either(branches: list[_Terms]) -> _Terms:
    """What holds where one of ``branches`` does, choices within choices flattened."""
    flat: set[_Terms] = set()
    for branch in branches:
        only = next(iter(branch)) if len(branch) == 1 else None
        if isinstance(only, _Either):
            flat |= only.branches
        else:
            flat.add(branch)
    if len(flat) == 1:
        return next(iter(flat))
    return frozenset({_Either(frozenset(flat))}) if flat else frozenset()


def _mapping(schema: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = schema.get(key)
    return value if isinstance(value, Mapping) else {}


def _mentions_integer(node: Any) -> bool:
    """Whether ``integer`` is a type anywhere in ``node``: a cheap test that spares most schemas any planning."""
    todo = [node]
    while todo:
        node = todo.pop()
        if isinstance(node, Mapping):
            if _says_integer(node):
                return True
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return False


class _Planner:
    """Plans one schema: each place planned once, by what holds there, so recursive references end."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.schemas: dict[int, Mapping[str, Any]] = {id(_NOTHING): _NOTHING}
        self.plans: dict[_Terms, IntegerPlan] = {}
        self.regexes: dict[str, re.Pattern[str] | None] = {}

    def resolve(self, ref: Any) -> Any:
        """The schema a local ``$ref`` names, or None."""
        return resolve_local(self.root, ref)

    def regex(self, pattern: str) -> re.Pattern[str] | None:
        """``pattern`` compiled, or None when Python cannot read it."""
        if pattern not in self.regexes:
            try:
                self.regexes[pattern] = re.compile(pattern)
            except re.error:
                self.regexes[pattern] = None
        return self.regexes[pattern]

    def terms(self, schema: Any, seen: frozenset[int] = frozenset()) -> _Terms:
        """What holds where ``schema`` applies: itself, its ``$ref`` and ``allOf`` parts, its choices."""
        if schema is False:
            return frozenset({id(_NOTHING)})
        if not isinstance(schema, Mapping) or id(schema) in seen:
            return frozenset()  # true, or a reference back to a schema already applied at this place
        seen |= {id(schema)}
        out: set[int | _Either] = set()
        if any(key in schema for key in _SHAPING):
            self.schemas[id(schema)] = schema
            out.add(id(schema))
        if "$ref" in schema:
            out |= self.terms(self.resolve(schema["$ref"]), seen)
        if isinstance(schema.get("allOf"), list):
            for part in schema["allOf"]:
                out |= self.terms(part, seen)
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                out |= _either([self.terms(branch, seen) for branch in schema[key]])
        return frozenset(out)

    def says_integer(self, terms: _Terms) -> bool:
        return any(
            any(self.says_integer(branch) for branch in term.branches)
            if isinstance(term, _Either)
            else _says_integer(self.schemas[term])
            for term in terms
        )

    def takes_fraction(self, terms: _Terms) -> bool:
        return all(
            any(self.takes_fraction(branch) for branch in term.branches)
            if isinstance(term, _Either)
            else _takes_fraction(self.schemas[term])
            for term in terms
        )

    def shapes(self, terms: _Terms) -> Iterator[Mapping[str, Any]]:
        """Every schema in ``terms``, in every branch."""
        for term in terms:
            if isinstance(term, _Either):
                for branch in term.branches:
                    yield from self.shapes(branch)
            else:
                yield self.schemas[term]

    def child(self, terms: _Terms, child: _Child) -> _Terms | None:
        """What holds at one child of a value where ``terms`` hold; None when no schema there describes it."""
        out: set[int | _Either] = set()
        described = False
        for term in terms:
            if isinstance(term, _Either):
                branches = [inner for branch in term.branches if (inner := self.child(branch, child)) is not None]
                if branches:
                    described = True
                    out |= _either(branches)
                continue
            subs = self._subschemas(self.schemas[term], child)
            if subs is not None:
                described = True
                for sub in subs:
                    out |= self.terms(sub)
        return frozenset(out) if described else None

    def _subschemas(self, schema: Mapping[str, Any], child: _Child) -> list[Any] | None:
        """The subschemas ``schema`` applies to one child of a value, or None when it says nothing of it."""
        kind, key = child
        if kind in ("index", "rest"):
            prefix = schema.get("prefixItems")
            if kind == "index" and isinstance(prefix, list) and key < len(prefix):
                return [prefix[key]]
            return [schema["items"]] if "items" in schema else None
        properties, patterns = _mapping(schema, "properties"), _mapping(schema, "patternProperties")
        if kind == "name":
            subs = [properties[key]] if key in properties else []
            for pattern, sub in patterns.items():
                regex = self.regex(pattern)
                if regex is None:
                    subs.append(True)  # it may apply: the child is described, and left free
                elif isinstance(key, str) and regex.search(key):
                    subs.append(sub)
        else:  # a name no schema here lists: ``key`` holds the patterns it matches
            subs = [sub for pattern, sub in patterns.items() if pattern in key]
        if subs:
            return subs
        return [schema["additionalProperties"]] if "additionalProperties" in schema else None

    def plan(self, terms: _Terms | None) -> IntegerPlan | None:
        """The plan of a place where ``terms`` hold, made once; None if nothing describes it or too much was planned."""
        if terms is None:
            return None
        if terms in self.plans:  # done, or being made higher up a recursive schema
            return self.plans[terms]
        if len(self.plans) >= _MAX_PLACES:
            return None
        plan = self.plans[terms] = IntegerPlan()
        plan.here = self.says_integer(terms) and not self.takes_fraction(terms)
        shapes = list(self.shapes(terms))
        if any(key in shape for shape in shapes for key in _OBJECT):
            self._plan_properties(plan, terms, shapes)
        if any(key in shape for shape in shapes for key in _ARRAY):
            longest = max((len(s["prefixItems"]) for s in shapes if isinstance(s.get("prefixItems"), list)), default=0)
            plan.prefix = tuple(self.plan(self.child(terms, ("index", index))) for index in range(longest))
            plan.items = self.plan(self.child(terms, ("rest", None)))
        return plan

    def _plan_properties(self, plan: IntegerPlan, terms: _Terms, shapes: list[Mapping[str, Any]]) -> None:
        """Plan the properties of an object where ``terms`` hold: those named, then the others, by pattern."""
        names = {name for shape in shapes for name in _mapping(shape, "properties")}
        plan.properties = {name: self.plan(self.child(terms, ("name", name))) for name in sorted(names)}
        patterns = sorted({pattern for shape in shapes for pattern in _mapping(shape, "patternProperties")})
        regexes = [(pattern, regex) for pattern in patterns if (regex := self.regex(pattern)) is not None]
        if len(regexes) < len(patterns) or len(patterns) > _MAX_PATTERNS:
            return  # which patterns a name matches cannot be told, or costs too much: other properties stay as sent
        if patterns or any("additionalProperties" in shape for shape in shapes):
            plan.declared = frozenset(names)
            matches = [frozenset(m) for size in range(len(patterns) + 1) for m in combinations(patterns, size)]
            plan.others = {match: self.plan(self.child(terms, ("other", match))) for match in matches}
            plan.patterns = tuple(regexes)


def _prune(top: IntegerPlan, nodes: list[IntegerPlan]) -> IntegerPlan | None:
    """``top`` with every plan that reaches no integer cut off; None when nothing is left.

    ``nodes`` holds every plan made for the schema; a plan is kept when it, or one it leads to, says integer.
    """
    useful = leading(nodes, IntegerPlan._children, lambda node: node.here)

    def kept(plan: IntegerPlan | None) -> IntegerPlan | None:
        return plan if plan is not None and id(plan) in useful else None

    for node in nodes:
        node.properties = {name: sub for name, sub in (node.properties or {}).items() if kept(sub)} or None
        others = {match: sub for match, sub in node.others.items() if kept(sub)}
        node.additional = others.get(frozenset())
        node.others, node.patterns = (others, node.patterns) if others and node.patterns else ({}, ())
        node.declared = node.declared if others else frozenset()
        node.items = kept(node.items)
        prefix = tuple(kept(sub) for sub in node.prefix)
        node.prefix = prefix if any(prefix) else ()
    return kept(top)


def plan_for(schema: Any) -> IntegerPlan | None:
    """The plan for an input schema, or None when no integer can stand anywhere in it.

    Args:
        schema: the input schema of a contract, the root its local ``$ref``\\ s resolve against.

    Returns:
        Where whole-number floats become ints, for ``coerce_integers``; None when nowhere.
    """
    if not isinstance(schema, Mapping) or not _mentions_integer(schema):
        return None
    planner = _Planner(schema)
    try:
        top = planner.plan(planner.terms(schema))
    except RecursionError:  # schemas nested too deep to follow: their floats reach the handler as sent
        return None
    return _prune(top, list(planner.plans.values())) if top is not None else None


def coerce_integers(plan: IntegerPlan, value: Any) -> Any:
    """``value`` with each whole-number float where ``plan`` says integer made an int (a copy only on change)."""
    return rewrite(plan, value, _integer_here, _property_plan, float)


def _integer_here(plan: IntegerPlan, value: Any) -> Any:
    if type(value) is float:
        return int(value) if plan.here and value.is_integer() else value
    return value


def _property_plan(plan: IntegerPlan, key: str) -> IntegerPlan | None:
    """The plan of the property ``key`` of an object where ``plan`` holds: named, by its patterns, or the rest's."""
    if plan.properties is not None and key in plan.properties:
        return plan.properties[key]
    if key in plan.declared:
        return None
    if plan.patterns:
        return plan.others.get(frozenset(pattern for pattern, regex in plan.patterns if regex.search(key)))
    return plan.additional
