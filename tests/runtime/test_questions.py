"""``ctx.ask``: a handler asks the client a question its contract declares, and runs again with the answer."""

from __future__ import annotations

from typing import Any

import pytest

from toolproof.runtime.context import ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import INPUT_UNAVAILABLE, INTERNAL_ERROR, STANDARD_ERRORS
from toolproof.runtime.questions import (
    Answer,
    AskSpec,
    InputRequired,
    Question,
    form_problems,
    read_answer,
    requested_schema,
    scripted_answer,
)
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.result import ToolResult
from toolproof.runtime.spec import ToolSpec
from toolproof.runtime.template import Template

CONFIRM = {"kind": "confirm", "message": "Delete '{title}'?", "schema": requested_schema("confirm")}
FOLDER = {
    "kind": "choice",
    "message": "Move '{title}' to which {what}?",
    "schema": requested_schema("choice", ["a", "b"]),
}


def _spec(asks: dict[str, Any] | None = None, timeout: float | None = None) -> ToolSpec:
    return ToolSpec.from_data(
        {
            "name": "tidy",
            "module": "tidy",
            "handler": "tests:tidy",
            **({"asks": asks} if asks is not None else {}),
            **({"timeout": timeout} if timeout is not None else {}),
            "input": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
            "output": {"type": "object", "properties": {"done": {"type": "string"}}, "required": ["done"]},
            "errors": {},
            "render": {"result": "{done}", "error": "ERROR: {message}"},
            "examples": [],
            "source": "contracts/tidy.yaml",
        }
    )


class _Tidy:
    """Asks to confirm, then which folder; counts its runs and what it did."""

    def __init__(self) -> None:
        self.runs = 0
        self.acted: list[str] = []

    def __call__(self, args: Any, ctx: ToolContext) -> dict[str, Any]:
        self.runs += 1
        if not ctx.ask("confirm").accepted:
            return {"done": "kept"}
        folder = ctx.ask("folder", what="folder")
        self.acted.append(f"{args['title']}->{folder.value}")
        return {"done": f"moved to {folder.value}"}


def _runtime(handler: Any, asks: dict[str, Any] | None = None, timeout: float | None = None) -> Runtime:
    spec = _spec({"confirm": CONFIRM, "folder": FOLDER} if asks is None else asks, timeout)
    return Runtime([BoundTool.build(spec, handler)], validate_output=True)


def test_a_question_comes_back_rendered_and_the_handler_runs_again_with_each_answer() -> None:
    handler = _Tidy()
    runtime = _runtime(handler)

    first = runtime.call_asking("tidy", {"title": "notes"}, answers={})
    assert first == Question("confirm", "confirm", "Delete 'notes'?", {"type": "object", "properties": {}})
    second = runtime.call_asking("tidy", {"title": "notes"}, answers={"confirm": Answer("accept", None, "confirm")})
    assert isinstance(second, Question)
    assert (second.name, second.message) == ("folder", "Move 'notes' to which folder?")
    assert second.elicitation() == {
        "mode": "form",
        "message": "Move 'notes' to which folder?",
        "requestedSchema": {
            "type": "object",
            "properties": {"choice": {"type": "string", "enum": ["a", "b"]}},
            "required": ["choice"],
        },
    }
    answers = {"confirm": Answer("accept", None, "confirm"), "folder": Answer("accept", {"choice": "b"}, "choice")}
    done = runtime.call_asking("tidy", {"title": "notes"}, answers=answers)

    assert isinstance(done, ToolResult)
    assert (done.output, done.text) == ({"done": "moved to b"}, "moved to b")
    assert handler.runs == 3
    assert handler.acted == ["notes->b"]  # it acted once: after its last question


def test_a_declined_confirmation_ends_the_call_without_acting() -> None:
    handler = _Tidy()

    result = _runtime(handler).call_asking("tidy", {"title": "x"}, answers={"confirm": Answer("decline")})

    assert isinstance(result, ToolResult)
    assert result.output == {"done": "kept"}
    assert handler.acted == []


def test_a_caller_that_cannot_be_asked_gets_input_unavailable_naming_the_question() -> None:
    handler = _Tidy()

    result = _runtime(handler).call("tidy", {"title": "notes"})

    assert result.error is not None
    assert result.error.code == INPUT_UNAVAILABLE
    assert result.error.message == (
        "The tool needs the user to answer 'confirm' (Delete 'notes'?), and this caller cannot ask its user"
        " (only MCP clients with elicitation can)."
    )
    assert result.text == f"ERROR: {result.error.message}"
    assert handler.acted == []


def test_only_a_contract_that_asks_inherits_input_unavailable() -> None:
    assert INPUT_UNAVAILABLE in _spec({"confirm": CONFIRM}).errors
    assert INPUT_UNAVAILABLE not in _spec().errors
    assert INPUT_UNAVAILABLE not in STANDARD_ERRORS


def test_a_question_the_contract_does_not_declare_is_an_internal_error(caplog: pytest.LogCaptureFixture) -> None:
    def handler(args: Any, ctx: ToolContext) -> dict[str, Any]:
        ctx.ask("cofnirm")
        return {"done": "never"}

    result = _runtime(handler).call_asking("tidy", {"title": "x"}, answers={})

    assert isinstance(result, ToolResult)
    assert result.error is not None and result.error.code == INTERNAL_ERROR
    assert "asked 'cofnirm', which its contract does not declare; add it to the contract's `asks`" in caplog.text


def test_a_handler_that_catches_every_exception_still_lets_its_question_through() -> None:
    def handler(args: Any, ctx: ToolContext) -> dict[str, Any]:
        try:
            ctx.ask("confirm")
        except Exception:
            return {"done": "swallowed"}
        return {"done": "asked"}

    result = _runtime(handler).call_asking("tidy", {"title": "x"}, answers={})

    assert isinstance(result, Question)


def test_a_handler_with_a_timeout_asks_from_its_worker_thread() -> None:
    result = _runtime(_Tidy(), timeout=5).call_asking("tidy", {"title": "x"}, answers={})

    assert isinstance(result, Question) and result.name == "confirm"


def test_a_handler_called_outside_the_runtime_raises_input_required() -> None:
    ctx = ToolContext("tidy", spec=_spec({"confirm": CONFIRM}))

    with pytest.raises(InputRequired) as raised:
        ctx.ask("confirm", title="x")

    assert raised.value.question.message == "Delete 'x'?"


def test_an_answer_reads_as_the_kind_of_its_question() -> None:
    choice = AskSpec("folder", "choice", Template("?"), requested_schema("choice", ["a", "b"]))
    value = AskSpec("who", "value", Template("?"), {"type": "object", "properties": {"name": {"type": "string"}}})

    assert read_answer({"action": "accept", "content": {"choice": "a"}}, choice) == Answer(
        "accept", {"choice": "a"}, "choice"
    )
    assert Answer("accept", {"choice": "a"}, "choice").value == "a"
    assert Answer("accept", {"name": "Ada"}, "value").value == {"name": "Ada"}
    assert Answer("decline", None, "value").value is None
    assert Answer("accept", None, "confirm").accepted
    assert read_answer({"action": "cancel", "content": {"x": 1}}, value) == Answer("cancel", None, "value")
    assert read_answer(12345, value) == "it is not an object with an action"
    assert read_answer({"action": "maybe"}, value) == "its action must be one of accept, decline, cancel"
    assert read_answer({"action": "accept", "content": []}, value) == "its content must be an object"
    assert read_answer({"action": "accept", "content": {"name": 1}}, value, lambda c: c.get("name") != 1) == (
        "its content does not fit the question's form"
    )


def test_a_scripted_answer_is_the_elicit_result_a_client_sends() -> None:
    assert scripted_answer("confirm", "accept") == {"action": "accept"}
    assert scripted_answer("choice", "accept", "b") == {"action": "accept", "content": {"choice": "b"}}
    assert scripted_answer("value", "accept", {"name": "Ada"}) == {"action": "accept", "content": {"name": "Ada"}}
    assert scripted_answer("value", "decline", {"name": "Ada"}) == {"action": "decline"}


def test_a_form_is_a_flat_object_of_primitive_and_multi_select_fields() -> None:
    good = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
        },
        "required": ["name"],
    }
    bad = {"type": "object", "properties": {"where": {"type": "object"}}, "required": ["name"], "minProperties": 1}

    assert form_problems(good) == []
    assert [path for path, _ in form_problems(bad)] == [("minProperties",), ("properties", "where"), ("required",)]
    assert form_problems({"type": "string"}) == [(("type",), "a form is an object: type: object")]
