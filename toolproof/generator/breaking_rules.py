"""The rules of ``toolproof breaking``: a stable ID, a category and a default level for each.

A project pins its own levels in ``breaking.toml`` beside its settings (or in
``[tool.toolproof.breaking]``): ``RULE_ID = "error" | "warning" | "info" | "off"``.
An unknown rule ID or level there is refused, so a typo never silences a rule.
"""

from __future__ import annotations

import difflib
import enum
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from toolproof.runtime.project import ProjectConfig

__all__ = [
    "DOCS",
    "RULES",
    "SEVERITIES_FILE",
    "BreakingError",
    "Category",
    "Rule",
    "RuleDoc",
    "Severity",
    "load_severities",
]

SEVERITIES_FILE: Final = "breaking.toml"


class BreakingError(Exception):
    """``toolproof breaking`` cannot run: an unknown ref, a folder without contracts, a wrong severities file.

    The command prints the message on one line and exits 2.
    """


class Category(enum.Enum):
    """Who a change can break."""

    WIRE = "WIRE"
    """What callers send and read."""
    ERRORS = "ERRORS"
    """The error catalogue callers and handlers branch on."""
    MODEL = "MODEL"
    """The text the model reads."""
    EXPORT = "EXPORT"
    """What a provider or a host receives."""
    CODE = "CODE"
    """The generated Python."""
    VERSION = "VERSION"
    """The contract's version."""


class Severity(enum.Enum):
    """How a finding is reported; ``off`` drops it."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    OFF = "off"

    @property
    def rank(self) -> int:
        """Higher is worse: ``--fail-on`` fails on findings of this rank or above."""
        return {"error": 3, "warning": 2, "info": 1, "off": 0}[self.value]


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of change, with the level it is reported at unless the project pins another."""

    id: str
    category: Category
    level: Severity
    doc: str


_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO
_WIRE, _ERRORS, _MODEL, _EXPORT, _CODE = Category.WIRE, Category.ERRORS, Category.MODEL, Category.EXPORT, Category.CODE

_TABLE: Final = (
    Rule("WIRE_TOOL_REMOVED", _WIRE, _E, "A tool was removed or its wire name changed."),
    Rule("WIRE_TOOL_ADDED", _WIRE, _I, "A tool was added."),
    Rule("WIRE_INPUT_FIELD_REMOVED", _WIRE, _E, "An input field was removed from a closed object."),
    Rule("WIRE_INPUT_FIELD_IGNORED", _WIRE, _W, "An input field was removed from an object that takes extra keys."),
    Rule("WIRE_INPUT_FIELD_ADDED", _WIRE, _I, "An optional input field was added."),
    Rule("WIRE_INPUT_REQUIRED_ADDED", _WIRE, _E, "A required input field was added."),
    Rule("WIRE_INPUT_FIELD_REQUIRED", _WIRE, _E, "An optional input field became required."),
    Rule("WIRE_INPUT_FIELD_OPTIONAL", _WIRE, _I, "A required input field became optional."),
    Rule("WIRE_INPUT_TYPE_NARROWED", _WIRE, _E, "An input value accepts fewer types (or anyOf branches)."),
    Rule("WIRE_INPUT_TYPE_WIDENED", _WIRE, _I, "An input value accepts more types (or anyOf branches)."),
    Rule("WIRE_INPUT_ENUM_NARROWED", _WIRE, _E, "An input value accepts fewer enum or const values."),
    Rule("WIRE_INPUT_ENUM_WIDENED", _WIRE, _I, "An input value accepts more enum values, or any value."),
    Rule("WIRE_INPUT_CONSTRAINT_TIGHTENED", _WIRE, _E, "An input bound (length, items, range, format) is stricter."),
    Rule("WIRE_INPUT_CONSTRAINT_LOOSENED", _WIRE, _I, "An input bound, pattern or checked format is looser or gone."),
    Rule("WIRE_INPUT_PATTERN_CHANGED", _WIRE, _W, "An input pattern was added or changed."),
    Rule("WIRE_INPUT_CLOSED", _WIRE, _E, "An input object no longer takes extra keys."),
    Rule("WIRE_INPUT_OPENED", _WIRE, _I, "An input object now takes extra keys."),
    Rule("WIRE_INPUT_UNION_CHANGED", _WIRE, _E, "The anyOf/oneOf/allOf branches of an input value changed."),
    Rule("WIRE_OUTPUT_FIELD_REMOVED", _WIRE, _E, "An output field was removed."),
    Rule("WIRE_OUTPUT_FIELD_ADDED", _WIRE, _I, "An output field was added."),
    Rule("WIRE_OUTPUT_FIELD_OPTIONAL", _WIRE, _E, "A required output field became optional."),
    Rule("WIRE_OUTPUT_FIELD_REQUIRED", _WIRE, _I, "An optional output field became required."),
    Rule("WIRE_OUTPUT_TYPE_WIDENED", _WIRE, _E, "An output value may be of more types."),
    Rule("WIRE_OUTPUT_TYPE_NARROWED", _WIRE, _I, "An output value is of fewer types (or anyOf branches)."),
    Rule("WIRE_OUTPUT_ENUM_WIDENED", _WIRE, _E, "An output value may take more enum values, or any value."),
    Rule("WIRE_OUTPUT_ENUM_NARROWED", _WIRE, _I, "An output value takes fewer enum or const values."),
    Rule("WIRE_OUTPUT_CONSTRAINT_LOOSENED", _WIRE, _E, "An output bound (length, items, range, format) is looser."),
    Rule("WIRE_OUTPUT_CONSTRAINT_TIGHTENED", _WIRE, _I, "An output bound, pattern or checked format is stricter."),
    Rule("WIRE_OUTPUT_PATTERN_CHANGED", _WIRE, _W, "An output pattern was removed or changed."),
    Rule("WIRE_OUTPUT_OPENED", _WIRE, _W, "An output object may now carry extra keys."),
    Rule("WIRE_OUTPUT_CLOSED", _WIRE, _I, "An output object no longer carries extra keys."),
    Rule("WIRE_OUTPUT_UNION_CHANGED", _WIRE, _E, "The anyOf/oneOf/allOf branches of an output value changed."),
    Rule("WIRE_KIND_CHANGED", _WIRE, _E, "A contract changed kind (tool, resource, prompt)."),
    Rule("WIRE_RESOURCE_URI_CHANGED", _WIRE, _E, "A resource's URI or URI template changed."),
    Rule("WIRE_RESOURCE_MIME_CHANGED", _WIRE, _E, "A resource's MIME type changed."),
    Rule("WIRE_RESOURCE_SMALLER", _WIRE, _W, "A resource's max_bytes was added or lowered."),
    Rule("WIRE_FORMAT_CHANGED", _WIRE, _W, "An unchecked format changed, or a checked one became another."),
    Rule("WIRE_KEYWORD_CHANGED", _WIRE, _W, "Another validation keyword changed; not compared in detail."),
    Rule("WIRE_ASK_ADDED", _WIRE, _E, "The tool asks the client a new question; clients that cannot answer fail."),
    Rule("WIRE_ASK_REMOVED", _WIRE, _I, "The tool no longer asks a question."),
    Rule("WIRE_ASK_FORM_CHANGED", _WIRE, _E, "A question's kind or form changed; answers made for the old one break."),
    Rule("WIRE_ASK_MESSAGE_CHANGED", _WIRE, _I, "A question's message changed; the user reads another text."),
    Rule("ERRORS_CODE_REMOVED", _ERRORS, _E, "An error code was removed from the catalogue."),
    Rule("ERRORS_CODE_ADDED", _ERRORS, _W, "An error code was added; callers that branch exhaustively miss it."),
    Rule("ERRORS_PARAM_REMOVED", _ERRORS, _E, "An error's message no longer names a parameter."),
    Rule("ERRORS_PARAM_CHANGED", _ERRORS, _E, "An error parameter's type changed."),
    Rule("ERRORS_STATUS_CHANGED", _ERRORS, _W, "An error's HTTP status changed."),
    Rule("MODEL_DESCRIPTION_CHANGED", _MODEL, _W, "The tool's description changed."),
    Rule("MODEL_TITLE_CHANGED", _MODEL, _W, "The tool's title changed."),
    Rule("MODEL_FIELD_DESCRIPTION_CHANGED", _MODEL, _W, "A schema description or title changed."),
    Rule("MODEL_DEFAULT_CHANGED", _MODEL, _W, "A default value changed."),
    Rule("MODEL_ERROR_TEXT_CHANGED", _MODEL, _W, "An error's message template changed."),
    Rule("MODEL_ERROR_HINT_CHANGED", _MODEL, _W, "An error's hint changed."),
    Rule("MODEL_EXAMPLES_CHANGED", _MODEL, _W, "The examples the model is shown changed."),
    Rule("MODEL_RENDER_CHANGED", _MODEL, _W, "A render template changed: the text the model reads differs."),
    Rule("EXPORT_ANNOTATION_UNSAFE", _EXPORT, _E, "read_only became false or destructive became true."),
    Rule("EXPORT_ANNOTATION_CHANGED", _EXPORT, _W, "Another annotation changed."),
    Rule("EXPORT_TOOLSET_LEFT", _EXPORT, _E, "The tool left a tool set."),
    Rule("EXPORT_TOOLSET_JOINED", _EXPORT, _I, "The tool joined a tool set."),
    Rule("EXPORT_NEED_ADDED", _EXPORT, _E, "The tool needs a new resource; hosts without it no longer list it."),
    Rule("EXPORT_SCOPE_ADDED", _EXPORT, _E, "A call needs a new OAuth scope; tokens without it are refused."),
    Rule("EXPORT_STRICT_LOST", _EXPORT, _W, "A provider export is no longer strict."),
    Rule("EXPORT_LOSS_ADDED", _EXPORT, _W, "A provider export loses something it did not lose before."),
    Rule("EXPORT_DIGEST_CHANGED", _EXPORT, _I, "The tool's pinned digest changed: clients that pinned it re-pin."),
    Rule("CODE_CLASS_REMOVED", _CODE, _E, "A generated TypedDict is no longer generated (or was renamed)."),
    Rule("CODE_FIELD_TYPE_CHANGED", _CODE, _W, "The Python annotation of a generated TypedDict field changed."),
    Rule("CODE_FACTORY_PARAM_ADDED", _CODE, _E, "An error factory takes a new keyword its callers do not pass."),
    Rule("VERSION_NOT_BUMPED", Category.VERSION, _E, "A breaking change without a major version bump."),
)

RULES: Final[Mapping[str, Rule]] = {rule.id: rule for rule in _TABLE}
"""Every rule by ID, in the order the documentation lists them."""


@dataclass(frozen=True, slots=True)
class RuleDoc:
    """What a rule's documentation page shows beside its summary: a change it reports, and the fix."""

    example: str
    """The contract before and after the change, in YAML."""
    fix: str
    """What to do about it, in Markdown."""


_NOTHING: Final = "Nothing to fix: the change breaks no caller. The rule is reported at `info` so a review sees it."
_MAJOR: Final = "If the change is meant, bump the major version; otherwise restore"

# fmt: off
DOCS: Final[Mapping[str, RuleDoc]] = {
    "WIRE_TOOL_REMOVED": RuleDoc(
        "# before\nname: echo\n# after\nname: repeat",
        "Keep the old name, or add the new tool beside the old one and remove the old one in a major "
        "release: callers and models call tools by name.",
    ),
    "WIRE_TOOL_ADDED": RuleDoc(
        "# before: no contracts/shout.yaml\n# after: contracts/shout.yaml, a new tool",
        _NOTHING,
    ),
    "WIRE_INPUT_FIELD_REMOVED": RuleDoc(
        "# before\ninput:\n  additionalProperties: false\n  properties:\n    word: {type: string}\n"
        "    loud: {type: boolean}\n# after\ninput:\n  additionalProperties: false\n  properties:\n"
        "    word: {type: string}",
        f"{_MAJOR} the field: a closed object now refuses callers that still send it.",
    ),
    "WIRE_INPUT_FIELD_IGNORED": RuleDoc(
        "# before\ninput:\n  additionalProperties: true\n  properties:\n    word: {type: string}\n"
        "    loud: {type: boolean}\n# after\ninput:\n  additionalProperties: true\n  properties:\n"
        "    word: {type: string}",
        "Check that callers who still send the field do not rely on it: it is now accepted and ignored.",
    ),
    "WIRE_INPUT_FIELD_ADDED": RuleDoc(
        "# before\ninput:\n  properties:\n    word: {type: string}\n# after\ninput:\n  properties:\n"
        "    word: {type: string}\n    loud: {type: boolean, default: false}",
        _NOTHING,
    ),
    "WIRE_INPUT_REQUIRED_ADDED": RuleDoc(
        "# before\ninput:\n  properties:\n    word: {type: string}\n  required: [word]\n# after\ninput:\n"
        "  properties:\n    word: {type: string}\n    language: {type: string}\n"
        "  required: [word, language]",
        f"{_MAJOR} compatibility: make the new field optional with a `default` the handler applies.",
    ),
    "WIRE_INPUT_FIELD_REQUIRED": RuleDoc(
        "# before\ninput:\n  properties:\n    loud: {type: boolean}\n  required: [word]\n# after\ninput:\n"
        "  properties:\n    loud: {type: boolean}\n  required: [word, loud]",
        f"{_MAJOR} the field as optional, with a default the handler applies.",
    ),
    "WIRE_INPUT_FIELD_OPTIONAL": RuleDoc(
        "# before\ninput:\n  properties:\n    loud: {type: boolean}\n  required: [word, loud]\n# after\n"
        "input:\n  properties:\n    loud: {type: boolean}\n  required: [word]",
        _NOTHING,
    ),
    "WIRE_INPUT_TYPE_NARROWED": RuleDoc(
        "# before\ninput:\n  properties:\n    limit: {type: [integer, \"null\"]}\n# after\ninput:\n"
        "  properties:\n    limit: {type: integer}",
        f"{_MAJOR} the types the field accepted.",
    ),
    "WIRE_INPUT_TYPE_WIDENED": RuleDoc(
        "# before\ninput:\n  properties:\n    limit: {type: integer}\n# after\ninput:\n  properties:\n"
        "    limit: {anyOf: [{type: integer}, {type: string}]}",
        _NOTHING,
    ),
    "WIRE_INPUT_ENUM_NARROWED": RuleDoc(
        "# before\ninput:\n  properties:\n    mode: {enum: [fast, safe, exact]}\n# after\ninput:\n"
        "  properties:\n    mode: {enum: [fast, safe]}",
        f"{_MAJOR} the value, and map it to its nearest replacement in the handler.",
    ),
    "WIRE_INPUT_ENUM_WIDENED": RuleDoc(
        "# before\ninput:\n  properties:\n    mode: {enum: [fast, safe]}\n# after\ninput:\n  properties:\n"
        "    mode: {enum: [fast, safe, exact]}",
        _NOTHING,
    ),
    "WIRE_INPUT_CONSTRAINT_TIGHTENED": RuleDoc(
        "# before\ninput:\n  properties:\n    limit: {type: integer, maximum: 1000}\n# after\ninput:\n"
        "  properties:\n    limit: {type: integer, maximum: 100}",
        f"{_MAJOR} the bound: calls that passed before are now refused with `invalid_arguments`.",
    ),
    "WIRE_INPUT_CONSTRAINT_LOOSENED": RuleDoc(
        "# before\ninput:\n  properties:\n    limit: {type: integer, maximum: 100}\n# after\ninput:\n"
        "  properties:\n    limit: {type: integer, maximum: 1000}",
        _NOTHING,
    ),
    "WIRE_INPUT_PATTERN_CHANGED": RuleDoc(
        "# before\ninput:\n  properties:\n    word: {type: string, pattern: \"^[a-z]+$\"}\n# after\n"
        "input:\n  properties:\n    word: {type: string, pattern: \"^[a-z-]+$\"}",
        "Check that every value callers send still matches: whether one pattern accepts more or fewer "
        "strings than another cannot be decided in general, so this is a warning.",
    ),
    "WIRE_INPUT_CLOSED": RuleDoc(
        "# before\ninput:\n  additionalProperties: true\n# after\ninput:\n  additionalProperties: false",
        f"{_MAJOR} the open object: callers sending extra keys are now refused.",
    ),
    "WIRE_INPUT_OPENED": RuleDoc(
        "# before\ninput:\n  additionalProperties: false\n# after\ninput:\n  additionalProperties: true",
        _NOTHING,
    ),
    "WIRE_INPUT_UNION_CHANGED": RuleDoc(
        "# before\ninput:\n  properties:\n    target:\n      anyOf: [{type: string}, {type: integer}]\n"
        "# after\ninput:\n  properties:\n    target:\n"
        "      anyOf: [{type: string}, {type: array, items: {type: integer}}]",
        "Check every branch still accepts what callers send; if not, bump the major version.",
    ),
    "WIRE_OUTPUT_FIELD_REMOVED": RuleDoc(
        "# before\noutput:\n  properties:\n    echo: {type: string}\n    length: {type: integer}\n# after\n"
        "output:\n  properties:\n    echo: {type: string}",
        f"{_MAJOR} the field: callers that read it break.",
    ),
    "WIRE_OUTPUT_FIELD_ADDED": RuleDoc(
        "# before\noutput:\n  properties:\n    echo: {type: string}\n# after\noutput:\n  properties:\n"
        "    echo: {type: string}\n    length: {type: integer}",
        _NOTHING,
    ),
    "WIRE_OUTPUT_FIELD_OPTIONAL": RuleDoc(
        "# before\noutput:\n  properties:\n    length: {type: integer}\n  required: [echo, length]\n"
        "# after\noutput:\n  properties:\n    length: {type: integer}\n  required: [echo]",
        f"{_MAJOR} the field as required: callers that read it unconditionally break when it is absent.",
    ),
    "WIRE_OUTPUT_FIELD_REQUIRED": RuleDoc(
        "# before\noutput:\n  properties:\n    length: {type: integer}\n  required: [echo]\n# after\n"
        "output:\n  properties:\n    length: {type: integer}\n  required: [echo, length]",
        _NOTHING,
    ),
    "WIRE_OUTPUT_TYPE_WIDENED": RuleDoc(
        "# before\noutput:\n  properties:\n    echo: {type: string}\n# after\noutput:\n  properties:\n"
        "    echo: {type: [string, \"null\"]}",
        f"{_MAJOR} the output type: callers now get values they do not handle.",
    ),
    "WIRE_OUTPUT_TYPE_NARROWED": RuleDoc(
        "# before\noutput:\n  properties:\n    echo: {type: [string, \"null\"]}\n# after\noutput:\n"
        "  properties:\n    echo: {type: string}",
        _NOTHING,
    ),
    "WIRE_OUTPUT_ENUM_WIDENED": RuleDoc(
        "# before\noutput:\n  properties:\n    status: {enum: [ok, partial]}\n# after\noutput:\n"
        "  properties:\n    status: {enum: [ok, partial, truncated]}",
        f"{_MAJOR} the set of values: callers that branch on every value miss the new one.",
    ),
    "WIRE_OUTPUT_ENUM_NARROWED": RuleDoc(
        "# before\noutput:\n  properties:\n    status: {enum: [ok, partial, truncated]}\n# after\noutput:\n"
        "  properties:\n    status: {enum: [ok, partial]}",
        _NOTHING,
    ),
    "WIRE_OUTPUT_CONSTRAINT_LOOSENED": RuleDoc(
        "# before\noutput:\n  properties:\n    echo: {type: string, maxLength: 100}\n# after\noutput:\n"
        "  properties:\n    echo: {type: string, maxLength: 1000}",
        f"{_MAJOR} the bound: callers may have sized buffers or prompts by it.",
    ),
    "WIRE_OUTPUT_CONSTRAINT_TIGHTENED": RuleDoc(
        "# before\noutput:\n  properties:\n    echo: {type: string, maxLength: 1000}\n# after\noutput:\n"
        "  properties:\n    echo: {type: string, maxLength: 100}",
        _NOTHING,
    ),
    "WIRE_OUTPUT_PATTERN_CHANGED": RuleDoc(
        "# before\noutput:\n  properties:\n    id: {type: string, pattern: \"^[0-9]+$\"}\n# after\n"
        "output:\n  properties:\n    id: {type: string}",
        "Check that callers do not parse the value by the old pattern.",
    ),
    "WIRE_OUTPUT_OPENED": RuleDoc(
        "# before\noutput:\n  additionalProperties: false\n# after\noutput:\n  additionalProperties: true",
        "Check that callers tolerate extra keys (strict decoders refuse them); close the object again if"
        " not.",
    ),
    "WIRE_OUTPUT_CLOSED": RuleDoc(
        "# before\noutput:\n  additionalProperties: true\n# after\noutput:\n  additionalProperties: false",
        _NOTHING,
    ),
    "WIRE_OUTPUT_UNION_CHANGED": RuleDoc(
        "# before\noutput:\n  properties:\n    size:\n      oneOf: [{type: string}, {type: integer}]\n"
        "# after\noutput:\n  properties:\n    size:\n"
        "      oneOf: [{type: string}, {type: array, items: {type: integer}}]",
        f"{_MAJOR} the branches callers handle.",
    ),
    "WIRE_FORMAT_CHANGED": RuleDoc(
        "# before\ninput:\n  properties:\n    secret: {type: string, format: password}\n# after\ninput:\n"
        "  properties:\n    secret: {type: string, format: byte}",
        "Check callers that produce or parse the value by its format.",
    ),
    "WIRE_KEYWORD_CHANGED": RuleDoc(
        "# before\ninput:\n  properties:\n"
        "    tags: {type: array, items: {type: string}, uniqueItems: false}\n# after\ninput:\n"
        "  properties:\n    tags: {type: array, items: {type: string}, uniqueItems: true}",
        "Review the change by hand: toolproof does not compare this keyword in detail.",
    ),
    "WIRE_ASK_ADDED": RuleDoc(
        "# before: no asks\n# after\nasks:\n  confirm_echo: {kind: confirm, message: \"Echo '{word}'?\"}",
        f"{_MAJOR} compatibility: a call that needed no answer now asks one, and a client that can be asked "
        "neither way (no MCP elicitation: the CLI, REST, provider adapters, MCP clients without the capability) gets "
        "`input_unavailable` where it used to get a result. Every new question is reported: toolproof cannot tell "
        "from the contract on which inputs the handler asks it.",
    ),
    "WIRE_ASK_REMOVED": RuleDoc(
        "# before\nasks:\n  confirm_echo: {kind: confirm, message: \"Echo '{word}'?\"}\n# after: no asks",
        _NOTHING,
    ),
    "WIRE_ASK_FORM_CHANGED": RuleDoc(
        "# before\nasks:\n  tone: {kind: choice, choices: [calm, loud], message: \"Which tone?\"}\n# after\n"
        "asks:\n  tone: {kind: choice, choices: [calm, shouted], message: \"Which tone?\"}",
        f"{_MAJOR} the form: clients and scripts that answer it automatically send values the new form refuses "
        "(an answer that does not fit is refused).",
    ),
    "WIRE_ASK_MESSAGE_CHANGED": RuleDoc(
        "# before\nasks:\n  confirm_echo: {kind: confirm, message: \"Echo '{word}'?\"}\n# after\n"
        "asks:\n  confirm_echo: {kind: confirm, message: \"Echo '{word}' out loud?\"}",
        _NOTHING,
    ),
    "ERRORS_CODE_REMOVED": RuleDoc(
        "# before\nerrors:\n  too_long: {message: \"The word '{word}' is too long\", hint: Shorten it.}\n"
        "# after: no error too_long",
        f"{_MAJOR} the code: callers branch on error codes.",
    ),
    "ERRORS_CODE_ADDED": RuleDoc(
        "# before: no error too_long\n# after\nerrors:\n"
        "  too_long: {message: \"The word '{word}' is too long\", hint: Shorten it.}",
        "Tell callers that branch on every code; callers with a default branch are unaffected.",
    ),
    "ERRORS_PARAM_REMOVED": RuleDoc(
        "# before\nerrors:\n  too_loud:\n    message: \"The word '{word}' is too loud at {volume} dB\"\n"
        "    params: {volume: {type: integer}}\n# after\nerrors:\n  too_loud:\n"
        "    message: \"The word '{word}' is too loud\"",
        f"{_MAJOR} the param: callers read it from the structured error.",
    ),
    "ERRORS_PARAM_CHANGED": RuleDoc(
        "# before\nerrors:\n  too_loud:\n    message: \"The word '{word}' is too loud at {volume}\"\n"
        "    params: {volume: {type: integer}}\n# after\nerrors:\n  too_loud:\n"
        "    message: \"The word '{word}' is too loud at {volume}\"\n    params: {volume: {type: string}}",
        f"{_MAJOR} the param's type.",
    ),
    "ERRORS_STATUS_CHANGED": RuleDoc(
        "# before\nerrors:\n  too_loud: {status: 403}\n# after\nerrors:\n  too_loud: {status: 404}",
        "Check HTTP callers that branch on the status.",
    ),
    "MODEL_DESCRIPTION_CHANGED": RuleDoc(
        "# before\ndescription: Echo a word back.\n# after\ndescription: Repeat a word.",
        "Check the model still picks the tool when it should: re-run your evaluations.",
    ),
    "MODEL_TITLE_CHANGED": RuleDoc(
        "# before\ntitle: Echo\n# after\ntitle: Repeat",
        "Check hosts that show the title.",
    ),
    "MODEL_FIELD_DESCRIPTION_CHANGED": RuleDoc(
        "# before\ninput:\n  properties:\n    word: {type: string, description: The word}\n# after\n"
        "input:\n  properties:\n    word: {type: string, description: \"One word, no spaces\"}",
        "Check the model still fills the field as intended.",
    ),
    "MODEL_DEFAULT_CHANGED": RuleDoc(
        "# before\ninput:\n  properties:\n    limit: {type: integer, default: 100}\n# after\ninput:\n"
        "  properties:\n    limit: {type: integer, default: 50}",
        "Callers that leave the field out now get another behaviour: announce it, or bump the major "
        "version.",
    ),
    "MODEL_ERROR_TEXT_CHANGED": RuleDoc(
        "# before\nerrors:\n  too_loud: {message: \"The word '{word}' is too loud\"}\n# after\nerrors:\n"
        "  too_loud: {message: \"'{word}' is too loud\"}",
        "Check callers or prompts that match on the text; code should branch on the code instead.",
    ),
    "MODEL_ERROR_HINT_CHANGED": RuleDoc(
        "# before\nerrors:\n  too_loud: {hint: Whisper.}\n# after\nerrors:\n"
        "  too_loud: {hint: Use lower case.}",
        "Check the model still recovers from the error as intended.",
    ),
    "MODEL_EXAMPLES_CHANGED": RuleDoc(
        "# before\nexamples:\n  - name: echoes\n    input: {word: hi}\n    expect: {output: {echo: hi}}\n"
        "# after\nexamples:\n  - name: echoes\n    input: {word: hello}\n"
        "    expect: {output: {echo: hello}}",
        "Check the model's calls still look like the examples you want.",
    ),
    "MODEL_RENDER_CHANGED": RuleDoc(
        "# before\nrender:\n  error: \"Error: {message}\"\n# after\nrender:\n"
        "  error: \"Error: {message} ({hint})\"",
        "Check prompts and callers that read the rendered text.",
    ),
    "EXPORT_ANNOTATION_UNSAFE": RuleDoc(
        "# before\nannotations: {read_only: true}\n# after\nannotations: {read_only: false}",
        f"{_MAJOR} the annotation: hosts may auto-approve read-only tools and now must ask.",
    ),
    "EXPORT_ANNOTATION_CHANGED": RuleDoc(
        "# before\nannotations: {idempotent: true}\n# after\nannotations: {idempotent: false}",
        "Check hosts that retry or cache by the annotations.",
    ),
    "EXPORT_TOOLSET_LEFT": RuleDoc(
        "# before\ntoolsets: [text, demo]\n# after\ntoolsets: [text]",
        f"{_MAJOR} the tool set: hosts that serve the set by name lose the tool.",
    ),
    "EXPORT_TOOLSET_JOINED": RuleDoc(
        "# before\ntoolsets: [text]\n# after\ntoolsets: [text, demo]",
        _NOTHING,
    ),
    "WIRE_KIND_CHANGED": RuleDoc(
        "# before\nkind: resource\nresource: {uri: \"notes://{word}\", mime_type: text/plain}\n# after\nkind: prompt",
        f"{_MAJOR} the kind: a tool is called with tools/call, a resource read with resources/read, a prompt got "
        "with prompts/get, so no caller of the old kind reaches the new one. A new contract under a new name "
        "keeps both.",
    ),
    "WIRE_RESOURCE_URI_CHANGED": RuleDoc(
        "# before\nkind: resource\nresource: {uri: \"notes://{word}\", mime_type: text/plain}\n"
        "# after\nkind: resource\nresource: {uri: \"notes://note/{word}\", mime_type: text/plain}",
        f"{_MAJOR} the URI: clients keep resource URIs (in conversations, links, subscriptions), and an old one now "
        "names nothing.",
    ),
    "WIRE_RESOURCE_MIME_CHANGED": RuleDoc(
        "# before\nkind: resource\nresource: {uri: \"notes://{word}\", mime_type: text/plain}\n"
        "# after\nkind: resource\nresource: {uri: \"notes://{word}\", mime_type: text/markdown}",
        f"{_MAJOR} the MIME type: readers choose how to parse the content by it (and text or base64 follows it).",
    ),
    "WIRE_RESOURCE_SMALLER": RuleDoc(
        "# before\nkind: resource\nresource: {uri: \"notes://{word}\", mime_type: text/plain, max_bytes: 65536}\n"
        "# after\nkind: resource\nresource: {uri: \"notes://{word}\", mime_type: text/plain, max_bytes: 4096}",
        "Raise `max_bytes` back if contents of that size are still read; otherwise tell readers, who may now get "
        "`response_too_large` where they got the content.",
    ),
    "EXPORT_NEED_ADDED": RuleDoc(
        "# before\nneeds: [workspace]\n# after\nneeds: [workspace, database]",
        f"{_MAJOR} the needs, or make the handler work without the resource: hosts that do not supply it stop "
        "listing the tool.",
    ),
    "EXPORT_SCOPE_ADDED": RuleDoc(
        "# before\nscopes: [notes:read]\n# after\nscopes: [notes:read, notes:write]",
        f"{_MAJOR} the scopes: callers whose tokens were issued without the new scope get 403 until they "
        "ask their authorization server for it.",
    ),
    "EXPORT_STRICT_LOST": RuleDoc(
        "# before\ninput:\n  properties:\n    note: {type: string}\n# after\ninput:\n  properties:\n"
        "    note: {type: [string, \"null\"]}",
        "Change the schema back into what strict mode allows (see the export's losses), or accept the "
        "loss.",
    ),
    "EXPORT_LOSS_ADDED": RuleDoc(
        "# before\ninput:\n  properties:\n    limit: {type: integer}\n# after\ninput:\n  properties:\n"
        "    limit: {type: integer, maximum: 100}",
        "Accept the loss for that provider in the settings, or avoid the keyword.",
    ),
    "EXPORT_DIGEST_CHANGED": RuleDoc(
        "# before\ndescription: Echo a word.\n# after\ndescription: Echo a word back, unchanged.",
        "Nothing to fix in the contract: any change to the tool's name, title, description, schemas or "
        "annotations changes its digest. Tell the teams that pinned the tool (`tools.lock.json`, "
        "`toolproof verify`) so they review the new definition and pin its digest.",
    ),
    "CODE_CLASS_REMOVED": RuleDoc(
        "# before\noutput:\n  properties:\n    stats:\n      type: object\n"
        "      properties: {length: {type: integer}}\n# after\noutput:\n  properties:\n"
        "    stats: {type: string}",
        f"{_MAJOR} the field or its title: handler code importing the class breaks.",
    ),
    "CODE_FIELD_TYPE_CHANGED": RuleDoc(
        "# before\ninput:\n  properties:\n    limit: {type: integer}\n# after\ninput:\n  properties:\n"
        "    limit: {type: number}",
        "Update handlers; `mypy --strict` shows where.",
    ),
    "CODE_FACTORY_PARAM_ADDED": RuleDoc(
        "# before\nerrors:\n  too_loud:\n    message: \"The word '{word}' is too loud\"\n# after\nerrors:\n"
        "  too_loud:\n    message: \"The word '{word}' is too loud at {volume} dB\"\n"
        "    params: {volume: {type: integer}}",
        f"{_MAJOR} the message, or update every handler that raises the error.",
    ),
    "VERSION_NOT_BUMPED": RuleDoc(
        "# before\nversion: 1.2.0\ninput:\n  additionalProperties: false\n  properties:\n"
        "    word: {type: string}\n    loud: {type: boolean}\n# after\n"
        "version: 1.3.0                # a minor bump\ninput:\n  additionalProperties: false\n"
        "  properties:\n    word: {type: string}   # loud removed: a breaking change",
        "Bump the major version (`2.0.0`), or make the change compatible.",
    ),
}
# fmt: on
"""Each rule's example and fix, by ID: the rule pages of the documentation site."""


def _pins(where: str, table: Any) -> dict[str, Severity]:
    if not isinstance(table, Mapping):
        raise BreakingError(f"{where}: the severities must be a table of RULE_ID = level")
    pins: dict[str, Severity] = {}
    levels = ", ".join(s.value for s in Severity)
    for rule, level in table.items():
        if rule not in RULES:
            close = difflib.get_close_matches(rule, RULES, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise BreakingError(f"{where}: unknown rule ID {rule!r}{hint}")
        try:
            pins[rule] = Severity(level)
        except ValueError:
            raise BreakingError(f"{where}: {rule} = {level!r} is not one of {levels}") from None
    return pins


def _read_toml(path: Path, where: str) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise BreakingError(f"{where}: cannot be read ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise BreakingError(f"{where}: is not valid TOML ({exc})") from None


def _in_settings(config: ProjectConfig) -> tuple[str, Any] | None:
    """``[tool.toolproof.breaking]`` (``[breaking]`` in a toolproof.toml that holds its settings at the top), if any."""
    if config.config_file is None:
        return None
    name = config.config_file.name
    data = _read_toml(config.config_file, name)
    tool = data.get("tool")
    table = tool.get("toolproof") if isinstance(tool, Mapping) else None
    label = "[tool.toolproof.breaking]"
    if table is None and name == "toolproof.toml":
        table, label = data, "[breaking]"
    if not isinstance(table, Mapping) or "breaking" not in table:
        return None
    return f"{name} {label}", table["breaking"]


def load_severities(config: ProjectConfig) -> dict[str, Severity]:
    """Every rule's level for the project: the defaults, with the project's pins applied.

    Raises:
        BreakingError: the pins name an unknown rule or level, or are in both places.
    """
    levels = {rule.id: rule.level for rule in _TABLE}
    path = config.root / SEVERITIES_FILE
    settings = _in_settings(config)
    if path.is_file() and settings is not None:
        raise BreakingError(f"{SEVERITIES_FILE} and {settings[0]} both pin severities; keep one")
    if path.is_file():
        levels.update(_pins(SEVERITIES_FILE, _read_toml(path, SEVERITIES_FILE)))
    elif settings is not None:
        levels.update(_pins(*settings))
    return levels
