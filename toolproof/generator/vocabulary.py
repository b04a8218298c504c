"""The JSON Schema 2020-12 vocabulary a contract's schemas may use, and what each keyword applies to.

The keywords are those of the 2020-12 vocabularies (core, applicator,
unevaluated, validation, format-annotation, meta-data, content) plus the
``definitions`` and ``dependencies`` its meta-schema keeps; ``x-`` keys are
annotations. The formats are 2020-12's and OpenAPI's. Which keyword applies to
which type follows ajv's ``strictTypes``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Final

__all__ = [
    "DIALECT",
    "FORMATS",
    "KEYWORDS",
    "OLD_SPELLINGS",
    "TYPED_KEYWORDS",
    "TYPES",
    "TYPE_ALIASES",
    "did_you_mean",
]

DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"

KEYWORDS: Final = frozenset(
    {
        *("$id", "$schema", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment", "$defs"),
        *("prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties"),
        *("dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not"),
        *("unevaluatedItems", "unevaluatedProperties"),
        *("type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"),
        *("maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains"),
        *("maxProperties", "minProperties", "required", "dependentRequired"),
        *("title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples"),
        *("format", "contentEncoding", "contentMediaType", "contentSchema"),
        *("definitions", "dependencies"),
    }
)
"""Every keyword a schema may hold; any key starting ``x-`` is an annotation and allowed too."""

OLD_SPELLINGS: Final = {
    "nullable": "OpenAPI 3.0 spelling; JSON Schema writes type: [T, 'null']",
    "example": "OpenAPI spelling; JSON Schema writes examples: [...]",
    "additionalItems": "draft 2019-09 spelling; 2020-12 writes prefixItems for the tuple and items for the rest",
    "id": "draft 4 spelling; 2020-12 writes $id",
    "$recursiveRef": "draft 2019-09 spelling; 2020-12 writes $dynamicRef",
    "$recursiveAnchor": "draft 2019-09 spelling; 2020-12 writes $dynamicAnchor",
}
TYPES: Final = ("array", "boolean", "integer", "null", "number", "object", "string")
TYPE_ALIASES: Final = {
    **{"int": "integer", "long": "integer", "float": "number", "double": "number", "decimal": "number"},
    **{"str": "string", "bool": "boolean", "dict": "object", "map": "object", "list": "array", "none": "null"},
}
"""Type names of Python, TypeScript and OpenAPI formats that people write for a JSON type."""
TYPED_KEYWORDS: Final = {
    **dict.fromkeys(("maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "multipleOf"), ("number",)),
    **dict.fromkeys(("maxLength", "minLength", "pattern"), ("string",)),
    **dict.fromkeys(("maxItems", "minItems", "uniqueItems", "prefixItems", "items", "contains"), ("array",)),
    **dict.fromkeys(("maxContains", "minContains", "unevaluatedItems"), ("array",)),
    **dict.fromkeys(
        ("maxProperties", "minProperties", "required", "propertyNames", "additionalProperties"), ("object",)
    ),
    **dict.fromkeys(("dependencies", "properties", "patternProperties", "dependentRequired"), ("object",)),
    **dict.fromkeys(("dependentSchemas", "unevaluatedProperties"), ("object",)),
    "format": ("number", "string"),
}
"""Keywords that apply to some types only, as ajv's strictTypes reads them."""
FORMATS: Final = frozenset(
    {
        *("date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6"),
        *("uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template", "json-pointer"),
        *("relative-json-pointer", "regex"),
        *("int32", "int64", "float", "double", "byte", "binary", "password"),  # OpenAPI's
    }
)


def did_you_mean(word: str, known: Iterable[str]) -> str | None:
    """The known word closest to ``word`` (case aside), if one is close enough to be a typo of it."""
    lowered = {k.lower(): k for k in known}
    close = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.75)
    return lowered[close[0]] if close else None
