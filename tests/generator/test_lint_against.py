"""`lint --against REF` refuses a change that breaks callers unless the contract's major version moved."""

from __future__ import annotations

import subprocess
from pathlib import Path

from click.testing import CliRunner

from toolproof.cli import cli


def _git(folder: Path, *argv: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *argv],
        cwd=folder,
        check=True,
        capture_output=True,
        timeout=60,
    )


def _project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    assert CliRunner().invoke(cli, ["init", str(folder)]).exit_code == 0
    _git(folder, "init", "-q")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-qm", "first")
    return folder


def _tighten_max_words(folder: Path, version: str) -> None:
    contract = folder / "contracts" / "word_count.yaml"
    text = contract.read_text(encoding="utf-8")
    assert "      minimum: 1\n" in text
    text = text.replace("      minimum: 1\n", "      minimum: 2\n", 1)
    contract.write_text(text.replace("version: 1.0.0", f"version: {version}", 1), encoding="utf-8")


def test_a_breaking_change_without_a_major_bump_is_a_lint_error(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    _tighten_max_words(folder, "1.1.0")

    result = CliRunner().invoke(cli, ["lint", "--against", "HEAD", "--project", str(folder)])

    assert result.exit_code == 1
    assert (
        "contracts/word_count.yaml:2:10: error [TP407] 1 breaking change(s) but version 1.0.0 → 1.1.0 "
        "is not a major version bump; make it 2.0.0 or later\n"
    ) in result.stderr


def test_a_breaking_change_with_a_major_bump_lints_clean(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    _tighten_max_words(folder, "2.0.0")

    result = CliRunner().invoke(cli, ["lint", "--against", "HEAD", "--project", str(folder)])

    assert result.exit_code == 0, result.stderr
    assert "[TP407]" not in result.stderr


def test_an_unknown_ref_is_a_usage_error(tmp_path: Path) -> None:
    folder = _project(tmp_path)

    result = CliRunner().invoke(cli, ["lint", "--against", "no-such-ref", "--project", str(folder)])

    assert result.exit_code == 2
    assert result.stderr.startswith("toolproof: ")


def test_an_empty_against_is_a_usage_error_naming_the_empty_ref(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    _tighten_max_words(folder, "1.1.0")  # a breaking change an empty ref would hide: the project against itself

    result = CliRunner().invoke(cli, ["lint", "--against", "", "--project", str(folder)])

    assert result.exit_code == 2
    assert result.stderr.startswith("toolproof: --against '' names no ref: pass a git ref")
    assert "[TP407]" not in result.stderr
