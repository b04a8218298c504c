"""Local ``$ref``\\ s resolved as JSON Schema 2020-12 resolves them within one schema, and subschemas walked.

A local reference is ``#`` (the whole schema), ``#`` and a JSON pointer (``#/$defs/a~1b``: ``~1`` is
``/``, ``~0`` is ``~``, after percent-decoding) or ``#`` and a plain name, the ``$anchor`` of a
subschema. Every generator step that follows references (type annotations, TypeScript, provider
rewrites, OpenAPI, breaking changes) resolves them here, so they agree with lint on what each means.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final
from urllib.parse import unquote

__all__ = [
    "SUBSCHEMAS",
    "SUBSCHEMA_LISTS",
    "SUBSCHEMA_MAPS",
    "Path",
    "locate",
    "recursive_refs",
    "ref_name",
    "resolve",
    "subschemas",
    "walk",
]

Path = tuple[str | int, ...]

SUBSCHEMAS: Final = (
    *("additionalProperties", "items", "contains", "propertyNames", "not", "if", "then", "else"),
    *("unevaluatedItems", "unevaluatedProperties", "contentSchema"),
)
"""Keywords whose value is one schema (an object, or ``true``/``false``)."""
SUBSCHEMA_LISTS: Final = ("prefixItems", "allOf", "anyOf", "oneOf")
"""Keywords whose value is a list of schemas."""
SUBSCHEMA_MAPS: Final = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
"""Keywords whose value maps names to schemas."""


def subschemas(node: Any) -> Iterator[tuple[Path, Any]]:
    """Every direct subschema of ``node`` with its path from ``node``: objects and booleans alike."""
    if not isinstance(node, Mapping):
        return
    for key in SUBSCHEMAS:
        if key in node:
            yield (key,), node[key]
    for key in SUBSCHEMA_LISTS:
        if isinstance(node.get(key), list):
            yield from (((key, i), sub) for i, sub in enumerate(node[key]))
    for key in SUBSCHEMA_MAPS:
        if isinstance(node.get(key), Mapping):
            yield from (((key, name), sub) for name, sub in node[key].items())
    if isinstance(node.get("dependencies"), Mapping):  # 2019-09's spelling, kept by the 2020-12 meta-schema
        yield from (
            (("dependencies", name), sub) for name, sub in node["dependencies"].items() if not isinstance(sub, list)
        )


def _anchors(node: Any, path: Path, found: dict[str, Path]) -> None:
    if not isinstance(node, Mapping):
        return
    anchor = node.get("$anchor")
    if isinstance(anchor, str):
        found.setdefault(anchor, path)
    for key, sub in subschemas(node):
        _anchors(sub, (*path, *key), found)


def locate(root: Any, ref: str) -> tuple[Path | None, str]:
    """Where in ``root`` the local reference ``ref`` points: its path, or None and why it points nowhere.

    The path exists in ``root`` (a JSON pointer is followed to its end; an anchor is found where it stands).
    """
    if not ref.startswith("#"):
        return None, "it leaves the schema; only local refs ('#/$defs/...') work"
    fragment = unquote(ref[1:])
    if fragment and not fragment.startswith("/"):
        found: dict[str, Path] = {}
        _anchors(root, (), found)
        if fragment in found:
            return found[fragment], ""
        return None, f"the schema has no $anchor '{fragment}'"
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in fragment.split("/")[1:]]
    node: Any = root
    path: Path = ()
    for i, token in enumerate(tokens):
        where = "the schema" if i == 0 else "'#/" + "/".join(tokens[:i]) + "'"
        if isinstance(node, Mapping):
            if token not in node:
                return None, f"{where} has no '{token}'"
            node, path = node[token], (*path, token)
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node) and str(int(token)) == token:
            node, path = node[int(token)], (*path, int(token))
        else:
            return None, f"{where} has no item '{token}'"
    return path, ""


def resolve(root: Any, ref: str) -> tuple[bool, Any]:
    """What the local reference ``ref`` points at in ``root``: (True, the node), or (False, why not)."""
    path, why = locate(root, ref)
    if path is None:
        return False, why
    node = root
    for part in path:
        node = node[part]
    return True, node


def ref_name(ref: str) -> str:
    """The name a reference gives what it points at: its last pointer token, or its anchor; '' for ``#``."""
    fragment = unquote(ref.partition("#")[2])
    return fragment.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")


def walk(node: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """``node`` and every schema inside it, depth first, each with its path from ``node``."""
    yield path, node
    for key, sub in subschemas(node):
        yield from walk(sub, (*path, *key))


def recursive_refs(root: Any) -> list[tuple[Path, str]]:
    """The local ``$ref``\\ s of ``root`` that inlining would never finish: each with where it stands.

    A reference is recursive when it stands inside the schema it points at, or inside a schema that
    one reached from there through further references points at (``#`` within the schema, a
    ``$defs`` entry that names itself). A reference into a recursive definition from outside is not.
    """
    sites: list[tuple[Path, str, Path]] = []
    for path, node in walk(root):
        ref = node.get("$ref") if isinstance(node, Mapping) else None
        if isinstance(ref, str):
            target, _ = locate(root, ref)
            if target is not None:
                sites.append((path, ref, target))

    def reachable(start: Path) -> set[Path]:
        """``start`` and every schema the references within it lead to, transitively."""
        seen = {start}
        pending = [start]
        while pending:
            here = pending.pop()
            for site, _, target in sites:
                if site[: len(here)] == here and target not in seen:
                    seen.add(target)
                    pending.append(target)
        return seen

    return [(site, ref) for site, ref, target in sites if any(site[: len(t)] == t for t in reachable(target))]
