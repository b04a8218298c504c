"""Every lint rule, by its ID: a contract that breaks it, and the exact problem lint reports.

Rules an invalid contract in ``invalid/`` already shows are run from there; the others
need a project of their own (two files, settings, bytes that are not UTF-8) and are here.
Then the schema rules' variants: what each accepts and refuses, with its message.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from toolproof.generator import load_project
from toolproof.generator.problems import RULES, Level, rule
from toolproof.generator.schemalint import check_schema
from toolproof.generator.source import load_source
from toolproof.runtime.project import builtin_project

INVALID = Path(__file__).parent / "invalid"
MINIMAL = Path(__file__).parent / "cases" / "minimal" / "contracts" / "echo.yaml"

ECHO = """\
name: {name}
version: 1.0.0
title: Echo
description: Echo a word back.
annotations: {{read_only: true, destructive: false, idempotent: true, open_world: false}}
input:
  type: object
  properties:
    word: {word}
  required: [word]
  additionalProperties: false
output: {{type: object, properties: {{echo: {{type: string}}}}, required: [echo]}}
errors: {{}}
examples:
  - name: echoes
    input: {{word: hi}}
    expect: {{output: {{echo: hi}}}}
"""


def _echo(name: str = "echo", word: str = "{type: string}", extra: str = "") -> str:
    return ECHO.format(name=name, word=word) + extra


@dataclass(frozen=True)
class Case:
    """A project that breaks one rule, and the problem lint must report for it."""

    contracts: dict[str, str | bytes]
    expected: str
    settings: str | None = None
    """The project's pyproject.toml, if it has one."""


GATE = """\
skill_gate:
  document: builtin://read_file/SKILL.md
  path_argument: path
  token_argument: word
  token_output: echo
  missing_error: token_required
  invalid_error: token_invalid
"""

CASES: dict[str, Case] = {
    "TP001": Case(
        {"echo.yaml": b"\xffname: echo\n"}, "contracts/echo.yaml:1:1: error [TP001] the file is not UTF-8 (byte 0)"
    ),
    "TP006": Case({"echo.yaml": "# nothing here\n"}, "contracts/echo.yaml:1:1: error [TP006] the file is empty"),
    "TP008": Case(
        {"echo.yaml": _echo(extra="1: one\n")},
        "contracts/echo.yaml:18:1: error [TP008] mapping keys must be strings, not int (1); quote it",
    ),
    "TP010": Case(
        {"echo.yaml": _echo(extra="metadata: {ratio: .nan}\n")},
        "contracts/echo.yaml:18:19: error [TP010] NaN is not JSON",
    ),
    "TP103": Case(
        {"echo.yaml": _echo(), "echo2.yaml": _echo()},
        "contracts/echo2.yaml:1:7: error [TP103] duplicate tool name 'echo' (also in contracts/echo.yaml)",
    ),
    "TP104": Case(
        {"my_tool.yaml": _echo("my_tool"), "my_tool2.yaml": _echo("my-tool")},
        "contracts/my_tool2.yaml:1:7: error [TP104] tool 'my-tool' maps to module 'my_tool' as does "
        "contracts/my_tool.yaml",
    ),
    "TP108": Case(
        {
            "echo.yaml": _echo().replace(
                "errors: {}", "errors:\n  too_loud:\n    message: too loud\n    params: {volume: {type: integer}}"
            )
        },
        "contracts/echo.yaml:16:14: error [TP108] param 'volume' is not used in the message",
    ),
    "TP109": Case(
        {"echo.yaml": _echo(extra=GATE).replace("errors: {}", "errors:\n  token_required: {message: no token}")},
        "contracts/echo.yaml:21:18: error [TP109] 'path' is not an input field",
    ),
    "TP110": Case(
        {"echo.yaml": _echo(extra="dynamic_enums: {volume: skills}\n")},
        "contracts/echo.yaml:18:17: error [TP110] 'volume' must be a string input field",
    ),
    "TP112": Case(
        {
            "echo.yaml": _echo(extra='render: {error: "{message} ({hint})"}\n').replace(
                "errors: {}", "errors:\n  too_loud: {message: too loud}"
            )
        },
        "contracts/echo.yaml:14:3: warning [TP112] error 'too_loud' has no hint, but render.error names {hint}: its"
        " text would read 'too loud ()'; give the error a hint (a retry that can work, or not to retry)",
    ),
    "TP215": Case(
        {"echo.yaml": _echo(), "_defs/desk.yaml": "Person: {type: object}\n"},
        "contracts/_defs/desk.yaml:1:1: error [TP215] a shared definition file holds its definitions under $defs:"
        " ($defs: {Person: {...}})",
    ),
    "TP216": Case(
        {
            "echo.yaml": _echo(word="{$ref: '_defs/a.yaml#/$defs/Word'}"),
            "_defs/a.yaml": "$defs:\n  Word: {type: string}\n",
            "_defs/b.yaml": "$defs:\n  Word: {type: string, minLength: 1}\n",
        },
        "contracts/_defs/b.yaml:2:3: error [TP216] definition 'Word' is also defined in contracts/_defs/a.yaml; one"
        " name names one shared definition (each becomes one generated type): rename one",
    ),
    "TP217": Case(
        {
            "echo.yaml": _echo(word="{$ref: '_defs/desk.yaml#/$defs/Word'}"),
            "_defs/desk.yaml": "$defs:\n  Word: {type: string}\n  Priority: {enum: [low, high]}\n",
        },
        "contracts/_defs/desk.yaml:3:3: warning [TP217] shared definition 'Priority' is used by no contract; use it"
        " ($ref: _defs/desk.yaml#/$defs/Priority) or remove it",
    ),
    "TP303": Case(
        {"echo.yaml": _echo().replace("    input: {word: hi}", "    skill_token: valid\n    input: {word: hi}")},
        "contracts/echo.yaml:16:5: error [TP303] skill_token needs a skill_gate in the contract",
    ),
    "TP310": Case(
        {"echo.yaml": _echo().replace("errors: {}", "errors:\n  too_loud: {message: too loud}")},
        "contracts/echo.yaml:14:3: warning [TP310] error 'too_loud' has no example",
    ),
    "TP311": Case(
        {
            "echo.yaml": _echo(
                extra="  - name: refuses a number\n    input: {word: 1}\n"
                '    expect: {error: invalid_arguments, message: "Invalid arguments: $.word: not a string"}\n'
            )
        },
        "contracts/echo.yaml:20:49: warning [TP311] the message of the standard error 'invalid_arguments' is the"
        " Python runtime's: its detail is the Python validator's sentence; pin the code and the JSON path"
        ' (text_contains: ["Invalid arguments: $.word:"])',
    ),
    "TP401": Case({}, "contracts:1:1: error [TP401] no contracts found (contracts/*.yaml)"),
    "TP402": Case(
        {"echo.yaml": _echo()},
        "pyproject.toml:1:1: error [TP402] include: no built-in tool set is named 'nope' (known: {known}, all)",
        settings='[tool.toolproof]\ninclude = ["nope"]\n',
    ),
    "TP403": Case(
        {"echo.yaml": _echo().replace("    word: {type: string}", "    word: {type: string}\n    a-b: {type: string}")},
        "contracts/echo.yaml:10:10: error [TP403] provider limit: gemini-openapi: echo:input/properties/a-b: Gemini "
        "refuses the property name 'a-b': a name must match ^[A-Za-z_][A-Za-z0-9_]{0,63}$",
        settings='[tool.toolproof]\nexports = ["gemini-openapi"]\n',  # else a warning
    ),
    "TP404": Case(
        {"echo.yaml": MINIMAL.read_text(encoding="utf-8")},
        "contracts/echo.yaml:9:11: note [TP404] openai: echo:input/properties/word:minLength moved to description "
        "(OpenAI strict mode rejects it; the runtime still enforces it)",
    ),
    "TP405": Case(
        {"echo.yaml": _echo()},
        "pyproject.toml:2:28: error [TP405] accept-losses: unknown provider 'open-ai' (did you mean 'openai'?)",
        settings='[tool.toolproof]\nexport = {accept-losses = {open-ai = ["echo:output"]}}\n',
    ),
    "TP406": Case(
        {"echo.yaml": _echo()},
        "pyproject.toml:2:38: warning [TP406] accept-losses.openai: 'echo:input/properties/nope:minLength' matches "
        "no loss of openai; remove it",
        settings='[tool.toolproof]\nexport = {accept-losses = {openai = ["echo:input/properties/nope:minLength"]}}\n',
    ),
    "TP420": Case(
        {"echo.yaml": _echo(extra="scopes: [notes:read, notes:wirte]\n")},
        "contracts/echo.yaml:18:22: error [TP420] scope 'notes:wirte' is not one the project declares (did you mean"
        " 'notes:write'?)",
        settings='[tool.toolproof]\nserve = {scopes = ["notes:read", "notes:write"]}\n',
    ),
    "TP421": Case(
        {"echo.yaml": _echo()},
        "pyproject.toml:4:12: error [TP421] middleware policies:audit is not there: no module policies (no"
        " policies.py or policies/ in the project, and none installed); serve and call would refuse the project",
        settings='[tool.toolproof]\n\n[[tool.toolproof.serve.middleware]]\nfunction = "policies:audit"\n',
    ),
    "TP422": Case(
        {"echo.yaml": _echo(extra="toolsets: [notes]\n")},
        "pyproject.toml:5:13: error [TP422] serve.rate-limits names tool set 'nots', which no tool is in (did you"
        " mean 'notes'?); it would apply to no call",
        settings='[tool.toolproof]\n\n[[tool.toolproof.serve.rate-limits]]\ncalls = 10\ntoolsets = ["nots"]\n',
    ),
    "TP423": Case(
        {"echo.yaml": _echo()},
        "pyproject.toml:4:1: error [TP423] serve.rate-limits: calls must be a whole number of calls, at least 1",
        settings="[tool.toolproof]\n\n[[tool.toolproof.serve.rate-limits]]\ncalls = 0\n",
    ),
    "TP550": Case(
        {"echo.yaml": _echo(extra="asks:\n  pick: {kind: choice, message: Which one?}\n")},
        "contracts/echo.yaml:19:9: error [TP550] question 'pick' is a choice: list its choices",
    ),
    "TP551": Case(
        {
            "echo.yaml": _echo().replace(
                "    input: {word: hi}", "    input: {word: hi}\n    answers: [{ask: proceed, action: accept}]"
            )
        },
        "contracts/echo.yaml:17:21: error [TP551] the answer names question 'proceed', which the contract does not ask"
        " (it declares no asks)",
    ),
    "TP552": Case(
        {"echo.yaml": _echo(extra='asks:\n  proceed: {kind: confirm, message: "Echo {word}?"}\n')},
        "contracts/echo.yaml:19:3: warning [TP552] no example answers question 'proceed': script the answer in one"
        " (answers: [{ask: proceed, ...}])",
    ),
}


def _from_invalid(rule_id: str) -> tuple[Path, str] | None:
    """The first invalid contract whose header names a problem of ``rule_id``, and that problem."""
    for path in sorted(INVALID.glob("*.yaml")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("#   ") and f" [{rule_id}] " in line:
                return path, line.removeprefix("#   ")
    return None


def _builtin_tool_sets() -> list[str]:
    return sorted({name for c in load_project(builtin_project()).contracts for name in c.toolsets})


def _problems(root: Path) -> list[str]:
    return [str(p) for p in load_project(root, show_losses=True).problems]


ELSEWHERE = {
    "TP312": "tests/typescript/test_init_typescript.py: it needs a TypeScript project",
    "TP313": "tests/typescript/test_init_typescript.py: it needs a TypeScript project and its package.json",
    "TP407": "tests/generator/test_lint_against.py: it needs a git history to compare with",
    "TP408": "tests/generator/test_lint_handlers.py: it needs a handlers package, which the CLI checks",
    "TP409": "tests/generator/test_lint_silent_failures.py: it needs a handlers package",
    "TP410": "tests/generator/test_lint_silent_failures.py: it needs a resource factory",
    "TP411": "tests/generator/test_lint_silent_failures.py: it needs the project's settings",
    **dict.fromkeys(
        ("TP430", "TP431", "TP432", "TP433", "TP434", "TP435"),
        "tests/generator/test_publishing.py: it needs the project's [project] and publish settings",
    ),
    "TP601": "tests/generator/test_fitness.py: it needs the project's settings (lint.profiles)",
    "TP602": "tests/generator/test_fitness.py: it needs the project's settings (lint.profiles)",
    "TP603": "tests/generator/test_fitness.py: it needs the project's settings",
    "TP604": "tests/generator/test_fitness.py: it needs the project's settings (lint.budgets)",
    "TP605": "tests/generator/test_fitness.py: it needs the project's settings (lint.budgets)",
    "TP606": "tests/generator/test_fitness.py: it needs the project's settings",
    "TP607": "tests/generator/test_fitness.py: it needs the project's settings",
    "TP701": "tests/generator/test_fitness.py: lint alone checks descriptions",
    "TP702": "tests/generator/test_fitness.py: lint alone checks descriptions",
    "TP703": "tests/generator/test_fitness.py: lint alone checks descriptions",
    "TP704": "tests/generator/test_fitness.py: it needs two contracts, lint alone checks them",
    "TP705": "tests/generator/test_fitness.py: lint alone checks descriptions",
    "TP706": "tests/generator/test_fitness.py: lint alone checks descriptions",
    "TP707": "tests/generator/test_fitness.py: lint alone checks descriptions",
    "TP708": "tests/generator/test_fitness.py: lint alone checks descriptions",
}
"""Rules whose cases need more than a contracts folder, and the test that holds them."""


def test_every_rule_has_a_case_here_or_an_invalid_contract() -> None:
    missing = [r for r in RULES if r not in CASES and r not in ELSEWHERE and _from_invalid(r) is None]

    assert missing == []


def test_rule_ids_and_names_are_stable_and_well_formed() -> None:
    assert all(re.fullmatch(r"TP\d{3}", r.id) and r.id == key for key, r in RULES.items())
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", r.name) for r in RULES.values())
    assert len({r.name for r in RULES.values()}) == len(RULES)
    assert rule("unknown-keyword").id == "TP201"
    assert rule("null-in-schema").id == "TP202"
    assert rule("export-loss").level is Level.NOTE


@pytest.mark.parametrize("rule_id", sorted(set(RULES) - set(ELSEWHERE)))
def test_each_rule_reports_its_problem(rule_id: str, tmp_path: Path) -> None:
    folder = tmp_path / "contracts"
    folder.mkdir()
    if rule_id in CASES:
        case = CASES[rule_id]
        for name, text in case.contracts.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            if isinstance(text, bytes):
                (folder / name).write_bytes(text)
            else:
                (folder / name).write_text(text, encoding="utf-8")
        if case.settings is not None:
            (tmp_path / "pyproject.toml").write_text(case.settings, encoding="utf-8")
        expected = case.expected.replace("{known}", ", ".join(_builtin_tool_sets()))
    else:
        found = _from_invalid(rule_id)
        assert found is not None
        path, expected = found
        shutil.copy(path, folder / path.name)

    assert expected in _problems(tmp_path)


def test_a_tool_whose_generated_file_an_included_built_in_tool_writes_is_a_module_clash(tmp_path: Path) -> None:
    (tmp_path / "contracts").mkdir()
    contract = tmp_path / "contracts" / "read_file_properties.yaml"
    contract.write_text(_echo(name="read_file_properties"), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.toolproof]\ninclude = ["gateway"]\n', encoding="utf-8")

    assert (
        "contracts/read_file_properties.yaml:1:7: error [TP104] tool 'read_file_properties' and the built-in tool "
        "'read_file', which pyproject.toml includes, would both generate tests/test_read_file_properties.py in the "
        "generated folder; rename the tool"
    ) in _problems(tmp_path)


# --- the schema rules, variant by variant -------------------------------------------------------------------


def _schema_problems(tmp_path: Path, word: str) -> list[str]:
    """The errors lint reports for a contract whose input property ``word`` has the schema ``word`` (YAML)."""
    (tmp_path / "contracts").mkdir(exist_ok=True)
    (tmp_path / "contracts" / "echo.yaml").write_text(_echo(word=word), encoding="utf-8")
    return [
        str(p).removeprefix("contracts/echo.yaml:") for p in load_project(tmp_path).problems if p.level is Level.ERROR
    ]


SCHEMA_PROBLEMS = [
    (
        "{type: string, nullable: true}",
        "9:26: error [TP201] unknown keyword 'nullable' (OpenAPI 3.0 spelling; JSON Schema writes type: [T, 'null'])",
    ),
    (
        "{type: string, example: hi}",
        "9:26: error [TP201] unknown keyword 'example' (OpenAPI spelling; JSON Schema writes examples: [...])",
    ),
    (
        "{type: string, colour: {type: string}}",
        "9:26: error [TP201] unknown keyword 'colour' (a property? list it under properties)",
    ),
    (
        "{type: string, shade: dark}",
        "9:26: error [TP201] unknown keyword 'shade' (not JSON Schema 2020-12; annotations take an 'x-' prefix)",
    ),
    (
        "{type: string, MinLength: 1}",
        "9:26: error [TP201] unknown keyword 'MinLength' (did you mean 'minLength'?)",
    ),
    (
        "{type: object, properties: {a: }}",
        "9:39: error [TP202] 'a' has no value: a YAML flow mapping cut here? quote the text",
    ),
    (
        "{type: [string, integer]}",
        "9:18: error [TP205] type lists 2 types (string, integer): write anyOf, one type each",
    ),
    (
        "{type: string, anyOf: [{type: integer}]}",
        "9:41: error [TP205] type 'integer' contradicts the type its data must have here: string",
    ),
    (
        "{enum: [1, 2], maximum: 3}",
        "9:26: error [TP205] 'maximum' applies only to numbers: add type: number",
    ),
    (
        "{type: integer, maxLength: 3}",
        "9:27: error [TP205] 'maxLength' applies only to strings, and this schema's type is integer",
    ),
    (
        "{type: object, required: [a]}",
        "9:37: error [TP207] required property 'a' is not defined in properties; declare its schema there",
    ),
    (
        "{type: object, properties: {name: {}}, required: [nmae]}",
        "9:61: error [TP207] required property 'nmae' is not defined in properties (did you mean 'name'?)",
    ),
    (
        "{$ref: '#/$defs/x'}",
        "9:18: error [TP208] $ref '#/$defs/x' resolves to nothing: the schema has no '$defs'",
    ),
    (
        "{$ref: 'https://example.com/word.json'}",
        "9:18: error [TP208] $ref 'https://example.com/word.json' leaves the project; a $ref reaches only _defs/*.yaml",
    ),
    (
        "{$ref: '../word.yaml#/$defs/Word'}",
        "9:18: error [TP208] $ref '../word.yaml#/$defs/Word' leaves the shared definitions folder; a $ref reaches"
        " only _defs/*.yaml beside the contracts",
    ),
    (
        "{$ref: '_defs/desk.yaml#/$defs/Word'}",
        "9:18: error [TP208] $ref '_defs/desk.yaml#/$defs/Word': there is no shared definition file"
        " _defs/desk.yaml (known: none)",
    ),
    (
        "{$ref: '#word'}",
        "9:18: error [TP208] $ref '#word' names no $anchor 'word' of the schema",
    ),
    (
        "{$ref: '#/required/0'}",
        "9:18: error [TP208] $ref '#/required/0' points at a str, not a schema",
    ),
    (
        "{$ref: '#/required/5'}",
        "9:18: error [TP208] $ref '#/required/5' resolves to nothing: '#/required' has no item '5'",
    ),
    (
        "{type: string, pattern: '(?<=a+)b'}",
        "9:36: error [TP209] pattern '(?<=a+)b' does not compile: look-behind requires fixed-width pattern "
        "at position 0 (ECMA-262 allows variable-width lookbehind; Python's re does not)",
    ),
    (
        "{type: string, pattern: '\\p{L}'}",
        "9:36: error [TP209] pattern '\\p{L}' does not compile: bad escape \\p at position 0 (Unicode "
        "property escapes are ECMA-262 only)",
    ),
    (
        "{type: string, pattern: '(?P<w>a)'}",
        "9:36: error [TP210] pattern '(?P<w>a)' is not ECMA-262 (position 0): '(?P<name>...)' is "
        "Python-only; ECMA-262 writes '(?<name>...)', which Python refuses: use '(...)'",
    ),
    (
        "{type: string, pattern: 'a\\-b'}",
        "9:37: error [TP210] pattern 'a\\-b' is not ECMA-262 (position 1): '\\-' is not an escape in "
        "ECMA-262 unicode mode; write '-' without the backslash",
    ),
    (
        '{type: string, pattern: "a\\\\Z"}',
        "9:37: error [TP210] pattern 'a\\Z' is not ECMA-262 (position 1): '\\Z' is Python-only; ECMA-262 writes '$'",
    ),
    (
        "{type: string, pattern: '{a}'}",
        "9:36: error [TP210] pattern '{a}' is not ECMA-262 (position 0): a literal '{' must be escaped as "
        "'\\{' in ECMA-262 unicode mode",
    ),
    (
        "{type: string, pattern: 'a{,3}'}",
        "9:37: error [TP210] pattern 'a{,3}' is not ECMA-262 (position 1): '{,n}' is Python-only; ECMA-262 "
        "writes '{0,n}'",
    ),
    (
        "{type: string, pattern: 'a*+'}",
        "9:38: error [TP210] pattern 'a*+' is not ECMA-262 (position 2): possessive quantifiers ('*+', "
        "'++', '?+', '{n}+') are Python-only",
    ),
    (
        "{type: string, pattern: '(?=a)*b'}",
        "9:41: error [TP210] pattern '(?=a)*b' is not ECMA-262 (position 5): a lookaround cannot take a quantifier in "
        "ECMA-262 unicode mode",
    ),
    (
        "{type: string, pattern: '(?i)a'}",
        "9:36: error [TP210] pattern '(?i)a' is not ECMA-262 (position 0): inline flags such as '(?i)' are "
        "Python-only; ECMA-262 sets flags outside the pattern",
    ),
    (
        "{type: string, pattern: '[]a]'}",
        "9:37: error [TP210] pattern '[]a]' is not ECMA-262 (position 1): a ']' first in a class is literal "
        "in Python but ends an empty class in ECMA-262: write '\\]'",
    ),
    (
        "{type: string, pattern: '\\012'}",
        "9:36: error [TP210] pattern '\\012' is not ECMA-262 (position 0): octal escapes are Python-only; "
        "write '\\xHH'",
    ),
    (
        "{type: object, patternProperties: {'^(a': {}}}",
        "9:48: error [TP209] pattern '^(a' does not compile: missing ), unterminated subpattern at position 1",
    ),
    (
        "{type: string, format: emial}",
        "9:34: error [TP211] unknown format 'emial' (did you mean 'email'?)",
    ),
    (
        "{type: string, if: {minLength: 2}}",
        "9:26: error [TP212] 'if' without 'then' or 'else' has no effect",
    ),
    (
        "{type: array, minContains: 1}",
        "9:25: error [TP212] 'minContains' without 'contains' has no effect",
    ),
    (
        "{type: array, contains: {}, minContains: 0}",
        "9:39: error [TP212] 'minContains: 0' without 'maxContains' makes 'contains' accept every array",
    ),
    (
        "{type: array, contains: {}, minContains: 2, maxContains: 1}",
        "9:39: error [TP212] 'minContains' is greater than 'maxContains': no array can pass",
    ),
]
"""(the schema of input property `word`, as YAML; the one problem lint reports, after the file name)."""


@pytest.mark.parametrize(("word", "expected"), SCHEMA_PROBLEMS)
def test_a_schema_rule_reports_the_place_and_the_reason(tmp_path: Path, word: str, expected: str) -> None:
    assert _schema_problems(tmp_path, word) == [expected]


@pytest.mark.parametrize(
    "word",
    [
        "{type: string, x-mcp-header: X-Word, description: The word}",
        "{type: [string, 'null'], default: null}",
        "{const: null}",
        "{type: string, pattern: '(?<=^)[\\w\\-]+\\d{1,3}$'}",
        "{type: string, pattern: '^\\{\\}$'}",
        "{type: string, format: date-time}",
        "{type: integer, format: int64, minimum: 0}",
        "{$ref: '#/$defs/w', $defs: {w: {type: string}}}",
        "{$ref: '#/definitions/w', definitions: {w: {type: string}}}",
        "{$ref: '#w', $defs: {w: {$anchor: w, type: string}}}",
        "{type: object, allOf: [{$ref: '#/$defs/base'}], required: [a],"
        " $defs: {base: {type: object, properties: {a: {}}}}}",
        "{type: object, properties: {a: {}}, anyOf: [{required: [a]}]}",
        "{type: array, prefixItems: [{type: string}], minItems: 1, items: false}",
        "{type: number, anyOf: [{type: integer}, {minimum: 1}]}",
        "{if: {type: string}, then: {type: string, minLength: 1}, else: {type: integer, minimum: 0}}",
    ],
)
def test_a_schema_that_follows_every_rule_passes(tmp_path: Path, word: str) -> None:
    path = tmp_path / "schema.yaml"
    path.write_text(f"schema: {word}\n", encoding="utf-8")
    source, problems = load_source(path, "schema.yaml")
    assert source is not None, problems

    assert [str(p) for p in check_schema(source, ("schema",))] == []
