"""Validation: the compiled fast path and the explanations, which must agree."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from toolproof.runtime.validation import FORMATS, SchemaValidator

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


def test_the_email_utils_stand_in_answers_only_the_importing_thread_and_forwards_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import email.utils
    import sys
    import threading

    from toolproof.runtime.validation import _BuildTime

    stand_in: Any = _BuildTime()
    seen: list[object] = []
    other = threading.Thread(target=lambda: seen.append(stand_in.parsedate_to_datetime))
    other.start()
    other.join()

    while_importing = stand_in.parsedate_to_datetime
    stand_in._importer = None
    once_imported = stand_in.parsedate_to_datetime

    assert while_importing is str  # the importing thread, while it imports
    assert seen == [email.utils.parsedate_to_datetime]  # any other thread: the real function
    assert once_imported is email.utils.parsedate_to_datetime
    assert stand_in.formatdate is email.utils.formatdate

    monkeypatch.setitem(sys.modules, "email.utils", _BuildTime())
    found = sys.modules["email.utils"]
    assert found.formatdate(0).startswith("Thu, 01 Jan 1970")  # works, and puts the real module back
    assert sys.modules["email.utils"] is email.utils


def test_compiling_a_validator_leaves_email_utils_unimported_and_real_when_imported() -> None:
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from toolproof.runtime.validation import SchemaValidator\n"
        "v = SchemaValidator({'type': 'integer'})\n"
        "assert v.is_valid(3) and not v.is_valid('x')\n"
        "assert 'jsonschema_rs' in sys.modules and 'email.utils' not in sys.modules, sorted(sys.modules)\n"
        "import email.utils\n"
        "print(email.utils.formatdate(0, usegmt=True))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)

    assert run.returncode == 0, run.stderr
    assert run.stdout == "Thu, 01 Jan 1970 00:00:00 GMT\n"


@pytest.mark.parametrize("value", ["ord_000123\n", "ord_1", "xord_000123", "ord_000123\n\n"])
def test_a_pattern_is_explained_as_the_fast_path_reads_it_with_dollar_only_at_the_end(value: str) -> None:
    validator = SchemaValidator(
        {"type": "object", "properties": {"id": {"type": "string", "pattern": "^ord_[0-9]{6}$"}}}
    )

    assert not validator.is_valid({"id": value})
    assert validator.explain({"id": value}) == f"$.id: must match the pattern ^ord_[0-9]{{6}}$ (got {value!r})"


def test_a_string_that_matches_its_pattern_has_no_problem() -> None:
    validator = SchemaValidator({"type": "string", "pattern": "^ord_[0-9]{6}$"})

    assert validator.is_valid("ord_000123")
    assert validator.problems("ord_000123") == []


# --- formats: asserted as jsonschema-rs checks them, explained in plain words ---------------------------------

BAD_VALUE = {
    "date": "2024-02-30",
    "date-time": "648-08-04T00:00:00Z",
    "time": "09:30",
    "duration": "3 days",
    "email": "not-an-email",
    "idn-email": "not-an-email",
    "hostname": "-bad-.example",
    "idn-hostname": "-bad-.example",
    "ipv4": "256.1.1.1",
    "ipv6": "1::2::3",
    "uri": "no scheme",
    "uri-reference": "\\\\ back slashes",
    "iri": "no scheme",
    "iri-reference": "\\\\ back slashes",
    "uuid": "123e4567",
    "regex": "(unclosed",
    "json-pointer": "no/slash",
    "relative-json-pointer": "/a",
    "uri-template": "{unclosed",
}
"""For each format the runtime asserts, a value that breaks it."""


def test_every_format_the_runtime_asserts_has_a_value_that_breaks_it_here() -> None:
    assert sorted(BAD_VALUE) == sorted(FORMATS)


@pytest.mark.parametrize("form", sorted(FORMATS))
def test_a_value_that_breaks_a_format_is_refused_and_the_refusal_names_the_format(form: str) -> None:
    validator = SchemaValidator({"type": "object", "properties": {"value": {"type": "string", "format": form}}})

    assert not validator.is_valid({"value": BAD_VALUE[form]})
    assert validator.explain({"value": BAD_VALUE[form]}) == f"$.value: must be {FORMATS[form]}, got '{BAD_VALUE[form]}'"


@pytest.mark.parametrize(
    ("form", "value", "message"),
    [
        ("date", "", "$.deliver_on: must be a date (YYYY-MM-DD), got ''"),
        ("date", "not-a-date", "$.deliver_on: must be a date (YYYY-MM-DD), got 'not-a-date'"),
        (
            "date-time",
            "648-08-04T00:00:00Z",
            "$.deliver_on: must be a date-time (RFC 3339, such as 2024-05-01T09:30:00Z), got '648-08-04T00:00:00Z'",
        ),
        ("email", "1 Rue X", "$.deliver_on: must be an email address, got '1 Rue X'"),
    ],
)
def test_the_review_s_values_are_refused_in_plain_words(form: str, value: str, message: str) -> None:
    validator = SchemaValidator({"type": "object", "properties": {"deliver_on": {"type": "string", "format": form}}})

    assert not validator.is_valid({"deliver_on": value})
    assert validator.explain({"deliver_on": value}) == message


@pytest.mark.parametrize(
    ("form", "value"),
    [
        ("date", "2024-05-01"),
        ("date-time", "2024-05-01T09:30:00Z"),
        ("time", "09:30:00+02:00"),
        ("duration", "P3DT4H"),
        ("email", "ada@example.com"),
        ("uri", "https://example.com/a"),
        ("uuid", "123e4567-e89b-12d3-a456-426614174000"),
        ("ipv4", "192.0.2.1"),
        ("ipv6", "2001:db8::1"),
        ("int32", "not a number"),  # OpenAPI's formats, and any the runtime does not check, stay annotations
        ("phone", "anything"),
    ],
)
def test_a_value_in_its_format_or_of_a_format_the_runtime_does_not_check_is_valid(form: str, value: str) -> None:
    validator = SchemaValidator({"type": "string", "format": form})

    assert validator.is_valid(value)
    assert validator.problems(value) == []


def test_a_format_constrains_only_strings() -> None:
    validator = SchemaValidator({"type": ["string", "integer"], "format": "date"})

    assert validator.is_valid(5)
    assert validator.problems(5) == []


# --- enums: a refusal lists a few allowed values, not thousands -------------------------------------------------


def test_a_long_enum_is_listed_by_its_first_values_and_how_many_more() -> None:
    names = [f"skill-{i:05d}" for i in range(5000)]
    validator = SchemaValidator({"type": "object", "properties": {"name": {"type": "string", "enum": names}}})

    assert validator.explain({"name": "nope"}) == (
        "$.name: must be one of 'skill-00000', 'skill-00001', 'skill-00002', 'skill-00003', 'skill-00004',"
        " ... (4995 more) (got 'nope')"
    )


def test_an_enum_of_six_values_is_listed_whole() -> None:
    validator = SchemaValidator({"enum": ["a", "b", "c", "d", "e", "f"]})

    assert validator.explain("g") == "$: must be one of 'a', 'b', 'c', 'd', 'e', 'f' (got 'g')"
