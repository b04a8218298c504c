"""How two JSON Schemas of one tool differ, as changes ``breaking`` then judges.

Schemas are compared as JSON Schema, local ``$ref``\\ s resolved wherever they stand (under ``items``,
``prefixItems``, ``additionalProperties``, in a union's branches), never as YAML text. Requests and
responses are judged in opposite directions: a caller's request breaks when the input accepts less, a
caller's reading breaks when the output may hold more. Each difference is a ``Change``: a rule of
``breaking_rules.RULES``, where it is in the new contract, and one sentence.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from toolproof.generator.breaking_rules import RULES, Severity
from toolproof.generator.model import Contract, shared_class
from toolproof.generator.naming import class_name
from toolproof.generator.pytypes import TypeBuilder
from toolproof.generator.refs import SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMAS, locate, ref_name, resolve
from toolproof.runtime.validation import FORMATS as ASSERTED_FORMATS

__all__ = ["Change", "JsonPath", "Schemas", "branch_ref", "join_name", "mapping", "ref_class", "show", "widens"]

JsonPath = tuple[str | int, ...]

_TYPE_ORDER: Final = ("string", "integer", "number", "boolean", "object", "array", "null")
_MINIMA: Final = ("minLength", "minItems", "minProperties", "minimum", "exclusiveMinimum")
_MAXIMA: Final = ("maxLength", "maxItems", "maxProperties", "maximum", "exclusiveMaximum")
_UNIONS: Final = ("anyOf", "oneOf", "allOf")
_DOCS: Final = ("title", "description", "default", "examples", "$comment")
_HANDLED: Final = frozenset(
    {
        *("type", "enum", "const", "properties", "required", "additionalProperties", "items", "pattern", "format"),
        *("$ref", "$defs", "definitions", "$schema", "$id"),
        *_MINIMA,
        *_MAXIMA,
        *_UNIONS,
        *_DOCS,
    }
)
_MAX_DEPTH: Final = 64
_MISSING: Final = object()
_REFUSED: Final = "callers' values valid before may be refused"
_UNEXPECTED: Final = "readers may receive values the old bound kept out"


@dataclass(frozen=True, slots=True)
class Change:
    """A change before it is judged: its rule, where in the new contract, and the sentence."""

    rule: str
    path: JsonPath
    message: str


_WIDER_FORMATS: Final = frozenset(
    {
        ("email", "idn-email"),
        ("hostname", "idn-hostname"),
        ("uri", "iri"),
        ("uri", "uri-reference"),
        ("uri", "iri-reference"),
        ("uri-reference", "iri-reference"),
        ("iri", "iri-reference"),
    }
)
"""(a checked format, one the runtime also checks that takes every value of the first and more)."""


def show(value: Any) -> str:
    return "none" if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _listing(values: Sequence[Any]) -> str:
    return ", ".join(show(v) for v in values)


# -- JSON Schema ---------------------------------------------------------------------------------------------------


def _schema(node: Any) -> dict[str, Any]:
    """A schema as a mapping: ``true`` (or nothing) accepts anything, ``false`` nothing."""
    if node is False:
        return {"not": {}}
    return dict(node) if isinstance(node, Mapping) else {}


def _types(node: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The types a schema accepts, in a fixed order; None when it says nothing (any type)."""
    kind = node.get("type")
    if not isinstance(kind, (str, list)):
        return None
    kinds = {kind} if isinstance(kind, str) else {k for k in kind if isinstance(k, str)}
    return tuple(t for t in _TYPE_ORDER if t in kinds) + tuple(sorted(kinds - set(_TYPE_ORDER)))


def _covered(kind: str, types: tuple[str, ...] | None) -> bool:
    return types is None or kind in types or (kind == "integer" and "number" in types)


def _overlap(old: tuple[str, ...] | None, new: tuple[str, ...] | None) -> bool:
    """Whether some value has a type both accept (integer is a number)."""
    return any(_covered(t, old) for t in new or _TYPE_ORDER) or any(_covered(t, new) for t in old or _TYPE_ORDER)


def _allows(types: tuple[str, ...] | None, kind: str) -> bool:
    return types is None or kind in types


def _values(node: Mapping[str, Any]) -> list[Any] | None:
    if "const" in node:
        return [node["const"]]
    enum = node.get("enum")
    return list(enum) if isinstance(enum, list) else None


def _key(value: Any) -> str:
    """A JSON value as text, so that ``true`` and ``1`` differ as they do in JSON."""
    return json.dumps(value, sort_keys=True)


def _keys(values: Sequence[Any]) -> set[str]:
    return {_key(v) for v in values}


def _number(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _either(count: int, one: str, many: str) -> str:
    return one if count == 1 else many


@dataclass(frozen=True, slots=True)
class _Place:
    """Where a pair of nodes stands as the comparison walks down to it."""

    path: JsonPath
    """Its path in the new contract."""
    name: str
    """The field it is, dotted (``a.b[]``); '' for the schema's root."""
    classes: tuple[str, str]
    """The class a generated TypedDict takes for it, before and after."""
    seen: frozenset[str] = frozenset()
    """The pairs of refs already followed on the way: a recursive schema is compared once."""
    depth: int = 0

    def child(self, steps: JsonPath, name: str, classes: tuple[str, str]) -> _Place:
        """A node under this one, ``steps`` further down."""
        return _Place((*self.path, *steps), name, classes, self.seen, self.depth + 1)


class Schemas:
    """One side (input or output) of a contract pair, compared node by node."""

    def __init__(self, side: str, old: Contract, new: Contract, out: list[Change]) -> None:
        self.side = side
        self.request = side == "input"
        self.old_root: Mapping[str, Any] = old.input_schema if self.request else old.output_schema
        self.new_root: Mapping[str, Any] = new.input_schema if self.request else new.output_schema
        self.out = out
        self.classes = (f"{old.prefix}{side.title()}", f"{new.prefix}{side.title()}")
        self.shared = tuple({name: shared_class(name) for name in c.shared} for c in (old, new))
        """Each side's shared definitions, by ``$defs`` name, with their type in the generated ``defs``."""

    def run(self) -> None:
        self.node(self.old_root, self.new_root, _Place((self.side,), "", self.classes))

    def add(self, rule: str, path: JsonPath, message: str) -> None:
        self.out.append(Change(rule, path, message))

    def who(self, name: str) -> str:
        return f"{self.side} field '{name}'" if name else f"the {self.side}"

    def resolve(
        self, root: Mapping[str, Any], node: Any, path: JsonPath
    ) -> tuple[dict[str, Any], JsonPath, tuple[str, ...]]:
        """Follow local ``$ref``\\ s; returns the schema, its path in the contract, and the refs followed."""
        schema = _schema(node)
        followed: tuple[str, ...] = ()
        while isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#") and schema["$ref"] not in followed:
            ref = schema["$ref"]
            parts, _ = locate(root, ref)
            if parts is None:
                break
            _, target = resolve(root, ref)
            if not isinstance(target, (Mapping, bool)):
                break
            followed += (ref,)
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            schema, path = {**_schema(target), **siblings}, (self.side, *parts)
        return schema, path, followed

    def expand(self, root: Mapping[str, Any], node: Any, stack: tuple[str, ...] = (), *, docs: bool = True) -> Any:
        """A schema with every local ref inlined, wherever it stands (a recursive one kept as the ref).

        Two subschemas compare equal this way when they mean the same, however they reach their definitions;
        ``$defs`` themselves are dropped (what uses them is expanded), and with ``docs=False`` the text the
        model reads too.
        """
        if isinstance(node, Mapping) and node.get("$ref") in stack:
            return {"$ref": node["$ref"]}
        schema, _, followed = self.resolve(root, node, ())
        stack += followed
        return {
            key: self.keyword(root, key, value, stack, docs=docs)
            for key, value in schema.items()
            if key not in ("$defs", "definitions") and (docs or key not in _DOCS)
        }

    def keyword(
        self, root: Mapping[str, Any], key: str, value: Any, stack: tuple[str, ...] = (), *, docs: bool = True
    ) -> Any:
        """One keyword's value, its subschemas expanded (``expand``); any other value as it is."""
        if key in SUBSCHEMAS and isinstance(value, (Mapping, bool)):
            return self.expand(root, value, stack, docs=docs)
        if key in SUBSCHEMA_LISTS and isinstance(value, list):
            return [self.expand(root, v, stack, docs=docs) for v in value]
        if key in SUBSCHEMA_MAPS and isinstance(value, Mapping):
            return {k: self.expand(root, v, stack, docs=docs) for k, v in value.items()}
        return value

    def canonical(self, root: Mapping[str, Any], node: Any) -> str:
        """A schema as text, refs inlined and the text the model reads dropped: what a union branch is keyed by."""
        return json.dumps(self.expand(root, node, docs=False), sort_keys=True)

    def node(self, old_node: Any, new_node: Any, at: _Place) -> None:
        old, _, old_refs = self.resolve(self.old_root, old_node, at.path)
        new, path, new_refs = self.resolve(self.new_root, new_node, at.path)
        visit = f"{' '.join(old_refs)}|{' '.join(new_refs)}"
        if at.depth > _MAX_DEPTH or ((old_refs or new_refs) and visit in at.seen):
            return
        if old == new and self.expand(self.old_root, old, old_refs) == self.expand(self.new_root, new, new_refs):
            return  # the same text, and the same down to the definitions its refs reach
        classes = (ref_class(old_refs, at.classes[0]), ref_class(new_refs, at.classes[1]))
        at = _Place(path, at.name, classes, at.seen | {visit}, at.depth)
        self.docs(old, new, at)
        if self.unions(old, new, at):
            return
        old_types, new_types = _types(old), _types(new)
        self.types(old_types, new_types, at)
        if not _overlap(old_types, new_types):
            return  # no type in common: the type change says it all
        self.enums(old, new, at)
        self.bounds(old, new, at)
        if _allows(old_types, "object") and _allows(new_types, "object"):
            self.objects(old, new, at)
        if _allows(old_types, "array") and _allows(new_types, "array") and ("items" in old or "items" in new):
            items = at.child(("items",), f"{at.name}[]", (f"{classes[0]}Item", f"{classes[1]}Item"))
            self.node(old.get("items"), new.get("items"), items)
        handled = _HANDLED
        if _allows(old_types, "array") and _allows(new_types, "array") and self.tuples(old, new, at):
            handled |= {"prefixItems"}
        others = sorted(
            k
            for k in {*old, *new} - handled
            if self.keyword(self.old_root, k, old.get(k, _MISSING), old_refs)
            != self.keyword(self.new_root, k, new.get(k, _MISSING), new_refs)
        )
        if others:
            keywords = f"{_either(len(others), 'keyword', 'keywords')} {_listing(others)}"
            self.add("WIRE_KEYWORD_CHANGED", path, f"{self.who(at.name)} {keywords} changed; not compared in detail")

    def docs(self, old: Mapping[str, Any], new: Mapping[str, Any], at: _Place) -> None:
        who, path = self.who(at.name), at.path
        for key in ("title", "description"):
            if old.get(key) != new.get(key):
                self.add("MODEL_FIELD_DESCRIPTION_CHANGED", (*path, key), f"{who} {key} changed")
        if old.get("default") != new.get("default"):
            message = f"{who} default {show(old.get('default'))} → {show(new.get('default'))}"
            self.add("MODEL_DEFAULT_CHANGED", (*path, "default"), message)
        if old.get("examples") != new.get("examples"):
            self.add("MODEL_EXAMPLES_CHANGED", (*path, "examples"), f"{who} examples changed")

    def branches(self, root: Mapping[str, Any], node: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """The union keyword(s) of a node ('' for none) and its branches by canonical text."""
        kinds = [k for k in _UNIONS if isinstance(node.get(k), list)]
        if not kinds:
            bare = {k: v for k, v in node.items() if k not in _DOCS}
            return "", {self.canonical(root, bare): bare}
        parts = {self.canonical(root, b): _schema(b) for k in kinds for b in node[k]}
        return "/".join(kinds), parts

    def unions(self, old: Mapping[str, Any], new: Mapping[str, Any], at: _Place) -> bool:
        """Compare anyOf/oneOf/allOf conservatively; True when a union makes the rest of the node moot.

        A changed branch that pairs with one of the other side (``Schemas.pairs``) is compared in detail,
        as the same schema would be anywhere else; the branches left over are judged as added or removed.
        """
        if not any(k in old or k in new for k in _UNIONS):
            return False
        old_kind, old_parts = self.branches(self.old_root, old)
        new_kind, new_parts = self.branches(self.new_root, new)
        if old_kind == new_kind and old_parts.keys() == new_parts.keys():
            return False  # the same branches: the sibling keywords are compared as usual
        if old_kind == new_kind and old_kind in _UNIONS:
            old_list, new_list = old[old_kind], new[new_kind]
            pairs = self.pairs(old_list, new_list)
            start = len(self.out)
            for i, j in pairs:
                branch = (f"{at.classes[0]}{i + 1}", f"{at.classes[1]}{j + 1}")
                self.node(old_list[i], new_list[j], at.child((new_kind, j), at.name, branch))
            if old_kind == "oneOf" and self.request and any(widens(c.rule) for c in self.out[start:]):
                self.overlap(new_list, (*at.path, new_kind), at.name)
            for i, j in pairs:
                old_parts.pop(self.canonical(self.old_root, old_list[i]), None)
                new_parts.pop(self.canonical(self.new_root, new_list[j]), None)
            if old_parts.keys() == new_parts.keys():
                return False  # every change was in a branch compared in detail
        kind = new_kind or old_kind
        where = (*at.path, kind) if kind in new else at.path
        added = [self.describe(self.new_root, v) for k, v in new_parts.items() if k not in old_parts]
        removed = [self.describe(self.old_root, v) for k, v in old_parts.items() if k not in new_parts]
        who, union = self.who(at.name), self.rule("UNION_CHANGED")
        comparable = "allOf" not in f"{old_kind}/{new_kind}" and (not old_kind or not new_kind or old_kind == new_kind)
        if comparable and not removed:
            branches = f"new {kind} {_either(len(added), 'branch', 'branches')}"
            if self.request:
                self.add("WIRE_INPUT_TYPE_WIDENED", where, f"{who} now also accepts {', '.join(added)} ({branches})")
            else:
                message = f"{who} may now also be {', '.join(added)} ({branches}); readers that expect only the former "
                self.add(union, where, message + "branches break")
        elif comparable and not added:
            branches = f"removed {kind} {_either(len(removed), 'branch', 'branches')}"
            if self.request:
                message = f"{who} no longer accepts {', '.join(removed)} ({branches}); callers that send such a value "
                self.add(union, where, message + "are refused")
            else:
                self.add("WIRE_OUTPUT_TYPE_NARROWED", where, f"{who} is no longer {', '.join(removed)} ({branches})")
        else:
            change = f"removed: {', '.join(removed) or 'none'}; added: {', '.join(added) or 'none'}"
            what = f"{kind} branches changed ({change})"
            if old_kind != new_kind:
                what = f"{old_kind or 'a plain schema'} became {new_kind or 'a plain schema'}"
                what += f" ({change})" if added or removed else ""
            self.add(union, where, f"{who} {what}; not compared in detail, so breaking")
        return True

    def pairs(self, old: Sequence[Any], new: Sequence[Any]) -> list[tuple[int, int]]:
        """The changed branches that are one branch before and after: (old index, new index).

        A branch whose ``$ref`` names the same definition on both sides pairs with it; else one at the
        same place whose types overlap with it. A branch that still stands unchanged somewhere pairs with nothing.
        """
        old_keys = [self.canonical(self.old_root, b) for b in old]
        new_keys = [self.canonical(self.new_root, b) for b in new]
        old_left = [i for i, key in enumerate(old_keys) if key not in new_keys]
        new_left = [j for j, key in enumerate(new_keys) if key not in old_keys]
        pairs: list[tuple[int, int]] = []
        for i in list(old_left):
            ref = branch_ref(old[i])
            j = next((j for j in new_left if ref is not None and branch_ref(new[j]) == ref), None)
            if j is not None:
                pairs.append((i, j))
                old_left.remove(i)
                new_left.remove(j)
        for i in old_left:
            if i in new_left:
                before, _, _ = self.resolve(self.old_root, old[i], ())
                after, _, _ = self.resolve(self.new_root, new[i], ())
                if _overlap(_types(before), _types(after)):
                    pairs.append((i, i))
        return sorted(pairs, key=lambda pair: pair[1])

    def overlap(self, branches: Sequence[Any], path: JsonPath, name: str) -> None:
        """Report a oneOf input branch that accepts more, unless a required const field tells the branches apart.

        Without one, a value may now match two branches, which oneOf refuses.
        """
        tags: list[set[str]] = []
        for branch in branches:
            schema, _, _ = self.resolve(self.new_root, branch, ())
            props, required = mapping(schema.get("properties")), schema.get("required", ())
            tags.append(
                {
                    f"{key}={_key(value)}"
                    for key in required
                    if isinstance(key, str)
                    for value in (_values(self.resolve(self.new_root, props.get(key), ())[0]) or ())
                }
            )
        fields = [{tag.partition("=")[0] for tag in branch} for branch in tags]
        for field in set.intersection(*fields) if fields else set():
            values = [{tag for tag in branch if tag.partition("=")[0] == field} for branch in tags]
            if sum(len(v) for v in values) == len(set().union(*values)):
                return  # the branches are told apart by this field's values: no value can match two
        message = f"{self.who(name)} accepts more in a oneOf branch; a value that now matches two branches is refused"
        self.add("WIRE_INPUT_UNION_CHANGED", path, message)

    def describe(self, root: Mapping[str, Any], node: Mapping[str, Any]) -> str:
        """A few words for a branch: its values, else its types."""
        schema, _, _ = self.resolve(root, node, ())
        values = _values(schema)
        if values is not None:
            return " or ".join(show(v) for v in values)
        types = _types(schema)
        return " or ".join(types) if types else "a schema"

    def rule(self, suffix: str) -> str:
        return f"WIRE_{self.side.upper()}_{suffix}"

    def types(self, old: tuple[str, ...] | None, new: tuple[str, ...] | None, at: _Place) -> None:
        if old == new:
            return
        who, where = self.who(at.name), (*at.path, "type")
        lost = "any type" if old is None else " or ".join(t for t in old if not _covered(t, new))
        gained = "any type" if new is None else " or ".join(t for t in new if not _covered(t, old))
        was = " or ".join(old) if old else "any type"
        if self.request:
            if new is not None and old is None:
                message = f"{who} now accepts only {' or '.join(new)}; callers that send another type are refused"
                self.add("WIRE_INPUT_TYPE_NARROWED", where, message)
            elif lost:
                message = f"{who} no longer accepts {lost}; callers that send one are refused"
                self.add("WIRE_INPUT_TYPE_NARROWED", where, message)
            if gained:
                self.add("WIRE_INPUT_TYPE_WIDENED", where, f"{who} now {'' if lost else 'also '}accepts {gained}")
            return
        if gained:
            message = f"{who} may now be {gained}; readers that expect only {was} break"
            self.add("WIRE_OUTPUT_TYPE_WIDENED", where, message)
        if new is not None and old is None:
            self.add("WIRE_OUTPUT_TYPE_NARROWED", where, f"{who} is now always {' or '.join(new)}")
        elif lost:
            self.add("WIRE_OUTPUT_TYPE_NARROWED", where, f"{who} is no longer {lost}")

    def enums(self, old_node: Mapping[str, Any], new_node: Mapping[str, Any], at: _Place) -> None:
        old, new = _values(old_node), _values(new_node)
        if (old is None) == (new is None) and _keys(old or []) == _keys(new or []):
            return
        who = self.who(at.name)
        where = (*at.path, "const" if "const" in new_node else "enum")
        old_keys, new_keys = _keys(old or []), _keys(new or [])
        removed = [] if old is None or new is None else [v for v in old if _key(v) not in new_keys]
        added = [] if old is None or new is None else [v for v in new if _key(v) not in old_keys]
        narrowed, widened = self.rule("ENUM_NARROWED"), self.rule("ENUM_WIDENED")
        if self.request:
            if new is not None and old is None:
                message = f"{who} now accepts only {_listing(new)}; callers that send another value are refused"
                self.add(narrowed, where, message)
            if removed:
                message = f"{who} no longer accepts {_listing(removed)}; callers that send such a value are refused"
                self.add(narrowed, where, message)
            if old is not None and new is None:
                self.add(widened, where, f"{who} now accepts any value (its enum was removed)")
            if added:
                self.add(widened, where, f"{who} now also accepts {_listing(added)}")
            return
        exhaustive = "readers that handle every value exhaustively break"
        if old is not None and new is None:
            self.add(widened, where, f"{who} may now be any value (its enum was removed); {exhaustive}")
        if added:
            self.add(widened, where, f"{who} may now be {_listing(added)}; {exhaustive}")
        if new is not None and old is None:
            self.add(narrowed, where, f"{who} is now only {_listing(new)}")
        if removed:
            self.add(narrowed, where, f"{who} is no longer {_listing(removed)}")

    def bounds(self, old: Mapping[str, Any], new: Mapping[str, Any], at: _Place) -> None:
        who, path = self.who(at.name), at.path
        for key in (*_MINIMA, *_MAXIMA):
            before, after = _number(old.get(key)), _number(new.get(key))
            if before == after:
                continue
            if key in _MINIMA:
                stricter = after is not None and (before is None or after > before)
            else:
                stricter = after is not None and (before is None or after < before)
            self.bound(stricter, (*path, key), f"{who} {key} {show(before)} → {show(after)}")
        before, after = old.get("pattern"), new.get("pattern")
        if before != after:
            where, message = (*path, "pattern"), f"{who} pattern {show(before)} → {show(after)}"
            if self.request and after is None:
                self.add("WIRE_INPUT_CONSTRAINT_LOOSENED", where, message)
            elif self.request:
                self.add("WIRE_INPUT_PATTERN_CHANGED", where, f"{message}; {_REFUSED}")
            elif before is None:
                self.add("WIRE_OUTPUT_CONSTRAINT_TIGHTENED", where, message)
            else:
                self.add("WIRE_OUTPUT_PATTERN_CHANGED", where, f"{message}; readers that rely on the old pattern break")
        before, after = old.get("format"), new.get("format")
        if before != after:
            where, message = (*path, "format"), f"{who} format {show(before)} → {show(after)}"
            # The runtime asserts the formats it knows (validation.FORMATS): one added or removed is a bound.
            checked_before = before if before in ASSERTED_FORMATS else None
            checked_after = after if after in ASSERTED_FORMATS else None
            if checked_before is None and checked_after is None:
                self.add("WIRE_FORMAT_CHANGED", where, f"{message}; readers that check formats differ")
            elif None in (checked_before, checked_after):
                self.bound(checked_after is not None, where, f"{message} (the runtime checks it)")
            elif (checked_before, checked_after) in _WIDER_FORMATS:
                self.bound(False, where, f"{message} (the runtime checks both; the new one takes more)")
            elif (checked_after, checked_before) in _WIDER_FORMATS:
                self.bound(True, where, f"{message} (the runtime checks both; the new one takes less)")
            else:  # unrelated: values of the old format are refused, readers get values of a new one
                self.bound(self.request, where, f"{message} (the runtime checks both)")

    def bound(self, stricter: bool, where: JsonPath, message: str) -> None:
        if self.request and stricter:
            self.add(self.rule("CONSTRAINT_TIGHTENED"), where, f"{message}; {_REFUSED}")
        elif self.request:
            self.add(self.rule("CONSTRAINT_LOOSENED"), where, message)
        elif stricter:
            self.add(self.rule("CONSTRAINT_TIGHTENED"), where, message)
        else:
            self.add(self.rule("CONSTRAINT_LOOSENED"), where, f"{message}; {_UNEXPECTED}")

    def objects(self, old: Mapping[str, Any], new: Mapping[str, Any], at: _Place) -> None:
        old_props, new_props = mapping(old.get("properties")), mapping(new.get("properties"))
        old_required, new_required = list(old.get("required", ())), list(new.get("required", ()))
        closed = new.get("additionalProperties") is False
        for key in old_props:
            if key in new_props:
                continue
            field, where = self.who(join_name(at.name, key)), (*at.path, "properties")
            if not self.request:
                self.add("WIRE_OUTPUT_FIELD_REMOVED", where, f"{field} was removed; readers that use it break")
            elif closed:
                message = f"{field} was removed from a closed object; callers that still send it are refused"
                self.add("WIRE_INPUT_FIELD_REMOVED", where, message)
            else:
                message = f"{field} was removed; extra keys are still taken, so callers that send it are not refused"
                message += ", but nothing declares it any more"
                self.add("WIRE_INPUT_FIELD_IGNORED", where, message)
        for key in new_props:
            classes = (class_name(at.classes[0], key), class_name(at.classes[1], key))
            inner = at.child(("properties", key), join_name(at.name, key), classes)
            field, where = self.who(inner.name), inner.path
            if key not in old_props:
                if not self.request:
                    self.add("WIRE_OUTPUT_FIELD_ADDED", where, f"{field} was added")
                elif key in new_required:
                    message = f"required {field} was added; callers that do not send it are refused"
                    self.add("WIRE_INPUT_REQUIRED_ADDED", where, message)
                else:
                    self.add("WIRE_INPUT_FIELD_ADDED", where, f"optional {field} was added")
                continue
            if key in new_required and key not in old_required:
                required = (*at.path, "required", new_required.index(key))
                if self.request:
                    message = f"{field} is now required; callers that leave it out are refused"
                    self.add("WIRE_INPUT_FIELD_REQUIRED", required, message)
                else:
                    self.add("WIRE_OUTPUT_FIELD_REQUIRED", required, f"{field} is now always present")
            elif key in old_required and key not in new_required:
                if self.request:
                    self.add("WIRE_INPUT_FIELD_OPTIONAL", where, f"{field} is now optional")
                else:
                    message = f"{field} is now optional; readers that expect it always break"
                    self.add("WIRE_OUTPUT_FIELD_OPTIONAL", where, message)
            self.code(old_props[key], new_props[key], inner)
            self.node(old_props[key], new_props[key], inner)
        self.extra(old, new, at)

    def extra(self, old: Mapping[str, Any], new: Mapping[str, Any], at: _Place) -> None:
        """additionalProperties: closed (false), open (absent or true) or a schema for the values of a map."""
        before, after = old.get("additionalProperties", True), new.get("additionalProperties", True)
        if (before is False) == (after is False):
            if before is not False:  # the values of a map, compared as any schema is (node returns when equal)
                values = (f"{at.classes[0]}Value", f"{at.classes[1]}Value")
                self.node(before, after, at.child(("additionalProperties",), join_name(at.name, "*"), values))
            return
        who, where = self.who(at.name), (*at.path, "additionalProperties")
        if self.request and after is False:
            message = f"{who} no longer takes extra keys; callers that send them are refused"
            self.add("WIRE_INPUT_CLOSED", where, message)
        elif self.request:
            self.add("WIRE_INPUT_OPENED", where, f"{who} now takes extra keys")
        elif after is False:
            self.add("WIRE_OUTPUT_CLOSED", where, f"{who} no longer carries extra keys")
        else:
            message = f"{who} may now carry extra keys; readers that refuse unknown keys break"
            self.add("WIRE_OUTPUT_OPENED", where, message)

    def tuples(self, old: Mapping[str, Any], new: Mapping[str, Any], at: _Place) -> bool:
        """prefixItems of one length, compared place by place (True); another length is left to WIRE_KEYWORD_CHANGED."""
        before, after = old.get("prefixItems"), new.get("prefixItems")
        if not isinstance(before, list) or not isinstance(after, list) or len(before) != len(after):
            return False
        for i, (was, now) in enumerate(zip(before, after, strict=True)):
            items = (f"{at.classes[0]}Item{i}", f"{at.classes[1]}Item{i}")
            self.node(was, now, at.child(("prefixItems", i), f"{at.name}[{i}]", items))
        return True

    def code(self, old: Any, new: Any, at: _Place) -> None:
        """The Python annotation a generated TypedDict gives this field, before and after."""
        before = TypeBuilder(self.old_root, shared=self.shared[0]).annotation(old, at.classes[0])
        after = TypeBuilder(self.new_root, shared=self.shared[1]).annotation(new, at.classes[1])
        if before != after:
            message = f"the generated annotation of {self.who(at.name)} changes: {before} → {after}"
            self.add("CODE_FIELD_TYPE_CHANGED", at.path, message)


def ref_class(refs: tuple[str, ...], current: str) -> str:
    """The class a generated TypedDict takes for a node: a ``$defs`` entry's own name, as ``pytypes`` names it."""
    return class_name(ref_name(refs[-1])) if refs and ref_name(refs[-1]) else current


def branch_ref(node: Any) -> str | None:
    """The ``$ref`` a branch names, if it is one."""
    ref = node.get("$ref") if isinstance(node, Mapping) else None
    return ref if isinstance(ref, str) else None


def widens(rule: str) -> bool:
    """Whether a finding says an input now accepts more (an input rule that is not an error by default)."""
    return rule.startswith("WIRE_INPUT_") and RULES[rule].level is not Severity.ERROR


def mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def join_name(name: str, key: str) -> str:
    return f"{name}.{key}" if name else key
