"""Strict-mode nulls read as absent, only where the contract does not accept null."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from toolproof.generator.transforms import openai_strict_schema
from toolproof.runtime.nulls import accepting_dropped_nulls, drop_absent_nulls, kept_nulls, plan_for

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "offset": {"type": "integer"},
        "since": {"type": ["string", "null"]},
        "mode": {"enum": ["a", None]},
        "filter": {
            "type": "object",
            "properties": {"min": {"type": "number"}, "tag": {"type": "string"}},
            "required": ["tag"],
        },
    },
    "required": ["path"],
}


def test_optional_non_nullable_nulls_are_dropped_at_every_depth() -> None:
    plan = plan_for(SCHEMA)
    assert plan is not None

    value = {"path": "a", "offset": None, "since": None, "mode": None, "filter": {"min": None, "tag": "x"}}

    assert drop_absent_nulls(plan, value) == {"path": "a", "since": None, "mode": None, "filter": {"tag": "x"}}


def test_required_nulls_stay_so_validation_reports_them() -> None:
    plan = plan_for(SCHEMA)
    assert plan is not None

    assert drop_absent_nulls(plan, {"path": None}) == {"path": None}
    assert drop_absent_nulls(plan, {"path": "a", "filter": {"tag": None}}) == {"path": "a", "filter": {"tag": None}}


def test_nothing_is_copied_when_nothing_changes() -> None:
    plan = plan_for(SCHEMA)
    assert plan is not None
    value = {"path": "a", "offset": 3}

    assert drop_absent_nulls(plan, value) is value


def test_schemas_without_droppable_fields_have_no_plan() -> None:
    assert plan_for({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}) is None
    assert plan_for({"type": "string"}) is None


def _dropped(schema: dict[str, Any], value: Any) -> Any:
    plan = plan_for(schema)
    assert plan is not None
    return drop_absent_nulls(plan, value)


_ITEM: dict[str, Any] = {
    "type": "object",
    "properties": {"k": {"type": "string"}, "n": {"type": ["integer", "null"]}},
    "additionalProperties": False,
}


def test_nulls_are_dropped_inside_array_items_and_prefix_items() -> None:
    schema = {"type": "object", "properties": {"arr": {"type": "array", "items": _ITEM}}}
    tuple_schema = {
        "type": "object",
        "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}, _ITEM]}},
    }

    assert _dropped(schema, {"arr": [{"k": None, "n": None}, {"k": "a"}]}) == {"arr": [{"n": None}, {"k": "a"}]}
    assert _dropped(tuple_schema, {"pair": ["x", {"k": None}]}) == {"pair": ["x", {}]}


_REFERRING: dict[str, Any] = {
    "type": "object",
    "properties": {"cfg": {"$ref": "#/$defs/cfg"}, "tree": {"$ref": "#node"}},
    "$defs": {
        "cfg": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "node": {
            "$anchor": "node",
            "type": "object",
            "properties": {"label": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#node"}}},
        },
    },
}
"""Local references, by pointer and by anchor, one of them recursive."""


def test_nulls_are_dropped_behind_local_references_recursive_ones_included() -> None:
    value = {"cfg": {"n": None}, "tree": {"label": None, "children": [{"label": "b", "children": [{"label": None}]}]}}

    assert _dropped(_REFERRING, value) == {"cfg": {}, "tree": {"children": [{"label": "b", "children": [{}]}]}}


def test_a_property_branches_name_is_dropped_only_when_no_branch_accepts_null() -> None:
    schema = {
        "type": "object",
        "properties": {
            "shape": {
                "anyOf": [
                    {"type": "object", "properties": {"r": {"type": "number"}, "tag": {"type": "string"}}},
                    {"type": "object", "properties": {"w": {"type": "number"}, "tag": {"type": ["string", "null"]}}},
                ]
            }
        },
    }

    assert _dropped(schema, {"shape": {"r": None, "w": None, "tag": None}}) == {"shape": {"tag": None}}


def test_a_property_whose_schema_is_true_keeps_its_null() -> None:
    schema = {"type": "object", "properties": {"any": True, "s": {"type": "string"}}}

    assert _dropped(schema, {"any": None, "s": None}) == {"any": None}


def test_a_schema_with_only_nullable_or_required_fields_anywhere_has_no_plan() -> None:
    schema = {
        "type": "object",
        "properties": {"arr": {"type": "array", "items": {"$ref": "#/$defs/x"}}},
        "required": ["arr"],
        "$defs": {"x": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}},
    }

    assert plan_for(schema) is None


_STRICT_CASES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    (
        {
            "type": "object",
            "properties": {"opts": {"allOf": [{"$ref": "#/$defs/opts"}]}},
            "additionalProperties": False,
            "$defs": {
                "opts": {"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": False}
            },
        },
        {"opts": None},
    ),
    (  # not _ITEM: an optional field that takes null (its n) keeps a tool from being exported strict
        {
            "type": "object",
            "properties": {
                "arr": {
                    "type": "array",
                    "items": {**_ITEM, "properties": {"k": {"type": "string"}, "n": {"type": "integer"}}},
                }
            },
            "additionalProperties": False,
        },
        {"arr": [{"k": None, "n": None}]},
    ),
    (
        {
            "type": "object",
            "properties": {"cfg": {"$ref": "#/$defs/cfg"}},
            "required": ["cfg"],
            "additionalProperties": False,
            "$defs": {
                "cfg": {"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": False}
            },
        },
        {"cfg": {"n": None}},
    ),
    (
        {
            "type": "object",
            "properties": {
                "shape": {
                    "anyOf": [
                        {"type": "object", "properties": {"r": {"type": "number"}}, "additionalProperties": False},
                        {"type": "string"},
                    ]
                }
            },
            "additionalProperties": False,
        },
        {"shape": {"r": None}},
    ),
]


@pytest.mark.parametrize(("schema", "sent"), _STRICT_CASES)
def test_what_openai_strict_mode_lets_a_model_send_is_valid_once_its_nulls_are_read_as_absent(
    schema: dict[str, Any], sent: dict[str, Any]
) -> None:
    strict = openai_strict_schema(schema, "t")
    assert strict.strict, strict.why_not_strict
    jsonschema.Draft202012Validator(strict.schema).validate(sent)
    assert not jsonschema.Draft202012Validator(schema).is_valid(sent)

    jsonschema.Draft202012Validator(schema).validate(_dropped(schema, sent))


def _variants(value: Any) -> list[Any]:
    """``value``, and each value with one property anywhere in it (or one array item) made null."""
    out = [value]
    if isinstance(value, dict):
        for name, inner in value.items():
            out.append({**value, name: None})
            out += [{**value, name: changed} for changed in _variants(inner)[1:]]
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            out += [[*value[:index], changed, *value[index + 1 :]] for changed in _variants(inner)[1:]]
    return out


_DOCUMENTED_CASES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    (SCHEMA, {"path": "a", "offset": 1, "since": "x", "mode": "a", "filter": {"min": 1.5, "tag": "t"}}),
    (_REFERRING, {"cfg": {"n": 1}, "tree": {"label": "a", "children": [{"label": "b", "children": []}]}}),
    (
        {
            "type": "object",
            "properties": {
                "arr": {"type": "array", "items": _ITEM},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, _ITEM]},
            },
        },
        {"arr": [{"k": "a", "n": 1}], "pair": ["x", {"k": "b", "n": 2}]},
    ),
    (
        {
            "type": "object",
            "properties": {
                "shape": {
                    "anyOf": [
                        {"type": "object", "properties": {"r": {"type": "number"}, "tag": {"type": "string"}}},
                        {
                            "type": "object",
                            "properties": {"w": {"type": "number"}, "tag": {"type": ["string", "null"]}},
                        },
                    ]
                }
            },
        },
        {"shape": {"r": 1.5, "w": 2, "tag": "x"}},
    ),
    *_STRICT_CASES,
]

_PRESENCE_CASES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    (
        {
            "type": "object",
            "properties": {
                "settings": {
                    "type": "object",
                    "properties": {"email": {"type": "boolean"}, "sms": {"type": "boolean"}},
                    "minProperties": 1,
                    "additionalProperties": False,
                },
            },
        },
        {"settings": {"email": True}},
    ),
    (
        {
            "type": "object",
            "properties": {
                "shape": {
                    "oneOf": [
                        {"properties": {"a": {"type": "string"}}, "additionalProperties": False},
                        {"properties": {"b": {"type": "integer"}}, "additionalProperties": False},
                    ]
                },
                "n": {"type": "integer"},
            },
        },
        {"shape": {"b": 1}, "n": 2},
    ),
    (
        {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "not": {"required": ["a"]},
        },
        {"a": "y", "b": "x"},
    ),
]
"""Keywords that count or test the keys present: a key sent null is judged as it came there."""


@pytest.mark.parametrize(("schema", "value"), _PRESENCE_CASES)
def test_beside_a_keyword_that_counts_keys_present_a_null_is_kept_and_documented_as_refused(
    schema: dict[str, Any], value: dict[str, Any]
) -> None:
    documented = jsonschema.Draft202012Validator(accepting_dropped_nulls(schema))
    contract = jsonschema.Draft202012Validator(schema)
    plan = plan_for(schema)

    assert kept_nulls(schema)
    for sent in _variants(value):
        runtime_sees = sent if plan is None else drop_absent_nulls(plan, sent)
        assert documented.is_valid(sent) == contract.is_valid(runtime_sees), sent


def test_a_schema_with_no_such_keyword_keeps_no_null() -> None:
    assert not kept_nulls(SCHEMA)
    assert not kept_nulls({"type": "string"})


@pytest.mark.parametrize(("schema", "value"), _DOCUMENTED_CASES)
def test_the_documented_schema_accepts_exactly_what_the_runtime_accepts_once_nulls_are_read_as_absent(
    schema: dict[str, Any], value: dict[str, Any]
) -> None:
    documented = jsonschema.Draft202012Validator(accepting_dropped_nulls(schema))
    contract = jsonschema.Draft202012Validator(schema)
    plan = plan_for(schema)
    assert plan is not None
    variants = _variants(value)
    assert len(variants) >= 2

    for sent in variants:
        assert documented.is_valid(sent) == contract.is_valid(drop_absent_nulls(plan, sent)), sent


def test_an_optional_field_is_documented_as_its_schema_or_null_with_its_annotations_outside() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "max_words": {"type": "integer", "minimum": 1, "description": "At most.", "default": 9},
            "since": {"type": ["string", "null"]},
        },
        "required": ["text"],
    }
    before = json.dumps(schema)

    documented = accepting_dropped_nulls(schema)

    assert documented["properties"] == {
        "text": {"type": "string"},
        "max_words": {
            "anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}],
            "description": "At most.",
            "default": 9,
        },
        "since": {"type": ["string", "null"]},
    }
    assert json.dumps(schema) == before  # a copy: the contract's schema is left as it was
