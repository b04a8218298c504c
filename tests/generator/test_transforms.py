"""The provider rewrites on hard schemas: what changes, and that each change is recorded."""

from __future__ import annotations

from typing import Any

from toolproof.generator.transforms import (
    anthropic_schema,
    gemini_json_schema,
    gemini_openapi_schema,
    openai_strict_schema,
)

HARD: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "description": "Who."},
        "mode": {"enum": ["fast", "safe"], "default": "safe"},
        "when": {"type": "string", "format": "date-time"},
        "site": {"type": "string", "format": "uri"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 10},
        "shape": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "kind": {"const": "order"},
        "owner": {"$ref": "#/$defs/person"},
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string"},
                    "qty": {"type": "integer"},
                    "note": {"type": "object", "properties": {"text": {"type": "string"}}},
                },
                "required": ["sku"],
            },
        },
    },
    "required": ["name"],
    "$defs": {"person": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}},
}


def _actions(losses: list[Any]) -> set[tuple[str, str, str]]:
    return {(loss.pointer(), loss.keyword, loss.action) for loss in losses}


def test_openai_strict_closes_every_object_and_requires_every_property() -> None:
    rewrite = openai_strict_schema(HARD, "t")
    schema = rewrite.schema

    assert rewrite.strict
    assert "$schema" not in schema
    assert schema["additionalProperties"] is False
    assert schema["required"] == list(HARD["properties"])
    item = schema["properties"]["lines"]["items"]
    assert item["required"] == ["sku", "qty", "note"]
    assert item["properties"]["qty"]["type"] == ["integer", "null"]
    assert item["properties"]["note"]["type"] == ["object", "null"]
    assert item["properties"]["note"]["required"] == ["text"]
    assert item["properties"]["note"]["properties"]["text"]["type"] == ["string", "null"]
    assert schema["$defs"]["person"]["additionalProperties"] is False


def test_openai_strict_makes_enums_consts_and_refs_nullable() -> None:
    props = openai_strict_schema(HARD, "t").schema["properties"]

    assert props["mode"]["enum"] == ["fast", "safe", None]
    assert props["kind"] == {"anyOf": [{"const": "order"}, {"type": "null"}]}
    assert props["owner"] == {"anyOf": [{"$ref": "#/$defs/person"}, {"type": "null"}]}
    assert props["shape"] == {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}


def test_openai_strict_moves_unsupported_keywords_into_the_description_and_records_them() -> None:
    rewrite = openai_strict_schema(HARD, "t")
    props = rewrite.schema["properties"]

    assert props["name"]["description"] == "Who. (minLength: 1)"
    assert "minLength" not in props["name"]
    assert props["mode"]["description"] == "(default: safe)"
    assert props["site"]["description"] == "(format: uri)"
    assert props["when"]["format"] == "date-time"
    assert props["limit"]["minimum"] == 1
    assert {
        ("/properties/name", "minLength", "moved to description"),
        ("/properties/mode", "default", "moved to description"),
        ("/properties/site", "format", "moved to description"),
        ("/properties/shape", "oneOf", "rewritten as anyOf"),
        ("/properties/mode", "required", "made required and nullable"),
        ("", "additionalProperties", "set to false"),
        ("/$defs/person", "additionalProperties", "set to false"),
    } <= _actions(rewrite.losses)


def test_openai_strict_gives_up_on_maps_and_says_why() -> None:
    schema = {"type": "object", "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}}}

    rewrite = openai_strict_schema(schema, "t")

    assert not rewrite.strict
    assert rewrite.schema == schema
    assert rewrite.why_not_strict == "('properties', 'tags'): a map (additionalProperties with a schema)"
    assert [loss.action for loss in rewrite.losses] == ["exported non-strict"]


def test_openai_strict_inlines_a_one_part_all_of_and_refuses_a_two_part_one() -> None:
    one = {"type": "object", "properties": {"a": {"allOf": [{"type": "string"}]}}, "required": ["a"]}
    two = {"type": "object", "properties": {"a": {"allOf": [{"type": "string"}, {"minLength": 2}]}}}

    assert openai_strict_schema(one, "t").schema["properties"]["a"] == {"type": "string"}
    assert not openai_strict_schema(two, "t").strict


def test_openai_strict_leaves_a_schema_that_is_already_strict_unchanged() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": ["integer", "null"]}},
        "required": ["a", "b"],
        "additionalProperties": False,
    }

    rewrite = openai_strict_schema(schema, "t")

    assert rewrite.schema == schema
    assert rewrite.losses == []


def test_anthropic_keeps_optional_fields_optional_and_moves_numeric_limits() -> None:
    rewrite = anthropic_schema(HARD, "t")
    props = rewrite.schema["properties"]

    assert rewrite.strict
    assert rewrite.schema["required"] == ["name"]
    assert props["limit"] == {"type": "integer", "description": "(minimum: 1) (maximum: 10)"}
    assert props["site"]["format"] == "uri"
    assert props["shape"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert props["lines"]["items"]["additionalProperties"] is False
    assert ("/properties/limit", "minimum", "moved to description") in _actions(rewrite.losses)


def test_anthropic_refuses_strict_for_object_enums() -> None:
    schema = {"type": "object", "properties": {"a": {"enum": [{"x": 1}]}}}

    assert not anthropic_schema(schema, "t").strict


def test_gemini_json_schema_rewrites_const_and_moves_formats() -> None:
    rewrite = gemini_json_schema(HARD, "t", "input")
    props = rewrite.schema["properties"]

    assert props["kind"] == {"enum": ["order"]}
    assert props["when"] == {"type": "string", "description": "(format: date-time)"}
    assert ("/properties/kind", "const", "rewritten as a one-value enum") in _actions(rewrite.losses)


def test_gemini_openapi_uses_its_subset() -> None:
    rewrite = gemini_openapi_schema(HARD, "t")
    schema = rewrite.schema
    props = schema["properties"]

    assert schema["type"] == "OBJECT"
    assert schema["propertyOrdering"] == list(HARD["properties"])
    assert props["mode"] == {"enum": ["fast", "safe"], "format": "enum", "type": "STRING", "default": "safe"}
    assert props["owner"] == {
        "type": "OBJECT",
        "properties": {"id": {"type": "STRING"}},
        "propertyOrdering": ["id"],
        "required": ["id"],
    }
    assert props["shape"]["anyOf"] == [{"type": "STRING"}, {"type": "INTEGER"}]
    assert props["lines"]["items"]["type"] == "OBJECT"
    assert ("/properties/owner", "$ref", "inlined") in _actions(rewrite.losses)


def test_gemini_openapi_turns_null_unions_into_nullable_and_stringifies_enums() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": ["string", "null"]},
            "n": {"enum": [1, 2]},
            "b": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        },
    }

    props = gemini_openapi_schema(schema, "t").schema["properties"]

    assert props["a"] == {"nullable": True, "type": "STRING"}
    assert props["n"]["enum"] == ["1", "2"]
    assert props["b"] == {"nullable": True, "type": "INTEGER"}


def test_rewrites_never_change_their_input() -> None:
    import copy

    before = copy.deepcopy(HARD)
    for rewrite in (openai_strict_schema, anthropic_schema):
        rewrite(HARD, "t")
    gemini_json_schema(HARD, "t", "input")
    gemini_openapi_schema(HARD, "t")

    assert before == HARD
