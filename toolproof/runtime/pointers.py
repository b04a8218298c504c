"""Local references of a JSON Schema: ``#``, ``#/a/json/pointer`` (``~0``, ``~1`` and percent escapes) and ``#anchor``.

What the runtime's planners (``nulls``, ``coercion``) follow; references to
other documents are not followed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["resolve_local"]


def resolve_local(root: Any, ref: Any) -> Any:
    """The schema the local reference ``ref`` names in ``root``, or None (not local, or naming nothing)."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    fragment = ref[1:]
    if "%" in fragment:
        from urllib.parse import unquote  # rare: a percent-escaped reference; not imported at start-up

        fragment = unquote(fragment)
    if not fragment:
        return root
    if not fragment.startswith("/"):
        return _anchor(root, fragment)
    node = root
    for token in fragment[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def _anchor(root: Any, name: str) -> Any:
    """The schema under ``root`` whose ``$anchor`` is ``name``, or None; each node visited once."""
    todo: list[Any] = [root]
    seen: set[int] = set()
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, Mapping):
            if node.get("$anchor") == name:
                return node
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return None
