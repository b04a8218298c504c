"""Lint's 6xx and 7xx rules (client profiles, token budgets, descriptions), ``export --for`` and the lint tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolproof.generator import load_project
from toolproof.generator.cli import export, lint
from toolproof.generator.descriptions import description_problems
from toolproof.generator.profiles import PROFILES, apply_profile
from toolproof.generator.project import config_for
from toolproof.generator.tokens import counter, definition_text, tool_costs
from toolproof.runtime.project import builtin_project

GOOD = """\
name: {name}
version: 1.0.0
title: Echo
description: {description}
annotations: {{read_only: true, destructive: false, idempotent: true, open_world: false}}
input:
  type: object
  properties:
    word: {word}
  required: [word]
  additionalProperties: false
output: {{type: object, properties: {{echo: {{type: string}}}}, required: [echo]}}
errors:
  too_loud:
    message: "The word is too loud"
    hint: {hint}
examples:
  - name: echoes
    input: {{word: hi}}
    expect: {{output: {{echo: hi}}}}
"""
DESCRIPTION = "Echo a word back. Use it to check that a call reaches the tool. Returns the word unchanged."
WORD = "{type: string, description: The word to echo.}"


def _contract(
    name: str = "echo", description: str = DESCRIPTION, word: str = WORD, hint: str = "Send it lower."
) -> str:
    return GOOD.format(name=name, description=description, word=word, hint=hint)


def _project(tmp_path: Path, contracts: dict[str, str], settings: str = "") -> Path:
    (tmp_path / "contracts").mkdir()
    for name, text in contracts.items():
        (tmp_path / "contracts" / name).write_text(text, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(f"[tool.toolproof]\n{settings}", encoding="utf-8")
    return tmp_path


def _fit(root: Path) -> list[str]:
    loaded = load_project(config_for(root), fit=True)
    return [str(p) for p in loaded.problems if p.rule.id.startswith(("TP6", "TP7"))]


def test_a_well_described_tool_has_no_description_problem(tmp_path: Path) -> None:
    assert _fit(_project(tmp_path, {"echo.yaml": _contract()})) == []


@pytest.mark.parametrize(
    ("contract", "expected"),
    [
        (
            _contract(description="Echo a word."),
            "contracts/echo.yaml:4:14: note [TP701] tool 'echo': the description has 3 word(s) in 1 sentence(s);"
            " say what the tool does, when to use it and what it returns (Anthropic's guidance: 3-4 sentences)",
        ),
        (
            _contract(description="Echo a word back to the caller. Returns the word unchanged, as it came in."),
            "contracts/echo.yaml:4:14: note [TP702] tool 'echo': the description never says when to use the tool"
            " (or when not to)",
        ),
        (
            _contract(description="Echo a word back to the caller. Use it to check that a call reaches the tool."),
            "contracts/echo.yaml:4:14: note [TP703] tool 'echo': the description never says what the tool returns",
        ),
        (
            _contract(word="{type: string}"),
            "contracts/echo.yaml:9:11: note [TP705] tool 'echo': parameter 'word' has no description; say what it"
            " means and its format",
        ),
        (
            _contract(word="{type: string, enum: [hi, loud], description: What to say; hi greets.}"),
            "contracts/echo.yaml:9:11: note [TP706] tool 'echo': parameter 'word' never says what 'loud' mean(s);"
            " describe each enum value in the parameter's description",
        ),
        (
            _contract(hint="Whisper."),
            "contracts/echo.yaml:15:5: note [TP707] tool 'echo': error 'too_loud' has a hint of under 3 words; make"
            " it an action",
        ),
        (
            _contract(description=DESCRIPTION + " " + "Really. " * 120),
            "contracts/echo.yaml:4:14: error [TP708] tool 'echo': the description has 1051 characters; OpenAI refuses"
            " a function description over 1024 (string_above_max_length), and every host on it with it",
        ),
    ],
)
def test_each_description_rule_reports_its_problem(tmp_path: Path, contract: str, expected: str) -> None:
    assert expected in _fit(_project(tmp_path, {"echo.yaml": contract}))


def test_two_tools_that_read_alike_and_name_neither_are_near_duplicates(tmp_path: Path) -> None:
    other = DESCRIPTION.replace("Echo a word back", "Echo a word back loudly")
    root = _project(tmp_path, {"echo.yaml": _contract(), "echo_loud.yaml": _contract("echo_loud", other)})

    assert _fit(root) == [
        "contracts/echo_loud.yaml:4:14: note [TP704] tool 'echo_loud' reads like 'echo' (82% of their words in common)"
        " and neither description names the other; say when to use 'echo_loud' rather than 'echo'"
    ]


def test_naming_the_other_tool_settles_a_near_duplicate(tmp_path: Path) -> None:
    other = DESCRIPTION.replace("Echo a word back", "Echo a word back loudly, where echo keeps it")
    root = _project(tmp_path, {"echo.yaml": _contract(), "echo_loud.yaml": _contract("echo_loud", other)})

    assert _fit(root) == []


def test_levels_raise_lower_or_silence_a_description_rule(tmp_path: Path) -> None:
    settings = '[tool.toolproof.lint.levels]\nTP705 = "error"\nthin-description = "off"\n'
    root = _project(tmp_path, {"echo.yaml": _contract(description="Echo.", word="{type: string}")}, settings)

    found = _fit(root)

    assert [p.split(" [")[0].rsplit(" ", 1)[1] + " " + p.split("[")[1][:5] for p in found] == [
        "note TP703",
        "note TP702",
        "error TP705",
    ]


def test_a_level_for_a_rule_outside_the_6xx_and_7xx_groups_is_refused(tmp_path: Path) -> None:
    root = _project(tmp_path, {"echo.yaml": _contract()}, '[tool.toolproof.lint.levels]\nTP201 = "off"\n')

    assert _fit(root) == [
        "pyproject.toml:3:1: error [TP607] lint.levels: 'TP201': only the 6xx and 7xx rules' levels can be changed"
    ]


RECURSIVE = (
    _contract(word='{$ref: "#/$defs/node", description: A tree of words.}')
    .replace(
        "  required: [word]\n",
        "  required: [word]\n  $defs:\n    node:\n      type: object\n      properties:\n"
        "        kids: {type: array, items: {$ref: '#/$defs/node'}}\n",
    )
    .replace("input: {word: hi}", "input: {word: {}}")
)


def test_a_required_profile_that_refuses_a_tool_is_an_error_naming_the_host_and_why(tmp_path: Path) -> None:
    root = _project(tmp_path, {"echo.yaml": RECURSIVE}, '[tool.toolproof.lint]\nprofiles = ["bedrock-agentcore"]\n')

    assert _fit(root) == [
        "contracts/echo.yaml:1:7: error [TP601] bedrock-agentcore refuses tool 'echo': input/properties/word/"
        "properties/kids/items: $ref #/$defs/node is recursive, so no inlining can remove it"
    ]


def test_a_required_profile_that_rewrites_a_tool_is_a_note(tmp_path: Path) -> None:
    word = '{$ref: "#/$defs/w", description: The word.}'
    contract = _contract(word=word).replace(
        "  required: [word]\n", "  required: [word]\n  $defs: {w: {type: string}}\n"
    )
    root = _project(tmp_path, {"echo.yaml": contract}, '[tool.toolproof.lint]\nprofiles = ["gemini-cli"]\n')

    assert _fit(root) == [
        "contracts/echo.yaml:1:7: note [TP602] gemini-cli rewrites tool 'echo': 2 change(s)"
        " (input/properties/word:$ref inlined, input:$defs dropped)"
    ]


def test_an_unknown_profile_is_named_with_the_closest_one(tmp_path: Path) -> None:
    root = _project(tmp_path, {"echo.yaml": _contract()}, '[tool.toolproof.lint]\nprofiles = ["cursr"]\n')

    assert _fit(root) == [
        "pyproject.toml:3:13: error [TP603] lint.profiles: no profile 'cursr' (did you mean 'cursor'?)"
    ]


def test_budgets_make_a_tool_and_a_tool_set_over_them_errors(tmp_path: Path) -> None:
    settings = '[tool.toolproof.lint.budgets]\ntool = 20\ntoolset = 30\nformats = ["openai"]\n'
    root = _project(tmp_path, {"echo.yaml": _contract()}, settings)
    loaded = load_project(config_for(root), fit=True)
    cost = tool_costs("openai", loaded.exports()["openai"]["all"].data)
    how = f"{counter().name}, exact"

    assert _fit(root) == [
        f"contracts/echo.yaml:4:14: error [TP604] tool 'echo': its openai definition costs {cost.tools['echo']}"
        f" tokens ({how}); the budget is 20",
        f"pyproject.toml:4:1: error [TP605] tool set 'all': its openai definitions cost {cost.total} tokens ({how});"
        " the budget is 30",
    ]


def test_a_malformed_budget_is_named_where_it_is_written(tmp_path: Path) -> None:
    root = _project(tmp_path, {"echo.yaml": _contract()}, '[tool.toolproof.lint.budgets]\ntool = "1k"\n')

    assert _fit(root) == [
        "pyproject.toml:3:1: error [TP606] lint.budgets.tool must be a positive whole number of tokens"
    ]


def test_the_tokenizer_is_the_real_encoding_and_counts_the_text_a_request_carries() -> None:
    count = counter()
    definition = {"name": "echo", "description": "Echo a word."}

    assert count.real and count.name == "o200k_base"
    assert count.count(definition_text(definition)) == count.count('{"name":"echo","description":"Echo a word."}')
    assert count.count("hello world") == 2  # o200k_base: "hello", " world"
    assert count.accuracy("openai") == "exact" and count.accuracy("anthropic") == "estimate"


def test_a_tool_set_costs_its_tools_and_the_array_around_them() -> None:
    tools = [{"name": "a", "description": "x"}, {"name": "b", "description": "y"}]
    cost = tool_costs("anthropic", tools)

    assert set(cost.tools) == {"a", "b"}
    assert cost.total >= sum(cost.tools.values())


def test_every_profile_names_its_sources() -> None:
    assert len(PROFILES) >= 10
    assert all(rule.sources and rule.summary for p in PROFILES.values() for rule in p.rules)


@pytest.mark.parametrize(
    ("profile", "definition", "verdict", "why"),
    [
        ("claude", {"name": "x" * 60, "inputSchema": {"type": "object"}}, "refused", "has 78 characters"),
        ("cursor", {"name": "x" * 50, "inputSchema": {"type": "object"}}, "refused", "the limit is 59"),
        ("vscode-copilot", {"name": "readFile", "inputSchema": {"type": "object"}}, "refused", "a-z, 0-9"),
        (
            "openai-agents",
            {"name": "a", "description": "d" * 1025, "inputSchema": {"type": "object"}},
            "refused",
            "1025",
        ),
        ("openai-responses-mcp", {"name": "a", "inputSchema": {"anyOf": [{"type": "object"}]}}, "refused", "anyOf"),
        (
            "copilot-cli",
            {
                "name": "a",
                "inputSchema": {
                    "type": "object",
                    "properties": {"r": {"type": "array", "items": {"type": ["object", "null"]}}},
                },
            },
            "rewritten",
            "",
        ),
        (
            "langchain-mcp-adapters",
            {
                "name": "a",
                "inputSchema": {
                    "type": "object",
                    "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}},
                },
            },
            "refused",
            "cannot be made strict",
        ),
        ("pydantic-ai", {"name": "a", "inputSchema": {"type": "object", "title": "A"}}, "rewritten", ""),
        ("bedrock-agentcore", {"name": "a", "inputSchema": {"type": "object"}}, "clean", ""),
    ],
)
def test_each_profile_rewrites_or_refuses_what_its_host_does(
    profile: str, definition: dict[str, object], verdict: str, why: str
) -> None:
    (applied,) = apply_profile(PROFILES[profile], [definition], "server-name")

    assert applied.verdict == verdict
    assert why in "; ".join(applied.refused)
    assert (applied.definition is None) == (verdict == "refused")


def test_a_host_with_a_tool_limit_refuses_the_tools_after_it() -> None:
    tools = [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(41)]

    applied = apply_profile(PROFILES["cursor"], tools, "s")

    assert [a.verdict for a in applied].count("refused") == 1 and applied[40].refused


def test_export_for_writes_what_the_host_accepts_with_the_report_on_stderr(tmp_path: Path) -> None:
    word = '{$ref: "#/$defs/w", description: The word.}'
    contract = _contract(word=word).replace(
        "  required: [word]\n", "  required: [word]\n  $defs: {w: {type: string}}\n"
    )
    root = _project(tmp_path, {"echo.yaml": contract})

    result = CliRunner().invoke(export, ["--for", "bedrock-agentcore", "--project", str(root)])

    assert result.exit_code == 0, result.stderr
    (tool,) = json.loads(result.stdout)["tools"]
    assert "$defs" not in tool["inputSchema"]
    assert tool["inputSchema"]["properties"]["word"] == {"type": "string", "description": "The word."}
    assert "  echo: rewritten; " in result.stderr and "tokens (" in result.stderr
    assert "input/properties/word:$ref inlined" in result.stderr
    assert "PrefectHQ/fastmcp#3655" in result.stderr


def test_export_needs_exactly_one_of_format_and_for(tmp_path: Path) -> None:
    root = _project(tmp_path, {"echo.yaml": _contract()})

    result = CliRunner().invoke(export, ["--project", str(root)])

    assert result.exit_code == 2
    assert "give one of --format FORMAT and --for PROFILE" in result.stderr


def test_lint_prints_the_matrix_and_the_token_table_on_request(tmp_path: Path) -> None:
    root = _project(tmp_path, {"echo.yaml": RECURSIVE})

    result = CliRunner().invoke(lint, ["--matrix", "--tokens", "--project", str(root)])

    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["tool", *PROFILES]
    assert lines[1].split()[:2] == ["echo", "clean"] and "refused" in lines[1]
    assert "  echo x bedrock-agentcore: input/properties/word" in result.stdout
    assert "tokens by o200k_base (openai: exact" in result.stdout
    assert any(line.startswith("tool set 'all'") for line in lines)


def test_the_built_in_contracts_pass_every_description_rule() -> None:
    loaded = load_project(builtin_project())

    assert [str(p) for p in description_problems(loaded.contracts)] == []


def test_the_conformance_project_passes_every_description_rule() -> None:
    loaded = load_project(config_for(Path(__file__).parents[1] / "conformance_project"))

    assert [str(p) for p in description_problems(loaded.contracts)] == []


def test_export_tokens_prints_each_tools_and_the_sets_cost_on_stderr(tmp_path: Path) -> None:
    root = _project(tmp_path, {"echo.yaml": _contract()})

    result = CliRunner().invoke(export, ["--format", "openai", "--tokens", "--project", str(root)])

    assert result.exit_code == 0, result.stderr
    cost = tool_costs("openai", json.loads(result.stdout))
    assert result.stderr.split("\n", 1)[1] == (  # after the TP310 warning the contract's load prints
        f"openai: tokens by o200k_base (exact)\n  echo: {cost.tools['echo']}\n"
        f"  all 1 tool(s), as one request's array: {cost.total}\n"
    )


def test_export_tokens_of_a_format_that_is_no_tool_definition_is_a_usage_error(tmp_path: Path) -> None:
    root = _project(tmp_path, {"echo.yaml": _contract()})

    result = CliRunner().invoke(export, ["--format", "vectors", "--tokens", "--project", str(root)])

    assert result.exit_code == 2
    assert "--tokens counts tool definitions: give a provider format" in result.stderr


def test_an_enum_value_of_punctuation_counts_as_described_where_the_description_names_it(tmp_path: Path) -> None:
    word = '{type: string, enum: [hi, "c++", "a.b"], description: "What to say: hi, c++ or a.b (each as written)."}'

    assert _fit(_project(tmp_path, {"echo.yaml": _contract(word=word)})) == []


def _rewritten(tmp_path: Path, lint_settings: str) -> Path:
    word = '{$ref: "#/$defs/w", description: The word.}'
    contract = _contract(word=word).replace(
        "  required: [word]\n", "  required: [word]\n  $defs: {w: {type: string}}\n"
    )
    return _project(tmp_path, {"echo.yaml": contract}, lint_settings)


def test_a_rewrite_the_project_accepts_for_the_profile_is_not_shown(tmp_path: Path) -> None:
    settings = (
        '[tool.toolproof.lint]\nprofiles = ["gemini-cli"]\n'
        '[tool.toolproof.export]\naccept-losses.gemini-cli = ["echo:input/properties/word:$ref", "echo:input:$defs"]\n'
    )

    assert _fit(_rewritten(tmp_path, settings)) == []


def test_under_strict_export_a_rewrite_not_accepted_is_an_error(tmp_path: Path) -> None:
    root = _rewritten(tmp_path, '[tool.toolproof.lint]\nprofiles = ["gemini-cli"]\n')

    found = load_project(config_for(root), fit=True, strict_export=True).problems

    assert [str(p) for p in found if p.rule.id == "TP602"] == [
        "contracts/echo.yaml:1:7: error [TP602] gemini-cli rewrites tool 'echo': 2 change(s)"
        " (input/properties/word:$ref inlined, input:$defs dropped)"
    ]


def test_an_accepted_profile_loss_that_matches_nothing_is_a_warning(tmp_path: Path) -> None:
    settings = (
        '[tool.toolproof.lint]\nprofiles = ["cursor"]\n'
        '[tool.toolproof.export]\naccept-losses.cursor = ["echo:input:$defs"]\n'
    )

    root = _project(tmp_path, {"echo.yaml": _contract()}, settings)

    assert [str(p) for p in load_project(config_for(root), fit=True).problems if p.rule.id == "TP406"] == [
        "pyproject.toml:5:25: warning [TP406] accept-losses.cursor: 'echo:input:$defs' matches no loss of cursor;"
        " remove it"
    ]
