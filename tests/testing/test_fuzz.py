"""The fuzz tests' valid arguments are valid, and ``invalid_arguments`` for them fails the fuzz check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings

from toolproof.runtime.context import ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import ToolError
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.spec import ToolSpec
from toolproof.runtime.validation import FORMATS as RUNTIME_FORMATS
from toolproof.runtime.validation import SchemaValidator
from toolproof.testing.fuzz import FuzzFailure, FuzzHost, valid_arguments
from toolproof.testing.replay import project_tool
from toolproof.testing.strategies import MAX_RECURSION, json_values, schema_values

SHIPMENT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "pattern": "^ord_[0-9]{6}$"},
        "destination": {"oneOf": [{"$ref": "#/$defs/address"}, {"$ref": "#/$defs/pickup_point"}]},
        "weight_grams": {"type": "integer", "minimum": 1, "maximum": 31500},
        "insured_value": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]},
        "amount": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 10},
        "status": {"type": "array", "items": {"$ref": "#/$defs/status"}, "minItems": 1, "maxItems": 5},
        "notes": {"type": "array", "items": {"type": "string", "maxLength": 80}, "maxItems": 3},
        "labels": {"type": "object", "additionalProperties": {"type": "integer", "exclusiveMinimum": 3}},
    },
    "required": ["order_id", "destination", "weight_grams", "amount"],
    "additionalProperties": False,
    "$defs": {
        "address": {
            "type": "object",
            "properties": {
                "kind": {"const": "address"},
                "postal_code": {"type": "string", "pattern": "^[0-9A-Z -]{3,10}$"},
                "country": {"type": "string", "pattern": "^[A-Z]{2}$"},
            },
            "required": ["kind", "postal_code", "country"],
            "additionalProperties": False,
        },
        "pickup_point": {
            "type": "object",
            "properties": {"kind": {"const": "pickup_point"}, "point_id": {"type": "string", "format": "uuid"}},
            "required": ["kind", "point_id"],
            "additionalProperties": False,
        },
        "status": {"type": "string", "enum": ["pending", "paid", "shipped"]},
    },
}

TREE: dict[str, Any] = {
    "$ref": "#/$defs/node",
    "$defs": {
        "node": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            },
            "required": ["name"],
            "additionalProperties": False,
        }
    },
}

FORMATS = {form: {"type": "string", "format": form} for form in ("date", "date-time", "email", "uuid", "ipv4", "ipv6")}


def _depth(node: Any) -> int:
    return 1 + max((_depth(child) for child in node.get("children", ())), default=0)


@settings(max_examples=200, deadline=None)
@given(value=schema_values(SHIPMENT))
def test_drawn_values_pass_a_schema_of_refs_bounds_and_closed_objects_unfiltered(value: Any) -> None:
    jsonschema.Draft202012Validator(SHIPMENT).validate(value)


@settings(max_examples=100, deadline=None)
@given(value=schema_values(TREE))
def test_a_recursive_reference_is_expanded_a_bounded_number_of_times(value: Any) -> None:
    jsonschema.Draft202012Validator(TREE).validate(value)
    assert _depth(value) <= MAX_RECURSION


@pytest.mark.parametrize("form", sorted(FORMATS))
def test_strings_with_a_known_format_are_drawn_in_that_format(form: str) -> None:
    checked = jsonschema.Draft202012Validator(FORMATS[form], format_checker=jsonschema.FormatChecker())

    @settings(max_examples=30, deadline=None)
    @given(value=schema_values(FORMATS[form]))
    def drawn(value: Any) -> None:
        checked.validate(value)

    drawn()


def test_both_branches_of_a_one_of_of_references_are_drawn() -> None:
    kinds: set[str] = set()

    @settings(max_examples=100, deadline=None)
    @given(value=schema_values(SHIPMENT))
    def drawn(value: Any) -> None:
        kinds.add(value["destination"]["kind"])

    drawn()

    assert kinds == {"address", "pickup_point"}


FIXTURE_PROJECT = Path(__file__).parent.parent / "conformance_project" / "generated" / "tests"


@settings(max_examples=100, deadline=None)
@given(arguments=valid_arguments("json_schema_2020_12_tool", project=FIXTURE_PROJECT))
def test_valid_arguments_of_a_tool_with_refs_and_conditions_pass_its_schema(arguments: Any) -> None:
    tool = project_tool("json_schema_2020_12_tool", FIXTURE_PROJECT)[0]
    jsonschema.Draft202012Validator(tool.spec.input_schema).validate(arguments)


@settings(max_examples=300, deadline=None)
@given(arguments=valid_arguments("read_file"))
def test_valid_arguments_never_sample_an_example_that_expects_invalid_arguments(arguments: Any) -> None:
    assert arguments.get("limit", 1) <= 2000, "the example 'a limit over 2000 breaks the schema' is no valid input"


def _refusing_host(base: Path) -> FuzzHost:
    """A host whose handler answers every call with ``invalid_arguments``, whatever its arguments."""
    spec = ToolSpec.from_data(
        {
            "name": "refuser",
            "module": "refuser",
            "handler": "tests.refuser:handle",
            "input": {
                "type": "object",
                "properties": {"n": {"type": "integer", "maximum": 5}, "note": {"type": "string"}},
                "required": ["n"],
                "additionalProperties": False,
            },
            "output": {"type": "object"},
            "errors": {},
            "render": {"result": "{$}", "error": "ERROR: {message}"},
            "source": "contracts/refuser.yaml",
        }
    )

    def handle(arguments: Any, ctx: ToolContext) -> Any:
        raise ToolError("invalid_arguments", "Invalid arguments: no")

    tool = BoundTool.build(spec, handle)
    return FuzzHost(tool, Runtime([tool]), base, restricted=False)


def test_invalid_arguments_for_arguments_the_schema_accepts_fail_the_fuzz_check(tmp_path: Path) -> None:
    host = _refusing_host(tmp_path)

    with pytest.raises(FuzzFailure) as failure:
        host.check({"n": 1})

    assert str(failure.value) == (
        "refuser with {\"n\": 1} ended in 'invalid_arguments', though the input schema accepts them:"
        " Invalid arguments: no"
    )


@pytest.mark.parametrize(
    "arguments",
    [
        {"n": 6},  # the schema refuses it
        {"n": 1, "x": 0},
        [],
        {"n": 1, "note": "a\udfffb"},  # a lone surrogate is no text, whatever the schema says
        {"n": 1, "note": "x" * (1 << 20)},  # longer than the runtime takes
    ],
)
def test_invalid_arguments_for_what_the_runtime_may_refuse_pass_the_fuzz_check(tmp_path: Path, arguments: Any) -> None:
    host = _refusing_host(tmp_path)

    result = host.check(arguments)

    assert result.error is not None and result.error.code == "invalid_arguments"


def test_a_null_the_runtime_reads_as_absent_is_judged_as_absent(tmp_path: Path) -> None:
    host = _refusing_host(tmp_path)

    with pytest.raises(FuzzFailure, match="though the input schema accepts them"):
        host.check({"n": 1, "note": None})


# --- formats: every draw passes the runtime's validator, which asserts them -----------------------------------


@pytest.mark.parametrize("form", sorted(RUNTIME_FORMATS))
def test_strings_of_each_format_the_runtime_asserts_are_all_valid_for_its_validator(form: str) -> None:
    schema = {"type": "string", "format": form}
    runtime = SchemaValidator(schema)

    @settings(max_examples=100, deadline=None)
    @given(value=schema_values(schema))
    def drawn(value: Any) -> None:
        assert runtime.is_valid(value), runtime.explain(value)

    drawn()


def test_example_strings_that_break_a_format_or_read_dollar_as_python_does_are_never_drawn() -> None:
    seeds = ("09:30", "1 Rue X", "2024-05-01", "ABC-0001\n", "ABC-0001")
    schema = {
        "type": "object",
        "properties": {
            "day": {"type": "string", "format": "date"},
            "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
        },
        "required": ["day", "sku"],
    }
    seen: set[tuple[str, str]] = set()

    @settings(max_examples=200, deadline=None)
    @given(value=schema_values(schema, seeds))
    def drawn(value: Any) -> None:
        seen.add((value["day"], value["sku"]))

    drawn()

    days, skus = {day for day, _ in seen}, {sku for _, sku in seen}
    assert "2024-05-01" in days and "ABC-0001" in skus  # the seeds that fit are used
    assert not days & {"09:30", "1 Rue X", "ABC-0001\n", "ABC-0001"}
    assert "ABC-0001\n" not in skus


@settings(max_examples=100, deadline=None)
@given(value=schema_values({"type": "string", "format": "date", "pattern": "^20[0-9]{2}-"}))
def test_a_string_with_both_a_format_and_a_pattern_honours_both(value: Any) -> None:
    assert SchemaValidator({"type": "string", "format": "date", "pattern": "^20[0-9]{2}-"}).is_valid(value)


@settings(max_examples=300, deadline=None)
@given(value=json_values())
def test_any_json_value_drawn_is_json_with_no_nan_or_infinity(value: Any) -> None:
    """A draw for a schema that allows anything went to the runtime as Infinity, which no JSON holds."""
    assert json.loads(json.dumps(value, allow_nan=False)) == value
