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

__all__ = ["RULES", "SEVERITIES_FILE", "BreakingError", "Category", "Rule", "Severity", "load_severities"]

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
    Rule("WIRE_FORMAT_CHANGED", _WIRE, _W, "An unchecked format changed, or a checked one became another."),
    Rule("WIRE_KEYWORD_CHANGED", _WIRE, _W, "Another validation keyword changed; not compared in detail."),
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
    Rule("EXPORT_STRICT_LOST", _EXPORT, _W, "A provider export is no longer strict."),
    Rule("EXPORT_LOSS_ADDED", _EXPORT, _W, "A provider export loses something it did not lose before."),
    Rule("CODE_CLASS_REMOVED", _CODE, _E, "A generated TypedDict is no longer generated (or was renamed)."),
    Rule("CODE_FIELD_TYPE_CHANGED", _CODE, _W, "The Python annotation of a generated TypedDict field changed."),
    Rule("CODE_FACTORY_PARAM_ADDED", _CODE, _E, "An error factory takes a new keyword its callers do not pass."),
    Rule("VERSION_NOT_BUMPED", Category.VERSION, _E, "A breaking change without a major version bump."),
)

RULES: Final[Mapping[str, Rule]] = {rule.id: rule for rule in _TABLE}
"""Every rule by ID, in the order the documentation lists them."""


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
