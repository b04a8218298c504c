"""The JSON Schemas of a contract, checked as strictly as ajv's strict mode, at every depth.

A schema may hold only JSON Schema 2020-12 keywords (core, applicator,
unevaluated, validation, format-annotation, meta-data, content, plus the
``definitions`` and ``dependencies`` the 2020-12 meta-schema keeps) and
annotations prefixed ``x-``. Beyond the meta-schema, the rules follow ajv's
strict mode (``strictSchema``, ``strictTypes``, ``strictTuples``,
``strictRequired``, no unknown formats, no patterns ECMA-262 refuses); every
problem is an error, located at the key or value at fault.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from typing import Any, Final
from urllib.parse import unquote

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, relevance

from toolproof.generator.problems import Problem, rule
from toolproof.generator.refs import Path, locate, resolve
from toolproof.generator.regexes import compile_pattern, regex_problem
from toolproof.generator.source import JsonPath, Source
from toolproof.generator.vocabulary import (
    DIALECT,
    FORMATS,
    KEYWORDS,
    OLD_SPELLINGS,
    TYPE_ALIASES,
    TYPED_KEYWORDS,
    TYPES,
    did_you_mean,
)

__all__ = ["check_schema", "number_hint"]

_MAY_BE_NULL: Final = frozenset({"const", "default"})
_PLURAL: Final = {"number": "numbers", "string": "strings", "array": "arrays", "object": "objects"}
_SAME_LEVEL: Final = ("not", "if", "then", "else")
_SAME_LEVEL_LISTS: Final = ("allOf", "anyOf", "oneOf")
_NEW_LEVEL: Final = ("additionalProperties", "items", "contains", "unevaluatedItems", "unevaluatedProperties")
_SCHEMA_MAPS: Final = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_NO_CONSTRAINT: Final = frozenset(
    {"$ref", "$defs", "definitions", "$anchor", "$comment", "$id", "$schema"}
    | {"title", "description", "examples", "default", "deprecated", "readOnly", "writeOnly"}
)
"""Keys that constrain no value: a schema of only these beside its ``$ref`` accepts what the ``$ref`` accepts."""
_YAML11_STRING_NUMBER: Final = re.compile(r"([-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))[eE]([-+]?)([0-9]+)")
"""Exponent notation: a number in YAML 1.2; in PyYAML (YAML 1.1) only with a dot and a signed exponent, ``1.0e+6``."""


@cache
def _meta_checker() -> Draft202012Validator:
    meta = Draft202012Validator.META_SCHEMA
    return Draft202012Validator(meta, format_checker=Draft202012Validator.FORMAT_CHECKER)


@cache
def _meta_fast() -> Any:
    # Formats asserted, so it is at least as strict as _meta_checker: it only clears the happy path.
    return jsonschema_rs.Draft202012Validator(Draft202012Validator.META_SCHEMA, validate_formats=True)


def _meta_valid_fast(schema: Any) -> bool:
    try:
        return bool(_meta_fast().is_valid(schema))
    except Exception:  # a value JSON cannot hold: python-jsonschema judges it
        return False


@dataclass(slots=True)
class _Walker:
    source: Source
    at: JsonPath
    root: Any
    problems: list[Problem] = field(default_factory=list)
    reported: set[JsonPath] = field(default_factory=set)
    refs: list[tuple[JsonPath, str]] = field(default_factory=list)
    anchors: set[str] = field(default_factory=set)
    settled: bool = False
    """A reference bundling reported: the schema cannot compile, and is not tried."""

    def add(self, path: JsonPath, rule_name: str, message: str, *, key: bool = False) -> None:
        self.reported.add(path)
        self.problems.append(self.source.problem((*self.at, *path), rule_name, message, key=key))

    def walk(self, schema: Any, path: JsonPath, context: tuple[str, ...], defined: frozenset[str]) -> None:
        """Check one schema object, then every subschema in it; ``context`` holds the types its data level allows."""
        if not isinstance(schema, Mapping):
            return
        self._keys(schema, path)
        types = self._types(schema, path, context)
        if types is None:
            types = context  # a wrong type, which the meta-schema reports: nothing to check keywords against
        else:
            self._typed_keywords(schema, path, types)
        self._tuple(schema, path)
        self._required(schema, path, defined)
        self._ignored(schema, path)
        self._patterns(schema, path)
        self._format(schema, path)
        if schema.get("enum") == []:  # the meta-schema allows it; ajv refuses it ("enum must have non-empty array")
            message = "not valid JSON Schema: 'enum' must list at least one value (no value could pass; ajv refuses it)"
            self.add((*path, "enum"), "invalid-schema", message)
        if isinstance(schema.get("$ref"), str):
            self.refs.append((path, schema["$ref"]))
        if isinstance(schema.get("$anchor"), str):
            self.anchors.add(schema["$anchor"])
        for key, sub in _same_level(schema):
            self.walk(sub, (*path, *key), types, defined)
        for key, sub, data_types in _new_level(schema):
            self.walk(sub, (*path, *key), data_types, self.defined(sub, set()))

    def _keys(self, schema: Mapping[str, Any], path: JsonPath) -> None:
        for key, value in schema.items():
            if value is None and key not in _MAY_BE_NULL:
                self.add((*path, key), "null-in-schema", _cut(key), key=True)
            elif key not in KEYWORDS and not key.startswith("x-"):
                self.add((*path, key), "unknown-keyword", _unknown(key, value), key=True)
            elif key in _SCHEMA_MAPS and isinstance(value, Mapping):
                for name, sub in value.items():
                    if sub is None:
                        self.add((*path, key, name), "null-in-schema", _cut(name), key=True)

    def _types(self, schema: Mapping[str, Any], path: JsonPath, context: tuple[str, ...]) -> tuple[str, ...] | None:
        """The types the data may have here (ajv's narrowing of its context), or None when ``type`` is wrong."""
        declared = schema.get("type")
        own = (declared,) if isinstance(declared, str) else tuple(declared) if isinstance(declared, list) else ()
        if not all(isinstance(t, str) and t in TYPES for t in own) or (declared is not None and not own):
            return None
        if not own:
            return context
        at = (*path, "type")
        if len(own) > 1 and not (len(own) == 2 and "null" in own):
            self.add(at, "strict-types", f"type lists {len(own)} types ({', '.join(own)}): write anyOf, one type each")
        if not context:
            return own
        for name in own:
            if not (name in context or (name == "integer" and "number" in context)):
                self.add(
                    at, "strict-types", f"type '{name}' contradicts the type its data must have here: {_or(context)}"
                )
                return own
        narrowed = [t for t in context if t in own or (t == "integer" and "number" in own)]
        if "number" in context and "number" not in own and "integer" in own:
            narrowed.append("integer")
        return tuple(dict.fromkeys(narrowed))

    def _typed_keywords(self, schema: Mapping[str, Any], path: JsonPath, types: tuple[str, ...]) -> None:
        for keyword, applies in TYPED_KEYWORDS.items():
            if keyword not in schema or (*path, keyword) in self.reported:
                continue
            if any(t in types or (t == "number" and "integer" in types) for t in applies):
                continue
            kinds = " and ".join(_PLURAL[t] for t in applies)
            if types:
                message = f"'{keyword}' applies only to {kinds}, and this schema's type is {_or(types)}"
            else:
                message = f"'{keyword}' applies only to {kinds}: add type: {applies[-1]}"
            self.add((*path, keyword), "strict-types", message, key=True)

    def _tuple(self, schema: Mapping[str, Any], path: JsonPath) -> None:
        items = schema.get("prefixItems")
        if not isinstance(items, list):
            return
        size = len(items)
        if schema.get("minItems") == size and (schema.get("maxItems") == size or schema.get("items") is False):
            return
        message = f"prefixItems describes {size} item(s): set minItems: {size} and maxItems: {size} (or items: false)"
        self.add((*path, "prefixItems"), "strict-tuple", message, key=True)

    def _required(self, schema: Mapping[str, Any], path: JsonPath, defined: frozenset[str]) -> None:
        required = schema.get("required")
        if not isinstance(required, list):
            return
        closed = schema.get("additionalProperties") is False
        for i, name in enumerate(required):
            if not isinstance(name, str) or name in defined:
                continue
            if closed:
                message = f"required property '{name}' is not in properties"
                message += " and additionalProperties is false: no object can pass"
            else:
                message = f"required property '{name}' is not defined in properties"
                close = did_you_mean(name, tuple(defined))
                message += f" (did you mean '{close}'?)" if close else "; declare its schema there"
            self.add((*path, "required", i), "strict-required", message)

    def _ignored(self, schema: Mapping[str, Any], path: JsonPath) -> None:
        for key in ("then", "else"):
            if key in schema and "if" not in schema:
                self.add((*path, key), "ignored-keyword", f"'{key}' without 'if' has no effect", key=True)
        if "if" in schema and "then" not in schema and "else" not in schema:
            self.add((*path, "if"), "ignored-keyword", "'if' without 'then' or 'else' has no effect", key=True)
        low, high = schema.get("minContains"), schema.get("maxContains")
        if "contains" not in schema:
            for key in ("minContains", "maxContains"):
                if key in schema:
                    self.add((*path, key), "ignored-keyword", f"'{key}' without 'contains' has no effect", key=True)
        elif low == 0 and high is None:
            message = "'minContains: 0' without 'maxContains' makes 'contains' accept every array"
            self.add((*path, "minContains"), "ignored-keyword", message, key=True)
        elif isinstance(low, int) and isinstance(high, int) and low > high:
            message = "'minContains' is greater than 'maxContains': no array can pass"
            self.add((*path, "minContains"), "ignored-keyword", message, key=True)

    def _patterns(self, schema: Mapping[str, Any], path: JsonPath) -> None:
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            self._regex(pattern, (*path, "pattern"), key=False)
        patterns = schema.get("patternProperties")
        if not isinstance(patterns, Mapping):
            return
        names = schema.get("properties")
        for text in patterns:
            if self._regex(text, (*path, "patternProperties", text), key=True) and isinstance(names, Mapping):
                compiled = compile_pattern(text)
                hit = next((n for n in names if not isinstance(compiled, Exception) and compiled.search(n)), None)
                if hit is not None:
                    message = (
                        f"property '{hit}' also matches patternProperties '{text}', so both schemas apply to it;"
                        " narrow the pattern"
                    )
                    self.add((*path, "patternProperties", text), "pattern-matches-property", message, key=True)

    def _regex(self, text: str, path: JsonPath, *, key: bool) -> bool:
        found = regex_problem(text)
        if found is None:
            return True
        rule_name, index, message = found
        line, column = self.source.char_mark((*self.at, *path), text, index, key=key)
        self.reported.add(path)
        self.problems.append(rule(rule_name).at(self.source.path, line, column, message))
        return False

    def _format(self, schema: Mapping[str, Any], path: JsonPath) -> None:
        name = schema.get("format")
        if not isinstance(name, str) or name in FORMATS:
            return
        close = did_you_mean(name, FORMATS)
        hint = f"did you mean '{close}'?" if close else "known: " + ", ".join(sorted(FORMATS))
        self.add((*path, "format"), "unknown-format", f"unknown format '{name}' ({hint})")

    def defined(self, schema: Any, seen: set[int]) -> frozenset[str]:
        """The properties defined at one data level: in the schema, its same-level subschemas and local $refs."""
        if not isinstance(schema, Mapping) or id(schema) in seen:
            return frozenset()
        seen.add(id(schema))
        names = set(schema.get("properties") or ()) if isinstance(schema.get("properties"), Mapping) else set()
        for _, sub in _same_level(schema):
            names |= self.defined(sub, seen)
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            found, target = resolve(self.root, ref)
            if found:
                names |= self.defined(target, seen)
        return frozenset(names)

    def resolve_refs(self) -> None:
        for path, ref in self.refs:
            at = (*path, "$ref")
            if (*self.at, *at) in self.source.settled:
                self.reported.add(at)
                self.settled = True
                continue  # bundling reported it (shared.bundle)
            if not ref.startswith("#"):
                self.add(at, "unresolved-ref", f"$ref '{ref}' leaves the schema; only local refs ('#/$defs/...') work")
                continue
            fragment = unquote(ref[1:])
            if fragment and not fragment.startswith("/"):
                if fragment not in self.anchors:
                    self.add(at, "unresolved-ref", f"$ref '{ref}' names no $anchor '{fragment}' of the schema")
                continue
            found, target = _resolve(self.root, ref)
            if not found:
                self.add(at, "unresolved-ref", f"$ref '{ref}' resolves to nothing: {target}")
            elif not isinstance(target, (Mapping, bool)):
                self.add(at, "unresolved-ref", f"$ref '{ref}' points at a {type(target).__name__}, not a schema")

    def ref_cycles(self) -> None:
        """``ref-cycle``: a ``$ref`` that leads back to itself through schemas that hold nothing but a ``$ref``.

        Nothing on such a loop says what a value must be, so the validator accepts any value there (a -> b -> a).
        One problem per loop, at its ``$ref`` met first; a loop through a constraint (a tree type) is fine.
        """
        loops: set[frozenset[Path]] = set()
        for path, ref in self.refs:
            if (*path, "$ref") in self.reported:
                continue
            loop = self._loop_from(tuple(path))
            if loop is None or frozenset(loop) in loops:
                continue
            loops.add(frozenset(loop))
            steps = " -> ".join(f"'{_ref_of(self.root, at)}'" for at in loop)
            message = (
                f"$ref '{ref}' leads back here ({steps}) and no schema on the way constrains a value: it accepts"
                " anything; give one of them a constraint (a type, properties) or point the $ref at a real schema"
            )
            self.add((*path, "$ref"), "ref-cycle", message)

    def _loop_from(self, start: Path) -> list[Path] | None:
        """The schemas from ``start`` round to ``start``, each nothing but a ``$ref`` to the next; None if no loop."""
        loop: list[Path] = []
        here: Path | None = start
        while here is not None and here not in loop:
            node = _at(self.root, here)
            if not (isinstance(node, Mapping) and isinstance(node.get("$ref"), str)) or set(node) - _NO_CONSTRAINT:
                return None
            loop.append(here)
            here = locate(self.root, node["$ref"])[0]
        return loop if here == start else None


def _at(root: Any, path: Path) -> Any:
    for part in path:
        root = root[part]
    return root


def _ref_of(root: Any, path: Path) -> str:
    ref = _at(root, path)["$ref"]
    return str(ref)


def _same_level(schema: Mapping[str, Any]) -> Iterator[tuple[JsonPath, Any]]:
    """Subschemas that apply to the same data as ``schema``."""
    for key in _SAME_LEVEL:
        if key in schema:
            yield (key,), schema[key]
    for key in _SAME_LEVEL_LISTS:
        if isinstance(schema.get(key), list):
            yield from (((key, i), sub) for i, sub in enumerate(schema[key]))
    for key in ("dependentSchemas", "dependencies"):
        if isinstance(schema.get(key), Mapping):
            yield from (((key, name), sub) for name, sub in schema[key].items() if isinstance(sub, Mapping))


def _new_level(schema: Mapping[str, Any]) -> Iterator[tuple[JsonPath, Any, tuple[str, ...]]]:
    """Subschemas that apply to other data (members, items, names, decoded content, definitions)."""
    for key in _NEW_LEVEL:
        if key in schema:
            yield (key,), schema[key], ()
    if "propertyNames" in schema:
        yield ("propertyNames",), schema["propertyNames"], ("string",)
    if "contentSchema" in schema:
        yield ("contentSchema",), schema["contentSchema"], ()
    if isinstance(schema.get("prefixItems"), list):
        yield from ((("prefixItems", i), sub, ()) for i, sub in enumerate(schema["prefixItems"]))
    for key in ("properties", "patternProperties", "$defs", "definitions"):
        if isinstance(schema.get(key), Mapping):
            yield from (((key, name), sub, ()) for name, sub in schema[key].items())


def _resolve(root: Any, ref: str) -> tuple[bool, Any]:
    """What a local ``#/...`` pointer points at, or False and where it stops."""
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in unquote(ref[1:]).split("/")[1:]]
    node = root
    for i, token in enumerate(tokens):
        where = "the schema" if i == 0 else "'#/" + "/".join(tokens[:i]) + "'"
        if isinstance(node, Mapping):
            if token not in node:
                close = did_you_mean(token, tuple(node))
                return False, f"{where} has no '{token}'" + (f" (did you mean '{close}'?)" if close else "")
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False, f"{where} has no item '{token}'"
    return True, node


def _cut(key: str) -> str:
    return f"'{key}' has no value: a YAML flow mapping cut here? quote the text"


def _unknown(key: str, value: Any) -> str:
    if key in OLD_SPELLINGS:
        return f"unknown keyword '{key}' ({OLD_SPELLINGS[key]})"
    close = did_you_mean(key, KEYWORDS)
    if close is not None:
        return f"unknown keyword '{key}' (did you mean '{close}'?)"
    if isinstance(value, Mapping):
        return f"unknown keyword '{key}' (a property? list it under properties)"
    return f"unknown keyword '{key}' (not JSON Schema 2020-12; annotations take an 'x-' prefix)"


def number_hint(value: object) -> str | None:
    """How to write ``value``, a number in exponent notation YAML 1.1 read as a string (``1e6``); None for others."""
    if not isinstance(value, str) or (found := _YAML11_STRING_NUMBER.fullmatch(value)) is None:
        return None
    mantissa, sign, digits = found.groups()
    if "." in mantissa and sign:
        return None  # YAML 1.1 reads it as a number: it was quoted
    plain = format(Decimal(value), "f")
    written = f"{mantissa if '.' in mantissa else mantissa + '.0'}e{sign or '+'}{digits}"
    return f"YAML 1.1 reads {value} as a string; write {plain} or {written}"


def _or(types: tuple[str, ...]) -> str:
    return " or ".join(types)


def _meta_message(error: ValidationError) -> str:
    value = error.instance
    if (error.absolute_path and error.absolute_path[-1] == "type") or (
        len(error.absolute_path) > 1 and error.absolute_path[-2] == "type"
    ):
        if isinstance(value, str) and value not in TYPES:
            close = TYPE_ALIASES.get(value.lower()) or did_you_mean(value, TYPES)
            hint = f"did you mean '{close}'?" if close else "types: " + ", ".join(TYPES)
            return f"not valid JSON Schema: unknown type '{value}' ({hint})"
    number = number_hint(value) if error.validator == "type" else None
    return f"not valid JSON Schema: {error.message}" + (f" ({number})" if number else "")


def check_schema(source: Source, at: JsonPath) -> list[Problem]:
    """Every problem of the JSON Schema written at ``at`` in ``source`` (input, output or an error param).

    Args:
        source: the contract.
        at: where the schema stands in it, such as ``("input",)``.

    Returns:
        The problems, each at the key or value at fault.
    """
    schema = source.data
    for key in at:
        schema = schema[key]
    walker = _Walker(source, at, schema)
    dialect = schema.get("$schema") if isinstance(schema, Mapping) else None
    if isinstance(dialect, str) and dialect.rstrip("#") != DIALECT:
        walker.add(("$schema",), "schema-dialect", f"only JSON Schema 2020-12 is supported ({DIALECT})")
        return walker.problems
    walker.walk(schema, (), (), walker.defined(schema, set()))
    walker.resolve_refs()
    walker.ref_cycles()
    errors = (
        []
        if _meta_valid_fast(schema)
        else sorted(_meta_checker().iter_errors(schema), key=lambda e: (list(map(str, e.absolute_path)), relevance(e)))
    )
    for error in errors:
        path = tuple(error.absolute_path)
        if (error.validator == "format" and error.validator_value == "regex") or any(
            path[:n] in walker.reported for n in range(len(path) + 1)
        ):
            continue  # patterns and formats have rules of their own; one problem per place
        walker.add(path, "invalid-schema", _meta_message(error))
    if walker.problems or walker.settled:
        return walker.problems
    try:
        jsonschema_rs.validator_for(schema, validate_formats=False)
    except Exception as exc:  # the compiled validator refuses what python-jsonschema accepts
        walker.add((), "invalid-schema", f"not valid JSON Schema: {str(exc).splitlines()[0]}")
    return walker.problems
