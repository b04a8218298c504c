"""Problems found in contracts, collected as values and reported all at once, and the rules that find them.

Every problem names its rule: a stable ID (``TP201``) and a kebab-case name
(``unknown-keyword``). IDs never change meaning and are never reused, so CI
configuration, SARIF baselines and people can rely on them. The first digit
groups the rules: 0 the file and its YAML, 1 the contract format and catalogue,
2 the JSON Schemas, 3 the examples, 4 the project and its exports.

Rules enforced by ajv's strict mode (``new Ajv2020({strict: true})``) are
errors, so a contract that lint passes compiles there too; see
``contracts/README.md`` for the list and the few known differences.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

__all__ = ["RULES", "Level", "Problem", "Rule", "rule"]


class Level(enum.Enum):
    """How bad a problem is: errors stop generation, warnings and notes do not."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Level):
            return NotImplemented
        order = list(Level)
        return order.index(self) < order.index(other)


@dataclass(frozen=True, slots=True, order=True)
class Rule:
    """One check: its stable ID, its name, its usual level and what it finds."""

    id: str
    name: str
    level: Level
    summary: str

    def at(self, file: str, line: int, column: int, message: str, level: Level | None = None) -> Problem:
        """A problem this rule found, at its usual level unless ``level`` says otherwise."""
        return Problem(file, line, column, message, level or self.level, self)


@dataclass(frozen=True, slots=True, order=True)
class Problem:
    """One problem, located where a person can fix it: ``contracts/x.yaml:12:5: error [TP201] message``."""

    file: str
    line: int
    column: int
    message: str
    level: Level
    rule: Rule

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.level.value} [{self.rule.id}] {self.message}"


_E, _W, _N = Level.ERROR, Level.WARNING, Level.NOTE

# fmt: off
RULES: Final[dict[str, Rule]] = {
    r.id: r
    for r in (
        # 0: the file and its YAML
        Rule("TP001", "unreadable-file", _E, "The file cannot be read, or is not UTF-8."),
        Rule("TP002", "yaml-syntax", _E, "The file is not valid YAML."),
        Rule("TP003", "yaml-tab-indent", _E, "A tab indents a line; YAML allows only spaces."),
        Rule("TP004", "yaml-too-deep", _E, "The YAML nests too deep, or its anchors recurse."),
        Rule("TP005", "yaml-too-large", _E, "The YAML expands to too many nodes (aliases)."),
        Rule("TP006", "empty-file", _E, "The file holds no YAML document."),
        Rule("TP007", "duplicate-key", _E, "A mapping names the same key twice."),
        Rule("TP008", "non-string-key", _E, "A mapping key is not a string, as JSON keys are."),
        Rule("TP009", "unquoted-date", _E, "An unquoted value reads as a YAML date."),
        Rule("TP010", "not-json-value", _E, "A value JSON cannot hold: NaN, infinity, binary."),
        # 1: the contract format and its catalogue
        Rule("TP101", "contract-format", _E, "The contract breaks the contract format's meta-schema."),
        Rule("TP102", "file-name", _E, "The file is not named after the tool's module."),
        Rule("TP103", "duplicate-tool", _E, "Two contracts, or a contract and a built-in, share a name."),
        Rule("TP104", "module-clash", _E, "Two tools share a module or a generated file, or one has a reserved name."),
        Rule("TP105", "standard-code", _E, "The catalogue redefines a standard error code."),
        Rule("TP106", "template-syntax", _E, "A message or render template does not parse."),
        Rule("TP107", "unknown-placeholder", _E, "A template placeholder names nothing it may name."),
        Rule("TP108", "unused-param", _E, "An error param is not used in its message."),
        Rule("TP109", "skill-gate", _E, "The skill gate names fields or codes the contract lacks."),
        Rule("TP110", "dynamic-enum", _E, "A dynamic enum names a field that cannot take one."),
        Rule("TP111", "error-output", _E, "render.error_output names a value no error has, or no such object."),
        Rule("TP112", "missing-hint", _W, "render.error names {hint}, but a catalogue error has no hint."),
        # 2: the JSON Schemas (input, output, error params)
        Rule("TP201", "unknown-keyword", _E, "A key that is no JSON Schema 2020-12 keyword (ajv strictSchema)."),
        Rule("TP202", "null-in-schema", _E, "A schema key without a value: a YAML flow mapping cut by a comma."),
        Rule("TP203", "invalid-schema", _E, "A schema breaks the JSON Schema 2020-12 meta-schema."),
        Rule("TP204", "schema-dialect", _E, "$schema names a dialect other than 2020-12."),
        Rule("TP205", "strict-types", _E, "A keyword for a type the schema does not declare (ajv strictTypes)."),
        Rule("TP206", "strict-tuple", _E, "prefixItems without a fixed length (ajv strictTuples)."),
        Rule("TP207", "strict-required", _E, "required names a property no properties defines (ajv strictRequired)."),
        Rule("TP208", "unresolved-ref", _E, "A $ref points at nothing in its schema."),
        Rule("TP209", "invalid-regex", _E, "A pattern the runtime's engines (re, jsonschema-rs) cannot compile."),
        Rule("TP210", "regex-not-ecma", _E, "A pattern ECMA-262 unicode mode (JSON Schema's dialect) refuses."),
        Rule("TP211", "unknown-format", _E, "A format neither JSON Schema 2020-12 nor OpenAPI defines."),
        Rule("TP212", "ignored-keyword", _E, "A keyword without effect where it stands (ajv strictSchema)."),
        Rule("TP213", "pattern-matches-property", _E, "A property a patternProperties pattern also matches (ajv)."),
        # 3: the examples
        Rule("TP301", "duplicate-example", _E, "Two examples share a name (the test id)."),
        Rule("TP302", "fixture-path", _E, "A fixture path climbs out of the test folder."),
        Rule("TP303", "example-skill-token", _E, "An example sets skill_token, but the contract has no gate."),
        Rule("TP304", "example-input", _E, "An example's input breaks the input schema."),
        Rule("TP305", "example-input-valid", _E, "An example expects invalid_arguments, but its input is valid."),
        Rule("TP306", "example-output", _E, "An example's output breaks the output schema."),
        Rule("TP307", "example-error-code", _E, "An example expects an error code the catalogue lacks."),
        Rule("TP308", "example-message", _E, "An example's message does not match its error's template."),
        Rule("TP309", "example-text", _E, "An example's text is not what the render templates produce."),
        Rule("TP310", "error-without-example", _W, "A catalogue error that no example exercises."),
        # 4: the project and its exports
        Rule("TP401", "no-contracts", _E, "The contracts folder holds no contract."),
        Rule("TP402", "unknown-toolset", _E, "include names no built-in tool set."),
        Rule("TP403", "provider-limit", _E, "An export breaks a limit a provider enforces per request."),
        Rule("TP404", "export-loss", _N, "An export dropped or rewrote part of a schema (error if strict)."),
        Rule("TP405", "accept-losses", _E, "An accept-losses entry in the settings is malformed."),
        Rule("TP406", "unused-accepted-loss", _W, "An accept-losses entry that matches no loss of its provider."),
        Rule("TP407", "version-not-bumped", _E, "With --against: a change that breaks callers kept the major version."),
        Rule("TP408", "orphan-handler", _E, "A module of the handlers package serves no contract; serve refuses it."),
    )
}
# fmt: on
"""Every rule, by ID, in ID order."""

_BY_NAME: Final = {r.name: r for r in RULES.values()}


def rule(name: str) -> Rule:
    """The rule called ``name`` (its kebab-case name).

    Raises:
        KeyError: no rule has that name.
    """
    return _BY_NAME[name]
