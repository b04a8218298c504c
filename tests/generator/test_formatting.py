"""Generated Python is what ``ruff format`` makes of it and passes ``ruff check``, whatever text a contract holds."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from toolproof.cli import cli
from toolproof.generator import load_project

REPO = Path(__file__).resolve().parents[2]
CASES = Path(__file__).parent / "cases"
RULES = "E,F,I,UP,B,RUF"
"""This repository's rule set: a project's generated code must pass it as well as ruff's defaults."""
_RUFF = Path(sys.executable).with_name("ruff")
RUFF = str(_RUFF) if _RUFF.is_file() else shutil.which("ruff")

pytestmark = pytest.mark.skipif(RUFF is None, reason="ruff is not installed")

HOSTILE = [
    'a "quoted" word, a \'single\' one and """ three of them',
    "a backslash \\ at the end \\",
    "unicode line\u2028and paragraph\u2029separators, a next line\x85, a tab\tand a NUL-free \x07 bell",
    "accents \u00e9, wide \u6f22\u5b57, an emoji \U0001f600 and a lone \u2018quote\u2019 \u2160",
    "a very long message " + "that keeps on going and going " * 12 + 'until it ends with a quote"',
    "averylongwordwithnospacesthatcannotbebrokenanywhereatallbecauseitisjustonewordrunningonandonandon" * 2,
]


def _ruff(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    assert RUFF is not None
    return subprocess.run([RUFF, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


def _assert_clean(folder: Path, cwd: Path, *settings: str) -> None:
    formatted = _ruff("format", "--check", "--no-cache", *settings, str(folder), cwd=cwd)
    checked = _ruff("check", "--no-cache", *settings, str(folder), cwd=cwd)
    strict = _ruff("check", "--no-cache", *settings, "--extend-select", RULES, str(folder), cwd=cwd)

    assert formatted.returncode == 0, formatted.stdout + formatted.stderr
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert strict.returncode == 0, strict.stdout + strict.stderr


@pytest.mark.parametrize(
    "folder",
    ["toolproof/builtin/generated", "tests/conformance_project/generated"],
)
def test_this_repositorys_generated_python_passes_ruff_without_any_ignore(folder: str) -> None:
    _assert_clean(REPO / folder, REPO, "--config", "lint.per-file-ignores = {}")


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir() if (p / "generated").is_dir()))
def test_each_golden_cases_python_passes_ruff_at_the_line_length_it_was_written_for(case: str) -> None:
    width = load_project(CASES / case).layout.width  # the repository's: ruff excludes the cases, gen does not
    _assert_clean(CASES / case / "generated", REPO, "--isolated", "--line-length", str(width))


def test_a_new_projects_generated_python_passes_ruff_with_the_projects_own_settings(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    assert CliRunner().invoke(cli, ["init", str(folder)]).exit_code == 0
    assert CliRunner().invoke(cli, ["new", "greet-people", "--project", str(folder)]).exit_code == 0

    _assert_clean(folder / "generated", folder)


def _hostile_project(root: Path, width: int | None) -> Path:
    (root / "contracts").mkdir(parents=True)
    errors = {f"hostile_{i}": {"message": text, "hint": text} for i, text in enumerate(HOSTILE)}
    contract = {
        "name": "hostile_text_tool_with_a_name_long_enough_to_push_its_lines",
        "version": "1.0.0",
        "title": HOSTILE[0],
        "description": " ".join(HOSTILE),
        "annotations": {"read_only": True, "destructive": False, "idempotent": True, "open_world": False},
        "input": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": HOSTILE[2]}},
            "required": ["text"],
            "additionalProperties": False,
        },
        "output": {
            "type": "object",
            "description": HOSTILE[4],
            "properties": {"echo": {"type": "string", "description": HOSTILE[3]}},
            "required": ["echo"],
            "additionalProperties": False,
        },
        "errors": errors,
        "render": {"result": "{echo}"},
        "examples": [{"name": HOSTILE[1], "input": {"text": "hi"}, "expect": {"output": {"echo": "hi"}}}],
    }
    name = "hostile_text_tool_with_a_name_long_enough_to_push_its_lines"
    shapes = {
        "name": "nested_shapes",
        "version": "1.0.0",
        "title": "Nested shapes",
        "description": "Shapes whose annotations do not fit a line.",
        "annotations": contract["annotations"],
        "input": {
            "type": "object",
            "properties": {
                "mode": {"enum": HOSTILE[:4], "description": HOSTILE[1]},
                "from": {"type": ["string", "null"], "description": "A keyword: the TypedDict is functional."},
            },
            "additionalProperties": False,
        },
        "output": {
            "type": "object",
            "properties": {
                "a_property_name_long_enough_to_push_its_annotation": {
                    "type": "array",
                    "description": HOSTILE[4],
                    "items": {
                        "type": "object",
                        "properties": {
                            "a_long_nested_list_of_lists": {
                                "type": "array",
                                "items": {"type": "array", "items": {"enum": ["first value", "second value"]}},
                            },
                        },
                    },
                },
                "pairs": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "integer"}}},
            },
            "additionalProperties": False,
        },
        "errors": {},
        "render": {"result": "ok"},
        "examples": [{"name": "empty", "input": {}, "expect": {"output": {}}}],
    }
    for tool, data in ((name, contract), ("nested_shapes", shapes)):
        text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=10_000)
        (root / "contracts" / f"{tool}.yaml").write_text(text, encoding="utf-8")
    ruff = "" if width is None else f"[tool.ruff]\nline-length = {width}\n\n"
    settings = f"{ruff}[tool.toolproof]\ncommand = 'make \"gen\" \\ now'\n"
    (root / "pyproject.toml").write_text(settings, encoding="utf-8")
    (root / "handlers").mkdir()
    for tool in (name, "nested_shapes"):
        (root / "handlers" / f"{tool}.py").write_text("def handle(args, ctx):\n    return {}\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["gen", "--project", str(root)])
    assert result.exit_code == 0, result.output
    return root


@pytest.mark.parametrize("width", [None, 100, 120])
def test_hostile_contract_text_is_formatted_and_imports_with_exact_values(tmp_path: Path, width: int | None) -> None:
    root = _hostile_project(tmp_path / "proj", width)
    settings = () if width is None else ("--line-length", str(width))

    _assert_clean(root / "generated", root, *settings)
    probe = (
        "import json, os, sys\n"
        "before = sorted(os.listdir('.'))\n"
        "from generated import nested_shapes\n"
        "assert nested_shapes.NestedShapesInput.__annotations__\n"
        "from generated import hostile_text_tool_with_a_name_long_enough_to_push_its_lines as m\n"
        "errors = [getattr(m, f'hostile_{i}')() for i in range(6)]\n"
        "assert sorted(os.listdir('.')) == before\n"
        "json.dump([[e.code, e.message, e.hint] for e in errors] + [m.__doc__], sys.stdout)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, timeout=60, check=False
    )

    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)[:-1] == [[f"hostile_{i}", text, text] for i, text in enumerate(HOSTILE)]
    lines = [
        line for path in (root / "generated").rglob("*.py") for line in path.read_text(encoding="utf-8").splitlines()
    ]
    assert [line for line in lines if len(line) > (width or 88) and " " in line.strip()] == []
