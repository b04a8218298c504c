"""What lint's lines say: each missing field named once, and a render.error whose {hint} an error leaves empty."""

from __future__ import annotations

import pytest

from tests.conftest import MakeProject
from toolproof.generator import Level, load_project
from toolproof.runtime.validation import SchemaValidator

REQUIRED = ("annotations", "description", "errors", "examples", "input", "name", "output", "version")
"""The contract format's required fields that `title: x` lacks."""


def test_a_contract_missing_fields_names_each_once(make_project: MakeProject) -> None:
    root = make_project({"old.yaml": "title: x\n"})

    problems = [str(p) for p in load_project(root).problems]

    assert problems == [
        f"contracts/old.yaml:1:1: error [TP101] contract format: $.{field}: required property is missing"
        for field in REQUIRED
    ]


def test_each_missing_argument_is_named_by_its_own_refusal() -> None:
    schema = {"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "required": ["a", "b", "c"]}

    problems = SchemaValidator(schema).problems({"b": 1})

    assert sorted(problems) == ["$.a: required property is missing", "$.c: required property is missing"]


ECHO = """\
name: echo
version: 0.1.0
title: Echo
description: Echo a word back.
annotations: {{read_only: true, destructive: false, idempotent: true, open_world: false}}
input:
  type: object
  properties:
    word: {{type: string}}
  required: [word]
  additionalProperties: false
output: {{type: object, properties: {{echo: {{type: string}}}}, required: [echo]}}
errors:
  too_loud:
    message: "The word '{{word}}' is too loud"
    hint: Whisper it.
  too_quiet:
    message: "The word '{{word}}' is too quiet"
render:{render}
examples:
  - name: echoes a word
    input: {{word: hi}}
    expect: {{output: {{echo: hi}}}}
  - name: refuses shouting
    input: {{word: HI}}
    expect: {{error: too_loud}}
  - name: refuses whispering
    input: {{word: hi}}
    expect: {{error: too_quiet}}
"""


def _contract(render_error: str | None) -> str:
    render = f'\n  error: "{render_error}"' if render_error is not None else " {}"
    return ECHO.format(render=render)


def _warnings(make_project: MakeProject, render_error: str | None) -> list[str]:
    root = make_project({"echo.yaml": _contract(render_error)})
    project = load_project(root)
    assert project.ok, [str(p) for p in project.problems]
    return [str(p) for p in project.problems if p.level is Level.WARNING]


def test_a_render_error_naming_hint_warns_at_each_error_without_one(make_project: MakeProject) -> None:
    warnings = _warnings(make_project, "ERROR: {message} ({hint})")

    assert warnings == [
        "contracts/echo.yaml:17:3: warning [TP112] error 'too_quiet' has no hint, but render.error names {hint}: its"
        " text would read 'ERROR: The word '{word}' is too quiet ()'; give the error a hint (a retry that can work,"
        " or not to retry)"
    ]


@pytest.mark.parametrize("render_error", [None, "ERROR: {message}", "{code}: {message}"])
def test_a_render_error_without_hint_needs_no_hints(make_project: MakeProject, render_error: str | None) -> None:
    assert _warnings(make_project, render_error) == []
