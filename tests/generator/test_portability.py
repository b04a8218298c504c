"""Lint reports an example that pins a text only toolproof's Python runtime writes (TP311), and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.generator import load_project
from toolproof.generator.portability import portable_json

SCALE = """\
name: scale
version: 1.0.0
title: Scale
description: Scale a word's weight.
annotations: {{read_only: true, destructive: false, idempotent: true, open_world: false}}
input:
  type: object
  properties:
    word: {{type: string, minLength: 1}}
  required: [word]
  additionalProperties: false
output:
  type: object
  properties:
    word: {{type: string}}
    weight: {{type: number}}
    parts: {{type: array, items: {{type: string}}}}
  required: [word, weight]
errors:
  too_heavy:
    message: "The word weighs {{weight}}"
    params: {{weight: {{type: number}}}}
render:
  result: {render}
  error_output: {{failed: true, why: "{{message}}"}}
examples:
  - name: the example
    input: {input}
    expect: {expect}
  - name: too heavy
    input: {{word: lead}}
    expect: {{error: too_heavy}}
"""


def _found(
    tmp_path: Path, expect: str, *, input: str = "{word: hi}", render: str = '"{word} weighs {weight}"'
) -> list[str]:
    (tmp_path / "contracts").mkdir(exist_ok=True)
    text = SCALE.format(input=input, expect=expect, render=render)
    (tmp_path / "contracts" / "scale.yaml").write_text(text, encoding="utf-8")
    return [p.message for p in load_project(tmp_path).problems if p.rule.id == "TP311"]


@pytest.mark.parametrize(
    "expect",
    [
        '{error: invalid_arguments, message: "Invalid arguments: $.word: must be at least 1 character(s) long"}',
        '{error: invalid_arguments, text: "ERROR: Invalid arguments: $.word: too short"}',
        "{error: invalid_arguments, text_contains: [\"(got '')\"]}",
        '{error: invalid_arguments, error_output: {failed: true, why: "Invalid arguments: $.word: too short"}}',
    ],
    ids=["message", "text", "text-past-the-path", "error-output"],
)
def test_an_invalid_arguments_example_pinning_the_python_message_is_reported(tmp_path: Path, expect: str) -> None:
    found = _found(tmp_path, expect, input='{word: ""}')

    assert len(found) == 1
    assert "the standard error 'invalid_arguments' is the Python runtime's" in found[0]


@pytest.mark.parametrize(
    "expect",
    [
        "{error: invalid_arguments}",
        '{error: invalid_arguments, text_contains: ["Invalid arguments: $.word:", "$.word"]}',
    ],
)
def test_an_invalid_arguments_example_pinning_the_code_and_path_is_not_reported(tmp_path: Path, expect: str) -> None:
    assert _found(tmp_path, expect, input='{word: ""}') == []


def test_a_text_showing_an_integral_float_as_python_writes_it_is_reported(tmp_path: Path) -> None:
    found = _found(tmp_path, '{output: {word: hi, weight: 2.0}, text: "hi weighs 2.0"}')

    assert found == [
        "the text shows {weight} as Python writes its JSON, '2.0'; JSON.stringify (and so most languages) writes"
        " '2': pin the output, not its rendering"
    ]


def test_a_text_showing_a_whole_output_with_python_spacing_is_reported(tmp_path: Path) -> None:
    found = _found(
        tmp_path, '{output: {word: hi, weight: 2}, text: "{\\"word\\": \\"hi\\", \\"weight\\": 2}"}', render='"{$}"'
    )

    assert len(found) == 1
    assert found[0].startswith("the text shows {$} as Python writes its JSON")


def test_texts_every_language_writes_alike_are_not_reported(tmp_path: Path) -> None:
    assert _found(tmp_path, '{output: {word: hi, weight: 2.5}, text: "hi weighs 2.5"}') == []
    assert _found(tmp_path, '{output: {word: hi, weight: 3}, text_contains: ["weighs 3"]}') == []


def test_a_catalogued_message_showing_a_number_param_as_a_python_float_is_reported(tmp_path: Path) -> None:
    found = _found(tmp_path, '{error: too_heavy, message: "The word weighs 1e+16"}', input="{word: lead}")

    assert found == [
        "the message shows the number {weight} as Python writes a float, '1e+16'; JSON.stringify (and so most"
        " languages) writes '10000000000000000'"
    ]


@pytest.mark.parametrize(
    ("value", "written"),
    [(2.0, "2"), (1e16, "10000000000000000"), (1e21, "1e+21"), (1e-7, "1e-7"), (1e-6, "0.000001"), (-2.5, "-2.5")],
)
def test_numbers_are_written_as_ecmascript_writes_them(value: float, written: str) -> None:
    assert portable_json(value) == written


def test_objects_are_written_without_python_spacing() -> None:
    assert portable_json({"a": [1, 2.0, "é"], "b": None}) == '{"a":[1,2,"é"],"b":null}'
