"""Plans worked out once from an input schema, and the copy-on-write walk that applies one to a value.

``coercion`` plans where whole-number floats become ints, ``nulls`` where a
null reads as absent. Both plan each place of a schema once (so a recursive
schema plans to a finite graph), cut off the plans that lead to nothing
(``leading``), and apply a plan to each call's arguments with ``rewrite``: a
value is copied only where something in it changes, so a call with nothing to
change pays a walk and no copy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar

__all__ = ["Plan", "leading", "rewrite"]


class Plan(Protocol):
    """What ``rewrite`` needs of a plan: the plans of an array's items, by position and for the rest."""

    prefix: tuple[Any, ...]
    items: Any


P = TypeVar("P", bound=Plan)


def leading(nodes: Iterable[P], children: Callable[[P], Iterable[P | None]], wanted: Callable[[P], bool]) -> set[int]:
    """The ids of the plans in ``nodes`` that are ``wanted`` or lead to one that is, through ``children``.

    ``nodes`` holds every plan the children of one lead to; a loop, not a recursion.
    """
    nodes = list(nodes)
    parents: dict[int, list[P]] = {}
    for node in nodes:
        for child in children(node):
            if child is not None:
                parents.setdefault(id(child), []).append(node)
    todo = [node for node in nodes if wanted(node)]
    found = {id(node) for node in todo}
    while todo:
        for parent in parents.get(id(todo.pop()), ()):
            if id(parent) not in found:
                found.add(id(parent))
                todo.append(parent)
    return found


def rewrite(
    plan: P,
    value: Any,
    here: Callable[[P, Any], Any],
    child: Callable[[P, str], P | None],
    changes: type | tuple[type, ...],
) -> Any:
    """``value`` as ``plan`` has it: a copy only where something changes.

    Args:
        plan: the plan of ``value``'s place in the schema.
        value: a value of that place (JSON: dicts, lists and leaves).
        here: ``value`` itself as the plan has it (the value unchanged when nothing changes), before its
            properties or items are looked at; called only for values whose type is in ``changes``.
        child: the plan of a property by its name; None to leave the property as it is. An item's plan is
            the plan's ``prefix`` entry at its position, past those its ``items``.
        changes: the type (or types) of the values ``here`` may change: it is not called for others.
    """
    if isinstance(value, changes):
        value = here(plan, value)
    if isinstance(value, dict):
        changed: dict[str, Any] | None = None
        for key, item in value.items():
            sub = child(plan, key)
            if sub is None:
                continue
            fixed = rewrite(sub, item, here, child, changes)
            if fixed is not item:
                if changed is None:
                    changed = dict(value)
                changed[key] = fixed
        return value if changed is None else changed
    if isinstance(value, list):
        out: list[Any] | None = None
        prefix = plan.prefix
        for index, item in enumerate(value):
            inside: P | None = prefix[index] if index < len(prefix) else plan.items
            if inside is None:
                continue
            fixed = rewrite(inside, item, here, child, changes)
            if fixed is not item:
                if out is None:
                    out = list(value)
                out[index] = fixed
        return value if out is None else out
    return value
