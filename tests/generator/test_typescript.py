"""TypeScript declarations: what an ``allOf`` becomes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolproof.cli import cli

MINIMAL = Path(__file__).parent / "cases" / "minimal" / "contracts" / "echo.yaml"
TSC = Path(__file__).parents[2] / ".venv" / "node" / "node_modules" / ".bin" / "tsc"

FIELDS = """\
    mode: {allOf: [{type: string}, {enum: [plain, loud]}]}
    pair:
      allOf:
        - {type: object, properties: {a: {type: string}}}
        - {type: object, properties: {b: {type: integer}}, required: [b]}
"""


@pytest.fixture
def declarations(runner: CliRunner, tmp_path: Path) -> str:
    """The TypeScript of the minimal echo contract with two ``allOf`` fields."""
    text = MINIMAL.read_text(encoding="utf-8").replace(
        "    word: {type: string, minLength: 1, description: The word to echo.}\n",
        "    word: {type: string, minLength: 1, description: The word to echo.}\n" + FIELDS,
    )
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "echo.yaml").write_text(text, encoding="utf-8")

    result = runner.invoke(cli, ["export", "--format", "typescript", "--project", str(tmp_path)])

    assert result.exit_code == 0, result.output
    return result.stdout


def test_an_all_of_whose_parts_merge_is_declared_as_one_type(declarations: str) -> None:
    assert '  mode?: "plain" | "loud";\n' in declarations


def test_an_all_of_whose_parts_do_not_merge_is_declared_as_their_intersection(declarations: str) -> None:
    assert "  pair?: {\n    a?: string;\n  } & {\n    b: number;\n  };\n" in declarations
    assert ": unknown" not in declarations


def test_the_declarations_of_an_all_of_compile_under_strict(declarations: str, tmp_path: Path) -> None:
    if not TSC.exists():
        pytest.skip("the TypeScript compiler is installed by `make gen` (npm, into .venv/node)")
    path = tmp_path / "echo.d.ts"
    path.write_text(declarations, encoding="utf-8")

    done = subprocess.run(
        [str(TSC), "--noEmit", "--strict", str(path)], capture_output=True, text=True, timeout=300, check=False
    )

    assert done.returncode == 0, done.stdout + done.stderr


ERROR_OUTPUT = """\
  error_output:
    ok: false
    tries: [1, "two"]
    code: "{code}"
    error: "{message}"
    word: "{word}"
    says: "{word} was refused: {message}"
    help: "{hint}"
"""


@pytest.fixture
def with_error_output(runner: CliRunner, tmp_path: Path) -> str:
    """The TypeScript of the minimal echo contract with a ``render.error_output``."""
    text = MINIMAL.read_text(encoding="utf-8").replace('  result: "{echo}"\n', '  result: "{echo}"\n' + ERROR_OUTPUT)
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "echo.yaml").write_text(text, encoding="utf-8")

    result = runner.invoke(cli, ["export", "--format", "typescript", "--project", str(tmp_path)])

    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_error_type_carries_the_error_output_key_by_key(with_error_output: str) -> None:
    assert (
        "export interface EchoError {\n"
        "  code: EchoErrorCode;\n"
        "  message: string;\n"
        "  hint?: string;\n"
        "  /** The error as render.error_output builds it; absent when a value has no JSON form. */\n"
        "  output?: {\n"
        "    ok: false;\n"
        '    tries: [1, "two"];\n'
        "    code: EchoErrorCode;\n"
        "    error: string;\n"
        "    word?: unknown;\n"
        "    says?: string;\n"
        "    help?: unknown;\n"
        "  };\n"
        "}\n"
    ) in with_error_output


def test_a_contract_without_an_error_output_declares_none(declarations: str) -> None:
    assert "export interface EchoError {\n  code: EchoErrorCode;\n  message: string;\n  hint?: string;\n}\n" in (
        declarations
    )


def test_the_error_output_type_compiles_under_strict_and_takes_what_the_runtime_sends(
    with_error_output: str, tmp_path: Path
) -> None:
    if not TSC.exists():
        pytest.skip("the TypeScript compiler is installed by `make gen` (npm, into .venv/node)")
    sent = (
        'const refused: EchoError = {code: "too_loud", message: "m", output: {ok: false, tries: [1, "two"],'
        ' code: "too_loud", error: "m", word: "HI", says: "HI was refused: m"}};\n'
        'const invalid: EchoError = {code: "invalid_arguments", message: "m", output: {ok: false, tries: [1, "two"],'
        ' code: "invalid_arguments", error: "m", word: 42}};\n'
        "export const errors = [refused, invalid];\n"
    )
    path = tmp_path / "echo.ts"
    path.write_text(with_error_output + sent, encoding="utf-8")

    done = subprocess.run(
        [str(TSC), "--noEmit", "--strict", str(path)], capture_output=True, text=True, timeout=300, check=False
    )

    assert done.returncode == 0, done.stdout + done.stderr
