"""`toolproof call`: one JSON object out, tool errors as data, usage errors as exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import cli


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    folder = tmp_path / "skills"
    (folder / "calculator" / "examples").mkdir(parents=True)
    (folder / "calculator" / "examples" / "basic.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("SECRET", encoding="utf-8")
    return folder


def _call(runner: CliRunner, *args: str) -> tuple[int, dict[str, object] | None, str]:
    result = runner.invoke(cli, ["call", *args])
    payload = json.loads(result.stdout) if result.exit_code == 0 else None
    return result.exit_code, payload, result.stderr


def test_call_prints_ok_output_and_text(runner: CliRunner, skills: Path) -> None:
    args = json.dumps({"skill_name": "calculator", "file_path": "examples/basic.py"})

    code, payload, _ = _call(runner, "read_file_in_skill", "--args", args, "--skills", str(skills))

    assert code == 0
    assert payload == {
        "ok": True,
        "output": {
            "success": True,
            "skill_name": "calculator",
            "file_path": "examples/basic.py",
            "content": "def add(a, b):\n    return a + b\n",
            "size_bytes": 32,
            "encoding": "utf-8",
        },
        "error": None,
        "text": "def add(a, b):\n    return a + b\n",
    }


def test_a_tool_error_is_data_and_exits_0(runner: CliRunner, skills: Path) -> None:
    args = json.dumps({"skill_name": "calculator", "file_path": "../../secret.txt"})

    code, payload, _ = _call(runner, "read_file_in_skill", "--args", args, "--skills", str(skills))

    assert code == 0
    assert payload == {
        "ok": False,
        "output": None,
        "error": {
            "code": "path_traversal",
            "message": "Path traversal detected: cannot access files outside skill folder",
        },
        "text": "ERROR: Path traversal detected: cannot access files outside skill folder",
    }


def test_arguments_that_are_not_json_are_a_tool_error(runner: CliRunner, skills: Path) -> None:
    code, payload, _ = _call(runner, "read_file_in_skill", "--args", "{nope", "--skills", str(skills))

    assert code == 0
    assert payload is not None
    assert payload["error"] == {
        "code": "invalid_arguments",
        "message": "Invalid arguments: $: arguments are not valid JSON "
        "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1))",
    }


def test_verbose_prints_the_transparency_lines(runner: CliRunner, skills: Path) -> None:
    args = json.dumps({"skill_name": "calculator", "file_path": "examples/basic.py"})

    result = runner.invoke(cli, ["call", "read_file_in_skill", "--args", args, "--skills", str(skills), "-v"])

    assert result.stderr.splitlines()[:2] == [
        '[Tool Call] read_file_in_skill(skill_name="calculator", file_path="examples/basic.py")',
        "[Tool Result] def add(a, b):",
    ]


def test_an_unknown_tool_is_a_usage_error(runner: CliRunner) -> None:
    code, _, err = _call(runner, "no_such_tool")

    assert code == 2
    assert "unknown tool 'no_such_tool'; available: " in err
    assert "read_file_in_skill" in err


def test_a_missing_root_folder_is_a_usage_error(runner: CliRunner, tmp_path: Path) -> None:
    code, _, err = _call(runner, "read_file_in_skill", "--skills", str(tmp_path / "missing"))

    assert code == 2
    assert "does not exist" in err


def test_the_console_script_never_prints_a_traceback(skills: Path) -> None:
    runs = [
        ["call", "read_file_in_skill", "--args", "\x01\x02", "--skills", str(skills)],
        [
            "call",
            "read_file_in_skill",
            "--args",
            '{"skill_name": "calculator", "file_path": "\\u0000"}',
            "--skills",
            str(skills),
        ],
        ["call"],
        ["nonsense"],
        ["gen", "--project", str(skills)],
    ]
    for argv in runs:
        done = subprocess.run(
            [sys.executable, "-c", "from generator.cli import main; main()", *argv],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert "Traceback" not in done.stdout + done.stderr, argv
        assert done.returncode in (0, 1, 2), argv
