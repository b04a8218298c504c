"""Numbers in exponent notation that PyYAML (YAML 1.1) reads as strings get a hint saying how to write them."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.generator import Level, load_project
from toolproof.generator.schemalint import number_hint

CONTRACT = """\
name: echo
version: 1.0.0
title: Echo
description: Echo a number back.
annotations: {{read_only: true, destructive: false, idempotent: true, open_world: false}}
input:
  type: object
  properties:
    n: {schema}
  required: [n]
  additionalProperties: false
output: {{type: object, properties: {{n: {{type: number}}}}, required: [n]}}
errors: {{}}
examples:
  - name: echoes
    input: {{n: 1}}
    expect: {{output: {{n: 1}}}}
"""


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        (
            "{type: integer, maximum: 1e6}",
            "9:33: error [TP203] not valid JSON Schema: '1e6' is not of type 'number'"
            " (YAML 1.1 reads 1e6 as a string; write 1000000 or 1.0e+6)",
        ),
        (
            "{type: string, maxLength: 2e3}",
            "9:34: error [TP203] not valid JSON Schema: '2e3' is not of type 'integer'"
            " (YAML 1.1 reads 2e3 as a string; write 2000 or 2.0e+3)",
        ),
    ],
)
def test_a_schema_number_yaml_reads_as_a_string_gets_a_hint(tmp_path: Path, schema: str, problem: str) -> None:
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "echo.yaml").write_text(CONTRACT.format(schema=schema), encoding="utf-8")

    errors = [str(p) for p in load_project(tmp_path).problems if p.level is Level.ERROR]

    assert errors == [f"contracts/echo.yaml:{problem}"]


@pytest.mark.parametrize(
    ("value", "hint"),
    [
        ("1e6", "YAML 1.1 reads 1e6 as a string; write 1000000 or 1.0e+6"),
        ("1E+6", "YAML 1.1 reads 1E+6 as a string; write 1000000 or 1.0e+6"),
        ("2.5e-3", None),  # a dot and a signed exponent: YAML 1.1 reads a number, so this string was quoted
        ("2.5e3", "YAML 1.1 reads 2.5e3 as a string; write 2500 or 2.5e+3"),
        ("-1e-7", "YAML 1.1 reads -1e-7 as a string; write -0.0000001 or -1.0e-7"),
        ("e6", None),
        ("1e", None),
        ("abc", None),
        (1000000, None),
    ],
)
def test_the_hint_names_a_plain_and_a_yaml_1_1_spelling(value: object, hint: str | None) -> None:
    assert number_hint(value) == hint
