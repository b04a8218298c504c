"""Problems found in contracts, collected as values and reported all at once, and the rules that find them.

Every problem names its rule: a stable ID (``TP201``) and a kebab-case name
(``unknown-keyword``). IDs never change meaning and are never reused, so CI
configuration, SARIF baselines and people can rely on them. The first digit
groups the rules: 0 the file and its YAML, 1 the contract format and catalogue,
2 the JSON Schemas, 3 the examples, 4 the project and its exports, 5 resources, prompts and
questions, 6 client profiles and token budgets, 7 the descriptions a model reads (their levels a
project may change).

Rules enforced by ajv's strict mode (``new Ajv2020({strict: true})``) are
errors, so a contract that lint passes compiles there too; the documentation's
lint pages give the list and the few known differences.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

__all__ = ["DOCS", "RULES", "Level", "Problem", "Rule", "RuleDoc", "rule"]


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
        Rule("TP214", "ref-cycle", _E, "$refs that lead round to themselves with no constraint: any value passes."),
        Rule("TP215", "shared-file", _E, "A shared definition file (contracts/_defs/) that is not one: no $defs."),
        Rule("TP216", "definition-clash", _E, "Two different definitions would take one name in a schema's $defs."),
        Rule("TP217", "unused-definition", _W, "A shared definition (_defs/ or a contract's $defs) nothing uses."),
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
        Rule("TP311", "python-specific-text", _W, "An example pins a text only the Python runtime writes."),
        # 3 (continued): a TypeScript project's settings
        Rule("TP312", "typescript-without-vectors", _W, "A TypeScript project exports no vectors for npm test."),
        Rule("TP313", "provider-sdk-missing", _W, "A provider module compiles against an SDK package.json lacks."),
        # 4: the project and its exports
        Rule("TP401", "no-contracts", _E, "The contracts folder holds no contract."),
        Rule("TP402", "unknown-toolset", _E, "include names no built-in tool set."),
        Rule("TP403", "provider-limit", _E, "An export breaks a limit a provider enforces per request."),
        Rule("TP404", "export-loss", _N, "An export dropped or rewrote part of a schema (error if strict)."),
        Rule("TP405", "accept-losses", _E, "An accept-losses entry in the settings is malformed."),
        Rule("TP406", "unused-accepted-loss", _W, "An accept-losses entry that matches no loss of its provider."),
        Rule("TP407", "version-not-bumped", _E, "With --against: a change that breaks callers kept the major version."),
        Rule("TP408", "orphan-handler", _E, "A module of the handlers package serves no contract; serve refuses it."),
        Rule("TP409", "missing-handler", _E, "A contract's handler module or function is not there; serve refuses it."),
        Rule("TP410", "unknown-need", _E, "needs names no resource the factories supply (a warning without any)."),
        Rule("TP411", "missing-factory", _E, "A resource factory the settings name is not there; serve refuses it."),
        Rule("TP420", "unknown-scope", _E, "scopes names an OAuth scope the project does not declare."),
        Rule("TP421", "missing-middleware", _E, "A middleware the settings name is not there; serve refuses it."),
        Rule("TP422", "unknown-policy-toolset", _E, "A middleware or rate limit names a tool set no tool is in."),
        Rule("TP423", "serve-setting", _E, "A middleware or rate-limits entry is malformed; serve refuses it."),
        Rule("TP430", "publish-setting", _E, "A [tool.toolproof.publish] setting is unknown or of the wrong type."),
        Rule("TP431", "publish-name", _E, "server.json needs a registry name, namespace/name in reverse-DNS form."),
        Rule("TP432", "publish-description", _E, "Publishing needs a description; server.json allows 100 characters."),
        Rule("TP433", "publish-version", _E, "Publishing needs one exact version, not a range nor a dynamic one."),
        Rule("TP434", "publish-author", _E, "An MCPB manifest needs an author."),
        Rule("TP435", "publish-package", _E, "Publishing needs the name of the PyPI package that serves the tools."),
        # 5: resources and prompts
        Rule("TP501", "resource-uri-template", _E, "A resource's URI template uses a form the runtime cannot match."),
        Rule("TP502", "resource-uri-parameters", _E, "A URI template's variables and the input's properties differ."),
        Rule("TP503", "prompt-argument-type", _E, "A prompt argument that is not a string (MCP sends strings)."),
        Rule("TP504", "resource-max-bytes", _E, "An example's expected content is larger than max_bytes."),
        Rule("TP505", "completion-source", _E, "completions names no string argument, or one with an enum."),
        # 55: multi-round input (asks)
        Rule("TP550", "ask-form", _E, "A question lacks what its kind needs, or its form is not an elicitation form."),
        Rule("TP551", "example-answers", _E, "A scripted answer names no question, or its value breaks the form."),
        Rule("TP552", "unscripted-ask", _W, "A question no example answers: conformance never replays it."),
        # 6: client profiles and token budgets
        Rule("TP601", "profile-refused", _E, "A host the project requires (lint.profiles) refuses a tool."),
        Rule("TP602", "profile-rewritten", _N, "A host the project requires rewrites a tool's definition."),
        Rule("TP603", "profile-setting", _E, "lint.profiles or lint.server-name in the settings is wrong."),
        Rule("TP604", "tool-over-budget", _E, "A tool's definition costs more tokens than lint.budgets.tool."),
        Rule("TP605", "toolset-over-budget", _E, "A tool set's definitions cost more tokens than budgets.toolset."),
        Rule("TP606", "budget-setting", _E, "lint.budgets in the settings is wrong."),
        Rule("TP607", "level-setting", _E, "lint.levels in the settings is wrong."),
        # 7: the descriptions a model reads
        Rule("TP701", "thin-description", _N, "A tool's description is under 2 sentences or 12 words."),
        Rule("TP702", "description-without-when", _N, "A tool's description never says when to use it."),
        Rule("TP703", "description-without-result", _N, "A tool's description never says what it returns."),
        Rule("TP704", "near-duplicate-tool", _N, "Two tools of one set read alike and neither names the other."),
        Rule("TP705", "undescribed-parameter", _N, "An input property has no description."),
        Rule("TP706", "undescribed-enum-value", _N, "An enum value its property's description never mentions."),
        Rule("TP707", "error-without-hint", _N, "A catalogue error has no hint, or one of under 3 words."),
        Rule("TP708", "description-too-long", _E, "A tool's description is over 1,024 characters (OpenAI's limit)."),
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


@dataclass(frozen=True, slots=True)
class RuleDoc:
    """What a rule's documentation page shows beside its summary: a contract it reports, and the fix."""

    example: str
    """YAML the rule reports: a fragment of a contract (or of the settings, for the project rules)."""
    fix: str
    """What to change, in Markdown."""


# fmt: off
DOCS: Final[dict[str, RuleDoc]] = {
    # 0: the file and its YAML
    "TP001": RuleDoc(
        "# contracts/echo.yaml is a symbolic link to ~/.ssh/id_rsa, a FIFO, a folder,\n"
        "# a file over 8 MiB, or bytes that are not UTF-8 (a contract saved as Latin-1):\n"
        "description: Echo a word back, café-style   # saved as Latin-1",
        "Save the file as UTF-8, make it a regular file under 8 MiB, and keep links inside the project "
        "folder or the contracts folder: lint never follows a link out of the project, so a pull request "
        "cannot make CI read a file of the machine it runs on.",
    ),
    "TP002": RuleDoc(
        "input:\n  type: object\n    properties:        # indented under a scalar\n      word: {type: string}",
        "Fix the YAML the message points at: indentation, an unclosed bracket or quote. "
        "The position is where the YAML parser gave up; the cause is often a line above it.",
    ),
    "TP003": RuleDoc(
        "input:\n\ttype: object        # a tab",
        "Indent with spaces. Most editors can be told to insert spaces for `.yaml` files.",
    ),
    "TP004": RuleDoc(
        "base: &base\n  nested: *base       # an anchor that contains itself",
        "Flatten the structure or remove the recursive alias. Contracts are data, not programs: "
        "a depth of a few dozen levels is far more than any schema needs.",
    ),
    "TP005": RuleDoc(
        'a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]\n'
        "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]   # ... an alias bomb",
        "Write the values out, or use fewer aliases: lint caps the number of nodes aliases may expand to "
        "so that a hostile contract cannot exhaust memory.",
    ),
    "TP006": RuleDoc(
        "# contracts/echo.yaml holds only comments\n# name: echo",
        "Write the contract, or delete the file. `toolproof new NAME` starts one that passes every check.",
    ),
    "TP007": RuleDoc(
        "input:\n  type: object\n  properties:\n    word: {type: string}\n    word: {type: integer}",
        "Keep one of the two keys. YAML parsers silently keep the last one; lint refuses, "
        "because the first one is almost always what the author meant to keep or merge.",
    ),
    "TP008": RuleDoc(
        "errors:\n  404:                 # an integer key\n    message: Not found",
        'Quote the key (`"404":`) or choose a name: JSON, and so every provider, has only string keys.',
    ),
    "TP009": RuleDoc(
        "examples:\n  - name: echoes a date\n    input: {word: 2026-01-01}\n"
        "# contracts/echo.yaml:3:19: error [TP009] '2026-01-01' reads as a date in YAML; "
        "quote it to keep it a string",
        "Quote the value: `{word: \"2026-01-01\"}`.",
    ),
    "TP010": RuleDoc(
        "input:\n  type: object\n  properties:\n    ratio: {type: number, maximum: .inf}",
        "Drop the value or use a finite one (`maximum: 1000000`). JSON has no NaN, no infinity and no "
        "binary, so no provider could receive it.",
    ),
    # 1: the contract format and its catalogue
    "TP101": RuleDoc(
        "name: echo\nversion: 1.0              # not a semantic version\ntitle: Echo\n"
        "description: Echo a word back.\nannotations: {read_only: true}\n# no errors:, no examples:",
        "Make the contract match the [contract schema](../reference/contract-schema.md): lint reports every "
        "missing or wrong field at once. Here: `version: 1.0.0`, and add `errors: {}` and `examples:`.",
    ),
    "TP102": RuleDoc(
        "# contracts/Echo-Tool.yaml\nname: echo_tool",
        "Rename the file after the tool's module: `contracts/echo_tool.yaml`. "
        "The module name is the tool name with `-` as `_`, lower-cased.",
    ),
    "TP103": RuleDoc(
        "# contracts/read.yaml\nname: read_file     # also the name of a built-in tool the project includes",
        "Rename one of the tools, or drop the built-in set from `include`. "
        "Tool names are what the model calls, so they must be unique in a host.",
    ),
    "TP104": RuleDoc(
        "# contracts/word_count.yaml            name: word_count\n"
        "# contracts/word_count_properties.yaml name: word_count_properties\n"
        "# both would write tests/test_word_count_properties.py",
        "Rename one tool. Names a generated package keeps (`__init__`, `__main__`, `contracts`, `docs`, "
        "`exports`, `tests`) cannot be tool modules either.",
    ),
    "TP105": RuleDoc(
        "errors:\n  invalid_arguments:\n    message: The word is wrong\n"
        "# error [TP105] error code 'invalid_arguments' is a standard code every contract inherits",
        "Use another code (`bad_word`). The standard codes (`invalid_arguments`, `internal_error`, "
        "`timed_out`, `unknown_tool`, ...) are raised by the runtime itself and mean the same for every tool.",
    ),
    "TP106": RuleDoc(
        "errors:\n  too_long:\n    message: \"The word is {length characters long\"\n"
        "# error [TP106] message of error 'too_long': unclosed '{' at offset 12",
        "Close the placeholder (`{length}`), or double a literal brace (`{{`).",
    ),
    "TP107": RuleDoc(
        "input:\n  properties:\n    word: {type: string}\nerrors:\n  too_loud:\n"
        "    message: \"The word is too {adjective}\"\n"
        "# error [TP107] placeholder {adjective} names no input field and no param of error 'too_loud'",
        "Name an input field or one of the error's `params`, or declare the param: "
        "`params: {adjective: {type: string}}` (each param is named, with a JSON Schema of its own).",
    ),
    "TP108": RuleDoc(
        "errors:\n  too_long:\n    message: The word is too long\n"
        "    params:\n      length: {type: integer}\n"
        "# error [TP108] param 'length' is not used in the message",
        "Use the param in the message (`The word is {length} characters long`) or remove it: "
        "a param the message does not show never reaches the model.",
    ),
    "TP109": RuleDoc(
        "skill_gate:\n  document: builtin://read_file/SKILL.md\n  path_argument: path\n"
        "  token_argument: skillToken          # no such input field\n"
        "  token_output: skillToken\n  missing_error: skill_token_required   # not in the catalogue\n"
        "  invalid_error: skill_token_invalid",
        "Make the gate name input and output fields that exist and error codes of the catalogue "
        "(see [the skill gate](../contracts/index.md#the-skill-gate)).",
    ),
    "TP110": RuleDoc(
        "dynamic_enums:\n  count: skills        # count is an integer field\n"
        "# error [TP110] 'count' must be a string input field",
        "Point the dynamic enum at a string field of the input (or at the `items` of an array of strings).",
    ),
    "TP111": RuleDoc(
        "render:\n  error_output:\n    ok: false\n    detail: \"{volume}\"\n"
        "# error [TP111] placeholder {volume} of render.error_output.detail names no input field, "
        "no error param and none of {message}, {code}, {hint}",
        "Name an input field, an error param, or `{message}`, `{code}`, `{hint}`. An example that expects "
        "an error object needs `render.error_output` in its contract.",
    ),
    "TP112": RuleDoc(
        "render:\n  error: \"Error: {message} ({hint})\"\nerrors:\n  not_found:\n"
        "    message: \"No file {path}\"     # no hint: the text would end in '()'",
        "Give every error a `hint` (a retry that can work, or that retrying will not help), "
        "or leave `{hint}` out of `render.error`.",
    ),
    # 2: the JSON Schemas
    "TP201": RuleDoc(
        "input:\n  type: object\n  properties:\n    word: {type: string, minLenght: 1}\n"
        "# error [TP201] unknown keyword 'minLenght' (did you mean 'minLength'?)",
        "Correct the keyword (`minLength`), or prefix an annotation of your own with `x-`. "
        "An unknown keyword is silently ignored by validators, so a typo is a constraint that never holds.",
    ),
    "TP202": RuleDoc(
        "output:\n  properties:\n    echo: {type: string, description: The word, unchanged}\n"
        "# error [TP202] 'unchanged' has no value: a YAML flow mapping cut here? quote the text",
        "Quote the text: `description: \"The word, unchanged\"`.",
    ),
    "TP203": RuleDoc(
        "input:\n  type: object\n  properties:\n    word: {type: text}",
        "Use a JSON Schema type: `string`, `number`, `integer`, `boolean`, `array`, `object` or `null`.",
    ),
    "TP204": RuleDoc(
        "input:\n  $schema: http://json-schema.org/draft-07/schema#\n  type: object",
        "Remove `$schema` (contracts are 2020-12) or name "
        "`https://json-schema.org/draft/2020-12/schema`; translate draft-07 keywords "
        "(`definitions` to `$defs`, `items: [...]` to `prefixItems`).",
    ),
    "TP205": RuleDoc(
        "input:\n  properties:\n    word: {minLength: 1}\n"
        "# error [TP205] 'minLength' applies only to strings: add type: string",
        "Declare the type the keyword applies to: `{type: string, minLength: 1}`.",
    ),
    "TP206": RuleDoc(
        "input:\n  properties:\n    point:\n      type: array\n"
        "      prefixItems: [{type: number}, {type: number}]\n"
        "# error [TP206] prefixItems describes 2 item(s): set minItems: 2 and maxItems: 2 (or items: false)",
        "Fix the length: add `minItems: 2` and `items: false` (or `maxItems: 2`).",
    ),
    "TP207": RuleDoc(
        "input:\n  type: object\n  properties:\n    word: {type: string}\n  required: [text]\n"
        "  additionalProperties: false\n"
        "# error [TP207] required property 'text' is not in properties and additionalProperties is false:\n"
        "#   no object can pass",
        "Name a property that `properties` defines (`required: [word]`), or define the property.",
    ),
    "TP208": RuleDoc(
        "input:\n  type: object\n  properties:\n    where: {$ref: \"#/$defs/place\"}\n"
        "  $defs:\n    location: {type: string}\n"
        "# error [TP208] $ref '#/$defs/place' resolves to nothing: '#/$defs' has no 'place'",
        "Point the `$ref` at a definition of the same schema (`#/$defs/location`), of the contract's `$defs`, or "
        "of a shared definition file (`_defs/desk.yaml#/$defs/Person`), or add the definition. A reference "
        "that leaves the contracts folder's `_defs` (`..`, an absolute path, a URL) is refused.",
    ),
    "TP209": RuleDoc(
        "input:\n  properties:\n    word: {type: string, pattern: \"[a-z\"}\n"
        "# error [TP209] pattern '[a-z' does not compile: unterminated character set at position 0",
        "Fix the regular expression (`[a-z]+`). The runtime compiles every pattern with Python's `re` "
        "and jsonschema-rs, so it must compile in both.",
    ),
    "TP210": RuleDoc(
        "input:\n  properties:\n    word: {type: string, pattern: \"(?i)^[a-z]+$\"}\n"
        "# error [TP210] pattern '(?i)^[a-z]+$' is not ECMA-262 (position 0): inline flags such as\n"
        "#   '(?i)' are Python-only; ECMA-262 sets flags outside the pattern",
        "Use syntax ECMA-262 accepts in unicode mode (`^[A-Za-z]+$`): inline flags, `\\A`, `\\Z`, "
        "possessive quantifiers and named groups in Python's spelling are not JSON Schema regular expressions.",
    ),
    "TP211": RuleDoc(
        "input:\n  properties:\n    when: {type: string, format: datetime}\n"
        "# error [TP211] unknown format 'datetime' (did you mean 'date-time'?)",
        "Use a defined format (`date-time`), or describe the format in `description` and check it "
        "with a `pattern`.",
    ),
    "TP212": RuleDoc(
        "input:\n  properties:\n    word: {type: string, minLength: 1, then: {maxLength: 5}}\n"
        "# error [TP212] 'then' without 'if' has no effect",
        "Add the `if` the `then` belongs to, or remove the keyword.",
    ),
    "TP213": RuleDoc(
        "input:\n  type: object\n  properties:\n    word: {type: string}\n"
        "  patternProperties:\n    \"^w\": {type: string}\n"
        "# error [TP213] property 'word' also matches patternProperties '^w'",
        "Narrow the pattern so that it matches no named property (`^w_`), or drop the property.",
    ),
    "TP214": RuleDoc(
        "input:\n  properties:\n    word: {$ref: \"#/$defs/a\"}\n"
        "  $defs:\n    a: {$ref: \"#/$defs/b\"}\n    b: {$ref: \"#/$defs/a\"}\n"
        "# error [TP214] $ref '#/$defs/b' leads back here ('#/$defs/b' -> '#/$defs/a') and no schema on the way\n"
        "#   constrains a value: it accepts anything",
        "Give one schema of the loop a constraint (`a: {type: string}`), or point the `$ref` at a real schema: "
        "a loop is fine only through a constraint, as in a tree whose nodes are objects.",
    ),
    "TP215": RuleDoc(
        "# contracts/_defs/desk.yaml\nPerson: {type: object, properties: {name: {type: string}}}\n"
        "# error [TP215] a shared definition file holds its definitions under $defs: ($defs: {Person: {...}})",
        "Put the definitions under `$defs` (`$defs: {Person: {...}}`); beside it a shared file may hold only "
        "`title`, `description` and `$comment`.",
    ),
    "TP216": RuleDoc(
        "$defs:\n  place: {type: string}\ninput:\n  properties:\n    where: {$ref: \"#/$defs/place\"}\n"
        "  $defs:\n    place: {type: integer}\n"
        "# error [TP216] 'place' is defined here and in the contract's $defs, differently; the $refs of this\n"
        "#   schema reach this one: rename one, or remove this copy",
        "Give one of the two definitions another name, or remove the copy: bundling puts every definition a schema "
        "reaches in its own `$defs` under its name, so one name can hold one definition.",
    ),
    "TP217": RuleDoc(
        "# contracts/_defs/desk.yaml\n$defs:\n  Person: {type: object}\n  Priority: {enum: [low, high]}\n"
        "# warning [TP217] shared definition 'Priority' is used by no contract; use it\n"
        "#   ($ref: _defs/desk.yaml#/$defs/Priority) or remove it",
        "Refer to the definition from a contract (`$ref: \"_defs/desk.yaml#/$defs/Priority\"`) or remove it: "
        "a definition nobody uses drifts unseen.",
    ),
    # 3: the examples
    "TP301": RuleDoc(
        "examples:\n  - name: echoes\n    input: {word: hi}\n    expect: {output: {echo: hi}}\n"
        "  - name: echoes\n    input: {word: yo}\n    expect: {output: {echo: yo}}",
        "Give each example its own name: it is the id of its generated test.",
    ),
    "TP302": RuleDoc(
        "examples:\n  - name: echoes a fixture\n    given:\n      files:\n        ../../etc/passwd: \"root\"\n"
        "    input: {word: hi}\n    expect: {output: {echo: hi}}\n"
        "# error [TP302] fixture path '../../etc/passwd' must not contain '..'",
        "Keep fixture paths relative and inside the test folder: `notes/a.txt`.",
    ),
    "TP303": RuleDoc(
        "examples:\n  - name: echoes\n    skill_token: valid\n    input: {word: hi}\n"
        "    expect: {output: {echo: hi}}\n# the contract has no skill_gate\n"
        "# error [TP303] skill_token needs a skill_gate in the contract",
        "Remove `skill_token`, or give the contract a `skill_gate`.",
    ),
    "TP304": RuleDoc(
        "input:\n  properties:\n    word: {type: string, minLength: 1}\n  required: [word]\n"
        "examples:\n  - name: echoes\n    input: {text: hi}\n    expect: {output: {echo: hi}}\n"
        "# error [TP304] example input breaks the input schema: $.text: unexpected property (allowed: word)",
        "Make the input valid (`{word: hi}`). An example that means to show a refusal expects "
        "`{error: invalid_arguments}`.",
    ),
    "TP305": RuleDoc(
        "examples:\n  - name: refuses an empty word\n    input: {word: hi}\n"
        "    expect: {error: invalid_arguments}\n"
        "# error [TP305] the example expects invalid_arguments, but its input is valid",
        "Give the example an input the schema refuses (`{word: \"\"}`), or expect the tool's real result.",
    ),
    "TP306": RuleDoc(
        "output:\n  properties:\n    echo: {type: string}\n  required: [echo]\n"
        "examples:\n  - name: echoes\n    input: {word: hi}\n    expect: {output: {echoed: hi}}\n"
        "# error [TP306] example output breaks the output schema: $.echo: required property is missing",
        "Make the expected output valid against the output schema (`{echo: hi}`).",
    ),
    "TP307": RuleDoc(
        "errors:\n  too_loud: {message: \"The word '{word}' is too loud\"}\n"
        "examples:\n  - name: refuses shouting\n    input: {word: HI}\n    expect: {error: too_lound}\n"
        "# error [TP307] error code 'too_lound' is not in the catalogue",
        "Use a code the catalogue defines (`too_loud`) or a standard code, or add the error to `errors`.",
    ),
    "TP308": RuleDoc(
        "errors:\n  too_loud: {message: \"The word '{word}' is too loud\"}\n"
        "examples:\n  - name: refuses shouting\n    input: {word: HI}\n"
        "    expect: {error: too_loud, message: \"HI is too loud\"}\n"
        "# error [TP308] the message does not match the template of 'too_loud': \"The word '{word}' is too loud\"",
        "Write the message the template produces for the example's input and params "
        "(`The word 'HI' is too loud`), or leave `message` out and let the test check the code only.",
    ),
    "TP309": RuleDoc(
        "render:\n  result: \"{echo}\"\nexamples:\n  - name: echoes\n    input: {word: hi}\n"
        "    expect: {output: {echo: hi}, text: \"Echo: hi\"}\n"
        "# error [TP309] the text does not match the output rendered by render.result:\n"
        "#   expected 'Echo: hi', rendered 'hi'",
        "Write the text the render templates produce for the expected output (`hi`), or change `render`.",
    ),
    "TP310": RuleDoc(
        "errors:\n  too_loud: {message: \"The word '{word}' is too loud\"}\n"
        "examples:\n  - name: echoes\n    input: {word: hi}\n    expect: {output: {echo: hi}}\n"
        "# warning [TP310] error 'too_loud' has no example",
        "Add an example that ends in the error (`input: {word: HI}`, `expect: {error: too_loud}`), "
        "so the generated tests prove the handler can raise it. An error no example can set up (a fault of the "
        "host) says why in `no_example: ...` and is tested by your own tests.",
    ),
    "TP311": RuleDoc(
        "examples:\n  - name: refuses an empty word\n    input: {word: \"\"}\n"
        "    expect:\n      error: invalid_arguments\n"
        "      message: \"Invalid arguments: $.word: must be at least 1 character(s) long (got '')\"\n"
        "# warning [TP311] the message of the standard error 'invalid_arguments' is the Python runtime's:\n"
        "#   its detail is the Python validator's sentence; pin the code and the JSON path\n"
        "#   (text_contains: [\"Invalid arguments: $.word:\"])",
        "Pin what every language agrees on: the code and the JSON path "
        "(`expect: {error: invalid_arguments, text_contains: [\"Invalid arguments: $.word:\"]}`), and the output "
        "rather than a text that shows a number or an object as Python writes its JSON (`2.0`, `1e+16`, "
        "`{\"a\": 1}`, where `JSON.stringify` writes `2`, `10000000000000000`, `{\"a\":1}`): "
        "`toolproof conform` holds servers in any language to these examples.",
    ),
    "TP312": RuleDoc(
        "# toolproof.toml\nexports = [\"mcp\"]\n\n[export]\nlanguages = [\"typescript\"]\n"
        "# warning [TP312] a TypeScript project whose exports lack \"vectors\": the npm test of\n"
        "#   `toolproof init --lang typescript` replays generated/exports/vectors/, which gen will not write",
        "Add `vectors` to `exports` (`exports = [\"mcp\", \"vectors\"]`), or replace the project's test with one of "
        "your own.",
    ),
    "TP313": RuleDoc(
        "# toolproof.toml\nexports = [\"mcp\", \"vectors\", \"openai\"]\n\n[export]\nlanguages = [\"typescript\"]\n"
        "# warning [TP313] exports names openai: gen writes generated/typescript/providers/openai.ts, which\n"
        "#   compiles against the openai package, and package.json lists none; `npm install --save-dev openai@7.55.0`",
        "Install the provider's SDK as a development dependency (its types only are used): "
        "`npm install --save-dev openai@7.55.0` for `openai` and `openai-responses`, "
        "`npm install --save-dev @anthropic-ai/sdk@1.10.0` for `anthropic`; or drop the format from `exports`.",
    ),
    # 4: the project and its exports
    "TP401": RuleDoc(
        "# pyproject.toml\n[tool.toolproof]\ncontracts = \"contracts\"   # an empty folder",
        "Add a contract (`toolproof new NAME`), or point `contracts` at the folder that holds them.",
    ),
    "TP402": RuleDoc(
        "# pyproject.toml\n[tool.toolproof]\ninclude = [\"gateways\"]",
        "Name a built-in tool set (`toolproof toolsets` lists them): `include = [\"gateway\"]`.",
    ),
    "TP403": RuleDoc(
        "input:\n  properties:\n    mode: {enum: [fast, 1, true]}   # Gemini's OpenAPI subset: one type per enum\n"
        "# error [TP403] provider limit: gemini-openapi: echo:input/properties/mode: cannot be expressed:\n"
        "#   enum \"fast\", 1, true: the parameters form takes string enums only",
        "Stay within what every provider the project exports to can say and accept (one type per enum, "
        "nesting depth, number of properties, enum size, total characters), or change the schema.",
    ),
    "TP404": RuleDoc(
        "input:\n  properties:\n    word: {type: string, minLength: 1}\n"
        "# note [TP404] openai: echo:input/properties/word:minLength moved to description\n"
        "#   (OpenAI strict mode rejects it; the runtime still enforces it)",
        "Usually nothing: the runtime still validates every call against the contract. Under "
        "`--strict-export`, accept the loss per provider in the settings "
        "(see [Accepting export losses](../contracts/lint.md#accepting-export-losses)) or change the schema.",
    ),
    "TP405": RuleDoc(
        "# pyproject.toml\n[tool.toolproof.export]\naccept-losses.openai = [\"*:input/properties/*\"]  # no part",
        "Write each entry as `TOOL:SCHEMA[POINTER][:KEYWORD]`, e.g. `\"*:input/properties/*:minLength\"`.",
    ),
    "TP406": RuleDoc(
        "# pyproject.toml\n[tool.toolproof.export]\naccept-losses.gemini = [\"*:input/properties/*:maxLength\"]",
        "Remove the entry: no export to that provider loses what it accepts any more, and a stale entry "
        "would hide a future loss.",
    ),
    "TP407": RuleDoc(
        "# at --against main: version: 1.2.0, input.required: [word]\n"
        "version: 1.3.0\ninput:\n  required: [word, language]   # a required field added",
        "Bump the major version (`2.0.0`), or make the change compatible (an optional field with a default). "
        "`toolproof breaking` shows each breaking change under its own rule.",
    ),
    "TP408": RuleDoc(
        "# handlers/echo.py exists, but no contract names echo\n"
        "# handlers/echo.py:1:1: error [TP408] handler module handlers.echo serves no contract",
        "Remove the module, add its contract, or make it private (`handlers/_echo.py`): serve refuses to "
        "start beside a public handler module that serves nothing.",
    ),
    "TP409": RuleDoc(
        "handler: toolproof.builtin.handlers.read_file:hadnle   # or handlers/echo.py deleted, its contract kept\n"
        "# error [TP409] contract 'echo' has no handler toolproof.builtin.handlers.read_file:hadnle:\n"
        "#   toolproof.builtin.handlers.read_file defines no 'hadnle' (did you mean 'handle'?)",
        "Write the handler (`def handle(args, ctx)` in `handlers/echo.py`), or name the function that serves the "
        "tool in `handler:`. Lint reads the module's source and runs none of it; a package outside the project's "
        "source roots is not judged.",
    ),
    "TP410": RuleDoc(
        "needs: [databse]\n"
        "# with resources = [\"host:resources\"], whose Database class is named database:\n"
        "# error [TP410] needs 'databse', which no resource of the project's factories (host:resources) is named\n"
        "#   (did you mean 'database'?); serve would leave tool 'echo' out",
        "Name a resource one of the project's factories supplies (the `resource` name of its class, "
        "`resource: ClassVar[str] = \"database\"`), or add the factory to the `resources` setting. Lint reads the "
        "factories' source and calls none of them; in a project with no factories it is a warning, as only a "
        "host that builds its own resources can supply one.",
    ),
    "TP411": RuleDoc(
        "# pyproject.toml\n[tool.toolproof]\nresources = [\"host:resorces\"]\n"
        "# error [TP411] resource factory host:resorces is not there: host defines no 'resorces'\n"
        "#   (did you mean 'resources'?); serve, call and conform would refuse the project",
        "Name a function that returns the project's resources as `module:function` (`host:resources`), or write "
        "it. Lint reads the module's source and runs none of it.",
    ),
    "TP420": RuleDoc(
        "scopes: [notes:wirte]\n"
        "# with [tool.toolproof.serve] scopes = [\"notes:read\", \"notes:write\"]:\n"
        "# error [TP420] scope 'notes:wirte' is not one the project declares (did you mean 'notes:write'?)",
        "Name a scope the project declares, or declare it in the settings (`[tool.toolproof.serve] scopes = "
        "[\"notes:read\", \"notes:write\"]`): the declared list is what the authorization server must know how to "
        "issue, so a misspelt scope would make the tool uncallable by every token.",
    ),
    "TP421": RuleDoc(
        "# pyproject.toml\n[[tool.toolproof.serve.middleware]]\nfunction = \"policies:audti\"\n"
        "# error [TP421] middleware policies:audti is not there: policies defines no 'audti'\n"
        "#   (did you mean 'audit'?); serve and call would refuse the project",
        "Name a function `(call, proceed) -> ToolResult` as `module:function` (`policies:audit`), or write it "
        "(see the deployment guide). Lint reads the module's source and runs none of it.",
    ),
    "TP422": RuleDoc(
        "# pyproject.toml\n[[tool.toolproof.serve.rate-limits]]\ncalls = 10\ntoolsets = [\"nots\"]\n"
        "# error [TP422] serve.rate-limits names tool set 'nots', which no tool is in (did you mean 'notes'?);"
        " it would apply to no call",
        "Name a tool set a contract of the project (or a built-in set it includes) is in, as its `toolsets:` "
        "says, or leave `toolsets` out to cover every tool.",
    ),
    "TP423": RuleDoc(
        "# pyproject.toml\n[[tool.toolproof.serve.rate-limits]]\ncalls = 0\n"
        "# error [TP423] serve.rate-limits: calls must be a whole number of calls, at least 1",
        "Write each entry as the deployment guide shows: middleware as `function = \"module:function\"` with "
        "optional `toolsets`; a rate limit as `calls`, `seconds` (default 1), `per` (`subject`, `client` or "
        "`address`, default `subject`) and optional `toolsets`.",
    ),
    "TP430": RuleDoc(
        "# pyproject.toml\n[tool.toolproof.publish]\nformats = [\"server.json\", \"dxt\"]\nnmae = \"io.github.acme/x\"",
        "Use the settings and formats the [publishing page](../publishing.md) lists: `formats` from `server.json` "
        "and `mcpb`, each other setting a non-empty string (`package-arguments` a list of strings).",
    ),
    "TP431": RuleDoc(
        "# pyproject.toml\n[tool.toolproof.publish]\nformats = [\"server.json\"]\nname = \"weather\"",
        "Set `name` to the registry name, `namespace/name` with the namespace in reverse-DNS form that the "
        "registry lets you publish under (`io.github.acme/weather` for the GitHub user or organisation `acme`).",
    ),
    "TP432": RuleDoc(
        "# pyproject.toml: no [project] description, and none in\n[tool.toolproof.publish]\n"
        "formats = [\"server.json\"]",
        "Set `description` in `[tool.toolproof.publish]` (or `[project]`): what the server does, in at most 100 "
        "characters for server.json.",
    ),
    "TP433": RuleDoc(
        "# pyproject.toml\n[project]\ndynamic = [\"version\"]\n[tool.toolproof.publish]\n"
        "formats = [\"mcpb\"]   # or version = \"^1.2\"",
        "Set `version` in `[tool.toolproof.publish]` (or `[project]`) to the exact version being published: "
        "the registry refuses ranges and `latest`, and a dynamic version is known only when the package is built.",
    ),
    "TP434": RuleDoc(
        "# pyproject.toml: [project] has no authors\n[tool.toolproof.publish]\nformats = [\"mcpb\"]",
        "Set `author = \"Name <email>\"` in `[tool.toolproof.publish]`, or `authors` in `[project]`.",
    ),
    "TP435": RuleDoc(
        "# toolproof.toml, with no pyproject.toml [project] name\n[publish]\nformats = [\"server.json\"]",
        "Set `package` to the PyPI package whose console script serves the tools (or `[project] name`): "
        "server.json installs it with uvx, and MCPB names the bundle after it.",
    ),
    # 5: resources and prompts
    "TP501": RuleDoc(
        "kind: resource\nresource: {uri: \"notes://{/path*}\", mime_type: text/plain}\n"
        "# error [TP501] resource.uri: expression '{/path*}' is not supported: write {name} or {+name}, "
        "one variable each",
        "Write each expression as `{name}` (one path segment: no `/`, `?` or `#`) or `{+name}` (any characters, "
        "`/` included), one variable each: those are the RFC 6570 forms a URI can be matched back to without "
        "guessing.",
    ),
    "TP502": RuleDoc(
        "kind: resource\nresource: {uri: \"notes://{key}\", mime_type: text/plain}\n"
        "input: {type: object, properties: {name: {type: string}}, required: [name]}\n"
        "# error [TP502] URI template variable 'key' is not an input property",
        "Make the input's properties exactly the template's variables, each required and each a string "
        "(`input: {type: object, properties: {key: {type: string}}, required: [key]}`): a URI carries every "
        "variable, as text.",
    ),
    "TP503": RuleDoc(
        "kind: prompt\ninput: {type: object, properties: {count: {type: integer}}}\n"
        "# error [TP503] prompt argument 'count' must be a string field (type: string)",
        "Declare each argument `type: string` (with `enum`, `pattern` or `format` to narrow it) and parse it in the "
        "handler: MCP's `prompts/get` sends every argument as a string, and no client converts one.",
    ),
    "TP504": RuleDoc(
        "kind: resource\nresource: {uri: \"notes://today\", mime_type: text/plain, max_bytes: 4}\n"
        "examples:\n  - name: reads today\n    input: {}\n    expect: {output: {text: \"longer than four bytes\"}}\n"
        "# error [TP504] the expected content takes 22 bytes, more than max_bytes (4)",
        "Raise `max_bytes`, or expect a smaller content: a read larger than `max_bytes` ends in "
        "`response_too_large`, so the example could never pass.",
    ),
    "TP505": RuleDoc(
        "kind: prompt\ninput: {type: object, properties: {skill: {type: string}}}\ncompletions: {skil: skills}\n"
        "# error [TP505] completions names 'skil', which is no string argument",
        "Name a string argument of the prompt or a variable of the resource's URI template. An argument with an "
        "`enum`, or a dynamic enum, completes from its values already: leave it out of `completions`.",
    ),
    # 55: multi-round input (asks)
    "TP550": RuleDoc(
        "asks:\n  folder:\n    kind: choice          # no choices\n    message: Move the note to which folder?\n"
        "  address:\n    kind: value\n    message: Where to?\n    schema:\n      type: object\n      properties:\n"
        "        street: {type: object}   # a nested object\n"
        "# error [TP550] question 'folder' is a choice: list its choices\n"
        "# error [TP550] the form of question 'address': field 'street' must be a string, number, integer or\n"
        "#   boolean field, or an array of enum strings (a multi-select): forms do not nest",
        "Give a `choice` its `choices`, a `value` its `schema`, and a `confirm` neither. A value's schema is the form "
        "the client shows (MCP elicitation's `requestedSchema`): an object whose fields are strings, numbers, "
        "integers, booleans, enums or multi-selects, with no nesting; ask for a nested value field by field.",
    ),
    "TP551": RuleDoc(
        "asks:\n  confirm_echo: {kind: confirm, message: \"Echo '{word}'?\"}\nexamples:\n"
        "  - name: echoes once confirmed\n    input: {word: hi}\n"
        "    answers:\n      - {ask: confirm_the_echo, action: accept}   # a name the contract does not ask\n"
        "    expect: {output: {echo: hi}}\n"
        "# error [TP551] the answer names question 'confirm_the_echo', which the contract does not ask\n"
        "#   (it asks confirm_echo)",
        "Name a question under `asks`. With `accept`, give a choice the chosen value (one of its `choices`) and a "
        "value its form's fields (`value: {name: Ada}`), each fitting the form; a confirmation, a `decline` and a "
        "`cancel` carry no value.",
    ),
    "TP552": RuleDoc(
        "asks:\n  confirm_echo: {kind: confirm, message: \"Echo '{word}'?\"}\nexamples:\n"
        "  - name: echoes\n    input: {word: hi}   # answers nothing: runs as a client that\n"
        "    expect: {error: input_unavailable}   #   cannot be asked\n"
        "# warning [TP552] no example answers question 'confirm_echo': script the answer in one\n"
        "#   (answers: [{ask: confirm_echo, ...}])",
        "Add an example whose `answers` script the client's answer to the question (`accept`, and a `decline` or "
        "`cancel` where the tool must then not act): the generated tests and `toolproof conform` replay it, so the "
        "question and what the tool does with each answer are tested.",
    ),
    # 6: client profiles and token budgets
    "TP601": RuleDoc(
        "# pyproject.toml\n[tool.toolproof.lint]\nprofiles = [\"bedrock-agentcore\"]\n"
        "# contracts/tree.yaml: input.properties.node: {$ref: \"#/$defs/node\"}, node holding children: [node]\n"
        "# error [TP601] bedrock-agentcore refuses tool 'tree': input/properties/node: $ref #/$defs/node is\n"
        "#   recursive, so no inlining can remove it",
        "Change the schema so the host takes it (here: a bounded, non-recursive shape), or drop the profile from "
        "`lint.profiles` if the project does not serve that host. `toolproof lint --matrix` shows every tool "
        "against every profile, with the reason, and the [profiles page](../profiles.md) cites each host's source.",
    ),
    "TP602": RuleDoc(
        "# pyproject.toml\n[tool.toolproof.lint]\nprofiles = [\"gemini-cli\"]\n"
        "# note [TP602] gemini-cli rewrites tool 'echo': 2 change(s) (input/properties/when:format moved to "
        "description, ...)",
        "Usually nothing: `toolproof export --for gemini-cli` writes the rewritten definitions, with the loss "
        "report and the token difference. Accept the loss under the profile's name "
        "(`accept-losses.gemini-cli = [\"echo:input/properties/when:format\"]`), which `--strict-export` needs, "
        "or change the schema if the host's rewrite loses what the model needs.",
    ),
    "TP603": RuleDoc(
        "# pyproject.toml\n[tool.toolproof.lint]\nprofiles = [\"claude-code\"]",
        "Name profiles that exist (`toolproof lint --matrix` lists them; here `claude`), as a list of strings; "
        "`server-name` is a string.",
    ),
    "TP604": RuleDoc(
        "# pyproject.toml\n[tool.toolproof.lint.budgets]\ntool = 300\n"
        "# error [TP604] tool 'read_file': its openai definition costs 612 tokens (o200k_base, exact);"
        " the budget is 300",
        "Shorten what the model reads (the description, parameter descriptions, enums), split the tool, or raise "
        "the budget. `toolproof lint --tokens` prints every tool's cost per format.",
    ),
    "TP605": RuleDoc(
        "# pyproject.toml\n[tool.toolproof.lint.budgets]\ntoolset = 1500\n"
        "# error [TP605] tool set 'all': its anthropic definitions cost 2,204 tokens (estimate); the budget is 1500",
        "Make the tools cheaper, split the set into smaller tool sets a host loads one at a time, or raise the "
        "budget.",
    ),
    "TP606": RuleDoc(
        "# pyproject.toml\n[tool.toolproof.lint.budgets]\ntool = \"1k\"",
        "Write `tool` and `toolset` as positive integers (tokens), and `formats` as a list of definition formats "
        "(`openai`, `openai-responses`, `anthropic`, `mcp`, `gemini`, `gemini-openapi`).",
    ),
    "TP607": RuleDoc(
        "# pyproject.toml\n[tool.toolproof.lint.levels]\nTP201 = \"off\"",
        "Name a rule of the 6xx or 7xx groups, by ID or name, with a level: `error`, `warning`, `note` or `off`. "
        "Other rules keep their level: what they find breaks generation, serving or a provider.",
    ),
    # 7: the descriptions a model reads
    "TP701": RuleDoc(
        "description: Reads a file.",
        "Write what the tool does, when to use it (and when not), and what it returns: Anthropic asks for 3-4 "
        "sentences per tool, OpenAI for the purpose of the function and what the output represents.",
    ),
    "TP702": RuleDoc(
        "description: Reads a file from the workspace. Returns its text.",
        "Add when to use the tool, and when not: \"Use this before editing a file, not to list a folder.\" (Anthropic: "
        "say when the tool should be used, and when it shouldn't.)",
    ),
    "TP703": RuleDoc(
        "description: Reads a file from the workspace. Use it before editing the file.",
        "Add what comes back: \"Returns the lines, numbered, and whether more follow.\" (OpenAI: describe what "
        "the output represents.)",
    ),
    "TP704": RuleDoc(
        "# two tools of tool set files:\n# read_file:  Read a text file from the workspace. Returns its lines.\n"
        "# file_read:  Read a file from the workspace. Returns its text lines.",
        "Say in each description when to use it rather than the other, naming it: \"For a window of lines of a "
        "large file use read_file instead.\" Or merge the two tools: near-duplicates make a model guess.",
    ),
    "TP705": RuleDoc(
        "input:\n  properties:\n    path: {type: string}",
        "Describe every parameter, its meaning and format: `path: {type: string, description: The file to read, "
        "relative to the workspace.}`",
    ),
    "TP706": RuleDoc(
        "input:\n  properties:\n    mode: {enum: [fast, exact], description: How to compare.}",
        "Say what each value means in the description: `description: How to compare: fast hashes sizes only, "
        "exact reads both files.`",
    ),
    "TP707": RuleDoc(
        "errors:\n  not_found:\n    message: \"No such word\"",
        "Add a hint that tells the model what to do next: `hint: Check the path, relative to the workspace, then "
        "retry.` (Anthropic: error responses should communicate specific and actionable improvements.)",
    ),
    "TP708": RuleDoc(
        "description: >-\n  (1,103 characters)\n"
        "# OpenAI: Invalid 'tools[13].function.description': string too long (getsentry/sentry-mcp#106)",
        "Keep the description under 1,024 characters: move reference material into a document the tool serves "
        "(as the built-in gateway tools do with their SKILL.md), or into parameter descriptions.",
    ),
}
# fmt: on
"""Each rule's example and fix, by ID: the rule pages of the documentation site."""
