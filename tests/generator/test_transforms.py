"""The provider rewrites on hard schemas: what changes, and that each change is recorded."""

from __future__ import annotations

from typing import Any

import pytest

from toolproof.generator.transforms import (
    anthropic_schema,
    gemini_json_schema,
    gemini_openapi_schema,
    merged_all_of,
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
    assert rewrite.why_not_strict == "/properties/tags: a map (additionalProperties with a schema)"
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


def test_gemini_openapi_turns_null_unions_into_nullable_and_describes_number_enums() -> None:
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
    assert props["n"] == {"type": "INTEGER", "description": "(enum: [1, 2])"}
    assert props["b"] == {"nullable": True, "type": "INTEGER"}


def test_gemini_openapi_never_turns_number_or_boolean_values_into_strings_the_runtime_refuses() -> None:
    schema = {
        "type": "object",
        "properties": {
            "level": {"type": "integer", "enum": [1, 2, None], "description": "How loud."},
            "ratio": {"type": "number", "enum": [1, 2.5]},
            "on": {"const": True},
        },
    }

    rewrite = gemini_openapi_schema(schema, "t")
    props = rewrite.schema["properties"]

    assert rewrite.strict
    assert props["level"] == {"type": "INTEGER", "nullable": True, "description": "How loud. (enum: [1, 2, null])"}
    assert props["ratio"] == {"type": "NUMBER", "description": "(enum: [1, 2.5])"}
    assert props["on"] == {"type": "BOOLEAN", "description": "(const: true)"}
    assert ("/properties/level", "enum", "moved to description") in _actions(rewrite.losses)
    assert ("/properties/on", "const", "moved to description") in _actions(rewrite.losses)
    assert all("enum" not in node for node in props.values())


@pytest.mark.parametrize(
    ("enum", "shown"),
    [([1, 2, "top"], '1, 2, "top"'), ([True, 1], "true, 1"), ([[1], [2]], "[1], [2]")],
    ids=["numbers and strings", "a boolean and a number", "arrays"],
)
def test_gemini_openapi_refuses_an_enum_of_mixed_or_complex_values(enum: list[Any], shown: str) -> None:
    schema = {"type": "object", "properties": {"level": {"enum": enum}}}

    rewrite = gemini_openapi_schema(schema, "t")

    assert not rewrite.strict
    assert rewrite.schema == {}
    assert rewrite.blockers == [
        (
            ("properties", "level"),
            f"enum {shown}: the parameters form takes string enums only, and the runtime would refuse the strings",
        )
    ]


def test_gemini_openapi_merges_an_all_of_whose_parts_constrain_different_keywords() -> None:
    schema = {
        "type": "object",
        "properties": {"mode": {"allOf": [{"type": "string"}, {"enum": ["plain", "loud"]}], "description": "How."}},
    }

    rewrite = gemini_openapi_schema(schema, "t")

    assert rewrite.schema["properties"]["mode"] == {
        "type": "STRING",
        "description": "How.",
        "enum": ["plain", "loud"],
        "format": "enum",
    }
    assert ("/properties/mode", "allOf", "merged") in _actions(rewrite.losses)


def test_gemini_openapi_still_drops_an_all_of_that_cannot_be_merged() -> None:
    schema = {"type": "object", "properties": {"n": {"allOf": [{"type": "integer"}, {"type": "number"}]}}}

    rewrite = gemini_openapi_schema(schema, "t")

    assert rewrite.schema["properties"]["n"] == {}
    assert ("/properties/n", "allOf", "dropped") in _actions(rewrite.losses)


@pytest.mark.parametrize(
    ("node", "merged"),
    [
        ({"allOf": [{"type": "string"}, {"enum": ["a"]}]}, {"type": "string", "enum": ["a"]}),
        ({"type": "string", "allOf": [{"type": "string"}, {"minLength": 1}]}, {"type": "string", "minLength": 1}),
        (
            {"allOf": [{"properties": {"a": {}}, "required": ["a"]}, {"required": ["b", "a"]}]},
            {"properties": {"a": {}}, "required": ["a", "b"]},
        ),
        ({"allOf": [{"type": "string"}, {"type": "integer"}]}, None),
        ({"allOf": [{"properties": {"a": {}}}, {"additionalProperties": False}]}, None),
        ({"allOf": [{"prefixItems": [{}]}, {"items": False}]}, None),
        ({"allOf": [{"$ref": "#/$defs/a"}, {"minLength": 1}]}, None),
        ({"allOf": [True, {"minLength": 1}]}, None),
        ({"allOf": [{"type": "object"}], "unevaluatedProperties": False}, None),
    ],
    ids=[
        "different keywords",
        "the same value twice",
        "required lists joined",
        "two types",
        "additionalProperties apart from its properties",
        "items apart from its prefixItems",
        "a reference",
        "a boolean part",
        "unevaluatedProperties beside",
    ],
)
def test_an_all_of_is_merged_only_when_one_schema_says_the_same(
    node: dict[str, Any], merged: dict[str, Any] | None
) -> None:
    assert merged_all_of(node) == merged


@pytest.mark.parametrize(
    "optional",
    [
        {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]},
        {"type": ["integer", "null"]},
        {"anyOf": [{"type": "integer"}, {"type": ["string", "null"]}]},
        {"enum": ["a", None]},
        {"const": None},
        {"oneOf": [{"type": "string"}, {"type": "null"}]},
        {"$ref": "#/$defs/maybe"},
        {"allOf": [{"$ref": "#/$defs/maybe"}]},
    ],
    ids=[
        *("a null branch", "a null type", "a branch with a null type", "null in the enum", "a null const"),
        *("a null oneOf branch", "a $ref to a nullable definition", "an allOf of one"),
    ],
)
@pytest.mark.parametrize("fmt", ["openai", "openai-responses"])
def test_openai_strict_exports_non_strict_a_tool_with_an_optional_field_that_takes_null(
    fmt: str, optional: dict[str, Any]
) -> None:
    # Strict mode would make it required: null then clears (the runtime passes it on), and "leave it out" is lost.
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "v": optional},
        "required": ["a"],
        "$defs": {"maybe": {"type": ["string", "null"]}},
    }

    rewrite = openai_strict_schema(schema, "t", fmt)

    assert not rewrite.strict
    assert rewrite.schema == schema
    why = (
        "/properties/v: optional, and null is one of its values: strict mode requires every property, so a call"
        " could no longer leave it out, which the contract tells apart from null"
    )
    assert rewrite.why_not_strict == why
    assert [(loss.keyword, loss.action, loss.detail) for loss in rewrite.losses] == [
        ("strict", "exported non-strict", f"cannot be made strict: {why}")
    ]


def test_openai_strict_still_makes_a_required_field_that_takes_null_and_a_nested_optional_one_strict() -> None:
    schema = {
        "type": "object",
        "properties": {
            "v": {"type": ["string", "null"]},
            "w": {"type": "object", "properties": {"x": {"type": "string"}}},
        },
        "required": ["v"],
    }

    rewrite = openai_strict_schema(schema, "t")

    assert rewrite.strict
    assert rewrite.schema["properties"]["v"] == {"type": ["string", "null"]}
    assert rewrite.schema["properties"]["w"]["properties"]["x"] == {"type": ["string", "null"]}


def test_openai_strict_refuses_a_nested_optional_field_that_takes_null_where_it_stands() -> None:
    schema = {
        "type": "object",
        "properties": {"w": {"type": "array", "items": {"$ref": "#/$defs/row"}}},
        "$defs": {"row": {"type": "object", "properties": {"note": {"enum": ["x", None]}}}},
    }

    rewrite = openai_strict_schema(schema, "t")

    assert not rewrite.strict
    assert [path for path, _ in rewrite.blockers] == [("$defs", "row", "properties", "note")]


@pytest.mark.parametrize(
    "optional",
    [
        {"type": "string"},
        {"type": ["string", "null"]},
        {"enum": ["a", None]},
        {"type": "string", "enum": ["a", None]},
        {"const": None},
        {"const": "a"},
        {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        {"oneOf": [{"type": "integer"}, {"$ref": "#/$defs/maybe"}]},
        {"$ref": "#/$defs/maybe"},
        {"$ref": "#/$defs/never"},
        {"allOf": [{"$ref": "#/$defs/maybe"}]},
        {"allOf": [{"$ref": "#/$defs/never"}]},
        {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": False},
    ],
)
def test_openai_strict_refuses_exactly_the_optional_fields_whose_null_the_runtime_passes_on(
    optional: dict[str, Any],
) -> None:
    from toolproof.runtime.nulls import plan_for

    schema = {
        "type": "object",
        "properties": {"v": optional},
        "$defs": {"maybe": {"type": ["string", "null"]}, "never": {"type": "integer"}},
    }
    plan = plan_for(schema)
    dropped = plan is not None and "v" in plan.droppable

    rewrite = openai_strict_schema(schema, "t")

    assert rewrite.strict is dropped, rewrite.why_not_strict


def test_openai_strict_adds_one_null_branch_to_an_optional_union_without_one() -> None:
    schema = {"type": "object", "properties": {"v": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}}

    rewrite = openai_strict_schema(schema, "t")

    assert rewrite.schema["properties"]["v"] == {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]}


_ANNOTATIONS = ("format", "title", "description", "examples", "default", "$comment", "deprecated", "readOnly")


@pytest.mark.parametrize(("fmt", "why"), [("hostname", "still enforces it"), ("password", "does not assert this")])
def test_a_format_loss_says_whether_the_runtime_asserts_it_and_no_annotation_is_called_enforced(
    fmt: str, why: str
) -> None:
    # The runtime asserts the formats jsonschema-rs knows (validation.FORMATS); others, and titles, are annotations.
    node = {"type": "string", "format": fmt, "title": "T", "examples": ["a"], "default": "a"}
    schema = {"type": "object", "properties": {"a": node, "b": {"allOf": [node, {"maxLength": 9}]}}}
    rewrites = [openai_strict_schema(schema, "t"), anthropic_schema(schema, "t"), gemini_openapi_schema(schema, "t")]
    rewrites += [gemini_json_schema(schema, "t", "input")]

    losses = [loss for r in rewrites for loss in r.losses if loss.keyword in _ANNOTATIONS]
    formats = [loss for loss in losses if loss.keyword == "format" and loss.format != "anthropic"]

    assert {loss.keyword for loss in losses} >= {"format", "title", "examples"}
    assert [loss for loss in losses if loss.keyword != "format" and "still enforces" in loss.detail] == []
    assert formats and all(why in loss.detail for loss in formats), formats


def test_rewrites_never_change_their_input() -> None:
    import copy

    before = copy.deepcopy(HARD)
    for rewrite in (openai_strict_schema, anthropic_schema):
        rewrite(HARD, "t")
    gemini_json_schema(HARD, "t", "input")
    gemini_openapi_schema(HARD, "t")

    assert before == HARD


def _with(position: str, sub: bool) -> dict[str, Any]:
    """An input schema with the boolean schema ``sub`` at ``position``."""
    wraps: dict[str, dict[str, Any]] = {
        "property": {"properties": {"x": sub}},
        "items": {"properties": {"x": {"type": "array", "items": sub}}},
        "prefixItems": {"properties": {"x": {"type": "array", "prefixItems": [sub], "minItems": 1, "maxItems": 1}}},
        "additionalProperties": {"additionalProperties": sub},
        "a map's values": {"properties": {"x": {"type": "object", "additionalProperties": sub}}},
        "anyOf": {"properties": {"x": {"anyOf": [sub, {"type": "string"}]}}},
        "oneOf": {"properties": {"x": {"oneOf": [sub, {"type": "string"}]}}},
        "allOf": {"properties": {"x": {"allOf": [sub]}}},
        "not": {"properties": {"x": {"not": sub}}},
        "if/then/else": {"properties": {"x": {"if": sub, "then": sub, "else": sub}}},
        "contains": {"properties": {"x": {"type": "array", "contains": sub}}},
        "patternProperties": {"properties": {"x": {"type": "object", "patternProperties": {"^a": sub}}}},
        "propertyNames": {"properties": {"x": {"type": "object", "propertyNames": sub}}},
        "dependentSchemas": {"properties": {"x": {"type": "object", "dependentSchemas": {"a": sub}}}},
        "unevaluatedProperties": {"properties": {"x": {"type": "object", "unevaluatedProperties": sub}}},
        "unevaluatedItems": {"properties": {"x": {"type": "array", "unevaluatedItems": sub}}},
        "contentSchema": {"properties": {"x": {"type": "string", "contentSchema": sub}}},
        "$defs through $ref": {"properties": {"x": {"$ref": "#/$defs/b"}}, "$defs": {"b": sub}},
        "definitions through $ref": {"properties": {"x": {"$ref": "#/definitions/b"}}, "definitions": {"b": sub}},
    }
    return {"type": "object", **wraps[position]}


POSITIONS = [
    *("property", "items", "prefixItems", "additionalProperties", "a map's values", "anyOf", "oneOf", "allOf"),
    *("not", "if/then/else", "contains", "patternProperties", "propertyNames", "dependentSchemas"),
    *("unevaluatedProperties", "unevaluatedItems", "contentSchema", "$defs through $ref", "definitions through $ref"),
]
REWRITES = {
    "openai": lambda s: openai_strict_schema(s, "t"),
    "anthropic": lambda s: anthropic_schema(s, "t"),
    "gemini": lambda s: gemini_json_schema(s, "t", "input"),
    "gemini-openapi": lambda s: gemini_openapi_schema(s, "t"),
}


@pytest.mark.parametrize("sub", [True, False], ids=["true", "false"])
@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("provider", list(REWRITES))
def test_every_rewrite_takes_a_boolean_schema_wherever_a_schema_may_stand(
    provider: str, position: str, sub: bool
) -> None:
    schema = _with(position, sub)

    rewrite = REWRITES[provider](schema)

    # A rewrite either keeps the meaning (strict) or says where and why it could not.
    assert rewrite.strict or (rewrite.why_not_strict and rewrite.blockers)
    assert all(isinstance(loss.path, tuple) for loss in rewrite.losses)
    assert "(" not in (rewrite.why_not_strict or "")[:1]  # places are JSON pointers, never Python tuples


def test_a_false_property_is_dropped_from_strict_exports_and_recorded() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "never": False}, "required": ["a"]}

    openai, anthropic = openai_strict_schema(schema, "t"), anthropic_schema(schema, "t")

    for rewrite in (openai, anthropic):
        assert rewrite.strict
        assert list(rewrite.schema["properties"]) == ["a"]
        assert ("/properties/never", "false", "dropped") in _actions(rewrite.losses)


def test_a_true_property_blocks_strict_at_its_pointer() -> None:
    schema = {"type": "object", "properties": {"any": True}}

    rewrite = openai_strict_schema(schema, "t")

    assert not rewrite.strict
    assert rewrite.blockers == [(("properties", "any"), "true (any value), which OpenAI strict mode cannot type")]
    assert rewrite.why_not_strict == "/properties/any: true (any value), which OpenAI strict mode cannot type"


def test_gemini_openapi_expresses_boolean_schemas_where_it_can() -> None:
    schema = {
        "type": "object",
        "properties": {
            "any": True,
            "never": False,
            "empty": {"type": "array", "items": False},
            "either": {"anyOf": [False, {"type": "string"}]},
            "ref": {"$ref": "#/$defs/b"},
        },
        "$defs": {"b": True},
    }

    rewrite = gemini_openapi_schema(schema, "t")

    assert rewrite.strict
    assert rewrite.schema["properties"] == {
        "any": {},
        "empty": {"type": "ARRAY", "maxItems": 0},
        "either": {"type": "STRING"},
        "ref": {},
    }
    assert {
        ("/properties/never", "false", "dropped"),
        ("/properties/empty", "items", "rewritten as maxItems: 0"),
        ("/properties/ref", "$ref", "inlined"),
    } <= _actions(rewrite.losses)


REFS = {
    "a pointer into definitions": ("#/definitions/s", {"definitions": {"s": {"type": "string"}}}),
    "an anchor": ("#str", {"$defs": {"s": {"$anchor": "str", "type": "string"}}}),
    "an escaped pointer": ("#/$defs/a~1b", {"$defs": {"a/b": {"type": "string"}}}),
    "a percent-escaped pointer": ("#/$defs/a%25b", {"$defs": {"a%b": {"type": "string"}}}),
}


@pytest.mark.parametrize("name", list(REFS))
def test_gemini_openapi_inlines_every_form_of_local_ref(name: str) -> None:
    ref, defs = REFS[name]
    schema = {"type": "object", "properties": {"x": {"$ref": ref}}, **defs}

    rewrite = gemini_openapi_schema(schema, "t")

    assert rewrite.strict, rewrite.why_not_strict
    assert rewrite.schema["properties"]["x"] == {"type": "STRING"}


def test_gemini_openapi_inlines_a_recursive_ref_once_and_records_the_cut() -> None:
    schema = {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/node"}, "again": {"$ref": "#"}},
        "$defs": {"node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/node"}}}},
    }

    rewrite = gemini_openapi_schema(schema, "t")

    assert rewrite.strict
    assert rewrite.schema["properties"]["tree"]["properties"]["child"] == {"type": "OBJECT"}
    assert rewrite.schema["properties"]["again"] == {"type": "OBJECT"}
    assert {
        ("/properties/tree", "$ref", "inlined"),
        ("/properties/tree/properties/child", "$ref", "recursion cut"),
        ("/properties/again", "$ref", "recursion cut"),
    } <= _actions(rewrite.losses)


def test_strict_exports_write_a_ref_to_an_anchor_as_a_json_pointer() -> None:
    ref, defs = REFS["an anchor"]
    schema = {"type": "object", "properties": {"x": {"$ref": ref}}, "required": ["x"], **defs}

    for rewrite in (openai_strict_schema(schema, "t"), anthropic_schema(schema, "t")):
        assert rewrite.schema["properties"]["x"] == {"$ref": "#/$defs/s"}
        assert "$anchor" not in rewrite.schema["$defs"]["s"]
        assert ("/properties/x", "$ref", "rewritten as a JSON pointer") in _actions(rewrite.losses)


def test_anthropic_refuses_strict_for_a_recursive_schema_at_the_recursion() -> None:
    schema = {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/node"}},
        "$defs": {"node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/node"}}}},
    }

    rewrite = anthropic_schema(schema, "t")

    assert rewrite.why_not_strict == (
        "/$defs/node/properties/child: a recursive $ref (#/$defs/node), which Anthropic strict mode refuses"
    )


@pytest.mark.parametrize("pattern", ["(a)\\1", "(?<x>a)\\k<x>", "^(ab)+\\1$"])
def test_anthropic_moves_a_pattern_with_a_backreference_to_the_description(pattern: str) -> None:
    schema = {"type": "object", "properties": {"x": {"type": "string", "pattern": pattern}}}

    rewrite = anthropic_schema(schema, "t")

    assert "pattern" not in rewrite.schema["properties"]["x"]
    assert ("/properties/x", "pattern", "moved to description") in _actions(rewrite.losses)


def test_anthropic_keeps_a_pattern_whose_digit_escape_is_no_backreference() -> None:
    schema = {"type": "object", "properties": {"x": {"type": "string", "pattern": "^[\\1-9]\\d$"}}}

    assert anthropic_schema(schema, "t").schema["properties"]["x"]["pattern"] == "^[\\1-9]\\d$"


TUPLE: dict[str, Any] = {
    "type": "object",
    "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}], "items": False, "minItems": 1}},
}


def test_anthropic_drops_items_false_with_the_prefix_items_it_moves_to_the_description() -> None:
    rewrite = anthropic_schema(TUPLE, "t")

    assert rewrite.strict
    assert "items" not in rewrite.schema["properties"]["pair"]  # alone, items: false would allow only []
    assert "prefixItems" in rewrite.schema["properties"]["pair"]["description"]
    assert ("/properties/pair", "items", "dropped") in _actions(rewrite.losses)


def test_openai_exports_a_closed_tuple_non_strict_as_written() -> None:
    rewrite = openai_strict_schema(TUPLE, "t")

    assert not rewrite.strict
    assert rewrite.schema["properties"]["pair"] == TUPLE["properties"]["pair"]
    assert rewrite.why_not_strict == "/properties/pair: an array without typed items"


@pytest.mark.parametrize("fmt", ["openai", "openai-responses"])
def test_openai_strict_treats_an_inlined_one_part_all_of_as_if_written_in_place(fmt: str) -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"allOf": [{"type": "string", "minLength": 2, "title": "A"}]}},
        "required": ["a"],
        "additionalProperties": False,
    }

    rewrite = openai_strict_schema(schema, "t", fmt)

    assert rewrite.strict
    assert rewrite.schema["properties"]["a"] == {"type": "string", "description": "(minLength: 2)"}


def test_openai_strict_refuses_a_one_part_all_of_that_contradicts_its_schema() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer", "allOf": [{"type": "string"}]}}}

    rewrite = openai_strict_schema(schema, "t")

    assert not rewrite.strict and "allOf whose part sets type otherwise" in str(rewrite.blockers)


def test_openai_strict_is_refused_where_the_runtime_keeps_a_null_beside_a_keyword_counting_keys() -> None:
    counted = {"type": "object", "properties": {"email": {"type": "boolean"}}, "minProperties": 1}
    schema = {"type": "object", "properties": {"settings": counted, "n": {"type": "integer"}}}

    rewrite = openai_strict_schema(schema, "t")
    plain = openai_strict_schema({"type": "object", "properties": {"n": {"type": "integer"}}}, "t")

    assert not rewrite.strict
    assert "minProperties" in (rewrite.why_not_strict or "") and "runtime refuses" in (rewrite.why_not_strict or "")
    assert plain.strict, plain.why_not_strict
