"""What a generated conformance test says when its example cannot run as written, or its result differs."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.testing.resource_project import toolproof
from toolproof.runtime.context import ToolContext
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.result import ToolResult
from toolproof.runtime.spec import load_specs
from toolproof.testing.mcp import _Script
from toolproof.testing.replay import ExampleFailure, check_expectation, project_tool, replay


def _handler(args: Any, ctx: ToolContext) -> Any:
    raise AssertionError("a tool the host does not serve is never called")


def test_a_tool_whose_resource_the_host_lacks_is_named_as_not_served_not_as_unknown(tmp_path: Path) -> None:
    spec = next(spec for spec in load_specs() if spec.name == "get_skill")
    tool = BoundTool.build(replace(spec, needs=("notes_db",)), _handler)
    example = {"name": "lists", "input": {"skill_name": "calculator"}, "expect": {"output_has": ["content"]}}

    with pytest.raises(ExampleFailure) as failure:
        replay(tool, example, tmp_path)

    message = str(failure.value)
    assert "tool 'get_skill' is not served: it needs notes_db, which this host was not given" in message
    assert "unknown" not in message.lower()


_SUMMARY_CONTRACT = """\
name: summarise
version: 0.1.0
title: Summarise
description: >-
  Count a text's words and lines, and tag it. Use it when the user asks what a text holds.
annotations: {read_only: true, destructive: false, idempotent: true, open_world: false}
input:
  type: object
  properties:
    text: {type: string, description: The text.}
  required: [text]
  additionalProperties: false
output:
  type: object
  $defs:
    count: {$ref: "#/$defs/natural"}
    natural: {type: integer, minimum: 0}
  properties:
    words: {$ref: "#/$defs/count"}
    about:
      type: object
      properties:
        lines: {$ref: "#/$defs/count"}
        tags: {type: array, items: {type: string}}
      required: [lines, tags]
      additionalProperties: false
  required: [words, about]
  additionalProperties: false
errors: {}
examples:
  - name: counts the words of a text
    input: {text: "to be or not"}
    expect: {output_includes: {words: 4}}
  - name: tags a text
    input: {text: "to be"}
    expect: {output: {words: 2, about: {lines: 1, tags: [short, plain, prose]}}}
"""

_SUMMARY_HANDLER = '''\
"""summarise: count and tag a text."""

from __future__ import annotations

from generated import summarise as contract
from toolproof.runtime import ToolContext


def handle(args: contract.SummariseInput, ctx: ToolContext) -> contract.SummariseOutput:
    """Every text is short, plain prose here."""
    text = args["text"]
    return {"words": len(text.split()), "about": {"lines": len(text.splitlines()), "tags": ["short", "plain", "prose"]}}
'''


@pytest.fixture
def summary_project(tmp_path: Path) -> Path:
    """A project made as a user makes one, whose `summarise` output types its fields by `$ref`."""
    folder = tmp_path / "texts"
    folder.mkdir()
    for argv in (["init", "."], ["new", "summarise"]):
        made = toolproof(*argv, cwd=folder)
        assert made.returncode == 0, made.stderr
    (folder / "contracts" / "summarise.yaml").write_text(_SUMMARY_CONTRACT, encoding="utf-8")
    (folder / "handlers" / "summarise.py").write_text(_SUMMARY_HANDLER, encoding="utf-8")
    return folder


def _conformance_test(folder: Path) -> subprocess.CompletedProcess[str]:
    generated = toolproof("gen", cwd=folder)
    assert generated.returncode == 0, generated.stderr
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "generated/tests/test_summarise.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_output_includes_on_a_field_typed_by_ref_lints_generates_and_passes(summary_project: Path) -> None:
    ran = _conformance_test(summary_project)

    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "2 passed" in ran.stdout


def test_an_example_wrong_in_one_nested_field_fails_showing_only_that_field(summary_project: Path) -> None:
    contract = summary_project / "contracts" / "summarise.yaml"
    text = contract.read_text(encoding="utf-8")
    contract.write_text(text.replace("tags: [short, plain, prose]", "tags: [short, clear, prose]"), encoding="utf-8")

    ran = _conformance_test(summary_project)

    assert ran.returncode == 1, ran.stdout + ran.stderr
    shown = [line.removeprefix("E").strip() for line in ran.stdout.splitlines() if line.startswith("E ")]
    assert shown == [
        "toolproof.testing.replay.ExampleFailure: example 'tags a text': the output differs in 1 place:",
        '$.about.tags[1]: expected "clear", got "plain"',
    ]


def test_a_failing_example_names_each_changed_missing_and_extra_field_by_its_path() -> None:
    expected = {"id": 7, "owner": {"name": "ann", "tags": ["a", "b"]}, "gone": True}
    got = {"id": 7, "owner": {"name": "bob", "tags": ["a"]}, "new": None}

    with pytest.raises(ExampleFailure) as failure:
        check_expectation("an example", {"output": expected}, ToolResult("t", got, None, "{}"))

    assert str(failure.value) == (
        "example 'an example': the output differs in 4 places:\n"
        '  $.owner.name: expected "ann", got "bob"\n'
        '  $.owner.tags[1]: missing, expected "b"\n'
        "  $.gone: missing, expected true\n"
        "  $.new: not expected, got null"
    )


def test_a_long_string_that_differs_is_shown_from_a_little_before_its_first_difference() -> None:
    expected = {"text": "x" * 300}
    got = {"text": "x" * 250 + "y" + "x" * 49}

    with pytest.raises(ExampleFailure) as failure:
        check_expectation("long", {"output": expected}, ToolResult("t", got, None, "{}"))

    (line,) = str(failure.value).splitlines()[1:]
    assert line == f'  $.text: expected ..."{"x" * 70}", got ..."{"x" * 20}y{"x" * 49}"'


CONFORMANCE_PROJECT = Path(__file__).parents[1] / "conformance_project"


def _multi_round(answers: list[dict[str, Any]], tmp_path: Path) -> ToolResult:
    tool, config = project_tool("test_input_required_result_multi_round", CONFORMANCE_PROJECT)
    example = {"name": "scripted", "input": {}, "answers": answers, "expect": {"output_has": ["text"]}}
    return replay(tool, example, tmp_path, project=config)


STEP1 = {"ask": "step1", "action": "accept", "value": {"name": "Ada"}}
STEP2 = {"ask": "step2", "action": "accept", "value": {"color": "red"}}


def test_scripted_answers_reach_the_handler_in_the_order_it_asks(tmp_path: Path) -> None:
    assert _multi_round([STEP1, STEP2], tmp_path).output == {"text": "Ada likes red."}


@pytest.mark.parametrize(
    ("answers", "problem"),
    [
        ([STEP2, STEP1], "the tool asked 'step1' ('Step 1: What is your name?'), but answer 1 answers 'step2'"),
        ([STEP1], "the tool asked 'step2' ('Step 2: What is your favorite color, Ada?'), which no answer answers"),
        (
            [{"ask": "step1", "action": "decline"}, STEP2],
            "the tool never asked 'step2', which answer 2 answers",  # no name, no second question
        ),
    ],
)
def test_an_example_whose_script_the_tool_does_not_follow_fails_naming_where(
    tmp_path: Path, answers: list[dict[str, Any]], problem: str
) -> None:
    with pytest.raises(ExampleFailure) as failure:
        _multi_round(answers, tmp_path)

    assert str(failure.value) == f"example 'scripted': {problem}"


def test_conform_checks_each_request_against_the_next_scripted_question() -> None:
    tool, _ = project_tool("test_input_required_result_multi_round", CONFORMANCE_PROJECT)
    script = _Script(tool.spec, {"name": "scripted", "input": {}, "answers": [STEP1, STEP2]})
    form = dict(tool.spec.asks["step1"].schema)

    reply = script(
        {"method": "elicitation/create", "params": {"message": "Step 1: What is your name?", "requestedSchema": form}}
    )
    assert reply == {"result": {"action": "accept", "content": {"name": "Ada"}}}
    script({"method": "elicitation/create", "params": {"message": "Pick a colour", "requestedSchema": form}})
    script({"method": "sampling/createMessage", "params": {}})

    with pytest.raises(ExampleFailure) as failure:
        script.finish()
    assert str(failure.value) == (
        "example 'scripted': the server asked 'Pick a colour', where question 'step2'"
        " ('Step 2: What is your favorite color, {name}?') came next; the server sent a sampling/createMessage"
        " request, which this client does not serve"
    )


def test_conform_fails_an_example_whose_scripted_answer_the_server_never_asked_for() -> None:
    tool, _ = project_tool("test_input_required_result_multi_round", CONFORMANCE_PROJECT)
    script = _Script(tool.spec, {"name": "scripted", "input": {}, "answers": [STEP1]})

    with pytest.raises(ExampleFailure) as failure:
        script.finish()

    assert str(failure.value) == "example 'scripted': the server never asked 'step1', which the example answers"
