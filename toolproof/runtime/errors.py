"""Errors of the runtime, and the standard catalogue every contract inherits.

The tree::

    ToolproofError          base of every error the runtime raises on purpose
     ├── ToolError          a catalogued failure of one call; carries a code the model reads
     ├── RegistryError      contracts and handlers do not match at start-up (exit code 1)
     │    └── UnknownToolset  a host was asked for a tool set no contract is in (a usage error: exit code 2)
     ├── FileAccessError    the file layer refused or failed a path (see toolproof.builtin.files.access)
     ├── GateSecretError    the skill gate's secret is missing, empty or too short (see toolproof.builtin.skills.gate)
     ├── GateDocumentError  the skill gate's document cannot be read now; the gated tool refuses every call
     └── AdapterInputError  a provider adapter was handed another shape than it reads (also a TypeError)

A handler fails only by raising ``ToolError`` through the typed factories that
``make gen`` writes for its contract (``errors.file_not_found(file_path=...)``).
The dispatcher turns bad arguments into ``invalid_arguments``, a name nobody
registered into ``unknown_tool``, a result larger than the host's cap into
``response_too_large``, a handler that outlives its contract's ``timeout`` into
``timed_out``, a question no client can answer (``ToolContext.ask``) into
``input_unavailable``, and any other exception into ``internal_error``, whose
message is a fixed sentence: no traceback and no host path ever reaches a model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from toolproof.runtime.template import Template

__all__ = [
    "ASK_ERRORS",
    "DEFAULT_ERROR_TEXT",
    "INPUT_UNAVAILABLE",
    "INTERNAL_ERROR",
    "INVALID_ARGUMENTS",
    "MAX_SHOWN_CHARS",
    "RESPONSE_TOO_LARGE",
    "STANDARD_ERRORS",
    "TIMED_OUT",
    "UNKNOWN_TOOL",
    "AdapterInputError",
    "RegistryError",
    "StandardError",
    "ToolError",
    "ToolproofError",
    "UnknownToolset",
    "http_status",
    "inherited_errors",
    "shown",
]

INVALID_ARGUMENTS: Final = "invalid_arguments"
UNKNOWN_TOOL: Final = "unknown_tool"
INTERNAL_ERROR: Final = "internal_error"
RESPONSE_TOO_LARGE: Final = "response_too_large"
TIMED_OUT: Final = "timed_out"
INPUT_UNAVAILABLE: Final = "input_unavailable"


@dataclass(frozen=True, slots=True)
class StandardError:
    """A catalogue entry that the runtime itself produces."""

    message: str
    """Its message, a ``Template`` source: ``{name}`` placeholders filled from the error's params."""
    hint: str
    status: int
    template: Template = field(init=False, repr=False, compare=False)
    """``message`` parsed once, as a contract's messages are."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "template", Template(self.message))

    def render(self, params: Mapping[str, object]) -> str:
        """The message with its placeholders filled from ``params`` (``Template``'s grammar).

        Raises:
            KeyError: a placeholder names a key that ``params`` lacks.
        """
        return self.template.render(params)


STANDARD_ERRORS: Final[Mapping[str, StandardError]] = {
    INVALID_ARGUMENTS: StandardError(
        message="Invalid arguments: {detail}",
        hint="Correct the argument named in the message and call the tool again.",
        status=422,
    ),
    UNKNOWN_TOOL: StandardError(
        message="Unknown tool '{tool}'. Available tools: {available}.",
        hint="Call one of the available tools by its exact name.",
        status=404,
    ),
    INTERNAL_ERROR: StandardError(
        message="The tool failed with an internal error. The failure has been logged.",
        hint="Try the call again later, or continue without this tool.",
        status=500,
    ),
    RESPONSE_TOO_LARGE: StandardError(
        message="The result is too large to return: about {size} bytes; the limit is {limit}.",
        hint="Ask for less: a smaller range or limit, or a narrower request.",
        status=413,
    ),
    TIMED_OUT: StandardError(
        message="The tool did not finish within {seconds} s.",
        hint="Ask for less work in one call (a smaller range, a narrower request), or continue without this tool.",
        status=504,
    ),
}
"""Codes every contract inherits, with their message templates."""

ASK_ERRORS: Final[Mapping[str, StandardError]] = {
    INPUT_UNAVAILABLE: StandardError(
        message="The tool needs the user to answer '{question}' ({prompt}), and {reason}.",
        hint="Call the tool from a client that can ask its user (MCP elicitation), or continue without it.",
        status=428,
    ),
}
"""Codes a contract that declares ``asks`` inherits besides ``STANDARD_ERRORS``: a question no client answered."""


def inherited_errors(asks: bool) -> Mapping[str, StandardError]:
    """The runtime's codes a contract inherits: ``STANDARD_ERRORS``, and ``ASK_ERRORS`` when it ``asks``."""
    return {**STANDARD_ERRORS, **ASK_ERRORS} if asks else STANDARD_ERRORS


DEFAULT_ERROR_TEXT: Final = Template("ERROR: {message}")
"""What the model reads for an error when its tool's ``render.error`` cannot be used (or there is no tool)."""


MAX_SHOWN_CHARS: Final = 256
"""The longest argument value an error message echoes whole: past it, its first characters and ``...``.

A file or folder name is at most 255 bytes on common file systems, so any one
name is echoed whole; only a longer path or a made-up value is clipped. The
model wrote the value and can see it in its own call: an error need not hand
back 100 KB of it.
"""


def shown(value: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """``value`` as an error message echoes it: whole, or clipped to ``limit`` characters ending in ``...``.

    Handlers pass every argument they echo through this before it becomes an
    error's param, so the message, the text and any ``render.error_output``
    built from the params stay small whatever the caller sent.
    """
    return value if len(value) <= limit else value[: limit - 3] + "..."


_FORBIDDEN_WORDS: Final = ("permission", "denied", "outside", "traversal", "token")


def http_status(code: str) -> int:
    """The HTTP status a catalogued code is served with, unless its contract says otherwise.

    ``*not_found*`` is 404; permission, denial, escapes and skill tokens are 403;
    ``*too_large*`` is 413; the standard codes have their own; the rest is 422
    (the request was understood and refused).
    """
    standard = STANDARD_ERRORS.get(code) or ASK_ERRORS.get(code)
    if standard is not None:
        return standard.status
    if "not_found" in code:
        return 404
    if any(word in code for word in _FORBIDDEN_WORDS):
        return 403
    if "too_large" in code:
        return 413
    return 422


class ToolproofError(Exception):
    """Base class of the errors the runtime raises on purpose."""


class ToolError(ToolproofError):
    """A catalogued failure of one tool call; ``code`` is what callers branch on."""

    def __init__(
        self,
        code: str,
        message: str,
        params: Mapping[str, object] | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.params: Mapping[str, object] = params or {}
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def __repr__(self) -> str:
        return f"ToolError(code={self.code!r}, message={self.message!r}, params={dict(self.params)!r})"


class RegistryError(ToolproofError):
    """Contracts and handlers do not match, or contract data cannot be loaded."""

    exit_code: Final = 1

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


class UnknownToolset(RegistryError):
    """A host was asked to serve a tool set none of the project's contracts is in; the message names those there are.

    A mistake in how the command was called, not in the project: the commands exit 2 for it, as for a usage error.
    """


class AdapterInputError(ToolproofError, TypeError):
    """A provider adapter was handed another shape than the response it reads (code ``wrong_shape``).

    Raised instead of answering no tool call at all: a block list passed where the message
    belongs would otherwise read as a message that asks for nothing.
    """

    code: Final = "wrong_shape"

    def __init__(self, adapter: str, expected: str, given: str) -> None:
        super().__init__(f"{adapter}: expected {expected}; given {given}")
        self.adapter = adapter
        self.expected = expected
        self.given = given
