"""Python type annotations for JSON Schemas: TypedDicts for objects, Literals for enums."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from toolproof.generator.naming import class_name, is_identifier, python_name
from toolproof.generator.pysource import pystr
from toolproof.generator.refs import Path, locate, ref_name, resolve

__all__ = ["RESERVED_NAMES", "Field", "TypeBuilder", "TypedDictDef", "forward_reference"]


@dataclass(frozen=True, slots=True)
class Field:
    """One key of a TypedDict."""

    name: str
    annotation: str
    required: bool
    description: str


@dataclass(frozen=True, slots=True)
class TypedDictDef:
    """A TypedDict to generate; ``functional`` when a key is not a Python identifier."""

    name: str
    doc: str
    fields: tuple[Field, ...]
    functional: bool


_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def _py_literal(value: Any) -> str:
    if isinstance(value, str):
        return pystr(value)  # as ruff writes it: the generated stub is formatted code
    return repr(value)  # True, False, None, ints: Python spells them as repr does


def _literal(values: list[Any]) -> str:
    return "Literal[" + ", ".join(_py_literal(v) for v in values) + "]"


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def forward_reference(annotation: str, later: set[str]) -> str:
    """``annotation`` as a string (a forward reference) when it names one of the classes in ``later``."""
    if later.isdisjoint(_NAME.findall(annotation)):
        return annotation
    return pystr(annotation)


RESERVED_NAMES: Final = frozenset(
    {
        *("NAME", "VERSION", "ErrorCode", "Handler", "ToolContext", "ToolError", "Template", "annotations"),
        *("Any", "Final", "Literal", "Never", "NotRequired", "Protocol", "TypedDict"),
        *("str", "int", "float", "bool", "list", "dict", "object"),
    }
)
"""Names a generated stub defines or imports besides its TypedDicts (templates/stub.py.jinja): no class takes one."""


class TypeBuilder:
    """Turns schemas into annotations, collecting the TypedDicts they need (in dependency order).

    Builders that write into one module share ``taken``, the names already given, so no two
    TypedDicts, and no TypedDict and a name the stub defines, share a name.
    """

    def __init__(self, root: Any, taken: set[str] | None = None, shared: Mapping[str, str] | None = None) -> None:
        self._root = root
        self.shared: Mapping[str, str] = shared or {}
        """Each ``$defs`` name that is a shared definition, with the name of its type in the generated ``defs``."""
        self.imported: set[str] = set()
        """The shared definitions' types the annotations name."""
        self._root_name: str | None = None
        self._taken = taken if taken is not None else set(RESERVED_NAMES)
        self.defs: list[TypedDictDef] = []
        self._named: dict[Path, str] = {}
        self._ahead: set[str] = set()
        self._mine: set[str] = set()
        """The class names this builder claimed."""
        self.uses_any = False
        self.uses_literal = False
        self.uses_not_required = False

    def annotation(self, schema: Any, name: str, doc: str = "") -> str:
        """The annotation for ``schema``; object schemas become TypedDicts called ``name`` (made unique)."""
        if schema is self._root and self._root_name is None:
            name = self._root_name = self._claim(name, ahead=True)
        if schema is True or not isinstance(schema, Mapping) or not schema:
            self.uses_any = True
            return "Any"
        if isinstance(schema.get("$ref"), str):
            return self._ref(schema["$ref"])
        if "const" in schema:
            self.uses_literal = True
            return _literal([schema["const"]])
        if "enum" in schema and all(isinstance(v, (str, int, bool)) or v is None for v in schema["enum"]):
            self.uses_literal = True
            return _literal(list(schema["enum"]))
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                options = [self.annotation(sub, f"{name}{i}") for i, sub in enumerate(schema[key], 1)]
                return " | ".join(dict.fromkeys(options))
        kind = schema.get("type")
        if isinstance(kind, list):
            options = [self.annotation({**schema, "type": k}, name) for k in kind]
            return " | ".join(dict.fromkeys(options))
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "array":
            return f"list[{self.annotation(schema.get('items', True), name + 'Item')}]"
        if kind == "object" or "properties" in schema:
            return self._object(schema, name, doc)
        self.uses_any = True
        return "Any"

    def _claim(self, name: str, *, ahead: bool = False) -> str:
        """``name`` as a class name no other class of the module has, nor a name the stub defines.

        ``ahead``: claimed before its schema is annotated (a reference may name it first), so the
        TypedDict that schema becomes takes it as it is.
        """
        name = python_name(name or "Schema", self._taken)
        self._taken.add(name)
        self._mine.add(name)
        if ahead:
            self._ahead.add(name)
        return name

    def _ref(self, ref: str) -> str:
        where, _ = locate(self._root, ref)
        if where is None:
            self.uses_any = True
            return "Any"
        if where == () and self._root_name is not None:
            return self._root_name
        if len(where) == 2 and where[0] == "$defs" and where[1] in self.shared:  # one type, in the defs module
            self.imported.add(self.shared[str(where[1])])
            return self.shared[str(where[1])]
        if where not in self._named:  # keyed by place: an anchor and a pointer to one schema make one class
            self._named[where] = self._claim(class_name(ref_name(ref)), ahead=True)  # what a recursion names
            self._named[where] = self.annotation(resolve(self._root, ref)[1], self._named[where])
        return self._named[where]

    def _object(self, schema: Mapping[str, Any], name: str, doc: str) -> str:
        props: Mapping[str, Any] = schema.get("properties", {})
        if not props:
            extra = schema.get("additionalProperties", True)
            if extra is True or extra is False or extra == {}:  # false: no key at all, so no value to type
                self.uses_any = True
                return "dict[str, Any]"
            return f"dict[str, {self.annotation(extra, name + 'Value')}]"
        if name in self._ahead:
            self._ahead.discard(name)
        else:
            name = self._claim(name)
        required = set(schema.get("required", ()))
        fields = []
        for key, sub in props.items():
            annotation = self.annotation(sub, class_name(name, key))
            if key not in required:
                self.uses_not_required = True
            text = sub.get("description", "") if isinstance(sub, Mapping) else ""
            fields.append(Field(key, annotation, key in required, " ".join(str(text).split())))
        doc = " ".join(str(schema.get("description", "")).split()) or doc
        functional = not all(is_identifier(f.name) for f in fields)
        if functional:  # its field types are evaluated where it is defined: a class defined later is named in quotes
            later = self._mine - {d.name for d in self.defs}
            fields = [replace(f, annotation=forward_reference(f.annotation, later)) for f in fields]
        self.defs.append(TypedDictDef(name, doc, tuple(fields), functional))
        return name
