"""Python type annotations for JSON Schemas: TypedDicts for objects, Literals for enums."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolproof.generator.naming import class_name, is_identifier

__all__ = ["Field", "TypeBuilder", "TypedDictDef"]


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
        return json.dumps(value, ensure_ascii=False)
    return repr(value)  # True, False, None, ints: Python spells them as repr does


def _literal(values: list[Any]) -> str:
    return "Literal[" + ", ".join(_py_literal(v) for v in values) + "]"


class TypeBuilder:
    """Turns schemas into annotations, collecting the TypedDicts they need (in dependency order)."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self._root = root
        self.defs: list[TypedDictDef] = []
        self._named: dict[str, str] = {}
        self.uses_any = False
        self.uses_literal = False
        self.uses_not_required = False

    def annotation(self, schema: Any, name: str, doc: str = "") -> str:
        """The annotation for ``schema``; object schemas become TypedDicts called ``name``."""
        if schema is True or not isinstance(schema, Mapping) or not schema:
            self.uses_any = True
            return "Any"
        if "$ref" in schema:
            return self._ref(schema["$ref"])
        if "const" in schema:
            self.uses_literal = True
            return _literal([schema["const"]])
        if "enum" in schema and all(isinstance(v, (str, int, bool)) or v is None for v in schema["enum"]):
            self.uses_literal = True
            return _literal(list(schema["enum"]))
        for key in ("anyOf", "oneOf"):
            if key in schema:
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

    def _ref(self, ref: str) -> str:
        prefix = "#/$defs/"
        if not ref.startswith(prefix):
            self.uses_any = True
            return "Any"
        key = ref[len(prefix) :]
        if key not in self._named:
            self._named[key] = class_name(key)
            target = self._root.get("$defs", {}).get(key, True)
            self._named[key] = self.annotation(target, class_name(key))
        return self._named[key]

    def _object(self, schema: Mapping[str, Any], name: str, doc: str) -> str:
        props: Mapping[str, Any] = schema.get("properties", {})
        if not props:
            extra = schema.get("additionalProperties", True)
            self.uses_any = self.uses_any or extra is True or extra == {}
            value = "Any" if extra in (True, {}, False) else self.annotation(extra, name + "Value")
            return f"dict[str, {value}]"
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
        self.defs.append(TypedDictDef(name, doc, tuple(fields), functional))
        return name
