"""The gen and lint commands, driven through click's runner."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from toolproof.cli import cli

MINIMAL = Path(__file__).parent / "cases" / "minimal" / "contracts" / "echo.yaml"


def _project(tmp_path: Path) -> Path:
    (tmp_path / "contracts").mkdir()
    shutil.copy(MINIMAL, tmp_path / "contracts" / "echo.yaml")
    return tmp_path


def test_gen_writes_then_check_passes(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path)

    written = runner.invoke(cli, ["gen", "--project", str(root)])
    checked = runner.invoke(cli, ["gen", "--check", "--project", str(root)])

    assert written.exit_code == 0, written.output
    assert "wrote generated/echo.py" in written.output
    assert checked.exit_code == 0
    assert "generated/ is up to date (1 contract(s))" in checked.output


def test_gen_is_idempotent(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path)
    runner.invoke(cli, ["gen", "--project", str(root)])

    again = runner.invoke(cli, ["gen", "--project", str(root)])

    assert again.exit_code == 0
    assert "0 file(s) changed" in again.output


def test_check_names_stale_missing_and_orphaned_files(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path)
    runner.invoke(cli, ["gen", "--project", str(root)])
    contract = root / "contracts" / "echo.yaml"
    contract.write_text(
        contract.read_text(encoding="utf-8").replace("Echo a word back.", "Echo one word."), encoding="utf-8"
    )
    (root / "generated" / "tests" / "test_echo.py").unlink()
    (root / "generated" / "leftover.py").write_text("x = 1\n", encoding="utf-8")

    result = runner.invoke(cli, ["gen", "--check", "--project", str(root)])

    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert "stale: generated/echo.py" in lines
    assert "stale: generated/exports/openai/all.json" in lines
    assert "stale: generated/MANIFEST.json" in lines
    assert "missing: generated/tests/test_echo.py" in lines
    assert "orphaned: generated/leftover.py" in lines
    assert (root / "generated" / "leftover.py").exists(), "--check must write nothing"


def test_gen_removes_orphans(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path)
    runner.invoke(cli, ["gen", "--project", str(root)])
    (root / "generated" / "old").mkdir()
    (root / "generated" / "old" / "gone.json").write_text("{}", encoding="utf-8")

    result = runner.invoke(cli, ["gen", "--project", str(root)])

    assert "removed generated/old/gone.json" in result.output
    assert not (root / "generated" / "old").exists()


def test_gen_refuses_to_write_when_a_contract_is_invalid(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "contracts" / "broken.yaml").write_text("name: [\n", encoding="utf-8")

    result = runner.invoke(cli, ["gen", "--project", str(root)])

    assert result.exit_code == 1
    assert "contracts/broken.yaml:2:1: error [TP002] YAML syntax error" in result.stderr
    assert not (root / "generated").exists()


def test_lint_prints_every_problem_and_exits_1(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path)
    text = MINIMAL.read_text(encoding="utf-8")
    (root / "contracts" / "echo.yaml").write_text(
        text.replace("input: {word: hi}", "input: {word: 1}"), encoding="utf-8"
    )

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert (
        "contracts/echo.yaml:25:19: error [TP304] example input breaks the input schema: $.word: expected string, "
        "got integer" in result.stderr
    )
    assert "Traceback" not in result.output


def test_lint_passes_on_good_contracts(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(cli, ["lint", "--project", str(_project(tmp_path))])

    assert result.exit_code == 0
    assert "1 contract(s) OK" in result.output


def test_a_missing_project_folder_is_reported_without_a_traceback(runner: CliRunner, tmp_path: Path) -> None:
    nope = tmp_path / "nope"
    result = runner.invoke(cli, ["lint", "--project", str(nope)])

    assert result.exit_code == 2
    assert result.stderr == (
        f"toolproof: {nope}: is not a toolproof project (no [tool.toolproof] in pyproject.toml, no toolproof.toml)\n"
    )


def test_lint_help_documents_the_exit_codes(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["lint", "--help"])

    text = " ".join(result.output.split())
    assert (
        "Exit codes: 0 no problem at error level (warnings and notes allowed); 1 at least one error; 2 a usage" in text
    )
    assert "error, or project settings that cannot be read." in text


def test_a_tab_in_a_contract_is_reported_where_it_stands(runner: CliRunner, tmp_path: Path) -> None:
    root = _project(tmp_path)
    contract = root / "contracts" / "echo.yaml"
    contract.write_text(
        contract.read_text(encoding="utf-8").replace("  required: [word]", "  \trequired: [word]"), encoding="utf-8"
    )

    result = runner.invoke(cli, ["lint", "--project", str(root)])

    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "contracts/echo.yaml:10:3: error [TP003] YAML does not allow tabs for indentation; use spaces",
        "1 error(s), 0 warning(s) in contracts",
    ]
