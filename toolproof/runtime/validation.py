"""Argument and output validation with validators compiled once per schema.

Valid input takes the fast path, a compiled jsonschema-rs validator. Only when
that says "invalid" does python-jsonschema (imported lazily) explain why, so
the message names the offending field by JSON path and the most relevant
problem comes first. Both implement Draft 2020-12; ``pattern`` and ``format``
are read by jsonschema-rs in both (``_ecma_pattern``, ``_asserted_format``), so
they agree on what is valid: patterns are ECMA-262 (``$`` matches only at the
very end), and the formats of ``FORMATS`` are asserted, not annotations
(``"2024-13-01"`` is no ``date``). Any other format stays an annotation.

A schema is compiled by its first check, not when its tool is bound: a server
answers ``tools/list`` without importing jsonschema-rs (~3 ms of start-up, and
~15 more for ``email.utils`` unless ``_import_jsonschema_rs`` spares it).
A schema that cannot be compiled fails each check that needs it, which
dispatch turns into that call's catalogued error; the host still serves.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

__all__ = ["FORMATS", "SchemaValidator", "import_compiler"]

_MAX_SHOWN = 60

_ENUM_SHOWN = 5
"""How many allowed values a refusal lists (a dynamic enum may hold thousands)."""

FORMATS: Final[Mapping[str, str]] = {
    "date": "a date (YYYY-MM-DD)",
    "date-time": "a date-time (RFC 3339, such as 2024-05-01T09:30:00Z)",
    "time": "a time with its offset (HH:MM:SS then Z or +HH:MM)",
    "duration": "an ISO 8601 duration (such as P3DT4H)",
    "email": "an email address",
    "idn-email": "an email address",
    "hostname": "a hostname",
    "idn-hostname": "a hostname",
    "ipv4": "an IPv4 address",
    "ipv6": "an IPv6 address",
    "uri": "an absolute URI (such as https://example.com/a)",
    "uri-reference": "a URI reference",
    "iri": "an absolute IRI (such as https://example.com/a)",
    "iri-reference": "an IRI reference",
    "uuid": "a UUID (such as 123e4567-e89b-12d3-a456-426614174000)",
    "regex": "a regular expression",
    "json-pointer": "a JSON pointer (such as /items/0)",
    "relative-json-pointer": "a relative JSON pointer (such as 0/name)",
    "uri-template": "a URI template (RFC 6570)",
}
"""The formats the runtime asserts (those jsonschema-rs checks), each as a refusal names it; others are annotations."""


def _show(value: object) -> str:
    """``value`` on one line: a string in quotes, escaped only when it holds a newline or another unprintable."""
    text = f"'{value}'" if isinstance(value, str) and value.isprintable() else repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


_JSON_TYPES = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    list: "array",
    dict: "object",
    type(None): "null",
}


def _type_name(value: object) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _path(error: ValidationError) -> str:
    return str(error.json_path)


def _missing(error: ValidationError, required: Any, instance: Mapping[str, Any]) -> str:
    """The property a ``required`` error is about.

    python-jsonschema yields one error per missing property, each saying which
    in its message only (``'name' is a required property``), so the message is
    matched against each missing name; ``?`` when none is missing.
    """
    missing = [name for name in required if name not in instance]
    named = (name for name in missing if error.message == f"{name!r} is a required property")
    return next(named, missing[0] if missing else "?")


def describe(error: ValidationError) -> str:
    """One line naming where and what: ``$.limit: must be at most 2000 (got 5000)``."""
    keyword = error.validator
    value: Any = error.validator_value
    instance = error.instance
    path = _path(error)
    if keyword == "required" and isinstance(instance, Mapping):
        return f"{path}.{_missing(error, value, instance)}: required property is missing"
    if keyword == "additionalProperties" and isinstance(instance, Mapping):
        allowed = error.schema.get("properties", {}) if isinstance(error.schema, Mapping) else {}
        extra = [name for name in instance if name not in allowed]
        names = ", ".join(sorted(allowed)) or "none"
        return f"{path}.{extra[0] if extra else '?'}: unexpected property (allowed: {names})"
    if keyword == "type":
        expected = value if isinstance(value, str) else " or ".join(value)
        return f"{path}: expected {expected}, got {_type_name(instance)}"
    if keyword == "enum":
        shown = value if len(value) <= _ENUM_SHOWN + 1 else value[:_ENUM_SHOWN]
        more = f", ... ({len(value) - len(shown)} more)" if len(shown) < len(value) else ""
        return f"{path}: must be one of {', '.join(_show(v) for v in shown)}{more} (got {_show(instance)})"
    if keyword == "format":
        return f"{path}: must be {FORMATS.get(value, f'in the format {value!r}')}, got {_show(instance)}"
    if keyword == "const":
        return f"{path}: must be {_show(value)} (got {_show(instance)})"
    simple = {
        "minLength": "must be at least {v} character(s) long",
        "maxLength": "must be at most {v} character(s) long",
        "minimum": "must be at least {v}",
        "maximum": "must be at most {v}",
        "exclusiveMinimum": "must be greater than {v}",
        "exclusiveMaximum": "must be less than {v}",
        "multipleOf": "must be a multiple of {v}",
        "minItems": "must have at least {v} item(s)",
        "maxItems": "must have at most {v} item(s)",
        "pattern": "must match the pattern {v}",
        "minProperties": "must have at least {v} propert(ies)",
        "maxProperties": "must have at most {v} propert(ies)",
    }
    if keyword in simple:
        got = f" (got {_show(instance)})" if keyword not in {"minItems", "maxItems"} else ""
        return f"{path}: {simple[keyword].format(v=value)}{got}"
    return f"{path}: {error.message}"


def import_compiler() -> None:
    """Import jsonschema-rs now rather than in the first check.

    For long-running hosts (``serve http``): start-up matters less to them than
    that their first call does not wait for the import.
    """
    _import_jsonschema_rs()


class _BuildTime(ModuleType):
    """Stands in for ``email.utils`` while jsonschema-rs is imported by a process that has not imported it yet.

    The extension, built with pyo3-built, imports ``email.utils`` when it loads
    only to turn its own build time into a datetime (PyO3/pyo3-built#29). That
    pulls in socket, datetime, random, urllib.parse, calendar and the email
    charsets: ~15 ms of a one-shot call's ~100. This module answers that one
    lookup, made by the importing thread while it imports, with the text as it
    is. Any other lookup, or that one from another thread, gets the real
    module's attribute, imported then: whoever finds this module in
    ``sys.modules`` meanwhile gets what ``email.utils`` would have given.
    """

    def __init__(self) -> None:
        super().__init__("email.utils")
        self._importer: int | None = threading.get_ident()

    def __getattr__(self, name: str) -> Any:
        if name == "parsedate_to_datetime" and self._importer == threading.get_ident():
            return str
        if sys.modules.get("email.utils") is self:
            sys.modules.pop("email.utils", None)
        return getattr(importlib.import_module("email.utils"), name)


def _import_jsonschema_rs() -> ModuleType:
    if "jsonschema_rs" in sys.modules or "email.utils" in sys.modules:
        import jsonschema_rs

        return jsonschema_rs
    stand_in = _BuildTime()
    sys.modules["email.utils"] = stand_in
    try:
        import jsonschema_rs

        return jsonschema_rs
    finally:
        stand_in._importer = None
        if sys.modules.get("email.utils") is stand_in:
            sys.modules.pop("email.utils", None)


_PATTERNS: dict[str, Callable[[Any], bool]] = {}
"""Compiled ``{"pattern": ...}`` checks, by pattern: ECMA-262 regular expressions, as the fast path reads them."""


def _ecma_pattern(validator: Validator, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """``pattern`` as jsonschema-rs reads it: ECMA-262, where ``$`` matches only at the very end.

    python-jsonschema uses Python's ``re``, whose ``$`` also matches before a
    final newline: it would find nothing wrong with ``"ord_000123\n"`` against
    ``^ord_[0-9]{6}$``, which the fast path refuses, and the caller would be
    told only that the arguments do not match the schema.
    """
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "string"):
        return
    check = _PATTERNS.get(pattern)
    if check is None:
        check = _import_jsonschema_rs().validator_for({"pattern": pattern}, validate_formats=False).is_valid
        if len(_PATTERNS) < 1024:
            _PATTERNS[pattern] = check
    if not check(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


_FORMAT_CHECKS: dict[str, Callable[[Any], bool]] = {}
"""Compiled ``{"format": ...}`` checks, by format (only those of ``FORMATS``)."""


def _asserted_format(validator: Validator, form: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """``format`` as jsonschema-rs asserts it, for the formats of ``FORMATS``; any other is an annotation.

    python-jsonschema's own format checker differs (its ``date-time`` and
    ``email`` need optional packages, and it checks them otherwise), so the
    explanation asks the engine that refused.
    """
    from jsonschema.exceptions import ValidationError

    if form not in FORMATS or not validator.is_type(instance, "string"):
        return
    check = _FORMAT_CHECKS.get(form)
    if check is None:
        check = _import_jsonschema_rs().validator_for({"format": form}, validate_formats=True).is_valid
        _FORMAT_CHECKS[form] = check
    if not check(instance):
        yield ValidationError(f"{instance!r} is not a {form!r}")


def _explainer_class() -> type[Validator]:
    """Draft 2020-12 as python-jsonschema implements it; ``pattern`` and ``format`` read as the fast path reads them."""
    from jsonschema import Draft202012Validator, validators

    keywords = {"pattern": _ecma_pattern, "format": _asserted_format}
    extended: type[Validator] = validators.extend(Draft202012Validator, keywords)  # type: ignore[no-untyped-call]
    return extended


class SchemaValidator:
    """A schema with its validators, each compiled once, on first use."""

    __slots__ = ("_compiled", "_explainer", "is_valid", "schema")

    is_valid: Callable[[Any], bool]
    """Whether an instance is valid: the compiled validator's own check, once the first call has compiled it.

    Raises:
        ValueError: the schema cannot be compiled (jsonschema-rs's ``ValidationError``), at every call.
    """

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = schema
        self.is_valid = self._compile_and_check
        self._compiled: Callable[[Any], bool] | None = None
        self._explainer: Validator | None = None

    def _compile_and_check(self, instance: Any) -> bool:
        if self._compiled is None:  # the first check (a caller may keep this method: later ones skip the compile)
            jsonschema_rs = _import_jsonschema_rs()
            self._compiled = jsonschema_rs.validator_for(dict(self.schema), validate_formats=True).is_valid
            self.is_valid = self._compiled
        return self._compiled(instance)

    def errors(self, instance: Any) -> list[ValidationError]:
        """Every error of ``instance``: python-jsonschema's, with patterns and formats read as the fast path reads them.

        For callers that locate each error themselves (lint's example checks);
        in no particular order, and empty when valid.
        """
        if self._explainer is None:
            self._explainer = _explainer_class()(self.schema)
        return list(self._explainer.iter_errors(instance))

    def problems(self, instance: Any) -> list[str]:
        """Every problem with ``instance``, most relevant first; empty when valid."""
        from jsonschema.exceptions import relevance

        errors = sorted(self.errors(instance), key=relevance)
        # relevance sorts the best match last.
        return [describe(error) for error in reversed(errors)]

    def explain(self, instance: object) -> str:
        """The most relevant problem, and how many others there are."""
        problems = self.problems(instance)
        if not problems:
            return "$: does not match the schema"
        more = len(problems) - 1
        return problems[0] + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")
