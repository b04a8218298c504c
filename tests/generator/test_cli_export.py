"""`toolproof export` and the loss report in `toolproof lint`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from toolproof.cli import cli
from toolproof.generator import load_project
from toolproof.generator.losses import Loss
from toolproof.generator.project import unaccepted_losses

MINIMAL = Path(__file__).parent / "cases" / "minimal" / "contracts" / "echo.yaml"


ROOT = Path(__file__).parents[2]
ECHO_LOSSES = """\
[tool.toolproof]

[tool.toolproof.export]
accept-losses.openai = ["echo:input/properties/word:minLength", "echo:output"]
accept-losses.openai-responses = ["*:input/properties/*:minLength", "*:output:output"]
accept-losses.anthropic = ["echo:input/properties/word", "echo:output:output"]
accept-losses.gemini-openapi = ["*:input:additionalProperties", "*:output"]
"""
"""Every loss the minimal echo contract suffers, accepted in each of the entry's spellings."""


def _project(tmp_path: Path, text: str | None = None, settings: str | None = None) -> Path:
    (tmp_path / "contracts").mkdir()
    if text is None:
        shutil.copy(MINIMAL, tmp_path / "contracts" / "echo.yaml")
    else:
        (tmp_path / "contracts" / "echo.yaml").write_text(text, encoding="utf-8")
    if settings is not None:
        (tmp_path / "pyproject.toml").write_text(settings, encoding="utf-8")
    return tmp_path


def test_export_prints_each_format_for_the_project(runner: CliRunner) -> None:
    for fmt in ("openai", "openai-responses", "anthropic", "mcp", "gemini", "gemini-openapi", "jsonschema", "vectors"):
        result = runner.invoke(cli, ["export", "--format", fmt])
        assert result.exit_code == 0, (fmt, result.output)
        json.loads(result.stdout)
    for fmt in ("typescript", "docs"):
        result = runner.invoke(cli, ["export", "--format", fmt, "--tool", "read_file"])
        assert result.exit_code == 0
        assert "read_file" in result.stdout


def test_every_export_of_the_whole_built_in_set_takes_its_resource_and_prompt_as_its_format_can(
    runner: CliRunner,
) -> None:
    docs = runner.invoke(cli, ["export", "--format", "docs"])
    typescript = runner.invoke(cli, ["export", "--format", "typescript"])
    mcp = json.loads(runner.invoke(cli, ["export", "--format", "mcp"]).stdout)
    openai = json.loads(runner.invoke(cli, ["export", "--format", "openai"]).stdout)

    assert docs.exit_code == 0 and typescript.exit_code == 0, docs.output + typescript.output
    assert "# Resource: `skill_doc`" in docs.stdout and "# Prompt: `use_skill`" in docs.stdout
    assert "`skill_doc`" not in typescript.stdout and "`use_skill`" not in typescript.stdout  # TypeScript serves tools
    assert [t["uriTemplate"] for t in mcp["resourceTemplates"]] == ["skill://{skill_name}/SKILL.md"]
    assert [p["name"] for p in mcp["prompts"]] == ["use_skill"]
    assert {t["function"]["name"] for t in openai}.isdisjoint({"skill_doc", "use_skill"})  # no provider equivalent


def test_export_selects_by_tool_set_and_by_tool(runner: CliRunner) -> None:
    gateway = json.loads(runner.invoke(cli, ["export", "--format", "mcp", "--toolset", "gateway"]).stdout)
    two = json.loads(
        runner.invoke(cli, ["export", "--format", "openai", "--tool", "get_skill", "--tool", "read_skill"]).stdout
    )

    assert [t["name"] for t in gateway["tools"]] == ["read_file"]
    assert [t["function"]["name"] for t in two] == ["get_skill", "read_skill"]


def test_export_of_an_unknown_tool_is_a_usage_error(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["export", "--format", "openai", "--tool", "nope"])

    assert result.exit_code == 2
    assert "unknown tool(s): nope" in result.stderr


def test_export_matches_what_make_gen_wrote(runner: CliRunner) -> None:
    written = (
        Path(__file__).parents[2] / "toolproof/builtin/generated" / "exports" / "anthropic" / "all.json"
    ).read_text(encoding="utf-8")

    assert runner.invoke(cli, ["export", "--format", "anthropic"]).stdout == written


def test_lint_verbose_shows_losses_as_notes_where_the_contract_says_them(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(cli, ["lint", "--verbose", "--project", str(_project(tmp_path))])

    assert result.exit_code == 0
    assert (
        "contracts/echo.yaml:9:11: note [TP404] openai: echo:input/properties/word:minLength moved to description "
        "(OpenAI strict mode rejects it; the runtime still enforces it)"
    ) in result.stderr


def test_attached_blocks_a_provider_cannot_carry_are_losses_at_their_declaration(
    runner: CliRunner, tmp_path: Path
) -> None:
    text = MINIMAL.read_text(encoding="utf-8").replace("annotations:", "attaches: [image, audio]\nannotations:", 1)
    root = _project(tmp_path, text)

    result = runner.invoke(cli, ["lint", "--verbose", "--project", str(root)])

    dropped = [line for line in result.stderr.splitlines() if ":result:" in line]
    expected = {("anthropic", "audio", 19)} | {
        (fmt, kind, column)
        for fmt in ("gemini", "gemini-openapi", "openai", "openai-responses")
        for kind, column in (("image", 12), ("audio", 19))
    }
    assert sorted(line.split(" (")[0] for line in dropped) == sorted(
        f"contracts/echo.yaml:5:{column}: note [TP404] {fmt}: echo:result:{kind} dropped"
        for fmt, kind, column in expected
    )
    assert all("never reach the model" in line for line in dropped)


def test_accepting_result_losses_names_the_provider_and_the_kind(runner: CliRunner, tmp_path: Path) -> None:
    text = MINIMAL.read_text(encoding="utf-8").replace("annotations:", "attaches: [image]\nannotations:", 1)
    settings = (
        ECHO_LOSSES.replace('"echo:output"]', '"echo:output", "echo:result:image"]', 1)
        + 'accept-losses.gemini = ["*:result"]\n'
    )
    root = _project(tmp_path, text, settings)

    result = runner.invoke(cli, ["lint", "--verbose", "--project", str(root)])

    dropped = [line.split(" (")[0] for line in result.stderr.splitlines() if ":result:" in line]
    assert dropped == [
        "contracts/echo.yaml:5:12: note [TP404] gemini-openapi: echo:result:image dropped",
        "contracts/echo.yaml:5:12: note [TP404] openai-responses: echo:result:image dropped",
    ]


def test_strict_export_turns_any_loss_into_an_error(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path)

    lint = runner.invoke(cli, ["lint", "--strict-export", "--project", str(root)])
    gen = runner.invoke(cli, ["gen", "--strict-export", "--project", str(root)])
    export = runner.invoke(cli, ["export", "--format", "openai", "--strict-export", "--project", str(root)])

    assert lint.exit_code == gen.exit_code == export.exit_code == 1
    assert (
        "contracts/echo.yaml:9:11: error [TP404] openai: echo:input/properties/word:minLength moved to description"
    ) in lint.stderr
    assert not (root / "generated").exists()


def test_a_tool_set_over_openai_limits_fails_lint(runner: CliRunner, tmp_path: Path) -> None:
    values = ", ".join(f"v{i}" for i in range(1001))
    text = MINIMAL.read_text(encoding="utf-8").replace(
        "    word: {type: string, minLength: 1, description: The word to echo.}",
        f"    word: {{type: string, minLength: 1}}\n    pick: {{enum: [{values}]}}",
    )

    result = runner.invoke(cli, ["lint", "--project", str(_project(tmp_path, text))])

    assert result.exit_code == 1
    # 1002: strict mode adds null to the enum of an optional field.
    assert (
        "contracts/echo.yaml:10:18: error [TP403] provider limit: openai: echo:input/properties/pick/enum: "
        "1002 enum values in one request; OpenAI allows at most 1000"
    ) in result.stderr.splitlines()


def test_an_enum_gemini_openapi_could_only_stringify_fails_lint_rather_than_export_refused_strings(
    runner: CliRunner, tmp_path: Path
) -> None:
    text = MINIMAL.read_text(encoding="utf-8").replace(
        "    word: {type: string, minLength: 1, description: The word to echo.}",
        '    word: {type: string, minLength: 1}\n    level: {enum: [1, 2, "top"]}',
    )
    root = _project(tmp_path, text, settings='[tool.toolproof]\nexports = ["gemini-openapi"]\n')

    lint = runner.invoke(cli, ["lint", "--project", str(root)])
    export = runner.invoke(cli, ["export", "--format", "gemini-openapi", "--project", str(root)])

    assert lint.exit_code == export.exit_code == 1
    assert (
        "contracts/echo.yaml:10:12: error [TP403] provider limit: gemini-openapi: echo:input/properties/level: "
        'cannot be expressed: enum 1, 2, "top": the parameters form takes string enums only, and the runtime would '
        "refuse the strings"
    ) in lint.stderr.splitlines()
    assert '"1"' not in export.stdout


def test_accepted_losses_are_neither_shown_nor_errors_under_strict_export(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path, settings=ECHO_LOSSES)

    lint = runner.invoke(cli, ["lint", "--strict-export", "--project", str(root)])
    gen = runner.invoke(cli, ["gen", "--strict-export", "--project", str(root)])

    assert lint.exit_code == 0, lint.output
    assert lint.stderr == ""
    assert lint.stdout == "1 contract(s) OK\n"
    assert gen.exit_code == 0, gen.output


def test_each_provider_is_judged_by_its_own_accepted_losses(runner: CliRunner, tmp_path: Path) -> None:
    settings = ECHO_LOSSES.replace(
        'accept-losses.anthropic = ["echo:input/properties/word", ', "accept-losses.anthropic = ["
    )
    root = _project(tmp_path, settings=settings)

    result = runner.invoke(cli, ["lint", "--strict-export", "--project", str(root)])

    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if " error [" in line]
    assert errors == [
        "contracts/echo.yaml:9:11: error [TP404] anthropic: echo:input/properties/word:minLength moved to description "
        "(Anthropic strict mode rejects it; the runtime still enforces it)"
    ]


def test_the_project_setting_strict_export_makes_lint_strict(runner: CliRunner, tmp_path: Path) -> None:
    settings = ECHO_LOSSES.replace("[tool.toolproof]\n", "[tool.toolproof]\nlint = {strict-export = true}\n")
    settings = settings.replace('"echo:output"]', "]")
    root = _project(tmp_path, settings=settings)

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert (
        "contracts/echo.yaml:13:3: error [TP404] openai: echo:output:output not shown (this API has no field for a "
        "tool's output schema; the model reads the rendered result text)"
    ) in result.stderr


def test_an_accepted_loss_that_matches_nothing_is_a_warning_where_it_is_written(
    runner: CliRunner, tmp_path: Path
) -> None:
    settings = ECHO_LOSSES + 'accept-losses.mcp = ["echo:input/properties/word:minLength"]\n'
    root = _project(tmp_path, settings=settings)

    result = runner.invoke(cli, ["lint", "--strict-export", "--project", str(root)])

    assert result.exit_code == 0
    assert result.stderr == (
        "pyproject.toml:8:22: warning [TP406] accept-losses.mcp: 'echo:input/properties/word:minLength' matches no "
        "loss of mcp; remove it\n"
    )
    assert result.stdout == "1 contract(s) OK, 1 warning(s)\n"


def test_malformed_accepted_losses_are_errors_where_they_are_written(runner: CliRunner, tmp_path: Path) -> None:
    settings = ECHO_LOSSES + (
        'accept-losses.open-ai = ["echo:output"]\n'
        'accept-losses.gemini = ["echo/output", "echo:inputs", "ohce:output", "echo:output/x:"]\n'
    )
    root = _project(tmp_path, settings=settings)

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "pyproject.toml:8:15: error [TP405] accept-losses: unknown provider 'open-ai' (did you mean 'openai'?)",
        "pyproject.toml:9:25: error [TP405] accept-losses.gemini: 'echo/output': write TOOL:SCHEMA[POINTER][:KEYWORD] "
        "(SCHEMA: input, output or result), such as 'read_file:input/properties/path:minLength'",
        "pyproject.toml:9:40: error [TP405] accept-losses.gemini: 'echo:inputs': the pointer after 'input' must start "
        "with '/' (got 's')",
        "pyproject.toml:9:55: error [TP405] accept-losses.gemini: 'ohce:output' names no tool the project serves "
        "('ohce')",
        "pyproject.toml:9:70: error [TP405] accept-losses.gemini: 'echo:output/x:': a ':' after the pointer must be "
        "followed by a keyword",
        "5 error(s), 0 warning(s) in contracts",
    ]


def test_this_repository_passes_strict_export_with_its_accepted_losses(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["lint", "--strict-export", "--project", str(ROOT)])

    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""


def test_unaccepted_losses_keeps_only_what_the_losses_own_provider_does_not_accept(tmp_path: Path) -> None:
    root = _project(tmp_path, settings='[tool.toolproof]\nexport = {accept-losses = {openai = ["echo:output"]}}\n')
    project = load_project(root)
    openai = Loss("openai", "echo", "output", (), "output", "not shown", "no field")
    gemini = Loss("gemini-openapi", "echo", "output", (), "output", "not shown", "no field")
    word = Loss("openai", "echo", "input", ("properties", "word"), "minLength", "moved to description", "strict")

    assert unaccepted_losses(project, [openai, gemini, word]) == [gemini, word]


def test_an_included_built_in_tools_loss_can_be_accepted_like_the_projects_own(
    runner: CliRunner, tmp_path: Path
) -> None:
    settings = (
        '[tool.toolproof]\ninclude = ["gateway"]\n\n[tool.toolproof.export]\n'
        'accept-losses.openai = ["read_file:input/properties/path:minLength"]\n'
    )
    root = _project(tmp_path, settings=settings)

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 0, result.stderr
    assert "TP405" not in result.stderr and "TP406" not in result.stderr  # named, used: not unknown, not unused
