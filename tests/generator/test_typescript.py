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
        "    word: {type: string, minLength: 1}\n", "    word: {type: string, minLength: 1}\n" + FIELDS
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
