"""Validation: the compiled fast path and the explanations, which must agree."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from toolproof.runtime.validation import SchemaValidator

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "minLength": 1},
        "limit": {"type": "integer", "minimum": 1, "maximum": 2000},
        "mode": {"enum": ["slice", "indent"]},
        "flags": {"type": "array", "items": {"type": "boolean"}, "maxItems": 2},
        "nested": {"type": "object", "properties": {"deep": {"type": "string"}}, "required": ["deep"]},
    },
    "required": ["path"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("instance", "message"),
    [
        ({}, "$.path: required property is missing"),
        ({"path": 1}, "$.path: expected string, got integer"),
        ({"path": ""}, "$.path: must be at least 1 character(s) long (got '')"),
        ({"path": "a", "limit": 5000}, "$.limit: must be at most 2000 (got 5000)"),
        ({"path": "a", "limit": 0}, "$.limit: must be at least 1 (got 0)"),
        ({"path": "a", "limit": True}, "$.limit: expected integer, got boolean"),
        ({"path": "a", "mode": "x"}, "$.mode: must be one of 'slice', 'indent' (got 'x')"),
        ({"path": "a", "flags": [True, 1]}, "$.flags[1]: expected boolean, got integer"),
        ({"path": "a", "flags": [True, True, True]}, "$.flags: must have at most 2 item(s)"),
        ({"path": "a", "nested": {}}, "$.nested.deep: required property is missing"),
        ({"path": "a", "extra": 1}, "$.extra: unexpected property (allowed: flags, limit, mode, nested, path)"),
        ([], "$: expected object, got array"),
    ],
)
def test_each_problem_names_its_field_by_json_path(instance: Any, message: str) -> None:
    validator = SchemaValidator(SCHEMA)

    assert not validator.is_valid(instance)
    assert validator.explain(instance) == message


def test_several_problems_are_counted() -> None:
    explained = SchemaValidator(SCHEMA).explain({"path": 1, "limit": 0, "extra": True})

    assert explained.endswith("(and 2 more problems)")


@pytest.mark.parametrize(
    "instance",
    [
        {"path": "a"},
        {"path": "a", "limit": 1.0},
        {"path": "a", "limit": 10**30},
        {"path": "a", "limit": True},
        {"path": "a", "flags": []},
        {"path": "ü" * 3, "mode": "indent"},
        {"path": "a", "nested": {"deep": "x", "other": None}},
        {"path": None},
        "not an object",
    ],
)
def test_fast_path_agrees_with_python_jsonschema(instance: Any) -> None:
    assert SchemaValidator(SCHEMA).is_valid(instance) == Draft202012Validator(SCHEMA).is_valid(instance)
