"""`toolproof export` and the loss report in `toolproof lint`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from toolproof.cli import cli

MINIMAL = Path(__file__).parent / "cases" / "minimal" / "contracts" / "echo.yaml"


def _project(tmp_path: Path, text: str | None = None) -> Path:
    (tmp_path / "contracts").mkdir()
    if text is None:
        shutil.copy(MINIMAL, tmp_path / "contracts" / "echo.yaml")
    else:
        (tmp_path / "contracts" / "echo.yaml").write_text(text, encoding="utf-8")
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
    written = (Path(__file__).parents[2] / "generated" / "exports" / "anthropic" / "all.json").read_text(
        encoding="utf-8"
    )

    assert runner.invoke(cli, ["export", "--format", "anthropic"]).stdout == written


def test_lint_shows_losses_as_notes_where_the_contract_says_them(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(cli, ["lint", "--project", str(_project(tmp_path))])

    assert result.exit_code == 0
    assert (
        "contracts/echo.yaml:9:11: note: openai: input/properties/word minLength: moved to description "
        "(OpenAI strict mode rejects it; the runtime still enforces it)"
    ) in result.stderr


def test_strict_export_turns_any_loss_into_an_error(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path)

    lint = runner.invoke(cli, ["lint", "--strict-export", "--project", str(root)])
    gen = runner.invoke(cli, ["gen", "--strict-export", "--project", str(root)])
    export = runner.invoke(cli, ["export", "--format", "openai", "--strict-export", "--project", str(root)])

    assert lint.exit_code == gen.exit_code == export.exit_code == 1
    assert "contracts/echo.yaml:9:11: openai: input/properties/word minLength: moved to description" in lint.stderr
    assert not (root / "generated").exists()


def test_a_tool_set_over_openai_limits_fails_lint(runner: CliRunner, tmp_path: Path) -> None:
    values = ", ".join(f"v{i}" for i in range(1001))
    text = MINIMAL.read_text(encoding="utf-8").replace(
        "    word: {type: string, minLength: 1}",
        f"    word: {{type: string, minLength: 1}}\n    pick: {{enum: [{values}]}}",
    )

    result = runner.invoke(cli, ["lint", "--project", str(_project(tmp_path, text))])

    assert result.exit_code == 1
    # 1002: strict mode adds null to the enum of an optional field.
    assert "provider limit: openai: 1002 enum values in one request; OpenAI allows at most 1000" in result.stderr
