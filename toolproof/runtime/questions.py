"""What a tool may ask the client while it runs: a confirmation, a choice, a value (multi-round input).

A contract declares its questions under ``asks`` (name, kind, message template and, for a value, a
schema); ``make gen`` writes each with the form MCP elicitation sends (``requestedSchema``: a flat
object of primitive fields). A handler asks through its context::

    answer = ctx.ask("confirm_delete", title=args["title"])
    if not answer.accepted:
        return {"deleted": False}

The runtime is synchronous and keeps nothing between calls, so a question is asked by *re-running*
the handler: ``ctx.ask`` returns the answer when the call already holds one, and otherwise raises
``InputRequired``, which ends this run of the handler. The transport then asks the client (MCP
2026-07-28: an ``input_required`` result the client retries with ``inputResponses``; 2025-11-25: an
``elicitation/create`` request on the same connection) and calls the tool again with every answer
so far. A handler therefore asks before it acts, and runs again from the top with the answers: what
it did before its last question it does again, so only reads belong there.

Where no client can answer (the CLI, the REST routes, provider adapters, an MCP client without the
``elicitation`` capability), a question ends the call in the catalogued ``input_unavailable``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final, Literal

from toolproof.runtime.template import Template

__all__ = [
    "ACTIONS",
    "CHOICE_FIELD",
    "KINDS",
    "Answer",
    "AskSpec",
    "InputRequired",
    "Question",
    "answering",
    "current_asking",
    "form_problems",
    "read_answer",
    "requested_schema",
    "scripted_answer",
]

KINDS: Final = ("confirm", "choice", "value")
"""What a question may ask for: a yes or no, one of listed values, a value with a schema."""
ACTIONS: Final = ("accept", "decline", "cancel")
"""How a user may answer (MCP ``ElicitResult.action``): submit, refuse, or dismiss without choosing."""
CHOICE_FIELD: Final = "choice"
"""The field of a choice question's form that holds the chosen value."""

Action = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True, slots=True)
class AskSpec:
    """One question a contract declares: its kind, its message template and the form the client fills."""

    name: str
    kind: str
    message: Template
    schema: Mapping[str, Any]
    """The ``requestedSchema`` of its elicitation: a flat object of primitive fields (empty for a confirmation)."""

    @classmethod
    def from_data(cls, name: str, data: Mapping[str, Any]) -> AskSpec:
        """Build one from the generated contract JSON (``asks.<name>``)."""
        return cls(name, data["kind"], Template(data["message"]), data["schema"])


@dataclass(frozen=True, slots=True)
class Question:
    """A question as the client is asked it: its name, its rendered message and the form to fill."""

    name: str
    kind: str
    message: str
    schema: Mapping[str, Any]

    def elicitation(self) -> dict[str, Any]:
        """The params of MCP's ``elicitation/create`` (form mode) for this question."""
        return {"mode": "form", "message": self.message, "requestedSchema": dict(self.schema)}


@dataclass(frozen=True, slots=True)
class Answer:
    """The client's answer to one question: what the user did, and the form they submitted."""

    action: Action
    content: Mapping[str, Any] | None = None
    """The submitted fields (only when ``action`` is ``accept``, and the form has fields)."""
    kind: str = "value"

    @property
    def accepted(self) -> bool:
        """Whether the user submitted the form (for a confirmation: said yes)."""
        return self.action == "accept"

    @property
    def value(self) -> Any:
        """What was chosen or entered: a choice's value, a value question's fields; None unless accepted."""
        if not self.accepted:
            return None
        content = self.content or {}
        if self.kind == "choice":
            return content.get(CHOICE_FIELD)
        if self.kind == "confirm":
            return None
        return dict(content)

    def to_wire(self) -> dict[str, Any]:
        """The MCP ``ElicitResult`` this answer is."""
        out: dict[str, Any] = {"action": self.action}
        if self.content is not None:
            out["content"] = dict(self.content)
        return out


class InputRequired(BaseException):
    """Raised by ``ToolContext.ask`` when the call holds no answer yet: the transport asks, and runs the tool again.

    A ``BaseException``, as ``GeneratorExit`` is, so a handler's ``except Exception`` does not swallow it.
    """

    def __init__(self, question: Question) -> None:
        super().__init__(question.name)
        self.question = question


_asking: ContextVar[tuple[Mapping[str, Answer] | None, Mapping[str, Any]]] = ContextVar(
    "toolproof_asking", default=(None, {})
)


@contextmanager
def answering(answers: Mapping[str, Answer] | None, arguments: Mapping[str, Any]) -> Iterator[None]:
    """Give the calls made inside this block ``answers`` (None: the caller cannot be asked) and their arguments.

    The arguments fill a question's message placeholders, beside what the handler passes to ``ask``.
    """
    token = _asking.set((answers, arguments))
    try:
        yield
    finally:
        _asking.reset(token)


def current_asking() -> tuple[Mapping[str, Answer] | None, Mapping[str, Any]]:
    """The answers the call running now holds (None when its caller cannot be asked), and its arguments."""
    return _asking.get()


def read_answer(data: Any, ask: AskSpec, is_valid: Callable[[Any], bool] | None = None) -> Answer | str:
    """The answer an MCP ``ElicitResult`` gives to ``ask``, or what is wrong with it.

    Args:
        data: the client's result, as decoded JSON.
        ask: the question it answers.
        is_valid: a check of accepted content against the question's form (None: not checked).
    """
    if not isinstance(data, Mapping):
        return "it is not an object with an action"
    action = data.get("action")
    if action not in ACTIONS:
        return f"its action must be one of {', '.join(ACTIONS)}"
    content = data.get("content")
    if action != "accept":
        return Answer(action, None, ask.kind)
    if content is None:
        content = {}
    if not isinstance(content, Mapping):
        return "its content must be an object"
    if is_valid is not None and not is_valid(content):
        return "its content does not fit the question's form"
    return Answer("accept", dict(content), ask.kind)


_PRIMITIVES: Final = frozenset({"string", "number", "integer", "boolean"})


def requested_schema(kind: str, choices: Sequence[str] = (), schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The form a question's elicitation sends (``requestedSchema``), from its contract entry.

    A confirmation has no fields (accept is yes); a choice has one, ``choice``, among ``choices``; a
    value's form is its ``schema``.
    """
    if kind == "confirm":
        return {"type": "object", "properties": {}}
    if kind == "choice":
        field = {"type": "string", "enum": list(choices)}
        return {"type": "object", "properties": {CHOICE_FIELD: field}, "required": [CHOICE_FIELD]}
    return dict(schema) if schema is not None else {"type": "object", "properties": {}}


def scripted_answer(kind: str, action: str, value: Any = None) -> dict[str, Any]:
    """The MCP ``ElicitResult`` an example's scripted answer stands for (``answers: [{ask, action, value}]``)."""
    out: dict[str, Any] = {"action": action}
    if action == "accept" and kind != "confirm":
        out["content"] = {CHOICE_FIELD: value} if kind == "choice" else value
    return out


def form_problems(schema: Mapping[str, Any]) -> list[tuple[tuple[str, ...], str]]:
    """Why ``schema`` is not a form MCP elicitation can send (a flat object of primitive fields): (path, problem)s."""
    if schema.get("type") != "object":
        return [(("type",), "a form is an object: type: object")]
    problems: list[tuple[tuple[str, ...], str]] = []
    allowed = {"type", "properties", "required", "$schema", "title", "description"}
    for key in schema:
        if key not in allowed:
            problems.append(((key,), f"'{key}' is not part of an elicitation form (type, properties, required)"))
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        return [*problems, (("properties",), "properties must be an object")]
    for name, field in properties.items():
        kind = field.get("type") if isinstance(field, Mapping) else None
        if kind in _PRIMITIVES:
            continue
        items = field.get("items") if isinstance(field, Mapping) else None
        multi = kind == "array" and isinstance(items, Mapping) and ("enum" in items or "anyOf" in items)
        if not multi:
            why = "a string, number, integer or boolean field, or an array of enum strings (a multi-select)"
            problems.append((("properties", name), f"field '{name}' must be {why}: forms do not nest"))
    for name in schema.get("required", ()):
        if name not in properties:
            problems.append((("required",), f"required names '{name}', which properties does not define"))
    return problems
