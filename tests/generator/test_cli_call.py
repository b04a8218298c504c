"""`toolproof call`: one JSON object; exit 0 when the tool ran (errors are data), 2 when it could not, 1 on a fault."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolproof.cli import cli


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
            "hint": "Give a path relative to the skill folder, without '..', '~' or a leading '/'.",
            "output": {
                "success": False,
                "skill_name": "calculator",
                "file_path": "../../secret.txt",
                "error": "Path traversal detected: cannot access files outside skill folder",
            },
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
        "hint": "Correct the argument named in the message and call the tool again.",
        "output": {
            "success": False,
            "error": "Invalid arguments: $: arguments are not valid JSON "
            "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1))",
        },
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


def _console(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolproof", *argv], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def test_a_project_that_cannot_be_served_exits_2_as_every_call_that_cannot_be_made_not_1(
    runner: CliRunner, tmp_path: Path
) -> None:
    """The docs promise 0 and 2; a handler missing from the project once exited 1, like a crash of toolproof."""
    project = tmp_path / "tools"
    assert runner.invoke(cli, ["init", str(project)]).exit_code == 0
    (project / "handlers" / "word_count.py").unlink()

    done = _console("call", "word_count", "--args", '{"text": "to be"}', cwd=project)

    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert "contract 'word_count' (contracts/word_count.yaml in generated) has no handler" in done.stderr


def test_a_project_that_cannot_be_found_or_is_stale_exits_2(runner: CliRunner, tmp_path: Path) -> None:
    project = tmp_path / "tools"
    assert runner.invoke(cli, ["init", str(project)]).exit_code == 0
    missing = runner.invoke(cli, ["call", "word_count", "--project", str(tmp_path / "nowhere")])
    contract = project / "contracts" / "word_count.yaml"
    contract.write_text(contract.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")

    stale = _console("call", "word_count", "--args", '{"text": "to be"}', cwd=project)

    assert missing.exit_code == 2
    assert f"toolproof: {tmp_path / 'nowhere'}: is not a toolproof project" in missing.stderr
    assert stale.returncode == 2
    assert "contracts/word_count.yaml changed after its code was generated" in stale.stderr


def test_call_exits_1_only_when_toolproof_itself_fails(
    runner: CliRunner, skills: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from toolproof.runtime.dispatch import Runtime

    def failing(*_: object, **__: object) -> None:
        raise OSError(errno.EIO, "Input/output error", "/var/lib/somewhere")

    monkeypatch.setattr(Runtime, "call", failing)
    code, payload, err = _call(runner, "read_file_in_skill", "--skills", str(skills))

    assert code == 1
    assert payload is None
    assert err.startswith("toolproof: /var/lib/somewhere: Input/output error; ")


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
            [sys.executable, "-c", "from toolproof.cli import main; main()", *argv],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert "Traceback" not in done.stdout + done.stderr, argv
        assert done.returncode in (0, 1, 2), argv


def test_a_gated_tool_works_across_calls_of_one_session(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLPROOF_GATE_SECRET", "cli-test-secret-16b")
    (tmp_path / "a.txt").write_text("alpha\n", encoding="utf-8")
    base = ["call", "read_file", "--workspace", str(tmp_path), "--session", "s1"]

    doc = json.loads(runner.invoke(cli, [*base, "--args", '{"path": "builtin://read_file/SKILL.md"}']).stdout)
    token = doc["output"]["skillToken"]
    read = json.loads(runner.invoke(cli, [*base, "--args", json.dumps({"path": "a.txt", "skillToken": token})]).stdout)
    other = runner.invoke(
        cli,
        [
            "call",
            "read_file",
            "--workspace",
            str(tmp_path),
            "--session",
            "s2",
            "--args",
            json.dumps({"path": "a.txt", "skillToken": token}),
        ],
    )

    assert read["text"] == "1\talpha"
    assert json.loads(other.stdout)["error"]["code"] == "skill_token_invalid"


@pytest.mark.parametrize(
    ("tool", "args", "text"),
    [
        ("get_skill", {"skill_name": "calculator"}, '{"skill_name": "calculator", "documentation": "# Calc\\n"}'),
        ("read_skill", {"skill_name": "calculator"}, "Body.\n"),
        ("file-read", {"path": "notes.txt"}, "Read 1 lines from notes.txt\n\n1 | hello"),
    ],
)
def test_every_ungated_tool_answers_from_the_shell(
    runner: CliRunner, tmp_path: Path, tool: str, args: dict[str, str], text: str
) -> None:
    skills_dir, ws = tmp_path / "skills", tmp_path / "ws"
    (skills_dir / "calculator").mkdir(parents=True)
    (skills_dir / "calculator" / "SKILL.MD").write_text("# Calc\n", encoding="utf-8")
    (skills_dir / "calculator" / "SKILL.md").write_text(
        "---\nname: calculator\ndescription: Sums.\n---\nBody.\n", encoding="utf-8"
    )
    ws.mkdir()
    (ws / "notes.txt").write_text("hello\n", encoding="utf-8")

    result = runner.invoke(
        cli, ["call", tool, "--skills", str(skills_dir), "--workspace", str(ws), "--args", json.dumps(args)]
    )

    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["text"] == text


def test_toolset_limits_the_tools_served(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["call", "read_file", "--toolset", "skills-runner"])

    assert result.exit_code == 2
    assert "unknown tool 'read_file' in tool set 'skills-runner'; available: read_file_in_skill" in result.stderr


def test_toolsets_lists_one_set_per_seed_system(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["toolsets"])

    assert result.stdout.splitlines() == [
        "aintern: file-read",
        "gateway: read_file",
        "queryclaw: read_skill, use_skill (prompt)",
        "skill-docs: get_skill, skill_doc (resource)",
        "skills-runner: read_file_in_skill",
    ]


def test_skills_prints_the_summary_and_its_problems(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "Bad").mkdir()
    (tmp_path / "Bad" / "SKILL.md").write_text("---\nname: Bad\ndescription: x\n---\n", encoding="utf-8")

    result = runner.invoke(cli, ["skills", "--skills", str(tmp_path)])

    assert result.exit_code == 0
    assert "  - data_analysis: " in result.stdout
    assert "  - Bad: x — call read_skill(skill_name='Bad') to load instructions when relevant" in result.stdout
    assert "warning: skill 'Bad' (workspace): 'name' 'Bad' must be lowercase" in result.stderr
