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
