"""Read ``null`` as "absent" where a provider's strict mode forced it.

OpenAI strict mode makes every property required and turns the optional ones
into ``[T, "null"]``, so a model sends ``"offset": null`` for "no offset". For
an optional property whose contract schema does not accept null, the runtime
drops such a key before validation, at any depth of nested objects, so the
handler sees exactly what the contract describes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["NullPlan", "drop_absent_nulls", "plan_for"]


@dataclass(frozen=True, slots=True)
class NullPlan:
    """Which keys of an object may be dropped when null, and plans for nested objects."""

    droppable: frozenset[str]
    nested: Mapping[str, NullPlan]


def _accepts_null(schema: Any) -> bool:
    if not isinstance(schema, Mapping) or not schema:
        return True
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "enum" in schema:
        return None in schema["enum"]
    if "const" in schema:
        return schema["const"] is None
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and any(_accepts_null(sub) for sub in schema[key]):
            return True
    return kind is None and not any(k in schema for k in ("enum", "const", "anyOf", "oneOf", "$ref", "properties"))


def plan_for(schema: Any) -> NullPlan | None:
    """The plan for an object schema, or None when no null could ever be dropped."""
    if not isinstance(schema, Mapping) or not isinstance(schema.get("properties"), Mapping):
        return None
    required = set(schema.get("required", ()))
    props: Mapping[str, Any] = schema["properties"]
    droppable = frozenset(name for name, sub in props.items() if name not in required and not _accepts_null(sub))
    nested = {name: plan for name, sub in props.items() if (plan := plan_for(sub)) is not None}
    if not droppable and not nested:
        return None
    return NullPlan(droppable, nested)


def drop_absent_nulls(plan: NullPlan, value: Any) -> Any:
    """``value`` without the null keys ``plan`` allows to drop (a copy only when something changes)."""
    if not isinstance(value, dict):
        return value
    changed: dict[str, Any] | None = None
    for name in plan.droppable:
        if name in value and value[name] is None:
            if changed is None:
                changed = dict(value)
            del changed[name]
    for name, sub in plan.nested.items():
        inner = value.get(name)
        if isinstance(inner, dict):
            fixed = drop_absent_nulls(sub, inner)
            if fixed is not inner:
                if changed is None:
                    changed = dict(value)
                changed[name] = fixed
    return value if changed is None else changed
