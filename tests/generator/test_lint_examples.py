"""Lint judges example inputs and outputs exactly as the runtime does: its validator, its patterns, its formats.

So an example lint passes is one the runtime, the generated conformance tests and
the fuzz tests agree on; and what lint reports names the problem in the runtime's words.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.generator import Level, load_project

ORDER = """\
name: order
version: 1.0.0
title: Order
description: Order one item.
annotations: {{read_only: false, destructive: false, idempotent: false, open_world: false}}
input:
  type: object
  properties:
    sku: {{type: string, pattern: "^[A-Z]{{3}}-[0-9]{{4}}$"}}
    deliver_on: {{type: string, format: date}}
    email: {{type: string, format: email}}
    note: {{type: string}}
  required: [sku]
  additionalProperties: false
output:
  type: object
  properties:
    placed_at: {{type: string, format: date-time}}
  required: [placed_at]
render:
  result: "placed at {{placed_at}}"
errors: {{}}
examples:
  - name: the example
    input: {input}
    expect: {expect}
"""

PLACED = '{output: {placed_at: "2024-05-01T09:30:00Z"}}'
REFUSED = "{error: invalid_arguments}"


def _errors(tmp_path: Path, input: str, expect: str) -> list[str]:
    (tmp_path / "contracts").mkdir(exist_ok=True)
    (tmp_path / "contracts" / "order.yaml").write_text(ORDER.format(input=input, expect=expect), encoding="utf-8")
    return [
        str(p).removeprefix("contracts/order.yaml:") for p in load_project(tmp_path).problems if p.level is Level.ERROR
    ]


@pytest.mark.parametrize(
    "input",
    [
        '{sku: "ABC-0001\\n"}',  # $ matches only at the very end (ECMA-262), not before a final newline
        "{sku: ABC-0001, deliver_on: not-a-date}",
        '{sku: ABC-0001, deliver_on: ""}',
        "{sku: ABC-0001, email: not-an-email}",
        '{sku: ABC-0001, deliver_on: "2024-02-30"}',
    ],
)
def test_an_example_expecting_invalid_arguments_for_input_the_runtime_refuses_is_clean(
    tmp_path: Path, input: str
) -> None:
    assert _errors(tmp_path, input, REFUSED) == []


@pytest.mark.parametrize(
    ("input", "problem"),
    [
        (
            '{sku: "ABC-0001\\n"}',
            "25:18: error [TP304] example input breaks the input schema: "
            "$.sku: must match the pattern ^[A-Z]{3}-[0-9]{4}$ (got 'ABC-0001\\n')",
        ),
        (
            "{sku: ABC-0001, deliver_on: not-a-date}",
            "25:40: error [TP304] example input breaks the input schema: "
            "$.deliver_on: must be a date (YYYY-MM-DD), got 'not-a-date'",
        ),
        (
            "{sku: ABC-0001, email: not-an-email}",
            "25:35: error [TP304] example input breaks the input schema: "
            "$.email: must be an email address, got 'not-an-email'",
        ),
    ],
)
def test_an_example_expecting_success_with_input_the_runtime_refuses_is_reported(
    tmp_path: Path, input: str, problem: str
) -> None:
    assert _errors(tmp_path, input, PLACED) == [problem]


def test_an_example_expecting_invalid_arguments_for_input_in_its_format_is_reported(tmp_path: Path) -> None:
    assert _errors(tmp_path, '{sku: ABC-0001, deliver_on: "2024-05-01"}', REFUSED) == [
        "25:12: error [TP305] the example expects invalid_arguments, but its input is valid"
    ]


def test_an_example_expecting_invalid_arguments_for_a_null_the_runtime_reads_as_absent_is_reported(
    tmp_path: Path,
) -> None:
    assert _errors(tmp_path, "{sku: ABC-0001, note: null}", REFUSED) == [
        "25:12: error [TP305] the example expects invalid_arguments, but its input is valid"
    ]


def test_an_example_output_that_breaks_its_format_is_reported(tmp_path: Path) -> None:
    expect = '{output: {placed_at: "648-08-04T00:00:00Z"}}'

    assert _errors(tmp_path, "{sku: ABC-0001}", expect) == [
        "26:34: error [TP306] example output breaks the output schema: $.placed_at: must be a date-time"
        " (RFC 3339, such as 2024-05-01T09:30:00Z), got '648-08-04T00:00:00Z'"
    ]


def test_a_text_that_differs_from_the_rendered_output_shows_both(tmp_path: Path) -> None:
    expect = '{output: {placed_at: "2024-05-01T09:30:00Z"}, text: "placed at 2024-05-01T09:31:00Z"}'

    assert _errors(tmp_path, "{sku: ABC-0001}", expect) == [
        "26:65: error [TP309] the text does not match the output rendered by render.result:"
        " expected 'placed at 2024-05-01T09:31:00Z', rendered 'placed at 2024-05-01T09:30:00Z'"
    ]


def test_long_texts_that_differ_are_shown_clipped_from_a_little_before_the_first_difference(tmp_path: Path) -> None:
    expect = '{output: {placed_at: "2024-05-01T09:30:00Z"}, text: "placed at 2024-05-01T09:30:00Z' + "!" * 200 + '"}'

    (problem,) = _errors(tmp_path, "{sku: ABC-0001}", expect)

    assert problem.endswith(
        f"render.result: expected '...2024-05-01T09:30:00Z{'!' * 60}...', rendered '...2024-05-01T09:30:00Z'"
    )


def test_an_example_number_yaml_reads_as_a_string_gets_a_hint(tmp_path: Path) -> None:
    text = ORDER.replace("    note: {{type: string}}", "    note: {{type: string}}\n    count: {{type: integer}}")
    (tmp_path / "contracts").mkdir()
    contract = text.format(input="{sku: ABC-0001, count: 1e6}", expect=PLACED)
    (tmp_path / "contracts" / "order.yaml").write_text(contract, encoding="utf-8")

    problems = [str(p) for p in load_project(tmp_path).problems if p.level is Level.ERROR]

    assert problems == [
        "contracts/order.yaml:26:35: error [TP304] example input breaks the input schema: $.count: expected integer,"
        " got string (YAML 1.1 reads 1e6 as a string; write 1000000 or 1.0e+6)"
    ]


COUNT = """\
name: count
version: 1.0.0
title: Count
description: Count the words of a text.
annotations: {{read_only: true, destructive: false, idempotent: true, open_world: false}}
input:
  type: object
  properties:
    text: {{type: string}}
  required: [text]
  additionalProperties: false
output:
  type: object
  $defs:
    count: {{$ref: "#/$defs/natural"}}
    natural: {{type: integer, minimum: 0}}
  properties:
    words: {{$ref: "#/$defs/count"}}
    lines: {{type: array, items: {{$ref: "#/properties/words"}}}}
  required: [words, lines]
  additionalProperties: false
errors: {{}}
examples:
  - name: the example
    input: {{text: ""}}
    expect: {{output_includes: {includes}}}
"""


def _count_errors(tmp_path: Path, includes: str) -> list[str]:
    (tmp_path / "contracts").mkdir(exist_ok=True)
    (tmp_path / "contracts" / "count.yaml").write_text(COUNT.format(includes=includes), encoding="utf-8")
    return [
        str(p).removeprefix("contracts/count.yaml:") for p in load_project(tmp_path).problems if p.level is Level.ERROR
    ]


def test_output_includes_on_a_field_typed_by_a_ref_to_a_ref_is_judged_through_both(tmp_path: Path) -> None:
    assert _count_errors(tmp_path, "{words: 0, lines: [0, 2]}") == []


@pytest.mark.parametrize(
    ("includes", "problem"),
    [
        (
            "{words: -1}",
            "26:39: error [TP306] example output breaks the output schema: $.words: must be at least 0 (got -1)",
        ),
        (
            "{lines: [0, -2]}",
            "26:43: error [TP306] example output breaks the output schema: $.lines[1]: must be at least 0 (got -2)",
        ),
    ],
)
def test_output_includes_breaking_a_field_typed_by_a_ref_names_the_schema_it_breaks(
    tmp_path: Path, includes: str, problem: str
) -> None:
    assert _count_errors(tmp_path, includes) == [problem]
