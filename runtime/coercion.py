"""Hand handlers the integers their generated types promise.

JSON Schema counts a whole-number float (``849.0``) as an integer, so
``"limit": 849.0`` passes validation; a handler typed ``limit: int`` would then
slice, range or format with a float and fail. At bind time the runtime works
out, from each input schema, where an integer may stand (``type: integer``, or
a type list holding it, at any depth of properties, items and additional
properties), and after validation it turns a whole-number float found there
into the int it equals. Nothing else changes: a float anywhere else stays a
float, and a value that is not a whole-number float is left for validation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["IntegerPlan", "coerce_integers", "plan_for"]


@dataclass(frozen=True, slots=True)
class IntegerPlan:
    """Where integers stand in one schema: the value itself, named properties, items, other properties."""

    here: bool = False
    properties: Mapping[str, IntegerPlan] | None = None
    items: IntegerPlan | None = None
    prefix: tuple[IntegerPlan | None, ...] = ()
    additional: IntegerPlan | None = None
    declared: frozenset[str] = frozenset()
    """Every property the schema names: additional properties are the others."""


def _is_integer_type(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "integer" or (isinstance(kind, list) and "integer" in kind)


def plan_for(schema: Any) -> IntegerPlan | None:
    """The plan for ``schema``, or None when no integer can stand anywhere in it."""
    if not isinstance(schema, Mapping):
        return None
    here = _is_integer_type(schema)
    properties: dict[str, IntegerPlan] = {}
    declared: frozenset[str] = frozenset()
    if isinstance(schema.get("properties"), Mapping):
        declared = frozenset(schema["properties"])
        properties = {name: plan for name, sub in schema["properties"].items() if (plan := plan_for(sub)) is not None}
    items = plan_for(schema.get("items"))
    prefix: tuple[IntegerPlan | None, ...] = ()
    if isinstance(schema.get("prefixItems"), list):
        prefix = tuple(plan_for(sub) for sub in schema["prefixItems"])
        if not any(prefix):
            prefix = ()
    additional = plan_for(schema.get("additionalProperties"))
    if not (here or properties or items or prefix or additional):
        return None
    return IntegerPlan(here, properties or None, items, prefix, additional, declared if additional else frozenset())


def coerce_integers(plan: IntegerPlan, value: Any) -> Any:
    """``value`` with each whole-number float where ``plan`` says integer made an int (a copy only on change)."""
    if type(value) is float:
        return int(value) if plan.here and value.is_integer() else value
    if isinstance(value, dict):
        changed: dict[str, Any] | None = None
        for key, item in value.items():
            if plan.properties is not None and key in plan.properties:
                sub: IntegerPlan | None = plan.properties[key]
            else:
                sub = None if key in plan.declared else plan.additional
            if sub is None:
                continue
            fixed = coerce_integers(sub, item)
            if fixed is not item:
                if changed is None:
                    changed = dict(value)
                changed[key] = fixed
        return value if changed is None else changed
    if isinstance(value, list):
        out: list[Any] | None = None
        for index, item in enumerate(value):
            sub = plan.prefix[index] if index < len(plan.prefix) else plan.items
            if sub is None:
                continue
            fixed = coerce_integers(sub, item)
            if fixed is not item:
                if out is None:
                    out = list(value)
                out[index] = fixed
        return value if out is None else out
    return value
