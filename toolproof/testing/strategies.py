"""Hypothesis strategies for the values a JSON Schema (2020-12) accepts: what the fuzz tests draw from.

``schema_values`` covers the keywords contracts use: ``type`` (one or a list),
``const``, ``enum``, ``anyOf``, ``oneOf`` and ``allOf``; local ``$ref`` (``#`` and
JSON pointers such as ``#/$defs/name``, with sibling keywords, a recursive one
expanded at most ``MAX_RECURSION`` times on one path); strings' ``minLength``,
``maxLength``, ``pattern`` (ECMA-style: ``\\d`` and ``\\w`` are ASCII) and
``format`` (each the runtime asserts, ``validation.FORMATS``: dates, times,
durations, emails, hostnames, IP addresses, URIs and IRIs, UUIDs, regexes, JSON
pointers, URI templates); every string drawn, or taken from the seeds, passes
the runtime's own validator for its string keywords, so a draw never breaks a
format or reads a pattern as Python's ``re`` would (``$`` before a newline);
numbers' ``minimum``, ``maximum``, ``exclusiveMinimum``, ``exclusiveMaximum`` and
``multipleOf``; arrays' ``items``, ``prefixItems``, ``minItems``, ``maxItems`` and
``uniqueItems``; objects' ``properties``, ``required`` and ``additionalProperties``.

What it draws is meant to be valid, not proof of it: keywords it does not
generate (``not``, ``contains``, ``dependentRequired``, ``minProperties``, the
exclusivity of ``oneOf``) are left to the validator
``fuzz.valid_arguments`` filters with. A ``$ref`` it cannot resolve draws any JSON.

hypothesis-jsonschema would derive these, but its last release (0.23.1) fails
on object schemas with current Hypothesis.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime, time
from typing import Any, Final
from urllib.parse import unquote

from hypothesis import strategies as st

from toolproof.runtime.validation import SchemaValidator

__all__ = ["MAX_RECURSION", "json_values", "schema_values"]

MAX_RECURSION: Final = 3
"""How often one ``$ref`` may be expanded inside itself on one path (recursive schemas end there)."""

MAX_STRING: Final = 200
"""Longest string drawn where the schema sets no ``maxLength`` (beyond ``minLength``)."""

MAX_EXTRA_ITEMS: Final = 5
"""Most items drawn beyond ``minItems``, whatever ``maxItems`` allows (keeps a run fast)."""

_STRING_KEYWORDS: Final = ("minLength", "maxLength", "pattern", "format")
"""What the runtime checks of a string, and so what a drawn string is checked against."""

_UTC = st.just(UTC)
_URI: Final = r"https?://[a-z][a-z0-9]{0,9}\.example\.(com|org)(/[A-Za-z0-9._~-]{0,9}){0,3}"
_HOSTNAME = st.from_regex(r"[a-z][a-z0-9]{0,10}(\.[a-z][a-z0-9]{0,10}){0,2}", fullmatch=True)
_NUMBER = r"[0-9]{1,3}"
_DURATION_TIME: Final = f"T({_NUMBER}H({_NUMBER}M({_NUMBER}S)?)?|{_NUMBER}M({_NUMBER}S)?|{_NUMBER}S)"
_DURATION_DATE: Final = f"({_NUMBER}D|{_NUMBER}M({_NUMBER}D)?|{_NUMBER}Y({_NUMBER}M({_NUMBER}D)?)?)"
_POINTER: Final = r"(/([A-Za-z0-9_]|~[01]){0,8}){0,4}"
_FORMATS: Final[Mapping[str, st.SearchStrategy[str]]] = {
    # Mostly this and the next century (a pattern such as ^20[0-9]{2}- keeps a fair share), sometimes any year.
    "date": st.one_of(st.dates(date(1900, 1, 1), date(2100, 12, 31)), st.dates()).map(date.isoformat),
    "date-time": st.one_of(
        st.datetimes(datetime(1900, 1, 1), datetime(2100, 12, 31), timezones=_UTC), st.datetimes(timezones=_UTC)
    ).map(datetime.isoformat),
    "time": st.times(timezones=_UTC).map(time.isoformat),
    "duration": st.from_regex(f"P({_DURATION_DATE}({_DURATION_TIME})?|{_DURATION_TIME}|{_NUMBER}W)", fullmatch=True),
    "email": st.emails(domains=_HOSTNAME),
    "uuid": st.uuids().map(str),
    "uri": st.from_regex(_URI, fullmatch=True),
    "uri-reference": st.from_regex(r"(/?[A-Za-z0-9._~-]{1,12}){1,3}", fullmatch=True),
    "hostname": _HOSTNAME,
    "ipv4": st.ip_addresses(v=4).map(str),
    "ipv6": st.ip_addresses(v=6).map(str),
    "regex": st.from_regex(r"\^?(([a-z0-9]|\[a-z\]|\[0-9\]|\\d|\\w|\.)[*+?]?){1,6}\$?", fullmatch=True),
    "json-pointer": st.from_regex(_POINTER, fullmatch=True),
    "relative-json-pointer": st.from_regex(f"(0|[1-9][0-9]{{0,2}})(#|{_POINTER})", fullmatch=True),
    "uri-template": st.from_regex(r"https://example\.com(/[a-z]{1,8}|/\{[a-z]{1,8}\}){0,3}", fullmatch=True),
}
_FORMAT_ALIASES: Final = {
    "iri": "uri",
    "iri-reference": "uri-reference",
    "idn-email": "email",
    "idn-hostname": "hostname",
}
_KIND_HINTS: Final = (
    ("object", ("properties", "required", "additionalProperties", "patternProperties")),
    ("array", ("items", "prefixItems", "minItems", "maxItems", "uniqueItems")),
    ("string", ("pattern", "minLength", "maxLength", "format")),
    ("number", ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")),
)


def json_values() -> st.SearchStrategy[Any]:
    """Any JSON value, small."""
    finite = st.floats(allow_nan=False, allow_infinity=False)  # JSON has no NaN or Infinity
    scalars = st.none() | st.booleans() | st.integers() | finite | st.text(max_size=20)
    return st.recursive(
        scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3)
    )


def schema_values(schema: Any, seeds: tuple[str, ...] = ()) -> st.SearchStrategy[Any]:
    """Values ``schema`` accepts (see the module's docstring); strings are also taken from ``seeds`` where they fit.

    Args:
        schema: a JSON Schema; its local ``$ref`` resolve against it.
        seeds: strings worth trying (the ones the contract's examples use, so paths hit fixtures).
    """
    return _Builder(schema, seeds).build(schema, ())


def _merge(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """Both schemas' keywords in one (an approximation of ``allOf``: properties merged, required joined)."""
    merged = dict(base)
    for key, value in extra.items():
        if key == "properties" and isinstance(merged.get(key), Mapping) and isinstance(value, Mapping):
            props = dict(merged[key])
            for name, sub in value.items():
                both = isinstance(props.get(name), Mapping) and isinstance(sub, Mapping)
                props[name] = _merge(props[name], sub) if both else sub
            merged[key] = props
        elif key == "required" and isinstance(merged.get(key), list) and isinstance(value, list):
            merged[key] = [*merged[key], *(name for name in value if name not in merged[key])]
        else:
            merged[key] = value
    return merged


def _json_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


class _Builder:
    """Builds the strategy of one root schema, resolving its local references."""

    def __init__(self, root: Any, seeds: tuple[str, ...]) -> None:
        self.root = root
        self.seeds = seeds

    def build(self, schema: Any, refs: tuple[str, ...]) -> st.SearchStrategy[Any]:
        """The strategy for ``schema``, reached through the references ``refs``."""
        if schema is True or schema == {}:
            return json_values()
        if not isinstance(schema, Mapping):
            return st.nothing()  # false, or not a schema
        if "$ref" in schema:
            return self._reference(schema, refs)
        if isinstance(schema.get("allOf"), list):
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            for sub in schema["allOf"]:
                merged = _merge(merged, self._resolved(sub))
            return self.build(merged, refs)
        if "const" in schema:
            return st.just(schema["const"])
        if "enum" in schema:
            return st.sampled_from(list(schema["enum"])) if schema["enum"] else st.nothing()
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                rest = {k: v for k, v in schema.items() if k != key}
                branches = [_merge(rest, sub) if isinstance(sub, Mapping) else sub for sub in schema[key]]
                return st.one_of([self.build(branch, refs) for branch in branches])
        kind = schema.get("type")
        if kind is None:
            kind = next((k for k, keys in _KIND_HINTS if any(key in schema for key in keys)), None)
        if isinstance(kind, list):
            return st.one_of([self.build({**schema, "type": k}, refs) for k in kind])
        if kind == "string":
            return self._string(schema)
        if kind == "integer":
            return _integers(schema)
        if kind == "number":
            return _integers(schema) | _floats(schema)
        if kind == "boolean":
            return st.booleans()
        if kind == "null":
            return st.none()
        if kind == "array":
            return self._array(schema, refs)
        if kind == "object":
            return self._object(schema, refs)
        return json_values()

    def _pointer(self, ref: str) -> Any:
        """The schema a local reference names; None when it is not local or names nothing."""
        if not ref.startswith("#") or (len(ref) > 1 and not ref.startswith("#/")):
            return None
        target: Any = self.root
        for part in ref[2:].split("/") if len(ref) > 1 else ():
            name = unquote(part).replace("~1", "/").replace("~0", "~")
            if isinstance(target, Mapping) and name in target:
                target = target[name]
            elif isinstance(target, list) and name.isdigit() and int(name) < len(target):
                target = target[int(name)]
            else:
                return None
        return target

    def _resolved(self, schema: Any) -> Any:
        """``schema`` with a top-level ``$ref`` replaced by what it names (siblings kept)."""
        if not isinstance(schema, Mapping) or not isinstance(schema.get("$ref"), str):
            return schema
        target = self._pointer(schema["$ref"])
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        if not isinstance(target, Mapping):
            return rest if target is None or target is True else target
        return _merge(target, rest)

    def _reference(self, schema: Mapping[str, Any], refs: tuple[str, ...]) -> st.SearchStrategy[Any]:
        ref = schema["$ref"]
        target = self._pointer(ref) if isinstance(ref, str) else None
        if target is None:
            return json_values()  # not local: the validator decides
        if refs.count(ref) >= MAX_RECURSION:
            return st.nothing()  # a recursive schema ends here; optional places leave it out
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        resolved = _merge(target, rest) if isinstance(target, Mapping) else target
        return self.build(resolved, (*refs, ref))

    def _string(self, schema: Mapping[str, Any]) -> st.SearchStrategy[str]:
        """Strings from the pattern and the format (either, when both), checked by the runtime's validator."""
        low = int(schema.get("minLength", 0))
        high = int(schema.get("maxLength", low + MAX_STRING))
        pattern, form = schema.get("pattern"), schema.get("format")
        form = _FORMAT_ALIASES.get(form, form) if isinstance(form, str) else None
        sources: list[st.SearchStrategy[str]] = []
        if isinstance(pattern, str):
            try:
                sources.append(st.from_regex(re.compile(pattern, re.ASCII), fullmatch=True))  # ECMA: \d, \w ASCII
            except re.error:
                pass
        if form is not None and form in _FORMATS:
            sources.append(_FORMATS[form])
        if not sources:
            sources.append(st.text(min_size=low, max_size=high))
        valid = _string_check({k: schema[k] for k in _STRING_KEYWORDS if k in schema})
        drawn = st.one_of(sources).filter(valid)
        fitting = [s for s in self.seeds if valid(s)]
        return st.one_of(st.sampled_from(fitting), drawn) if fitting else drawn

    def _array(self, schema: Mapping[str, Any], refs: tuple[str, ...]) -> st.SearchStrategy[list[Any]]:
        prefix = [self.build(sub, refs) for sub in schema.get("prefixItems", ())]
        items = schema.get("items", True)
        low = int(schema.get("minItems", 0))
        high = min(int(schema.get("maxItems", low + MAX_EXTRA_ITEMS)), low + MAX_EXTRA_ITEMS)
        rest_low, rest_high = max(low - len(prefix), 0), max(high - len(prefix), 0)
        element = self.build(items, refs)
        if items is False or element.is_empty:  # no more items, or none left within the recursion bound
            rest: st.SearchStrategy[list[Any]] = st.just([]) if rest_low == 0 else st.nothing()
        else:
            unique = _json_key if schema.get("uniqueItems") else None
            rest = st.lists(element, min_size=rest_low, max_size=max(rest_high, rest_low), unique_by=unique)
        if not prefix:
            return rest
        return st.tuples(st.tuples(*prefix), rest).map(lambda parts: [*parts[0], *parts[1]])

    def _object(self, schema: Mapping[str, Any], refs: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
        props: Mapping[str, Any] = schema.get("properties", {})
        additional = schema.get("additionalProperties", True)
        required = [name for name in schema.get("required", ()) if isinstance(name, str)]
        fixed = {name: self.build(props.get(name, additional), refs) for name in required}
        optional = {}
        for name, sub in props.items():
            if name not in fixed and not (drawn := self.build(sub, refs)).is_empty:
                optional[name] = drawn
        shaped = st.fixed_dictionaries(fixed, optional=optional)
        if additional is False or "patternProperties" in schema:
            return shaped
        keys = st.text(min_size=1, max_size=12).filter(lambda key: key not in props)
        extras = st.dictionaries(keys, self.build(additional, refs), max_size=2)
        extra: st.SearchStrategy[dict[str, Any]] = st.just({}) | extras
        return st.tuples(shaped, extra).map(lambda parts: {**parts[1], **parts[0]})


def _string_check(keywords: Mapping[str, Any]) -> Callable[[str], bool]:
    """Whether the runtime's validator accepts a string for these string keywords (False when it cannot judge)."""
    validator = SchemaValidator(keywords)

    def valid(text: str) -> bool:
        try:
            return validator.is_valid(text)
        except ValueError:  # a schema it cannot compile: no string is known to pass
            return False

    return valid


def _bounds(schema: Mapping[str, Any]) -> tuple[float | None, bool, float | None, bool]:
    """The lower and upper bound, each with whether it is exclusive (the tighter keyword wins)."""
    low, low_out, high, high_out = schema.get("minimum"), False, schema.get("maximum"), False
    ex_low, ex_high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if isinstance(ex_low, int | float) and (low is None or ex_low >= low):
        low, low_out = ex_low, True
    if isinstance(ex_high, int | float) and (high is None or ex_high <= high):
        high, high_out = ex_high, True
    return low, low_out, high, high_out


def _integers(schema: Mapping[str, Any]) -> st.SearchStrategy[int]:
    low, low_out, high, high_out = _bounds(schema)
    first = None if low is None else (math.floor(low) + 1 if low_out else math.ceil(low))
    last = None if high is None else (math.ceil(high) - 1 if high_out else math.floor(high))
    if first is not None and last is not None and first > last:
        return st.nothing()
    step = schema.get("multipleOf")
    if isinstance(step, int) and not isinstance(step, bool) and step > 0:
        lowest = None if first is None else -(-first // step)
        highest = None if last is None else last // step
        return st.integers(lowest, highest).map(lambda k: k * step)
    drawn = st.integers(first, last)
    return drawn.filter(lambda n: n % step == 0) if isinstance(step, float) and step > 0 else drawn


def _floats(schema: Mapping[str, Any]) -> st.SearchStrategy[float]:
    low, low_out, high, high_out = _bounds(schema)
    if low is not None and high is not None and (low > high or (low == high and (low_out or high_out))):
        return st.nothing()
    drawn = st.floats(low, high, exclude_min=low_out, exclude_max=high_out, allow_nan=False, allow_infinity=False)
    step = schema.get("multipleOf")
    return drawn.filter(lambda x: (x / step).is_integer()) if isinstance(step, int | float) and step > 0 else drawn
